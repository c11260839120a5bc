/* wrapper.c - see wrapper.h. Two halves: the scan side (make the link
 * directory, run the build with it in PATH and CC/CXX) and the compiler side
 * (called through a link: find the real compiler, add the record flags,
 * record the compile). They meet in the environment: FMVGEN_STORE names the
 * store, FMVGEN_WRAPPED marks a compile already being wrapped (a compiler
 * script like c89-gcc calling "gcc" again must not be recorded twice). */
#include "capture/wrapper.h"
#include "capture/compdb.h"
#include "capture/compiler.h"
#include "capture/probe.h"
#include "run/spawn.h"
#include "store/store.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WRAPPED_ENV "FMVGEN_WRAPPED"
/* In a link directory made for an absolute CC/CXX: the compiler it stands for. */
#define REAL_COMPILER_FILE "real-compiler"
#define META_UNSUPPORTED "wrapper_unsupported_compilers"
#define CCACHE_DISABLE_ENV "CCACHE_DISABLE"
/* Set for the compiler a wrapper in append mode runs: a compiler script or a
 * launcher calling a wrapper link again gets the flags once. */
#define APPENDED_ENV "FMVGEN_CC_APPENDED"

/* ---- common ---- */

static char *real_or_null(const char *path)
{
    return realpath(path, NULL);
}

/* 1 when path resolves to fmvgen itself or its wrapper executable: never
 * a real compiler, whichever link or copy led there. */
static int is_fmvgen(const char *path)
{
    char *real = real_or_null(path);
    if (!real) return 0;
    const char *base = path_basename(real);
    int yes = !strcmp(base, "fmvgen") || !strcmp(base, WRAPPER_EXE_NAME);
    if (!yes) {
        char *self = self_exe_path();
        char *self_real = self ? real_or_null(self) : NULL;
        yes = self_real && !strcmp(self_real, real);
        free(self);
        free(self_real);
    }
    free(real);
    return yes;
}

static char *wrap_dir_of(const char *builddir)
{
    char *store = path_join(builddir, STORE_DIRNAME);
    char *dir = path_join(store, "wrap");
    free(store);
    return dir;
}

int wrapper_is_configure_probe(const char *path)
{
    const char *base = path_basename(path);
    const char *cmake_files = strstr(path, "/CMakeFiles/");
    return !strncmp(base, "conftest.", 9) || strstr(path, "/CMakeFiles/CMakeTmp/") ||
           strstr(path, "/CMakeFiles/CMakeScratch/") || strstr(path, "/meson-private/") ||
           /* CMake's compiler identification: CMakeFiles/3.25.1/CompilerIdC/ */
           (cmake_files && strstr(cmake_files, "/CompilerId"));
}

/* ---- the compiler side ---- */

/* The directory of the link we were called through, when it is one. */
static char *own_link_dir(const char *argv0)
{
    if (strchr(argv0, '/')) {
        char *abs = path_absolute(argv0, NULL);
        char *dir = path_dirname(abs);
        free(abs);
        return dir;
    }
    const char *path = getenv("PATH");
    if (!path) return NULL;
    char *copy = xstrdup(path), *save = NULL, *found = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *cand = path_join(*d ? d : ".", argv0);
        if (access(cand, X_OK) == 0 && is_fmvgen(cand)) found = path_absolute(*d ? d : ".", NULL);
        free(cand);
    }
    free(copy);
    return found;
}

/* 1 when path resolves to ccache: its masquerade links (/usr/lib/ccache/gcc)
 * stand for the compiler of the same name further down PATH. */
static int is_ccache(const char *path)
{
    char *real = real_or_null(path);
    int yes = real && !strcmp(path_basename(real), "ccache");
    free(real);
    return yes;
}

/* The compiler the build meant: for a link made for an absolute CC, the
 * path written next to it; else the first `name` in PATH that is neither in
 * the link directory nor fmvgen itself. ccache's masquerade links are
 * passed over (for the absolute CC too): the scan needs every compile to
 * run (see wrapper_run_build), and the stored compiler must be the real one,
 * which probes later run directly. */
