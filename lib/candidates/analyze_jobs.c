/* analyze_jobs.c - see analyze_internal.h: each TU parsed once by libclang,
 * on a few threads; what a job does in the first pass (its rows) and in the
 * second (sightings of included source files, included.h). */
#include "candidates/analyze_internal.h"
#include "candidates/simdifdef.h"
#include "candidates/tuargs.h"
#include "run/spawn.h"
#include "util/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const char *gcc_include_dir(struct gcc_includes *cache, const struct compile_row *c)
{
    if (!c->compiler_kind || strcmp(c->compiler_kind, "gcc") != 0 || !c->compiler) return NULL;
    for (size_t i = 0; i < cache->compilers.n; i++)
        if (!strcmp(cache->compilers.v[i], c->compiler)) return *cache->dirs.v[i] ? cache->dirs.v[i] : NULL;
    char *argv[] = {c->compiler, "-print-file-name=include", NULL};
    struct run_opts opts = {.capture_stdout = 1, .null_stderr = 1, .timeout_s = 30};
    struct run_result res;
    char *dir = NULL;
    if (run_argv(argv, &opts, &res) == 0 && res.out) {
        dir = xstrndup(res.out, strcspn(res.out, "\r\n"));
        if (dir[0] != '/' || !is_directory(dir)) {
            free(dir);
            dir = NULL;
        }
    }
    run_result_free(&res);
    sv_push(&cache->compilers, c->compiler);
    sv_push(&cache->dirs, dir ? dir : "");
    free(dir);
    const char *d = cache->dirs.v[cache->dirs.n - 1];
    return *d ? d : NULL;
}

/* What j's object defines as functions, or NULL when unknown. */
static const struct strvec *job_object_functions(const struct tu_job *j)
{
    return j->wanted.object_known ? &j->wanted.object_functions : NULL;
}

static int job_busy(const struct tu_job *j)
{
    return j->sight_files || (j->wanted.n > 0 && !j->done);
}

/* The second pass over one TU: which of the files it compiles, and how. */
static void sight_job(CXIndex index, struct tu_job *j)
{
    const struct compile_row *c = j->compile;
    char *error = NULL;
    int from_log = !c->compiler_kind || !strcmp(c->compiler_kind, "unknown");
    struct parsed_tu *tu = tu_parse(index, c, j->gcc_include, from_log, &error);
    /* Said already in the first pass, or a TU without vectorized code whose
     * includes cannot be known: nothing to add. */
    free(error);
    if (!tu) return;
    struct strvec files = STRVEC_INIT;
    char *source = path_absolute(c->source, c->directory);
    if (sv_contains(j->sight_files, source)) sv_push(&files, source);
    free(source);
    if (!j->parsed) tu_included_sources(tu, &j->included);
    for (size_t i = 0; !j->parsed && i < j->included.n; i++)
        if (sv_contains(j->sight_files, j->included.v[i]) && !sv_contains(&files, j->included.v[i]))
            sv_push(&files, j->included.v[i]);
    if (files.n) {
        struct pp_directives *pp = pp_directives_scan(tu);
        sightings_collect(tu, pp, j->index, &files, job_object_functions(j), &j->sightings);
        pp_directives_free(pp);
    }
    sv_free(&files);
    tu_free(tu);
}

/* The first pass's work on a parsed TU: j's rows, and the source files it
 * includes with their definitions as it sees them. warning: tu_parse's. */
static void analyze_parsed(struct tu_job *j, struct parsed_tu *tu, const struct pp_directives *pp,
                           const char *warning)
{
    if (warning) fmv_warn("%s", warning);
    analyze_tu(tu, (struct pp_directives *)pp, j->compile, &j->wanted, &j->rows);
    j->parsed = 1;
    /* Source files it includes: their definitions as this TU sees
     * them, for the verdict over every TU that compiles them. */
    tu_included_sources(tu, &j->included);
    if (j->included.n) sightings_collect(tu, pp, j->index, &j->included, job_object_functions(j), &j->sightings);
}

/* The names -fPIC, -fpic and -DPIC define or undefine: PIC, __PIC__ and
 * __pic__, and __PIE__ and __pie__ of a compiler that builds PIE by default
 * (GCC and Clang on Debian, where -fPIC drops them). A TU whose files
 * mention none parses alike with and without the options. */
static const char *const PIC_WORDS[] = {"PIC", "__pic__", "PIE", "__pie__", NULL};

