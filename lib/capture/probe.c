/* probe.c - records-only re-runs of stored compiles (see probe.h).
 *
 * The user's tree must come out of a probe exactly as it went in, so every
 * flag that makes the compiler write a file of its own choosing (the object,
 * dependency files, save-temps, dump and record files) is taken out and the
 * only outputs left are the object, sent to a private temp dir removed
 * afterwards, and the record files, sent to the store's records dir. GCC's
 * other auxiliary files (.su, .gcno, ...) are named after the output, so
 * they land next to it in the temp dir (GCC 11+; with JSON records, older
 * GCCs get -dumpdir, which sends them to the records dir). */
#include "capture/probe.h"
#include "capture/compiler.h"
#include "capture/probeskip.h"
#include "capture/wrapper.h"
#include "run/spawn.h"
#include "store/store.h"
#include "util/util.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Dependency-file options whose value is the next argument or glued on. */
static int is_dep_option_with_value(const char *a)
{
    return str_starts_with(a, "-MF") || str_starts_with(a, "-MT") || str_starts_with(a, "-MQ") || str_starts_with(a, "-MJ");
}

static int is_dep_option_alone(const char *a)
{
    return !strcmp(a, "-MD") || !strcmp(a, "-MMD") || !strcmp(a, "-MP") || !strcmp(a, "-M") ||
           !strcmp(a, "-MM") || !strcmp(a, "-MG") || !strcmp(a, "--write-dependencies") ||
           !strcmp(a, "--write-user-dependencies") || !strcmp(a, "--dependencies") ||
           !strcmp(a, "--user-dependencies") || !strcmp(a, "--print-missing-file-dependencies");
}

/* -Wp,-MD,dep.d (the kernel's style) passes dependency options straight to
 * the preprocessor. Returns the argument without them, or NULL when nothing
 * is left of it. */
static char *strip_wp_deps(const char *arg)
{
    char *copy = xstrdup(arg + 4);
    struct strvec keep = STRVEC_INIT;
    char *save = NULL;
    int skip_value = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (skip_value) {
            skip_value = 0;
            continue;
        }
        /* -MD/-MMD take the file as their value in -Wp form. */
        if (!strcmp(tok, "-MD") || !strcmp(tok, "-MMD")) {
            skip_value = 1;
            continue;
        }
        if (is_dep_option_alone(tok)) continue;
        if (is_dep_option_with_value(tok)) {
            skip_value = strlen(tok) == 3;
            continue;
        }
        sv_push(&keep, tok);
    }
    char *out = NULL;
    if (keep.n) {
        struct strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "-Wp");
        for (size_t i = 0; i < keep.n; i++) sb_addf(&sb, ",%s", keep.v[i]);
        out = sb_detach(&sb);
    }
    sv_free(&keep);
    free(copy);
    return out;
}

/* Options that would write a side file somewhere of the user's choosing, or
 * move/redirect the record file away from where we look for it. */
static int is_side_file_option(const char *a)
{
    return !strcmp(a, "-save-temps") || !strcmp(a, "--save-temps") || str_starts_with(a, "-save-temps=") ||
           str_starts_with(a, "--save-temps=") || str_starts_with(a, "-fsave-optimization-record") ||
           str_starts_with(a, "-foptimization-record-") || (str_starts_with(a, "-fopt-info") && strchr(a, '=')) ||
           str_starts_with(a, "-fdump-") /* the build's own dumps: a pass's file would clash with ours */ ||
           str_starts_with(a, "-ftime-trace=");
}

static int takes_separate_value_we_drop(const char *a)
{
    return !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "-dumpdir") || !strcmp(a, "-dumpbase") || !strcmp(a, "-dumpbase-ext") ||
           (is_dep_option_with_value(a) && strlen(a) == 3);
}

/* The other sources of `cc -c a.c b.c` (as written in argv): the row
 * compiles only one, its probe drops them. */
static void other_sources(const struct compile_row *c, struct strvec *others)
{
    struct compile_args args;
    compile_args_parse(c->argv, &args);
    if (args.sources.n > 1)
        for (size_t i = 0; i < args.sources.n; i++) {
            char *abs = path_absolute(args.sources.v[i], c->directory);
            if (!c->source || strcmp(abs, c->source) != 0) sv_push(others, args.sources.v[i]);
            free(abs);
        }
    compile_args_free(&args);
}

