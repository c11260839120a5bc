/* compiler.c - see compiler.h. Knows the command-line conventions shared by
 * the GCC and Clang drivers: which options take their value as the next
 * argument (so a value is never mistaken for a source), which switch the
 * driver to another mode (-E, -S, -M, -fsyntax-only, -###), and which make
 * the compiler copy its own switches into the object (so that adding the
 * record flags there would change the user's build output). */
#include "capture/compiler.h"
#include "records/records.h"
#include "run/spawn.h"
#include "store/notes.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/util.h"

const char *compiler_kind_name(enum compiler_kind k)
{
    switch (k) {
    case COMPILER_GCC: return "gcc";
    case COMPILER_CLANG: return "clang";
    default: return "unknown";
    }
}

/* ---- names ---- */

int compiler_name_is_driver(const char *name)
{
    static const char *const drivers[] = {"clang++", "clang", "g++", "gcc", "c++", "cc", NULL};
    size_t len = strlen(name);
    /* fmvgen-cc, the wrapper itself, is not a compiler. */
    if (!strncmp(name, "fmvgen", 6)) return 0;
    /* Strip a version suffix: "-12", "-14.0", "-19". */
    size_t end = len;
    size_t p = end;
    while (p > 0 && (isdigit((unsigned char)name[p - 1]) || name[p - 1] == '.')) p--;
    if (p < end && p > 0 && name[p - 1] == '-' && isdigit((unsigned char)name[p])) end = p - 1;
    for (int i = 0; drivers[i]; i++) {
        size_t dl = strlen(drivers[i]);
        if (end < dl || strncmp(name + end - dl, drivers[i], dl) != 0) continue;
        /* Either the whole name, or a target prefix ending in '-'
         * ("x86_64-linux-gnu-gcc"); "mycc" or "distcc" are not drivers. */
        if (end == dl) return 1;
        if (name[end - dl - 1] == '-') return 1;
    }
    return 0;
}

/* ---- identification ---- */

/* "clang version 14.0.6" anywhere (Debian, Apple and vendor builds all
 * print it); GCC prints "NAME (VENDOR) 12.2.0" on the first line under
 * whatever name it was called (cc, c++, x86_64-linux-gnu-gcc-12), followed
 * by the FSF copyright, so the name alone proves nothing. */
static int parse_version_text(const char *text, enum compiler_kind *kind, char **version)
{
    const char *cv = strstr(text, "clang version ");
    if (cv) {
        cv += strlen("clang version ");
        size_t n = strspn(cv, "0123456789.");
        if (!n) return -1;
        *kind = COMPILER_CLANG;
        *version = xstrndup(cv, n);
        return 0;
    }
    if (!strstr(text, "Free Software Foundation")) return -1;
    size_t first_len = strcspn(text, "\n");
    /* The version is the last word of the first line. */
    size_t e = first_len;
    while (e > 0 && isspace((unsigned char)text[e - 1])) e--;
    size_t b = e;
    while (b > 0 && !isspace((unsigned char)text[b - 1])) b--;
    if (b == e || !isdigit((unsigned char)text[b])) return -1;
    /* Not a GCC C/C++ driver if the first line says another language. */
    if (strstr(text, "GNU Fortran") || strstr(text, "GNAT")) return -1;
    *kind = COMPILER_GCC;
    *version = xstrndup(text + b, e - b);
    return 0;
}

/* Absolute path of the compiler as the build would run it (links are not
 * resolved: clang++ and clang are one file whose behaviour depends on the
 * name it is called by). */
static char *locate_compiler(const char *compiler)
{
    char *found = find_in_path(compiler);
    if (!found) return NULL;
    char *abs = path_absolute(found, NULL);
    free(found);
    return abs;
}

struct id_cache_entry {
    char *path;
    struct compiler_id id;
};
static struct id_cache_entry *id_cache;
static size_t id_cache_n;

static void id_copy(struct compiler_id *dst, const struct compiler_id *src)
{
    dst->kind = src->kind;
    dst->path = xstrdup(src->path);
    dst->version = xstrdup(src->version);
    dst->major = src->major;
}