/* 1 when twin may take the parse of leader's TU (analyze_group_twins): the
 * same libclang arguments, or only the PIC options apart and none of the
 * names they define in the TU's files. */
static int shares_parse(const struct tu_job *leader, const struct tu_job *twin, struct parsed_tu *tu)
{
    return !strcmp(leader->parse_args, twin->parse_args) || !tu_files_mention(tu, PIC_WORDS);
}

static void first_pass(CXIndex index, struct tu_job *j, int with_twins);

/* The first pass of j, then of the twins that share its parse. */
static void run_job(CXIndex index, struct tu_job *j)
{
    if (j->sight_files) {
        sight_job(index, j);
        return;
    }
    /* A follower's first pass runs on its leader's worker, which alone
     * touches it (its done flag too) until the workers end. */
    if (j->twin_follower || !job_busy(j)) return;
    first_pass(index, j, 1);
}

/* j's first pass; with_twins: also its twins' (j leads them). */
static void first_pass(CXIndex index, struct tu_job *j, int with_twins)
{
    struct tu_job *twins = with_twins ? j->twin_next : NULL;
    const struct compile_row *c = j->compile;
    j->done = 1;
    char *source = path_absolute(c->source, c->directory);
    if (!file_exists(source)) {
        /* Deleted or moved since the scan (or named by a build log that is
         * not from this tree): nothing to locate, nothing to patch. */
        fmv_warn("%s: source file not found; its functions are not analyzed", source);
        for (size_t k = 0; k < j->wanted.n; k++)
            fn_rows_add_unlocated(&j->rows, &j->wanted.v[k], c->directory, REASON_NOT_FOUND,
                          xasprintf("%s: the source file does not exist (any more)", source), NULL);
        free(source);
        for (struct tu_job *t = twins; t; t = t->twin_next) first_pass(index, t, 0);
        return;
    }
    free(source);
    char *error = NULL;
    /* A compile imported from a build log: its compiler and flags are unknown. */
    int from_log = !c->compiler_kind || !strcmp(c->compiler_kind, "unknown");
    struct parsed_tu *tu = tu_parse(index, c, j->gcc_include, from_log, &error);
    if (tu) {
        struct pp_directives *pp = pp_directives_scan(tu);
        analyze_parsed(j, tu, pp, error);
        /* libtool's twins (the shared library's -fPIC -DPIC copy of the
         * compile): one parse for all, when it is the parse each would get. */
        for (struct tu_job *t = twins; t; t = t->twin_next) {
            if (shares_parse(j, t, tu)) {
                t->done = 1;
                analyze_parsed(t, tu, pp, error);
            } else {
                first_pass(index, t, 0);
            }
        }
        pp_directives_free(pp);
        tu_free(tu);
    } else {
        /* One line for the TU; its functions are kept as exclusions so that
         * `list` still shows what vectorized there. */
        fmv_error("%s", error);
        j->unparsable = 1;
        for (size_t k = 0; k < j->wanted.n; k++)
            fn_rows_add_unlocated(&j->rows, &j->wanted.v[k], c->directory, REASON_PARSE_ERROR, xstrdup(error), NULL);
        for (struct tu_job *t = twins; t; t = t->twin_next) first_pass(index, t, 0);
    }
    free(error);
}

/* Whether args[i] (of libclang's arguments, tuargs.h: "-D" and its value
 * apart) is a PIC option libtool adds to the shared library's copy; *skip:
 * the arguments it spans beyond the first. */
static int is_pic_arg(const struct strvec *args, size_t i, size_t *skip)
{
    const char *a = args->v[i];
    *skip = 0;
    if (!strcmp(a, "-fPIC") || !strcmp(a, "-fpic") || !strcmp(a, "-DPIC")) return 1;
    if (!strcmp(a, "-D") && i + 1 < args->n && !strcmp(args->v[i + 1], "PIC")) {
        *skip = 1;
        return 1;
    }
    return 0;
}

/* What decides a job's parse, length-prefixed (no field can fake a
 * separator): the source, its hash, the compile's directory, compiler kind,
 * language, GCC include dir and libclang arguments; with_pic 0 leaves the
 * PIC options out. Caller frees. */