void probe_build_argv(const struct compile_row *c, char *const *extra_flags, char *const *record_flags,
                      const char *output, struct strvec *out)
{
    struct strvec others = STRVEC_INIT;
    other_sources(c, &others);

    sv_push(out, c->compiler && *c->compiler ? c->compiler : c->argv[0]);
    for (size_t i = 1; c->argv[0] && c->argv[i]; i++) {
        const char *a = c->argv[i];
        if (takes_separate_value_we_drop(a)) {
            if (c->argv[i + 1]) i++;
            continue;
        }
        if ((str_starts_with(a, "-o") && !str_starts_with(a, "-obj")) || str_starts_with(a, "--output=") ||
            is_dep_option_with_value(a) ||
            is_dep_option_alone(a) || is_side_file_option(a) || sv_contains(&others, a))
            continue;
        if (str_starts_with(a, "-Wp,")) {
            char *kept = strip_wp_deps(a);
            if (kept) sv_push(out, kept);
            free(kept);
            continue;
        }
        if (!strcmp(a, "-c") || !strcmp(a, "-S")) continue;
        sv_push(out, a);
    }
    /* Assembly out, not an object: the records are the same (measured:
     * identical but for GCC's pointer ids) and the assembler's time is
     * saved. A compile-and-link line becomes a compile the same way. */
    sv_push(out, "-S");
    sv_push(out, "-Wno-error");
    /* Debug info costs time and changes no vectorization record (measured
     * on this code base with gcc 12 and clang 14: the same vectorized loops
     * at the same lines); under -flto the -c compile stops before the
     * vectorizer, so it would write no records at all. */
    sv_push(out, "-g0");
    sv_push(out, "-fno-lto");
    sv_push_all(out, extra_flags);
    sv_push_all(out, record_flags);
    sv_push(out, "-o");
    sv_push(out, output);
    sv_free(&others);
}

static int is_pic_option(char *const *argv, size_t i, size_t *skip)
{
    const char *a = argv[i];
    *skip = 0;
    if (!strcmp(a, "-fPIC") || !strcmp(a, "-fpic") || !strcmp(a, "-DPIC")) return 1;
    if (!strcmp(a, "-D") && argv[i + 1] && !strcmp(argv[i + 1], "PIC")) {
        *skip = 1;
        return 1;
    }
    return 0;
}

char *probe_dedupe_key(const struct compile_row *c)
{
    struct strbuf key = STRBUF_INIT;
    /* Length-prefixed fields: no argument can fake a separator. */
    const char *head[] = {c->directory, c->source, c->source_hash, c->compiler};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        sb_addf(&key, "%zu:%s", head[i] ? strlen(head[i]) : 0, head[i] ? head[i] : "");
    struct strvec others = STRVEC_INIT;
    if (c->argv && c->argv[0]) other_sources(c, &others);
    for (size_t i = 1; c->argv && c->argv[0] && c->argv[i]; i++) {
        const char *a = c->argv[i];
        size_t skip;
        /* What probe_build_argv drops besides the outputs: the probe of
         * a.c in `cc -o p a.c b.c` and in `cc -o q a.c c.c` is one compile. */
        if (sv_contains(&others, a) || !strcmp(a, "-c") || !strcmp(a, "-S")) continue;
        if (takes_separate_value_we_drop(a) && strcmp(a, "-dumpdir") != 0 && strcmp(a, "-dumpbase") != 0 &&
            strcmp(a, "-dumpbase-ext") != 0) {
            if (c->argv[i + 1]) i++;
            continue;
        }
        if (is_pic_option(c->argv, i, &skip)) {
            i += skip;
            continue;
        }
        if ((str_starts_with(a, "-o") && !str_starts_with(a, "-obj")) || str_starts_with(a, "--output=") ||
            is_dep_option_with_value(a) || is_dep_option_alone(a))
            continue;
        if (str_starts_with(a, "-Wp,")) {
            char *kept = strip_wp_deps(a);
            if (kept) sb_addf(&key, "%zu:%s", strlen(kept), kept);
            free(kept);
            continue;
        }
        sb_addf(&key, "%zu:%s", strlen(a), a);
    }
    sv_free(&others);
    return sb_detach(&key);
}