static int identify_uncached(const char *path, struct compiler_id *out)
{
    char *argv[] = {(char *)path, "--version", NULL};
    struct run_opts o = {.capture_stdout = 1, .capture_stderr = 1, .timeout_s = 60};
    struct run_result r;
    int rc = run_argv(argv, &o, &r);
    char *version = NULL;
    enum compiler_kind kind = COMPILER_UNKNOWN;
    int ok = rc == 0 && r.out && parse_version_text(r.out, &kind, &version) == 0;
    if (!ok) {
        char *why;
        if (rc != 0) {
            char *d = run_describe(&r);
            why = xasprintf("'%s --version' failed: %s", path_basename(path), d);
            free(d);
        } else {
            const char *t = r.out && *r.out ? r.out : (r.err ? r.err : "");
            why = xasprintf("its --version says \"%.*s\"", (int)strcspn(t, "\n"), t);
        }
        fmv_error("%s: not GCC or Clang (%s); fmvgen reads only their optimization records", path, why);
        free(why);
        run_result_free(&r);
        return -1;
    }
    run_result_free(&r);
    out->kind = kind;
    out->path = xstrdup(path);
    out->version = version;
    out->major = atoi(version);
    return 0;
}

int compiler_identify(const char *compiler, struct compiler_id *out)
{
    memset(out, 0, sizeof *out);
    char *path = locate_compiler(compiler);
    if (!path) return fmv_error("%s: compiler not found (not an executable, nor in PATH)", compiler);
    for (size_t i = 0; i < id_cache_n; i++)
        if (!strcmp(id_cache[i].path, path)) {
            id_copy(out, &id_cache[i].id);
            free(path);
            return 0;
        }
    int rc = identify_uncached(path, out);
    if (rc == 0) {
        id_cache = xrealloc(id_cache, (id_cache_n + 1) * sizeof *id_cache);
        id_cache[id_cache_n].path = xstrdup(path);
        id_copy(&id_cache[id_cache_n].id, out);
        id_cache_n++;
    }
    free(path);
    return rc;
}

/* The cross-process cache: file <cache_dir>/<hash of the path> holding
 * "KEY\nKIND\nVERSION\n", KEY naming the resolved file and its identity so
 * that an upgraded compiler is identified afresh. */
static char *cache_key(const char *path)
{
    char *real = realpath(path, NULL);
    if (!real) return NULL;
    struct stat s;
    char *key = NULL;
    if (stat(real, &s) == 0)
        key = xasprintf("%s %s %llu %llu %lld %lld", path, real, (unsigned long long)s.st_dev,
                        (unsigned long long)s.st_ino, (long long)s.st_size, (long long)s.st_mtime);
    free(real);
    return key;
}

int compiler_identify_cached(const char *compiler, const char *cache_dir, struct compiler_id *out)
{
    if (!cache_dir) return compiler_identify(compiler, out);
    memset(out, 0, sizeof *out);
    char *path = locate_compiler(compiler);
    if (!path) return fmv_error("%s: compiler not found (not an executable, nor in PATH)", compiler);
    char *key = cache_key(path);
    char *name = hash_bytes_hex(path, strlen(path));
    char *file = path_join(cache_dir, name);
    free(name);
    int rc = -1;
    char *text = key ? read_file(file, NULL) : NULL;
    if (text) {
        char *nl1 = strchr(text, '\n');
        char *nl2 = nl1 ? strchr(nl1 + 1, '\n') : NULL;
        char *nl3 = nl2 ? strchr(nl2 + 1, '\n') : NULL;
        if (nl3) {
            *nl1 = *nl2 = *nl3 = 0;
            enum compiler_kind k = !strcmp(nl1 + 1, "gcc") ? COMPILER_GCC
                                   : !strcmp(nl1 + 1, "clang") ? COMPILER_CLANG : COMPILER_UNKNOWN;
            if (!strcmp(text, key) && k != COMPILER_UNKNOWN && isdigit((unsigned char)nl2[1])) {
                out->kind = k;
                out->path = xstrdup(path);
                out->version = xstrdup(nl2 + 1);
                out->major = atoi(out->version);
                rc = 0;
            }
        }
        free(text);
    }
    if (rc != 0) {
        rc = compiler_identify(path, out);
        if (rc == 0 && key && mkdir_p(cache_dir, 0755) == 0) {
            char *data = xasprintf("%s\n%s\n%s\n", key, compiler_kind_name(out->kind), out->version);
            write_file_atomic(file, data, strlen(data));   /* a lost race just repeats --version later */
            free(data);
        }
    }
    free(file);
    free(key);
    free(path);
    return rc;
}