static char *parse_key(const struct tu_job *j, int with_pic)
{
    const struct compile_row *c = j->compile;
    struct strbuf key = STRBUF_INIT;
    const char *head[] = {c->source, c->source_hash, c->directory, c->compiler_kind, c->language, j->gcc_include};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        sb_addf(&key, "%zu:%s", head[i] ? strlen(head[i]) : 0, head[i] ? head[i] : "");
    struct strvec args = STRVEC_INIT;
    tuargs_build(c->argv, c->directory, c->language, j->gcc_include, &args);
    for (size_t i = 0; i < args.n; i++) {
        size_t skip;
        if (!with_pic && is_pic_arg(&args, i, &skip)) {
            i += skip;
            continue;
        }
        sb_addf(&key, "%zu:%s", strlen(args.v[i]), args.v[i]);
    }
    sv_free(&args);
    return sb_detach(&key);
}

struct keyed {
    char *key;
    size_t i;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

void analyze_group_twins(struct tu_job *jobs, size_t n)
{
    struct keyed *k = xcalloc(n ? n : 1, sizeof *k);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!job_busy(&jobs[i]) || jobs[i].sight_files) continue;
        char *common = parse_key(&jobs[i], 0);
        /* The names may also come in through the other arguments
         * (-DX=__PIC__): such a job parses on its own. */
        int named = 0;
        for (size_t w = 0; PIC_WORDS[w]; w++) named |= strstr(common, PIC_WORDS[w]) != NULL;
        if (named) {
            free(common);
            continue;
        }
        jobs[i].parse_args = parse_key(&jobs[i], 1);
        k[m++] = (struct keyed){common, i};
    }
    qsort(k, m, sizeof *k, keyed_cmp);
    /* Each run of one key: the first job in store order leads, the others
     * follow it in order. */
    for (size_t a = 0, b; a < m; a = b) {
        struct tu_job *last = &jobs[k[a].i];
        for (b = a + 1; b < m && !strcmp(k[b].key, k[a].key); b++) {
            struct tu_job *t = &jobs[k[b].i];
            t->twin_follower = 1;
            last->twin_next = t;
            last = t;
        }
    }
    for (size_t i = 0; i < m; i++) free(k[i].key);
    free(k);
}

#define MAX_PARSERS 8

struct job_queue {
    struct tu_job *jobs;
    size_t n, next;
    pthread_mutex_t lock;
};

struct worker_arg {
    struct job_queue *queue;
    CXIndex index;
};

/* A worker parses TUs until none is left, with its own libclang index:
 * libclang is thread-safe for distinct indexes and TUs. */
static void *worker(void *arg)
{
    struct worker_arg *w = arg;
    struct job_queue *q = w->queue;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t i = q->next++;
        pthread_mutex_unlock(&q->lock);
        if (i >= q->n) break;
        run_job(w->index, &q->jobs[i]);
    }
    return NULL;
}

void analyze_run_jobs(struct tu_job *jobs, size_t n)
{
    struct job_queue q = {jobs, n, 0, PTHREAD_MUTEX_INITIALIZER};
    size_t busy = 0;
    for (size_t i = 0; i < n; i++) busy += job_busy(&jobs[i]);
    size_t nthreads = (size_t)(cpu_count() > 0 ? cpu_count() : 1);
    /* A parsed C++ TU can hold hundreds of MB: a few at a time is enough. */
    if (nthreads > MAX_PARSERS) nthreads = MAX_PARSERS;
    if (nthreads > busy) nthreads = busy;
    if (nthreads == 0) return;
    /* Indexes are created here, one after the other: creating one
     * initializes LLVM's global target registry, which is not safe to do
     * from two threads at once. */
    struct worker_arg *args = xcalloc(nthreads, sizeof *args);
    for (size_t t = 0; t < nthreads; t++) args[t] = (struct worker_arg){&q, clang_createIndex(0, 0)};
    pthread_t *threads = xcalloc(nthreads, sizeof *threads);
    size_t started = 0;
    if (nthreads > 1) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        /* Deeply nested code recurses deeply in clang's parser. */
        pthread_attr_setstacksize(&attr, 16u << 20);
        for (; started < nthreads; started++)
            if (pthread_create(&threads[started], &attr, worker, &args[started]) != 0) break;
        pthread_attr_destroy(&attr);
    }
    if (started == 0) worker(&args[0]);   /* one job, or no thread could start: do it here */
    for (size_t t = 0; t < started; t++) pthread_join(threads[t], NULL);
    for (size_t t = 0; t < nthreads; t++) clang_disposeIndex(args[t].index);
    free(threads);
    free(args);
}