char *probe_variant_dirname(const char *variant)
{
    char *s = xstrdup(variant);
    for (char *p = s; *p; p++) {
        int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
                 *p == '-' || *p == '_' || *p == '=' || *p == '+';
        if (!ok) *p = '_';
    }
    if (!*s || s[0] == '.') {
        char *t = xasprintf("_%s", s);
        free(s);
        s = t;
    }
    return s;
}

/* The line of a failed compile's stderr that says what went wrong. */
static char *failure_line(const struct run_result *r)
{
    const char *err = r->err ? r->err : "";
    const char *first = NULL;
    for (const char *line = err; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len && !first) first = line;
        char *l = xstrndup(line, len);
        int is_error = strstr(l, "error") != NULL;
        if (is_error) return l;
        free(l);
        if (!end) break;
        line = end + 1;
    }
    if (first) return xstrndup(first, strcspn(first, "\n"));
    return run_describe(r);
}

static enum compiler_kind kind_from_name(const char *name)
{
    if (name && !strcmp(name, compiler_kind_name(COMPILER_GCC))) return COMPILER_GCC;
    if (name && !strcmp(name, compiler_kind_name(COMPILER_CLANG))) return COMPILER_CLANG;
    return COMPILER_UNKNOWN;
}

/* Record dirs of compiles that are no longer in the store (a rescan
 * replaced the row, and its record_files rows went with it): removed, so
 * that repeated scans do not pile up files nobody reads. */
static void remove_orphan_record_dirs(struct store *st, const char *variant_root)
{
    DIR *d = opendir(variant_root);
    if (!d) return;
    struct strvec orphans = STRVEC_INIT;
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        long long id = strtoll(de->d_name, &end, 10);
        if (*end || end == de->d_name) continue;   /* not one of ours */
        struct compile_row row;
        if (store_get_compile(st, id, &row) == 0) compile_row_free(&row);
        else sv_push(&orphans, de->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < orphans.n; i++) {
        char *p = path_join(variant_root, orphans.v[i]);
        remove_tree(p);
        free(p);
    }
    sv_free(&orphans);
}

/* The functions an assembly file defines: the names its ".type NAME,
 * @function" directives give (GCC and Clang write one per function on ELF,
 * "@function" or "%function"). Appended to out; 0, or -1 when the file
 * cannot be read. */
static int asm_functions(const char *path, struct strvec *out)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text) return -1;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next) *next++ = '\0';
        line += strspn(line, " \t");
        if (!strncmp(line, ".type", 5) && (line[5] == ' ' || line[5] == '\t')) {
            char *name = line + 5 + strspn(line + 5, " \t");
            char *comma = strchr(name, ',');
            if (comma && (strstr(comma, "@function") || strstr(comma, "%function"))) {
                char *end = comma;
                while (end > name && (end[-1] == ' ' || end[-1] == '\t')) end--;
                if (end > name) {
                    *end = '\0';
                    sv_push(out, name);
                }
            }
        }
        line = next;
    }
    free(text);
    return 0;
}

int probe_compile_has_debug(const struct compile_row *c)
{
    int g = 0;
    for (size_t i = 1; c->argv[0] && c->argv[i]; i++)
        if (str_starts_with(c->argv[i], "-g") && strlen(c->argv[i]) <= 8)   /* -g, -g2, -ggdb3, not -gsplit-dwarf... */
            g = strcmp(c->argv[i], "-g0") != 0;
    return g;
}

/* A request with on_object: the compile keeps its code as an object (the
 * assembler's time, ~10% of a -g0 compile, buys a file libelf and capstone
 * read exactly, where assembly text would need a parser of its own), at
 * -g1 (line tables and inline frames, no variables; the same code as -g0),
 * whether or not the build compiles with -g: the code profile then credits
 * each inlined callee with its share (codeprofile.h), and a build without
 * -g is compared with it through the host's own gain (candidates/isa.h). */