static char *find_real_compiler(const char *name, const char *link_dir)
{
    if (link_dir) {
        char *f = path_join(link_dir, REAL_COMPILER_FILE);
        char *text = file_exists(f) ? read_file(f, NULL) : NULL;
        free(f);
        if (text) {
            text[strcspn(text, "\n")] = 0;
            if (*text && !is_fmvgen(text) && !is_ccache(text)) return text;
            free(text);
        }
    }
    char *link_real = link_dir ? real_or_null(link_dir) : NULL;
    const char *path = getenv("PATH");
    char *copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    char *save = NULL, *found = NULL;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *dir_real = real_or_null(*d ? d : ".");
        int skip = !dir_real || (link_real && !strcmp(dir_real, link_real));
        free(dir_real);
        if (skip) continue;
        char *cand = path_join(*d ? d : ".", name);
        if (access(cand, X_OK) == 0 && !is_directory(cand) && !is_fmvgen(cand) && !is_ccache(cand))
            found = path_absolute(cand, NULL);
        free(cand);
    }
    free(copy);
    free(link_real);
    return found;
}

static int run_inherited(char *const *argv)
{
    struct run_result r;
    run_argv(argv, NULL, &r);
    int code = run_exit_code(&r);
    if (!r.spawned) fmv_error("%s: cannot run: %s", argv[0], strerror(r.errno_spawn));
    run_result_free(&r);
    return code;
}

/* A command the wrapper only passes on (no source to record, or no store):
 * the wrapper process becomes the compiler (execv), so the build pays for
 * no second process and no wait. Returns only when it cannot run it. */
static int exec_inherited(char *const *argv)
{
    execv(argv[0], argv);
    int err = errno;
    fmv_error("%s: cannot run: %s", argv[0], strerror(err));
    return err == ENOENT ? 127 : 126;
}

static void note_unsupported(const char *store_dir, const char *compiler)
{
    struct store *st = NULL;
    if (store_open(store_dir, 0, &st) != 0) return;
    if (store_begin(st) == 0) {
        char *old = store_meta_get(st, META_UNSUPPORTED);
        struct strbuf sb = STRBUF_INIT;
        int present = 0;
        if (old) {
            sb_adds(&sb, old);
            for (char *line = old; *line;) {
                size_t n = strcspn(line, "\n");
                if (n == strlen(compiler) && !strncmp(line, compiler, n)) present = 1;
                line += n + (line[n] == '\n');
            }
        }
        if (!present) sb_addf(&sb, "%s\n", compiler);
        store_meta_set(st, META_UNSUPPORTED, sb_str(&sb));
        store_commit(st);
        sb_free(&sb);
        free(old);
    }
    store_close(st);
}

/* One C/C++ source of the wrapped command and where its records go. */
struct wrapped_source {
    char *source, *output, *records_dir;
    const char *language;
    char *record_path;
    const char *format;
    int records_ok;   /* the compile that writes the records succeeded */
};

static void record_compiles(const char *store_dir, char *const *argv, const char *cwd, const struct compiler_id *id,
                            struct wrapped_source *ws, size_t n, int exit_status)
{
    struct store *st = NULL;
    if (store_open(store_dir, 0, &st) != 0) {
        fmv_warn("%s: compile not recorded (no store in %s)", ws[0].source, store_dir);
        return;
    }
    /* The checkpoint is left to the scan, which reads the store after the
     * build, instead of being paid per compile. */
    store_skip_checkpoint_on_close(st);
    for (size_t i = 0; i < n; i++) {
        char *hash = hash_file_hex(ws[i].source);
        struct compile_info ci = {
            .directory = cwd,
            .argv = argv,
            .compiler = id->path,
            .compiler_kind = compiler_kind_name(id->kind),
            .compiler_version = id->version,
            .source = ws[i].source,
            .output = ws[i].output,
            .language = ws[i].language,
            .exit_status = exit_status,
            .source_hash = hash,
        };
        /* The compile and its record file (or note) in one commit. */
        int tx = store_begin(st) == 0;
        int64_t cid = store_add_compile(st, &ci);
        if (cid >= 0 && exit_status == 0) {
            /* A compile that gives no records would silently drop its
             * functions: the note makes the scan say so (scan.c). */
            char *found = ws[i].records_ok ? compiler_record_file_found(ws[i].record_path, ws[i].format) : NULL;
            if (found) store_add_record_file(st, cid, "build", ws[i].format, found);
            else
                store_add_tu_note(st, cid, TU_NOTE_NO_RECORDS,
                                  ws[i].records_ok ? "the compiler wrote no optimization record file"
                                                   : "the records-only compile beside the build's failed");
            free(found);
        }
        if (tx && (cid < 0 || store_commit(st) != 0)) {
            store_rollback(st);
            cid = -1;
        }
        if (cid < 0) fmv_warn("%s: compile not recorded in %s", ws[i].source, store_path(st));
        free(hash);
    }
    store_close(st);
}