void compiler_id_free(struct compiler_id *id)
{
    if (!id) return;
    free(id->path);
    free(id->version);
    memset(id, 0, sizeof *id);
}

/* ---- record flags ---- */

/* "dir/foo.o" -> "foo"; "dir/foo" -> "foo"; "" or NULL -> "a". */
static char *output_stem(const char *output)
{
    const char *base = output && *output ? path_basename(output) : "a";
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return n ? xstrndup(base, n) : xstrdup("a");
}

/* GCC's vectorizer dumps (see records.h and lib/records/gcc_dump.c) are
 * read from GCC 12 on, where they were measured: the same records as
 * -fsave-optimization-record for ~1/4 of its cost, and not copied into
 * DW_AT_producer. Older GCCs keep the JSON records. */
#define GCC_DUMPS_SINCE_MAJOR 12

int compiler_records_use_dumps(const struct compiler_id *id)
{
    return id->kind == COMPILER_GCC && id->major >= GCC_DUMPS_SINCE_MAJOR;
}

void compiler_record_flags(const struct compiler_id *id, const char *records_dir, const char *output,
                           struct strvec *flags, char **record_path, const char **format)
{
    char *stem = output_stem(output);
    if (id->kind == COMPILER_CLANG) {
        char *name = xasprintf("%s.opt.yaml", stem);
        *record_path = path_join(records_dir, name);
        free(name);
        sv_push(flags, "-Xclang");
        sv_push(flags, "-opt-record-file");
        sv_push(flags, "-Xclang");
        sv_push(flags, *record_path);
        /* Only the vectorizers' remarks: the file is ~45x smaller and the
         * compile faster (measured on lib/store/store.c: 8 KB vs 374 KB). */
        sv_push(flags, "-Xclang");
        sv_push(flags, "-opt-record-passes");
        sv_push(flags, "-Xclang");
        sv_push(flags, "loop-vectorize|slp-vectorizer");
        *format = "clang-yaml";
    } else if (compiler_records_use_dumps(id)) {
        char *name = xasprintf("%s.vect", stem);
        *record_path = path_join(records_dir, name);
        free(name);
        for (int i = 0; records_gcc_dump_passes[i]; i++) {
            char *file = records_gcc_dump_file(*record_path, records_gcc_dump_passes[i]);
            /* GCC creates a dump only when the pass runs on a function:
             * an empty file says "nothing", a missing one "not written".
             * Made plainly: GCC writes it next, and each of a build's
             * compiles would pay write_file_atomic's fsync three times. */
            create_empty_file(file);
            sv_pushf(flags, "-fdump-tree-%s-optimized=%s", records_gcc_dump_passes[i], file);
            free(file);
        }
        *format = "gcc-dump";
    } else {
        char *name = xasprintf("%s.opt-record.json.gz", stem);
        *record_path = path_join(records_dir, name);
        free(name);
        sv_push(flags, "-fsave-optimization-record");
        sv_push(flags, "-dumpdir");
        size_t n = strlen(records_dir);
        sv_pushf(flags, "%s%s", records_dir, n && records_dir[n - 1] == '/' ? "" : "/");
        sv_push(flags, "-dumpbase");
        sv_push(flags, stem);
        *format = "gcc-json";
    }
    free(stem);
}

