/* scan.c - see scan.h. The work is in lib/capture (wrapper, compdb, probe,
 * scaninfo, codeprofile), lib/records and lib/candidates; this file
 * sequences it. */
#include "scan/scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "candidates/analyze.h"
#include "capture/codeprofile.h"
#include "capture/compdb.h"
#include "capture/probe.h"
#include "capture/wrapper.h"
#include "scan/ingest.h"
#include "run/spawn.h"
#include "scan/explain.h"
#include "scan/root.h"
#include "store/store.h"
#include "targets/targets.h"

/* With FMVGEN_SCAN_PHASES set: the CPU seconds (user+sys) used so far by
 * fmvgen itself and by its waited-for children (the build, the probes), so
 * that the scan's cost can be told apart by phase. */
static void phase_end(const char *phase)
{
    if (!getenv("FMVGEN_SCAN_PHASES")) return;
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
#define CPU_S(ru) ((double)(ru).ru_utime.tv_sec + (double)(ru).ru_stime.tv_sec + \
                   ((double)(ru).ru_utime.tv_usec + (double)(ru).ru_stime.tv_usec) / 1e6)
    fprintf(stderr, "fmvgen: scan phase %s: cpu self %.3f children %.3f\n", phase, CPU_S(self), CPU_S(children));
#undef CPU_S
}

/* The records-only compiles at the widest target and (o3) at -O3. Twin
 * compiles (libtool's PIC and non-PIC copy of a source) are probed once;
 * a TU whose code cannot differ at the target (no function, no differing
 * macro: capture/probeskip.h) is not probed there, and noted. */
static void run_probes(struct store *st, const struct strvec *targets, int jobs, int o3)
{
    /* Sources a build deleted again are skipped (probe.h). */
    int skip_vanished = 2;   /* the first probe says so, the next is silent */
    scaninfo_clear_tu_notes(st, "probe-failed");
    scaninfo_clear_tu_notes(st, "probe-skipped");
    const char *widest = targets_widest(targets);
    if (widest) {
        struct strvec flags = STRVEC_INIT;
        target_compile_flags(widest, &flags);
        char *variant = xasprintf("probe:%s", widest);
        /* Its code too: candidates/isa.h compares it with the build's. */
        struct codeprofile_cache profiles = {0};   /* a twin's shared object read once */
        struct probe_request req = {.variant = variant, .extra_flags = sv_argv(&flags), .skip_vanished = skip_vanished,
                                    .on_object = codeprofile_store, .on_object_ctx = &profiles, .share_twins = 1,
                                    .skip_codeless = 1};
        skip_vanished = 1;
        probe_run(st, &req, jobs);
        codeprofile_cache_free(&profiles);
        free(variant);
        sv_free(&flags);
    }
    /* Not by default: it costs as much as the target probe, for a note on
     * what -O3 would vectorize that no clone can use (they keep -O2). */
    if (!o3) return;
    char *o3_flags[] = {"-O3", NULL};
    struct probe_request req = {.variant = "probe:O3", .extra_flags = o3_flags, .only_O2 = 1,
                                .skip_vanished = skip_vanished, .share_twins = 1};
    probe_run(st, &req, jobs);
}

/* The store's meta: what patch and select read back. */
static int write_meta(struct store *st, const char *root, const struct strvec *targets)
{
    struct strbuf tlist = STRBUF_INIT;
    for (size_t i = 0; i < targets->n; i++) sb_addf(&tlist, "%s%s", i ? "," : "", targets->v[i]);
    int rc = store_meta_set(st, "root", root) != 0 || store_meta_set(st, "targets", sb_str(&tlist)) != 0 ||
                     store_meta_set(st, "tool_version", FMVGEN_VERSION) != 0
                 ? -1
                 : 0;
    sb_free(&tlist);
    return rc;
}

/* The compiles and their record files, from the request's one source.
 * Returns -1 when it cannot go on; an unsupported compiler only sets
 * res->errors. */
static int capture(struct store *st, const struct scan_request *req, const char *builddir, const char *root,
                   struct ingest_stats *istats, struct scan_result *res)
{
    if (req->build) {
        res->build_status = wrapper_run_build(builddir, req->build);
        struct strvec unsupported = STRVEC_INIT;
        wrapper_unsupported_compilers(st, &unsupported);
        for (size_t i = 0; i < unsupported.n; i++) {
            fmv_error("%s: not GCC or Clang; its compiles ran but were not scanned", unsupported.v[i]);
            res->errors = 1;
        }
        res->n_unsupported = unsupported.n;
        sv_free(&unsupported);
        return 0;
    }
    if (req->compdb) {
        if (compdb_import(st, req->compdb) < 0) return -1;
        /* Its object, as a wrapped build's: the functions it emitted and
         * their ISA profiles (codeprofile.h). */
        struct probe_request preq = {.variant = "build", .on_object = codeprofile_store};
        probe_run(st, &preq, req->jobs);
        return 0;
    }
    return records_import_log(st, req->log, root, istats) != 0 ? -1 : 0;
}