/* <wrap_records>/<hash of source and output>: one compile's records dir. */
static char *records_dir_of(const char *wrap_records, const char *source, const char *output)
{
    struct strbuf key = STRBUF_INIT;
    sb_adds(&key, source);
    sb_addc(&key, '\n');
    sb_adds(&key, output);
    char *h = hash_bytes_hex(key.buf, key.len);
    char *dir = path_join(wrap_records, h);
    free(h);
    sb_free(&key);
    return dir;
}

char *wrapper_kept_object_path(const char *store_dir, const char *source, const char *output)
{
    char *wrap_records = path_join(store_dir, "records/wrap");
    char *dir = records_dir_of(wrap_records, source, output);
    char *kept = path_join(dir, WRAPPER_KEPT_OBJECT);
    free(dir);
    free(wrap_records);
    return kept;
}

char *wrapper_kept_object(const char *store_dir, const char *source, const char *output)
{
    char *kept = wrapper_kept_object_path(store_dir, source, output);
    if (access(kept, R_OK) == 0) return kept;
    free(kept);
    return NULL;
}

/* The compiled object kept beside its records (wrapper.h): a hard link, or
 * a copy when the records live on another file system. Failing only costs
 * the ISA comparison of a build that deletes its objects. */
static void keep_object(const struct wrapped_source *w, const char *object)
{
    if (!object || !w->records_dir) return;
    char *kept = path_join(w->records_dir, WRAPPER_KEPT_OBJECT);
    unlink(kept);
    if (link(object, kept) != 0) {
        size_t len = 0;
        char *data = read_file(object, &len);
        if (data) write_file_atomic(kept, data, len);
        free(data);
    }
    free(kept);
}