void probe_object_argv(int line_tables, struct strvec *argv, char **output)
{
    int g = line_tables;
    for (size_t i = 0; i < argv->n; i++)
        if (!strcmp(argv->v[i], "-S") || (g && !strcmp(argv->v[i], "-g0"))) {
            const char *by = !strcmp(argv->v[i], "-S") ? "-c" : "-g1";
            free(argv->v[i]);
            argv->v[i] = xstrdup(by);
        }
    size_t len = strlen(*output);
    if (len > 2 && !strcmp(*output + len - 2, ".s")) (*output)[len - 1] = 'o';
    for (size_t i = 0; i + 1 < argv->n; i++)
        if (!strcmp(argv->v[i], "-o")) {
            free(argv->v[i + 1]);
            argv->v[i + 1] = xstrdup(*output);
        }
}

/* One selected compile and everything its job needs. */
struct probe_job {
    struct compile_row *row;
    size_t twin_of;      /* SIZE_MAX, or the job (earlier) whose probe counts for this one */
    int skipped;         /* probeskip.h: not compiled, noted 'probe-skipped' */
    struct strvec argv;
    char *asm_path;      /* the assembly it writes (in the temp dir) */
    char *record_path;
    const char *format;
    char *setup_error;   /* set when the job could not even be prepared */
};

static void prepare(struct probe_job *pj, const struct probe_request *req, const char *variant_root,
                    const char *tmp)
{
    struct compile_row *row = pj->row;
    struct compiler_id cid = {.kind = kind_from_name(row->compiler_kind),
                              .path = row->compiler,
                              .version = row->compiler_version,
                              .major = row->compiler_version ? atoi(row->compiler_version) : 0};
    if (cid.kind == COMPILER_UNKNOWN) {
        pj->setup_error = xasprintf("compiler kind '%s' is neither gcc nor clang",
                                    row->compiler_kind ? row->compiler_kind : "");
        return;
    }
    char *idname = xasprintf("%lld", (long long)row->id);
    char *records_dir = path_join(variant_root, idname);
    char *outdir = path_join(tmp, idname);
    /* A previous run's records of this variant would be mistaken for ours. */
    remove_tree(records_dir);
    if (mkdir_p(records_dir, 0755) != 0 || mkdir_p(outdir, 0700) != 0) {
        pj->setup_error = xasprintf("cannot create %s", records_dir);
    } else {
        /* Named after the build's output, as the record file will be. */
        const char *base = path_basename(row->output && *row->output ? row->output : row->source);
        const char *dot = strrchr(base, '.');
        char *name = xasprintf("%.*s.s", dot && dot != base ? (int)(dot - base) : (int)strlen(base), base);
        char *output = path_join(outdir, name);
        struct strvec rflags = STRVEC_INIT;
        compiler_record_flags(&cid, records_dir, output, &rflags, &pj->record_path, &pj->format);
        probe_build_argv(row, req->extra_flags, sv_argv(&rflags), output, &pj->argv);
        if (req->on_object) probe_object_argv(1, &pj->argv, &output);
        sv_free(&rflags);
        pj->asm_path = output;
        free(name);
    }
    free(outdir);
    free(records_dir);
    free(idname);
}

struct keyed_job {
    char *key;
    size_t k;
};

static int keyed_job_cmp(const void *a, const void *b)
{
    const struct keyed_job *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->k > y->k) - (x->k < y->k);
}

/* Marks each job whose probe_dedupe_key an earlier job has as that one's
 * twin. Returns how many. */
static size_t find_twins(struct probe_job *pjs, size_t m)
{
    struct keyed_job *kj = xcalloc(m ? m : 1, sizeof *kj);
    for (size_t k = 0; k < m; k++) kj[k] = (struct keyed_job){probe_dedupe_key(pjs[k].row), k};
    qsort(kj, m, sizeof *kj, keyed_job_cmp);
    size_t twins = 0;
    for (size_t i = 1; i < m; i++) {
        size_t lead = i;
        while (lead > 0 && !strcmp(kj[lead - 1].key, kj[i].key)) lead--;
        if (lead == i) continue;
        pjs[kj[i].k].twin_of = kj[lead].k;
        twins++;
    }
    for (size_t k = 0; k < m; k++) free(kj[k].key);
    free(kj);
    return twins;
}