char *compiler_record_file_found(const char *record_path, const char *format)
{
    if (!record_path) return NULL;
    if (file_exists(record_path)) return xstrdup(record_path);
    if (!format || strcmp(format, "gcc-json") != 0) return NULL;
    static const char suffix[] = ".opt-record.json.gz";
    char *dir = path_dirname(record_path);
    DIR *d = opendir(dir);
    char *found = NULL;
    int several = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n <= sizeof suffix - 1 || strcmp(de->d_name + n - (sizeof suffix - 1), suffix) != 0) continue;
        if (found) several = 1;
        else found = path_join(dir, de->d_name);
    }
    if (d) closedir(d);
    free(dir);
    if (several) {   /* not one compile's records dir: nothing to trust */
        free(found);
        found = NULL;
    }
    return found;
}

/* ---- argv classification ---- */

/* Options whose value is the next argument when written alone. */
static int takes_separate_value(const char *a)
{
    static const char *const opts[] = {
        "-o", "-x", "-I", "-D", "-U", "-L", "-l", "-u", "-T", "-z", "-A", "-B", "-e", "-G",
        "-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-iprefix", "-iwithprefix",
        "-iwithprefixbefore", "-isysroot", "-imultilib", "-imultiarch", "-iframework", "-ivfsoverlay",
        "-MF", "-MT", "-MQ", "-MJ", "-Xclang", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-mllvm",
        "-arch", "-target", "-aux-info", "-dumpdir", "-dumpbase", "-dumpbase-ext", "--param",
        "--sysroot", "-Xopenmp-target", "-Xcuda-ptxas", "-Xcuda-fatbinary", "--include-directory",
        "--define-macro", "--undefine-macro", "--output", NULL};
    for (int i = 0; opts[i]; i++)
        if (!strcmp(a, opts[i])) return 1;
    return 0;
}

const char *compile_language_of(const char *path)
{
    const char *base = path_basename(path);
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) return NULL;
    if (!strcmp(dot, ".c")) return "c";
    static const char *const cxx[] = {".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", NULL};
    for (int i = 0; cxx[i]; i++)
        if (!strcmp(dot, cxx[i])) return "c++";
    return NULL;
}

/* The language a -x value selects for the inputs after it; NULL: not a
 * C/C++ source (headers, assembler, preprocessed output, ...). */
static const char *language_of_x(const char *x)
{
    if (!strcmp(x, "c")) return "c";
    if (!strcmp(x, "c++")) return "c++";
    return NULL;
}

static char opt_level_of(const char *a)
{
    /* a starts with "-O" */
    const char *v = a + 2;
    if (!*v) return '1';
    if (!strcmp(v, "fast")) return 'f';
    if (!strcmp(v, "s") || !strcmp(v, "z") || !strcmp(v, "g")) return *v;
    if (isdigit((unsigned char)*v) && !v[strspn(v, "0123456789")]) {
        int n = atoi(v);
        return n >= 3 ? '3' : (char)('0' + n);
    }
    return 0;   /* not an -O level (e.g. clang's -Ofoo typos): ignored, as the driver warns */
}