static int wrap_compile(const char *store_dir, char **real_argv)
{
    /* @FILE arguments expanded (the compiler reads them itself), so that
     * the classification sees every option and the store keeps a command
     * that still works after the build deleted a temporary response file. */
    struct strvec expanded = STRVEC_INIT;
    compdb_expand_response_files(real_argv, NULL, &expanded);
    struct compile_args args;
    compile_args_parse(sv_argv(&expanded), &args);
    char *cwd = get_cwd();
    struct wrapped_source *ws = xcalloc(args.sources.n ? args.sources.n : 1, sizeof *ws);
    size_t n = 0;
    for (size_t i = 0; args.is_compile && i < args.sources.n; i++) {
        char *src = path_absolute(args.sources.v[i], cwd);
        /* CMake compiles its own Modules/CMakeCCompilerABI.c inside a
         * CMakeScratch dir: the directory counts as much as the source. */
        char *out = compile_args_output_of(&args, i, cwd);
        int probe = wrapper_is_configure_probe(src) || wrapper_is_configure_probe(out) ||
                    wrapper_is_configure_probe(cwd);
        free(out);
        if (probe) {
            free(src);
            continue;
        }
        ws[n].source = src;
        ws[n].output = compile_args_output_of(&args, i, cwd);
        ws[n].language = args.languages.v[i];
        n++;
    }
    struct compiler_id id = {0};
    int code;
    if (n == 0) {
        code = exec_inherited(real_argv);
        goto out;
    }
    char *cache = path_join(store_dir, STORE_DIRNAME "/compilers");
    int known = compiler_identify_cached(real_argv[0], cache, &id);
    free(cache);
    if (known != 0) {
        /* The error names the compiler; the build goes on, unrecorded. */
        note_unsupported(store_dir, real_argv[0]);
        code = run_inherited(real_argv);
        goto out;
    }

    char *wrap_records = path_join(store_dir, STORE_DIRNAME "/records/wrap");
    for (size_t i = 0; i < n; i++) {
        /* One stable directory per (source, output): a rebuild replaces its
         * own records and nothing piles up. */
        ws[i].records_dir = records_dir_of(wrap_records, ws[i].source, ws[i].output);
        remove_tree(ws[i].records_dir);
        mkdir_p(ws[i].records_dir, 0755);
    }
    free(wrap_records);

    const char *unsafe = compiler_records_change_outputs(&id, sv_argv(&expanded));
    /* A compile-and-link command leaves no object of its own: its
     * records-only compiles write one (the build's code: same flags, -c)
     * for the ISA comparison to read, kept like a build's object. Not
     * under -flto, where the code is the link's and the records-only
     * compile's (-fno-lto) would not be it. */
    int object_of_link = args.links && !compiler_args_lto(sv_argv(&expanded));
    if (!unsafe && n == 1 && args.sources.n == 1 && !object_of_link) {
        /* The common case: the record flags ride along on the build's own
         * compile (measured: objects stay byte-identical). */
        struct strvec flags = STRVEC_INIT, run = STRVEC_INIT;
        compiler_record_flags(&id, ws[0].records_dir, ws[0].output, &flags, &ws[0].record_path, &ws[0].format);
        sv_push_all(&run, real_argv);
        sv_push_all(&run, sv_argv(&flags));
        code = run_inherited(sv_argv(&run));
        ws[0].records_ok = 1;
        sv_free(&flags);
        sv_free(&run);
    } else {
        /* The build's compile unchanged, and next to it one records-only
         * compile per source (probe_build_argv: no LTO, no debug info, no
         * side files; output to a temp dir). */
        char *tmp = make_temp_dir("wrap");
        struct run_job *jobs = xcalloc(n + 1, sizeof *jobs);
        struct run_result *res = xcalloc(n + 1, sizeof *res);
        struct strvec *argvs = xcalloc(n, sizeof *argvs);
        char **objects = xcalloc(n, sizeof *objects);
        jobs[0].argv = real_argv;
        /* GCC would write a dependency file named in these for the
         * records-only compile too, over the build's own. */
        static const char *const dep_vars[] = {"DEPENDENCIES_OUTPUT", "SUNPRO_DEPENDENCIES", NULL};
        struct strvec env = STRVEC_INIT;
        env_without(dep_vars, &env);
        size_t nj = 1;
        for (size_t i = 0; tmp && i < n; i++) {
            char *sub = xasprintf("%s/%zu", tmp, i);
            mkdir_p(sub, 0700);
            char *out = path_join(sub, path_basename(ws[i].output));
            struct strvec flags = STRVEC_INIT;
            compiler_record_flags(&id, ws[i].records_dir, out, &flags, &ws[i].record_path, &ws[i].format);
            struct compile_row row = {.directory = cwd, .compiler = id.path, .source = ws[i].source,
                                      .argv = sv_argv(&expanded)};
            probe_build_argv(&row, NULL, sv_argv(&flags), out, &argvs[i]);
            if (object_of_link) {
                probe_object_argv(probe_compile_has_debug(&row), &argvs[i], &out);
                objects[i] = xstrdup(out);
            }
            jobs[nj].argv = sv_argv(&argvs[i]);
            jobs[nj].opts.capture_stderr = 1;
            jobs[nj].opts.null_stdout = 1;
            jobs[nj].opts.env = sv_argv(&env);
            nj++;
            sv_free(&flags);
            free(out);
            free(sub);
        }
        run_pool(jobs, nj, 2, res);
        code = run_exit_code(&res[0]);
        if (!res[0].spawned) fmv_error("%s: cannot run: %s", real_argv[0], strerror(res[0].errno_spawn));
        for (size_t i = 1; i < nj; i++) ws[i - 1].records_ok = res[i].exited && res[i].status == 0;
        for (size_t i = 0; code == 0 && i + 1 < nj; i++)
            if (ws[i].records_ok) keep_object(&ws[i], objects[i]);
        for (size_t i = 0; i < n; i++) free(objects[i]);
        free(objects);
        for (size_t i = 0; i < nj; i++) run_result_free(&res[i]);
        for (size_t i = 0; i < n; i++) sv_free(&argvs[i]);
        free(argvs);
        sv_free(&env);
        free(res);
        free(jobs);
        if (tmp) remove_tree(tmp);
        free(tmp);
    }
    if (code == 0 && !args.links)
        for (size_t i = 0; i < n; i++) keep_object(&ws[i], ws[i].output);
    record_compiles(store_dir, sv_argv(&expanded), cwd, &id, ws, n, code);

out:
    for (size_t i = 0; i < n; i++) {
        free(ws[i].source);
        free(ws[i].output);
        free(ws[i].records_dir);
        free(ws[i].record_path);
    }
    free(ws);
    compiler_id_free(&id);
    free(cwd);
    compile_args_free(&args);
    sv_free(&expanded);
    return code;
}