/* The build's object of a compile: the wrapper's kept copy, made right
 * after the compile; NULL without one (a compile database's outputs may be
 * older than the sources). */
static char *build_object(struct store *st, const struct compile_row *row)
{
    return wrapper_kept_object(store_path(st), row->source, row->output ? row->output : "");
}

/* Marks the jobs req->skip_codeless leaves out: a lead job with its twins,
 * when each of them has an object without functions and the lead's TU no
 * differing macro (probeskip.h). */
static void mark_codeless(struct store *st, const struct probe_request *req, struct probe_job *pjs, size_t m)
{
    struct probeskip_cache cache = {STRVEC_INIT, STRVEC_INIT};
    for (size_t k = 0; k < m; k++) {
        if (pjs[k].twin_of != SIZE_MAX) continue;
        int ok = 1;
        for (size_t t = k; ok && t < m; t++) {
            if (t != k && pjs[t].twin_of != k) continue;
            char *object = build_object(st, pjs[t].row);
            /* the lead's TU files; a twin differs only in PIC options */
            ok = t == k ? probeskip_codeless(pjs[t].row, object, req->extra_flags, &cache)
                        : probeskip_object_codeless(object);
            free(object);
        }
        for (size_t t = k; ok && t < m; t++)
            if (t == k || pjs[t].twin_of == k) pjs[t].skipped = 1;
    }
    probeskip_cache_free(&cache);
}