void compile_args_parse(char *const *argv, struct compile_args *out)
{
    memset(out, 0, sizeof *out);
    out->opt_level = '0';
    int mode_c = 0, other_mode = 0;
    const char *x_lang = NULL;   /* current -x, NULL: by extension */
    int x_set = 0;
    for (size_t i = 1; argv && argv[0] && argv[i]; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            if (!strcmp(a, "-")) continue;   /* stdin: no file to locate later */
            const char *lang = x_set ? x_lang : compile_language_of(a);
            if (lang) {
                sv_push(&out->sources, a);
                sv_push(&out->languages, lang);
            }
            continue;
        }
        if (!strcmp(a, "-x") && argv[i + 1]) {
            const char *v = argv[++i];
            x_set = strcmp(v, "none") != 0;
            x_lang = x_set ? language_of_x(v) : NULL;
            continue;
        }
        if (str_starts_with(a, "-x") && a[2]) {
            x_set = strcmp(a + 2, "none") != 0;
            x_lang = x_set ? language_of_x(a + 2) : NULL;
            continue;
        }
        if (!strcmp(a, "-o") && argv[i + 1]) {
            free(out->output);
            out->output = xstrdup(argv[++i]);
            continue;
        }
        if (takes_separate_value(a)) {
            if (argv[i + 1]) i++;
            continue;
        }
        if (str_starts_with(a, "-o") && a[2]) {
            free(out->output);
            out->output = xstrdup(a + 2);
            continue;
        }
        if (str_starts_with(a, "-O")) {
            char l = opt_level_of(a);
            if (l) out->opt_level = l;
            continue;
        }
        if (!strcmp(a, "-c")) mode_c = 1;
        else if (!strcmp(a, "-E") || !strcmp(a, "-S") || !strcmp(a, "-M") || !strcmp(a, "-MM") ||
                 !strcmp(a, "-fsyntax-only") || !strcmp(a, "-###") || !strcmp(a, "--help") ||
                 !strcmp(a, "--version") || str_starts_with(a, "-print-") || str_starts_with(a, "--print-") ||
                 str_starts_with(a, "-dump") /* -dumpversion, -dumpmachine, ... (-dumpdir/-dumpbase skipped above) */)
            other_mode = 1;
    }
    out->is_compile = out->sources.n > 0 && !other_mode;
    out->links = out->is_compile && !mode_c;
    if (out->sources.n) out->language = xstrdup(out->languages.v[0]);
}

void compile_args_free(struct compile_args *a)
{
    if (!a) return;
    sv_free(&a->sources);
    sv_free(&a->languages);
    free(a->output);
    free(a->language);
    memset(a, 0, sizeof *a);
}

char *compile_args_output_of(const struct compile_args *a, size_t i, const char *dir)
{
    if (a->output) return path_absolute(a->output, dir);
    if (a->links) return path_absolute("a.out", dir);
    const char *base = i < a->sources.n ? path_basename(a->sources.v[i]) : "a.c";
    const char *dot = strrchr(base, '.');
    char *name = xasprintf("%.*s.o", dot && dot != base ? (int)(dot - base) : (int)strlen(base), base);
    char *abs = path_absolute(name, dir);
    free(name);
    return abs;
}

/* ---- outputs the record flags would change ---- */

/* GCC: is debug info on, and does it record the switches (DW_AT_producer)? */
static int gcc_debug_records_switches(char *const *argv)
{
    int debug = 0, record = 1;
    for (size_t i = 1; argv[i]; i++) {
        const char *a = argv[i];
        if (takes_separate_value(a)) {
            if (argv[i + 1]) i++;
            continue;
        }
        if (a[0] != '-' || a[1] != 'g') continue;
        if (!strcmp(a, "-grecord-gcc-switches")) record = 1;
        else if (!strcmp(a, "-gno-record-gcc-switches")) record = 0;
        else if (!strcmp(a, "-g0") || !strcmp(a, "-ggdb0") || !strcmp(a, "-gdwarf0")) debug = 0;
        else if (!strcmp(a, "-g") || (a[2] >= '1' && a[2] <= '3' && !a[3]) || str_starts_with(a, "-ggdb") ||
                 str_starts_with(a, "-gdwarf") || str_starts_with(a, "-gstabs") || str_starts_with(a, "-gxcoff") ||
                 str_starts_with(a, "-gvms") || str_starts_with(a, "-gbtf") || str_starts_with(a, "-gctf"))
            debug = 1;
    }
    return debug && record;
}

/* The last of "-fX" / "-fno-X" (both spellings given, prefix-free). */
static int last_flag(char *const *argv, const char *on, const char *off, int dflt)
{
    int v = dflt;
    for (size_t i = 1; argv[i]; i++) {
        if (takes_separate_value(argv[i])) {
            if (argv[i + 1]) i++;
            continue;
        }
        if (!strcmp(argv[i], on)) v = 1;
        else if (!strcmp(argv[i], off)) v = 0;
    }
    return v;
}