/* Append mode (wrapper.h): the flags of WRAPPER_APPEND_ENV after the
 * arguments of a compile, and its sources logged. */
static void append_flags(struct strvec *run)
{
    const char *flags = getenv(WRAPPER_APPEND_ENV);
    if (!flags || !*flags || getenv(APPENDED_ENV)) return;
    setenv(APPENDED_ENV, "1", 1);
    struct compile_args args;
    compile_args_parse(sv_argv(run), &args);
    if (args.is_compile) {
        char *copy = xstrdup(flags), *save = NULL;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) sv_push(run, w);
        free(copy);
        const char *log = getenv(WRAPPER_APPEND_LOG_ENV);
        if (log && *log) {
            char *cwd = get_cwd();
            struct strbuf sb = STRBUF_INIT;
            for (size_t i = 0; i < args.sources.n; i++) {
                char *abs = path_absolute(args.sources.v[i], cwd);
                sb_addf(&sb, "%s\n", abs);
                free(abs);
            }
            /* one short write with O_APPEND: lines of parallel compiles do not mix */
            int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
            if (fd < 0 || write(fd, sb.buf, sb.len) != (ssize_t)sb.len)
                fmv_warn("%s: cannot log the compile of %s", log, args.sources.n ? args.sources.v[0] : "?");
            if (fd >= 0) close(fd);
            sb_free(&sb);
            free(cwd);
        }
    }
    compile_args_free(&args);
}

int wrapper_launch(int argc, char **argv)
{
    if (argc < 1 || !argv[0]) return -1;
    struct strvec run = STRVEC_INIT;
    for (int i = 0; i < argc; i++) sv_push(&run, argv[i]);
    append_flags(&run);
    int code = run_inherited(sv_argv(&run));
    sv_free(&run);
    return code;
}

int wrapper_main(int argc, char **argv)
{
    if (argc < 1 || !argv[0]) return -1;
    const char *name = path_basename(argv[0]);
    if (!compiler_name_is_driver(name)) return -1;

    char *link_dir = own_link_dir(argv[0]);
    char *real = find_real_compiler(name, link_dir);
    if (!real) {
        fmv_error("%s: no real compiler of this name in PATH%s%s%s", name, link_dir ? " (outside " : "",
                  link_dir ? link_dir : "", link_dir ? ")" : "");
        free(link_dir);
        return 127;
    }
    free(link_dir);
    struct strvec run = STRVEC_INIT;
    sv_push(&run, real);
    for (int i = 1; i < argc; i++) sv_push(&run, argv[i]);
    append_flags(&run);

    const char *store_dir = getenv(WRAPPER_STORE_ENV);
    int code;
    if (!store_dir || !*store_dir || getenv(WRAPPED_ENV)) {
        code = exec_inherited(sv_argv(&run));
    } else {
        setenv(WRAPPED_ENV, "1", 1);
        code = wrap_compile(store_dir, sv_argv(&run));
    }
    sv_free(&run);
    free(real);
    return code;
}

/* ---- the scan side ---- */

char *wrapper_executable(void)
{
    char *self = self_exe_path();
    if (!self) return NULL;
    char *dir = path_dirname(self);
    char *cc = path_join(dir, WRAPPER_EXE_NAME);
    free(dir);
    free(self);
    if (access(cc, X_OK) == 0) return cc;
    free(cc);
    return NULL;
}