/* Reads the record files registered since the last call; a corrupt one is
 * an error line and res->errors. -1 on a store error. */
static int ingest(struct store *st, struct ingest_stats *istats, struct scan_result *res)
{
    int ing = records_ingest_pending(st, istats);
    if (ing < 0) return -1;
    if (ing > 0) res->errors = 1;
    return 0;
}

/* Everything after the store is open; -1 when it stopped before the
 * summary. */
static int scan_store(struct store *st, const struct scan_request *req, const char *builddir, const char *root,
                      int widen_root, struct scan_result *res)
{
    if (write_meta(st, root, req->targets) != 0) return -1;
    struct ingest_stats istats = {0};
    /* Written again by this scan's probes and analysis (candidates/isa.h). */
    if (scaninfo_clear_tu_notes(st, "isa-unmatched") != 0) return -1;
    if (capture(st, req, builddir, root, &istats, res) != 0) return -1;
    char *top = widen_root ? scan_root_of_build(builddir) : NULL;   /* root.h */
    if (top && strcmp(top, root) != 0 && store_meta_set(st, "root", top) != 0) {
        free(top);
        return -1;
    }
    scan_root_check(st, top ? top : root);
    free(top);
    phase_end("build");
    int ing = ingest(st, &istats, res);
    phase_end("ingest");
    if (ing != 0) return -1;
    if (res->probed) {
        run_probes(st, req->targets, req->jobs, req->o3);
        phase_end("probes");
        ing = ingest(st, &istats, res);
        phase_end("probe-ingest");
        if (ing != 0) return -1;
    }
    if (scaninfo_write_tu_notes(st) != 0) return -1;
    struct analyze_stats astats = {0};
    if (candidates_analyze(st, &astats) != 0) return -1;
    phase_end("analyze");

    res->sum.corrupt = &res->corrupt;
    res->sum.no_records_sources = &res->no_records;
    if (scaninfo_summarize(st, &res->sum) != 0) return -1;
    /* A build that succeeded without one compile through the wrapper found
     * nothing it could have found: an error, not "nothing to do". */
    int nothing_captured = res->sum.compiles == 0 && req->build && !res->n_unsupported && res->build_status == 0;
    if (nothing_captured) {
        scan_explain_no_compiles(builddir, req->build);
        res->errors = 1;
    } else if (req->build && res->sum.compiles > 0) {
        scan_warn_cached_wrapper(builddir, req->build);
    }
    return 0;
}

int scan_run(const struct scan_request *req, struct scan_result *res)
{
    memset(res, 0, sizeof *res);
    res->widest = targets_widest(req->targets);
    /* A log holds no commands to re-run. */
    res->probed = !req->no_probe && !req->log;
    if (req->compdb && !file_exists(req->compdb)) return fmv_error("%s: no such file", req->compdb), -1;
    if (req->log && !file_exists(req->log)) return fmv_error("%s: no such file", req->log), -1;

    char *builddir;
    if (req->compdb) {
        char *abs = path_absolute(req->compdb, NULL);
        builddir = path_dirname(abs);
        free(abs);
    } else {
        builddir = req->builddir ? path_absolute(req->builddir, NULL) : get_cwd();
    }
    struct store *st = NULL;
    if (store_open(builddir, 1, &st) != 0) {
        free(builddir);
        return -1;
    }
    res->store_path = xstrdup(store_path(st));
    if (req->compdb && !req->quiet)
        fprintf(stderr, "fmvgen: the store of this compile database goes to %s\n", res->store_path);
    int from_git = 1;
    char *root = req->root ? path_absolute(req->root, NULL) : scan_root_guess(&from_git);
    int rc = scan_store(st, req, builddir, root, !req->root && !from_git, res);
    free(root);
    store_close(st);
    free(builddir);
    return rc;
}

void scan_warn_no_records(const struct scan_result *res)
{
    const struct strvec *v = &res->no_records;
    if (!v->n) return;
    fmv_warn("%zu compile%s gave no optimization records, so %s functions are not scanned: %s%s", v->n,
             v->n == 1 ? "" : "s", v->n == 1 ? "its" : "their", v->v[0], v->n > 1 ? ", ..." : "");
}

int scan_exit_status(int rc, const struct scan_result *res)
{
    if (res->build_status != 0) return res->build_status;
    return rc < 0 || res->errors ? 1 : 0;
}

void scan_result_free(struct scan_result *res)
{
    free(res->store_path);
    sv_free(&res->corrupt);
    sv_free(&res->no_records);
    res->store_path = NULL;
}