int compiler_args_lto(char *const *argv)
{
    int v = 0;
    for (size_t i = 1; argv[i]; i++) {
        if (takes_separate_value(argv[i])) {
            if (argv[i + 1]) i++;
            continue;
        }
        if (!strcmp(argv[i], "-flto") || str_starts_with(argv[i], "-flto=")) v = 1;
        else if (!strcmp(argv[i], "-fno-lto")) v = 0;
    }
    return v;
}

/* An option present anywhere (exact, or as a prefix when it ends in '='/'*'). */
static const char *find_option(char *const *argv, const char *const *names)
{
    for (size_t i = 1; argv[i]; i++) {
        for (int k = 0; names[k]; k++) {
            size_t n = strlen(names[k]);
            int prefix = names[k][n - 1] == '*';
            if (prefix ? !strncmp(argv[i], names[k], n - 1) : !strcmp(argv[i], names[k])) return names[k];
        }
        /* Values of separate-value options are not options; -Xclang's are. */
        if (takes_separate_value(argv[i]) && strcmp(argv[i], "-Xclang") != 0 && argv[i + 1]) i++;
    }
    return NULL;
}

const char *compiler_records_change_outputs(const struct compiler_id *id, char *const *argv)
{
    if (id->kind == COMPILER_CLANG) {
        if (last_flag(argv, "-grecord-command-line", "-gno-record-command-line", 0) ||
            last_flag(argv, "-grecord-gcc-switches", "-gno-record-gcc-switches", 0) ||
            last_flag(argv, "-frecord-command-line", "-fno-record-command-line", 0) ||
            last_flag(argv, "-frecord-gcc-switches", "-fno-record-gcc-switches", 0))
            return "the object records the command line";
        if (compiler_args_lto(argv)) return "-flto objects record the options";
        static const char *const own[] = {"-fsave-optimization-record*", "-foptimization-record-*",
                                          "-opt-record-file", "-save-temps*", "--save-temps*", NULL};
        if (find_option(argv, own)) return "the build writes its own record or temp files";
        return NULL;
    }
    if (compiler_args_lto(argv)) return "-flto objects record the options, and only the link vectorizes";
    if (compiler_records_use_dumps(id)) {
        /* The dump flags name their files: nothing is named after the dump
         * base, and GCC leaves -fdump-* out of DW_AT_producer and of
         * -frecord-gcc-switches (measured: objects byte-identical with -g,
         * -gsplit-dwarf, -frecord-gcc-switches, -MD, -fstack-usage).
         * Left: the build's own dumps (ours would take over the file of
         * the same pass) and -fcompare-debug (which compiles twice and
         * compares the second's dumps). */
        static const char *const clash[] = {"-fdump-*", "-fcompare-debug*", NULL};
        if (find_option(argv, clash)) return "the build writes its own GCC dumps";
        return NULL;
    }
    if (gcc_debug_records_switches(argv)) return "-g records the switches in the object (DW_AT_producer)";
    if (last_flag(argv, "-frecord-gcc-switches", "-fno-record-gcc-switches", 0))
        return "-frecord-gcc-switches records the switches in the object";
    /* Auxiliary outputs GCC names after the dump base/dir we would set. */
    static const char *const aux[] = {"-fstack-usage", "-fcallgraph-info*", "--coverage", "-ftest-coverage",
                                      "-fprofile-arcs", "-fprofile-generate*", "-fprofile-use*",
                                      "-fauto-profile*", "-fbranch-probabilities",
                                      "-gsplit-dwarf*", "-save-temps*", "--save-temps*", "-dumpdir",
                                      "-dumpbase*", "-fdump-*", "-fsave-optimization-record", "-aux-info",
                                      "-fcompare-debug*", NULL};
    if (find_option(argv, aux)) return "the build writes auxiliary files named after the dump base";
    /* -MD/-MMD without -MF name the dependency file after the dump base when
     * there is no -o (measured: it would land in the records dir). */
    static const char *const md[] = {"-MD", "-MMD", NULL};
    static const char *const mf[] = {"-MF*", NULL};
    struct compile_args args;
    compile_args_parse(argv, &args);
    int no_output = args.output == NULL;
    compile_args_free(&args);
    if (no_output && find_option(argv, md) && !find_option(argv, mf))
        return "the dependency file is named after the dump base";
    return NULL;
}