static void say_missing(const char *why)
{
    char *self = self_exe_path();
    char *dir = self ? path_dirname(self) : NULL;
    fmv_error("%s/%s: the compiler wrapper is missing (build or install it with fmvgen)%s%s",
              dir ? dir : "/proc/self/exe", WRAPPER_EXE_NAME, why ? "; " : "", why ? why : "");
    free(dir);
    free(self);
}

int wrapper_require(const char *why)
{
    char *cc = wrapper_executable();
    if (!cc) {
        say_missing(why);
        return -1;
    }
    free(cc);
    return 0;
}

static void add_link(const char *dir, const char *name, const char *target)
{
    char *link = path_join(dir, name);
    if (symlink(target, link) != 0 && errno != EEXIST) fmv_warn("%s: cannot create link: %s", link, strerror(errno));
    free(link);
}

/* Every compiler driver name found in PATH (gcc-12, clang++-19,
 * x86_64-linux-gnu-gcc, ...), besides the plain names. */
static void collect_driver_names(struct strvec *names)
{
    static const char *const plain[] = {"cc", "c++", "gcc", "g++", "clang", "clang++", NULL};
    for (int i = 0; plain[i]; i++) sv_push(names, plain[i]);
    const char *path = getenv("PATH");
    char *copy = xstrdup(path ? path : "");
    char *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        DIR *dh = opendir(d);
        if (!dh) continue;
        struct dirent *e;
        while ((e = readdir(dh)))
            if (compiler_name_is_driver(e->d_name) && !sv_contains(names, e->d_name)) sv_push(names, e->d_name);
        closedir(dh);
    }
    free(copy);
}

/* CC/CXX pointed into the link directory. Each word naming a compiler
 * driver is replaced (a launcher such as ccache stays in front); a word
 * with a directory gets a link directory of its own that remembers the
 * real path, since PATH might hold another compiler of that name. */
static char *wrapped_compiler_var(const char *var, const char *value, const char *dflt, const char *wrapdir,
                                  const char *target, int *n_abs)
{
    if (!value || !*value) return path_join(wrapdir, dflt);
    struct strbuf sb = STRBUF_INIT;
    int replaced = 0;
    char *copy = xstrdup(value), *save = NULL;
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (sb.len) sb_addc(&sb, ' ');
        const char *base = path_basename(w);
        if (!replaced && compiler_name_is_driver(base)) {
            replaced = 1;
            if (strchr(w, '/')) {
                char *sub = xasprintf("%s/abs%d", wrapdir, (*n_abs)++);
                mkdir_p(sub, 0755);
                add_link(sub, base, target);
                char *real = path_absolute(w, NULL);
                char *file = path_join(sub, REAL_COMPILER_FILE);
                char *text = xasprintf("%s\n", real);
                write_file_atomic(file, text, strlen(text));
                sb_addf(&sb, "%s/%s", sub, base);
                free(text);
                free(file);
                free(real);
                free(sub);
            } else {
                add_link(wrapdir, base, target);
                sb_addf(&sb, "%s/%s", wrapdir, base);
            }
            continue;
        }
        sb_adds(&sb, w);
    }
    free(copy);
    if (!replaced)
        fmv_warn("%s=%s: not named like a GCC or Clang driver; its compiles are not captured", var, value);
    return sb_detach(&sb);
}

static void save_env(struct wrapper_saved_var *s, const char *name)
{
    s->name = name;
    const char *v = getenv(name);
    s->value = v ? xstrdup(v) : NULL;
}

static void restore_env(struct wrapper_saved_var *s)
{
    if (!s->name) return;
    if (s->value) setenv(s->name, s->value, 1);
    else unsetenv(s->name);
    free(s->value);
    s->name = NULL;
    s->value = NULL;
}