int probe_run(struct store *st, const struct probe_request *req, int jobs)
{
    size_t n;
    struct compile_row *rows = store_list_compiles(st, &n);
    struct probe_job *pjs = xcalloc(n ? n : 1, sizeof *pjs);
    size_t m = 0;
    size_t vanished = 0;
    const char *first_vanished = NULL;
    for (size_t i = 0; i < n; i++) {
        /* A build may compile a source it wrote and deletes again (lz4's
         * `$(CC) -o have_pthread have_pthread.c` inside $(shell), then
         * `rm have_pthread.c`): nothing is left to probe, and its failing
         * compile says nothing about vectorization. */
        if (req->skip_vanished && !file_exists(rows[i].source)) {
            if (!vanished++) first_vanished = rows[i].source;
            continue;
        }
        if (req->only_O2) {
            struct compile_args args;
            compile_args_parse(rows[i].argv, &args);
            int o2 = args.opt_level == '2';
            compile_args_free(&args);
            if (!o2) continue;
        }
        pjs[m].twin_of = SIZE_MAX;
        pjs[m++].row = &rows[i];
    }
    if (req->share_twins) find_twins(pjs, m);
    if (req->skip_codeless) mark_codeless(st, req, pjs, m);

    if (vanished && req->skip_vanished == 2)
        fmv_note("%zu compile%s not probed: %s no longer exist%s (%s%s)", vanished, vanished == 1 ? "" : "s",
                 vanished == 1 ? "its source" : "their sources", vanished == 1 ? "s" : "", first_vanished,
                 vanished > 1 ? ", ..." : "");
    char *tmp = m ? make_temp_dir("probe") : NULL;
    char *safe = probe_variant_dirname(req->variant);
    char *variant_root = path_join(store_records_dir(st), safe);
    free(safe);
    remove_orphan_record_dirs(st, variant_root);
    int failed = 0, store_err = 0;
    if (m && !tmp) {
        fmv_error("%s: cannot create a temp directory for the probe compiles", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        store_err = 1;
        m = 0;
    }

    /* GCC writes a dependency file named in these on its own: a build that
     * sets them must not have it rewritten by the probe. */
    static const char *const dep_vars[] = {"DEPENDENCIES_OUTPUT", "SUNPRO_DEPENDENCIES", NULL};
    struct strvec env = STRVEC_INIT;
    env_without(dep_vars, &env);
    struct run_job *rj = xcalloc(m ? m : 1, sizeof *rj);
    size_t *job_of = xcalloc(m ? m : 1, sizeof *job_of);
    size_t nj = 0;
    for (size_t k = 0; k < m; k++) {
        if (pjs[k].twin_of != SIZE_MAX || pjs[k].skipped) {
            /* Its records live in its twin's dir, or nowhere: a previous
             * run's own go. */
            char *idname = xasprintf("%lld", (long long)pjs[k].row->id);
            char *own = path_join(variant_root, idname);
            remove_tree(own);
            free(own);
            free(idname);
            continue;
        }
        prepare(&pjs[k], req, variant_root, tmp);
        if (pjs[k].setup_error) continue;
        rj[nj].argv = sv_argv(&pjs[k].argv);
        rj[nj].opts.cwd = pjs[k].row->directory;
        rj[nj].opts.env = sv_argv(&env);
        rj[nj].opts.capture_stderr = 1;
        rj[nj].opts.null_stdout = 1;
        job_of[nj++] = k;
    }
    struct run_result *res = xcalloc(nj ? nj : 1, sizeof *res);
    if (nj) run_pool(rj, nj, jobs, res);

    /* Failure lines per compile, in the order of the store. */
    char **why = xcalloc(m ? m : 1, sizeof *why);
    for (size_t k = 0; k < m; k++)
        if (pjs[k].setup_error) why[k] = xstrdup(pjs[k].setup_error);
    for (size_t j = 0; j < nj; j++) {
        size_t k = job_of[j];
        struct run_result *r = &res[j];
        if (!(r->spawned && r->exited && r->status == 0))
            why[k] = failure_line(r);
        else {
            char *found = compiler_record_file_found(pjs[k].record_path, pjs[k].format);
            if (!found) why[k] = xasprintf("the compiler wrote no record file %s", pjs[k].record_path);
            free(pjs[k].record_path);
            pjs[k].record_path = found;
        }
        run_result_free(r);
    }
    /* A twin fares as the compile that ran for it. */
    for (size_t k = 0; k < m; k++)
        if (pjs[k].twin_of != SIZE_MAX && why[pjs[k].twin_of]) why[k] = xstrdup(why[pjs[k].twin_of]);

    if (m && store_begin(st) != 0) store_err = 1;
    for (size_t k = 0; k < m && !store_err; k++) {
        struct compile_row *row = pjs[k].row;
        if (pjs[k].skipped) {
            /* A run before may have probed it (its records dir is gone). */
            char *detail = probeskip_note(req->variant);
            if (store_clear_variant(st, row->id, req->variant) != 0 ||
                store_add_tu_note(st, row->id, TU_NOTE_PROBE_SKIPPED, detail) != 0)
                store_err = 1;
            free(detail);
            continue;
        }
        int twin = pjs[k].twin_of != SIZE_MAX;
        const struct probe_job *ran = twin ? &pjs[pjs[k].twin_of] : &pjs[k];
        if (!why[k]) {
            if (store_add_record_file(st, row->id, req->variant, ran->format, ran->record_path) < 0)
                store_err = 1;
            /* The build's own compile (--compdb): what it emitted as
             * functions of their own, since its output is removed below. */
            if (!store_err && req->on_object &&
                req->on_object(st, row, req->variant, ran->asm_path, req->on_object_ctx) != 0)
                store_err = 1;
            struct strvec names = STRVEC_INIT;
            if (!store_err && !req->on_object && !strcmp(req->variant, "build") &&
                asm_functions(ran->asm_path, &names) == 0 &&
                store_set_object_functions(st, row->id, &names) != 0)
                store_err = 1;
            sv_free(&names);
            continue;
        }
        failed++;
        if (!twin) fmv_warn("%s: %s compile failed: %s", row->source, req->variant, why[k]);
        char *detail = xasprintf("%s: %s", req->variant, why[k]);
        if (store_add_tu_note(st, row->id, TU_NOTE_PROBE_FAILED, detail) != 0) store_err = 1;
        free(detail);
    }
    if (m && !store_err && store_commit(st) != 0) store_err = 1;
    if (m && store_err) store_rollback(st);

    for (size_t k = 0; k < m; k++) {
        free(why[k]);
        sv_free(&pjs[k].argv);
        free(pjs[k].asm_path);
        free(pjs[k].record_path);
        free(pjs[k].setup_error);
    }
    free(why);
    sv_free(&env);
    free(res);
    free(job_of);
    free(rj);
    if (tmp) remove_tree(tmp);
    free(tmp);
    free(variant_root);
    free(pjs);
    compile_rows_free(rows, n);
    return store_err ? -1 : failed;
}