/* ---- what defeats vectorization ---- */

/* One "KIND\tdetail" line of compile_args_vectorization_notes. */
static void push_note(struct strvec *notes, enum tu_note_kind kind, const char *detail)
{
    sv_pushf(notes, "%s\t%s", tu_note_kind_name(kind), detail);
}

void compile_args_vectorization_notes(char *const *argv, struct strvec *notes)
{
    struct compile_args args;
    compile_args_parse(argv, &args);
    char level = args.opt_level;
    int has_o = 0;
    for (size_t i = 1; argv[i]; i++) {
        if (takes_separate_value(argv[i])) {
            if (argv[i + 1]) i++;
            continue;
        }
        if (str_starts_with(argv[i], "-O") && opt_level_of(argv[i])) has_o = 1;
    }
    compile_args_free(&args);

    /* -1: not given; 0: off; 1: on. GCC and Clang spellings (Clang takes the
     * GCC ones as aliases). */
    int tree_vec = last_flag(argv, "-ftree-vectorize", "-fno-tree-vectorize", -1);
    int loop_vec = last_flag(argv, "-ftree-loop-vectorize", "-fno-tree-loop-vectorize", -1);
    int slp_vec = last_flag(argv, "-ftree-slp-vectorize", "-fno-tree-slp-vectorize", -1);
    int clang_vec = last_flag(argv, "-fvectorize", "-fno-vectorize", -1);
    int clang_slp = last_flag(argv, "-fslp-vectorize", "-fno-slp-vectorize", -1);

    if (tree_vec == 0)
        push_note(notes, TU_NOTE_NO_VECTORIZE_FLAG, "-fno-tree-vectorize: the vectorizer is switched off for this TU");
    if (loop_vec == 0)
        push_note(notes, TU_NOTE_NO_VECTORIZE_FLAG, "-fno-tree-loop-vectorize: loops are not vectorized in this TU");
    if (slp_vec == 0)
        push_note(notes, TU_NOTE_NO_VECTORIZE_FLAG, "-fno-tree-slp-vectorize: straight-line code is not vectorized (SLP off)");
    if (clang_vec == 0)
        push_note(notes, TU_NOTE_NO_VECTORIZE_FLAG, "-fno-vectorize: Clang's loop vectorizer is switched off for this TU");
    if (clang_slp == 0)
        push_note(notes, TU_NOTE_NO_VECTORIZE_FLAG, "-fno-slp-vectorize: Clang's SLP vectorizer is switched off for this TU");

    /* An explicit -ftree-vectorize / -fvectorize turns the vectorizer on at
     * -O1/-Os/-Og too; nothing turns it on at -O0. */
    int forced_on = tree_vec == 1 || loop_vec == 1 || clang_vec == 1;
    if (level == '0') {
        push_note(notes, TU_NOTE_LOW_OPT,
                  has_o ? "-O0: nothing is optimized, so nothing is vectorized"
                        : "no -O option (-O0): nothing is optimized, so nothing is vectorized");
    } else if (!forced_on) {
        switch (level) {
        case '1':
            push_note(notes, TU_NOTE_LOW_OPT, "-O1: GCC and Clang vectorize loops only from -O2 (or with -ftree-vectorize)");
            break;
        case 's':
            push_note(notes, TU_NOTE_LOW_OPT, "-Os: GCC does not vectorize at -Os; Clang does, with a size-biased cost model");
            break;
        case 'z':
            push_note(notes, TU_NOTE_LOW_OPT, "-Oz: loops are not vectorized at -Oz");
            break;
        case 'g':
            push_note(notes, TU_NOTE_LOW_OPT, "-Og: loops are not vectorized at -Og");
            break;
        default: break;
        }
    }
}