int wrapper_env_apply(const char *wrapdir, const char *store_builddir, const char *append, const char *append_log,
                      struct wrapper_env *saved)
{
    memset(saved, 0, sizeof *saved);
    /* The links point at fmvgen-cc only: fmvgen itself is no compiler. */
    char *target = wrapper_executable();
    if (!target) {
        say_missing(NULL);
        return -1;
    }
    /* Fresh links each time: the fmvgen binary may have moved. */
    remove_tree(wrapdir);
    if (mkdir_p(wrapdir, 0755) != 0) {
        free(target);
        return fmv_error("%s: cannot create directory", wrapdir);
    }
    struct strvec names = STRVEC_INIT;
    collect_driver_names(&names);
    for (size_t i = 0; i < names.n; i++) add_link(wrapdir, names.v[i], target);
    sv_free(&names);

    static const char *const vars[WRAPPER_ENV_VARS] = {"PATH", "CC", "CXX", WRAPPER_STORE_ENV, WRAPPED_ENV,
                                                       CCACHE_DISABLE_ENV, WRAPPER_APPEND_ENV,
                                                       WRAPPER_APPEND_LOG_ENV, APPENDED_ENV};
    for (int i = 0; i < WRAPPER_ENV_VARS; i++) save_env(&saved->vars[i], vars[i]);
    int n_abs = 0;
    char *cc = wrapped_compiler_var("CC", saved->vars[1].value, "cc", wrapdir, target, &n_abs);
    char *cxx = wrapped_compiler_var("CXX", saved->vars[2].value, "c++", wrapdir, target, &n_abs);
    const char *old_path = saved->vars[0].value;
    char *path = old_path && *old_path ? xasprintf("%s:%s", wrapdir, old_path) : xstrdup(wrapdir);
    setenv("PATH", path, 1);
    setenv("CC", cc, 1);
    setenv("CXX", cxx, 1);
    if (store_builddir) setenv(WRAPPER_STORE_ENV, store_builddir, 1);
    else unsetenv(WRAPPER_STORE_ENV);
    unsetenv(WRAPPED_ENV);
    unsetenv(APPENDED_ENV);
    if (append && *append) setenv(WRAPPER_APPEND_ENV, append, 1);
    else unsetenv(WRAPPER_APPEND_ENV);
    if (append_log) setenv(WRAPPER_APPEND_LOG_ENV, append_log, 1);
    else unsetenv(WRAPPER_APPEND_LOG_ENV);
    /* A ccache hit (CC="ccache gcc") would hand back a cached object
     * without calling the compiler - our wrapper - so the compile would
     * have no records (or not get the appended flags). With ccache disabled
     * it runs the compiler every time and neither reads nor writes its
     * cache (the cache stays valid for later builds; objects are the same
     * as from a hit). */
    setenv(CCACHE_DISABLE_ENV, "1", 1);
    free(path);
    free(cc);
    free(cxx);
    free(target);
    return 0;
}

void wrapper_env_restore(struct wrapper_env *saved)
{
    for (int i = 0; i < WRAPPER_ENV_VARS; i++) restore_env(&saved->vars[i]);
}

int wrapper_run_build(const char *builddir, char *const *build_argv)
{
    char *abs_builddir = path_absolute(builddir, NULL);
    char *wrapdir = wrap_dir_of(abs_builddir);
    struct wrapper_env saved;
    if (wrapper_env_apply(wrapdir, abs_builddir, NULL, NULL, &saved) != 0) {
        free(wrapdir);
        free(abs_builddir);
        return 127;
    }
    struct store *st = NULL;
    if (store_open(abs_builddir, 0, &st) == 0) {
        store_meta_set(st, META_UNSUPPORTED, "");
        store_close(st);
    }

    struct run_result r;
    run_argv(build_argv, NULL, &r);
    int code = run_exit_code(&r);
    if (!r.spawned) fmv_error("%s: cannot run the build: %s", build_argv[0], strerror(r.errno_spawn));
    run_result_free(&r);

    wrapper_env_restore(&saved);
    free(wrapdir);
    free(abs_builddir);
    return code;
}

void wrapper_unsupported_compilers(struct store *st, struct strvec *out)
{
    char *v = store_meta_get(st, META_UNSUPPORTED);
    if (!v) return;
    for (char *line = v; *line;) {
        size_t n = strcspn(line, "\n");
        if (n) {
            char *one = xstrndup(line, n);
            if (!sv_contains(out, one)) sv_push(out, one);
            free(one);
        }
        line += n + (line[n] == '\n');
    }
    free(v);
}
