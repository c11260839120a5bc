/* analyze_jobs.c - see analyze_internal.h: each TU parsed once by libclang,
 * on a few threads; what a job does in the first pass (its rows) and in the
 * second (sightings of included source files, included.h). */
#include "candidates/analyze_internal.h"
#include "candidates/simdifdef.h"
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
        sightings_collect(tu, pp, j->index, &files, &j->sightings);
        pp_directives_free(pp);
    }
    sv_free(&files);
    tu_free(tu);
}

static void run_job(CXIndex index, struct tu_job *j)
{
    const struct compile_row *c = j->compile;
    if (!job_busy(j)) return;
    if (j->sight_files) {
        sight_job(index, j);
        return;
    }
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
        return;
    }
    free(source);
    char *error = NULL;
    /* A compile imported from a build log: its compiler and flags are unknown. */
    int from_log = !c->compiler_kind || !strcmp(c->compiler_kind, "unknown");
    struct parsed_tu *tu = tu_parse(index, c, j->gcc_include, from_log, &error);
    if (tu) {
        if (error) fmv_warn("%s", error);
        struct pp_directives *pp = pp_directives_scan(tu);
        analyze_tu(tu, pp, c, &j->wanted, &j->rows);
        j->parsed = 1;
        /* Source files it includes: their definitions as this TU sees
         * them, for the verdict over every TU that compiles them. */
        tu_included_sources(tu, &j->included);
        if (j->included.n) sightings_collect(tu, pp, j->index, &j->included, &j->sightings);
        pp_directives_free(pp);
        tu_free(tu);
    } else {
        /* One line for the TU; its functions are kept as exclusions so that
         * `list` still shows what vectorized there. */
        fmv_error("%s", error);
        j->unparsable = 1;
        for (size_t k = 0; k < j->wanted.n; k++)
            fn_rows_add_unlocated(&j->rows, &j->wanted.v[k], c->directory, REASON_PARSE_ERROR, xstrdup(error), NULL);
    }
    free(error);
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
