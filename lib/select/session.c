/* session.c - see session.h. The run of one selection (select_run,
 * run_steps); what its phases share (progress and Ctrl-C, building and
 * running a variant) is in variants.c, below them. The phases, in the order run_steps calls them: init_report and build_all
 * (here), session_check_all (checks.c), session_profile_all and the decision
 * (profiling.c), select_apply_decision and select_patch_assignments
 * (assign.h), session_confirm (confirm.c); select_static (static.h) instead
 * of the timed phases with --static. */
#include "select/session.h"
#include "select/session_phases.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "select/assign.h"
#include "select/dispatch.h"
#include "select/fmabisect.h"
#include "select/hotrest.h"
#include "select/isolation.h"
#include "select/linkedfile.h"
#include "select/placement.h"
#include "select/reference.h"
#include "select/report.h"
#include "select/runcheck.h"
#include "select/runsauto.h"
#include "select/static.h"
#include "capture/wrapper.h"
#include "util/cmake_cache.h"
#include "store/notes.h"
#include "store/store.h"
#include "targets/targets.h"
#include "util/shuffle.h"

const struct select_target_set select_target_sets[] = {
    {"fma-levels", TARGETS_DEFAULT, 0},
    {"fma-free", TARGETS_EXACT, 1},
};
const size_t select_n_target_sets = sizeof select_target_sets / sizeof *select_target_sets;

/* ---- the state of one selection ---- */

static void init_report(struct select_session *s)
{
    struct select_report *r = &s->rep;
    r->static_mode = s->o->is_static;
    r->runs = s->o->runs;
    r->min_share = s->o->min_share;
    r->tolerance = s->o->tolerance;
    r->seed = s->o->seed_given ? s->o->seed : shuffle_new_seed();
    r->n_variants = 1 + s->n_sets;
    r->variants = xcalloc(r->n_variants, sizeof *r->variants);
    r->variants[0].name = xstrdup("baseline");
    r->variants[0].targets = xstrdup("");
    for (size_t v = 1; v < r->n_variants; v++) {
        r->variants[v].name = xstrdup(s->sets[v - 1].name);
        r->variants[v].targets = xstrdup(s->sets[v - 1].targets);
    }
    r->n_functions = s->candidates.nfunctions;
    r->functions = xcalloc(r->n_functions ? r->n_functions : 1, sizeof *r->functions);
    for (size_t f = 0; f < r->n_functions; f++) {
        const struct patch_function *pf = &s->candidates.functions[f];
        r->functions[f].name = xstrdup(pf->name);
        r->functions[f].display_name = xstrdup(pf->display_name ? pf->display_name : pf->name);
        r->functions[f].file = xstrdup(pf->rel);
        r->functions[f].line = pf->line;
        r->functions[f].kind = pf->kind;
        r->functions[f].evidence = pf->evidence ? xstrdup(pf->evidence) : NULL;
        patch_function_helpers(pf, &r->functions[f].helpers);
        const json_t *alt = json_object_get(notes_find(pf->notes, NOTE_ALTERNATIVE_CALLEE), "callee");
        const char *alt_name = json_string_value(json_object_get(alt, "display_name"));
        r->functions[f].alternative = alt_name ? xstrdup(alt_name) : NULL;
        r->functions[f].ran = xcalloc(r->n_variants + 1, sizeof *r->functions[f].ran);
    }
    r->n_workloads = s->o->runs_cmd->n;
    r->workloads = xcalloc(r->n_workloads ? r->n_workloads : 1, sizeof *r->workloads);
    for (size_t w = 0; w < r->n_workloads; w++) r->workloads[w].command = xstrdup(s->o->runs_cmd->v[w]);
    /* + the selected build (SESSION_MARCH_INDEX - 1) + the references */
    s->builds = xcalloc(SESSION_NOFMA_INDEX(r) + 1, sizeof *s->builds);
    s->sources = xcalloc(SESSION_NOFMA_INDEX(r) + 1, sizeof *s->sources);
    s->base_outputs = xcalloc(r->n_workloads ? r->n_workloads : 1, sizeof *s->base_outputs);
    s->check_cpu = xcalloc(r->n_variants * r->n_workloads + 1, sizeof *s->check_cpu);
}

/* The all-candidates patch of target set `set`, with the selection's
 * dispatch (--static: IFUNC, the clones inspect reads). */
static int plan_for_set(struct select_session *s, size_t set, struct patch_plan *plan)
{
    struct strvec targets = STRVEC_INIT;
    enum patch_dispatch dispatch = s->o->is_static ? PATCH_DISPATCH_IFUNC : s->o->dispatch;
    int rc = targets_parse(s->sets[set].targets, &targets);
    if (rc == 0) rc = patch_validate_targets(s->st, &targets, NULL, NULL, 0);
    if (rc == 0) rc = patch_plan_build_dispatch(s->st, &targets, s->sets[set].exact, 0, dispatch, plan);
    if (rc == 0 && !s->o->is_static) select_dispatch_record(&s->rep, plan);
    s->rep.variants[set + 1].fma = targets_enable_fma(&targets);
    sv_free(&targets);
    return rc;
}

/* How a reference's build reached the wrapper, for the report: its links
 * first in PATH and in CC/CXX, plus what a CMake cache in its build dir
 * says (the moved cache's launcher, or a fresh configure's compiler). */
static char *reference_via(const char *dir, const char *launcher, const char *wrapdir)
{
    char *cache = dir ? path_join(dir, "CMakeCache.txt") : NULL;
    char *text = cache && file_exists(cache) ? read_file(cache, NULL) : NULL;
    char *cc = text ? cmake_cache_value(text, "CMAKE_C_COMPILER_LAUNCHER") : NULL;
    char *compiler = text ? cmake_cache_value(text, "CMAKE_C_COMPILER") : NULL;
    const char *how = "its links first in PATH and in CC/CXX";
    char *out;
    if (cc && launcher && strstr(cc, launcher))
        out = xasprintf("%s, and as the compiler launcher of the copied CMake cache (which names %s)", how,
                        compiler && *compiler ? compiler : "its compiler");
    else if (compiler && strstr(compiler, wrapdir))
        out = xasprintf("%s, which the fresh CMake configure cached as its compiler", how);
    else if (text)
        out = xasprintf("%s (a CMake cache naming %s, without the wrapper)", how,
                        compiler && *compiler ? compiler : "its compiler");
    else
        out = xstrdup(how);
    free(cc);
    free(compiler);
    free(text);
    free(cache);
    return out;
}

/* A whole-program reference (select/reference.h): the unpatched project
 * built once more, every compile getting the kind's flags from fmvgen's
 * wrapper in append mode (capture/wrapper.h) - links first in PATH and
 * CC/CXX, and a copied CMake cache's compiler launcher - whatever the build
 * does with CFLAGS. Only compared with, never selected; a failure (also:
 * no compile reached the wrapper) is reported, not an error of the
 * selection. */
static void build_reference(struct select_session *s, struct select_march *m, size_t index,
                            const struct select_reference_kind *kind, const char *why, size_t k, size_t n)
{
    struct select_report *r = &s->rep;
    m->name = kind->name;
    m->title = kind->title;
    m->flags = xstrdup(kind->flags);
    m->why = xstrdup(why);
    session_step(k, n, "building the %s reference (unpatched, whole program, through fmvgen's compiler wrapper)",
                 kind->title);
    m->attempted = 1;
    r->n_builds++;
    struct patch_plan plan;   /* every source rewritten unchanged: compiled again */
    if (select_reference_plan(s->st, s->root, &plan) != 0) {
        m->failure = xstrdup("a source of the scan cannot be read");
        patch_plan_free(&plan);
        return;
    }
    char *name = xasprintf("reference-%s", kind->name);
    char *wrapdir = xasprintf("%s/wrap-%s", s->work, kind->name);
    char *log = xasprintf("%s/%s.compiles", s->work, name);
    char *launcher = wrapper_executable();
    struct wrapper_env saved;
    if (wrapper_env_apply(wrapdir, NULL, kind->flags, log, &saved) != 0) {
        m->failure = xstrdup("fmvgen's compiler wrapper could not be set up");
    } else {
        /* a copied CMake cache runs its compiler by absolute path: the
         * wrapper goes in as its compiler launcher */
        s->tree.cmake_launcher = launcher;
        const struct variant_build *b = &s->builds[index];
        if (session_build_variant(s, index, name, &plan) == 0) m->built = 1;
        else m->failure = xasprintf("its build failed (%s)", b->failure ? b->failure : "?");
        s->tree.cmake_launcher = NULL;
        wrapper_env_restore(&saved);
        m->via = reference_via(b->dir, launcher, wrapdir);
    }
    if (m->built) {
        struct select_reference_check c;
        /* in a mount namespace its compiles saw the copy at the root */
        select_reference_check(log, s->sources[index], s->tree.ns_helper ? s->root : NULL, &plan, &c);
        m->n_sources = c.n_sources;
        m->n_flagged = c.n_flagged;
        sv_free(&m->missed);
        m->missed = c.missed;
        if (c.n_sources && !c.n_flagged) {
            m->failure = xasprintf("no compile went through fmvgen's wrapper, so none got %s: the build runs its "
                                   "compiler by an absolute path (CC=/usr/bin/gcc in a configured Makefile, or a "
                                   "CMake tree configured with one); reconfigure it with CC=gcc (a name found in "
                                   "PATH), or give --configure so that each copy is configured afresh", kind->flags);
        } else if (c.n_flagged < c.n_sources) {
            sv_pushf(&r->notes, "the %s reference is partly built for it: %zu of the scan's %zu sources were "
                                "compiled without %s (first: %s): the build does not rebuild them, or reaches their "
                                "compiler by an absolute path", kind->title, c.n_sources - c.n_flagged, c.n_sources,
                     kind->flags, c.missed.n ? c.missed.v[0] : "?");
        }
        if (m->failure) session_say("the %s reference: %s", kind->title, m->failure);
    }
    free(launcher);
    free(log);
    free(wrapdir);
    free(name);
    patch_plan_free(&plan);
}

/* Builds the baseline and every target set's all-candidates variant. */
static int build_all(struct select_session *s)
{
    struct select_report *r = &s->rep;
    /* one count for every build of this phase: the variants, then the references asked for */
    size_t n = r->n_variants + (size_t)!!s->o->reference_v3 + (size_t)!!s->o->reference_nofma;
    for (size_t v = 0; v < r->n_variants; v++) {
        if (session_interrupted()) return -1;
        if (s->o->is_static && v != 1) continue;   /* static: only the default targets' clones */
        /* --static builds one variant: step 1/1 */
        session_step(s->o->is_static ? 1 : v + 1, s->o->is_static ? 1 : n, "building %s%s%s",
             r->variants[v].name, v ? " with every candidate cloned for " : "", r->variants[v].targets);
        struct patch_plan plan;
        int have_plan = 0;
        if (v > 0) {
            if (plan_for_set(s, v - 1, &plan) != 0) {
                patch_plan_free(&plan);
                return -1;
            }
            have_plan = 1;
        }
        r->n_builds++;
        struct timespec start;
        clock_gettime(CLOCK_REALTIME, &start);
        if (session_build_variant(s, v, r->variants[v].name, have_plan ? &plan : NULL) == 0) {
            r->variants[v].built = 1;
            /* a build that compiled no patched source into anything: no clone would ever run (runcheck.h) */
            if (have_plan && select_runcheck_rebuilt(s, v, &start) != 0) {
                patch_plan_free(&plan);
                return -1;
            }
            /* a workload or --test failing on the baseline stops everything:
             * found now, not after every other build */
            if (v == 0 && !s->o->is_static && session_check_one(s, 0) != 0) return -1;
        } else if (v == 0) {
            fmv_error("%s: the baseline does not build with '%s'; nothing selected", s->root, s->o->build);
            if (have_plan) patch_plan_free(&plan);
            return -1;
        } else {
            r->variants[v].failure = xasprintf("build failed (%s)", s->builds[v].failure ? s->builds[v].failure : "?");
        }
        if (have_plan) patch_plan_free(&plan);
    }
    size_t k = r->n_variants;
    if (!s->o->is_static && s->o->reference_v3) {
        if (session_interrupted()) return -1;
        build_reference(s, &r->march, SESSION_MARCH_INDEX(r), select_reference_kind("v3"), "--reference v3", ++k, n);
    }
    if (!s->o->is_static && s->o->reference_nofma) {
        if (session_interrupted()) return -1;
        build_reference(s, &r->march_nofma, SESSION_NOFMA_INDEX(r), select_reference_kind("v3-nofma"),
                        "--reference v3-nofma", ++k, n);
    }
    return 0;
}

/* The FMA-free reference, when not asked for and not built: built anyway
 * (reference_nofma_auto) when FMA changed the outputs - the fma-levels
 * variant's differ - since the -march=x86-64-v3 build then computes other
 * floats too, and the fair whole-program comparison is the FMA-free one. */
static void build_nofma_if_fma_differs(struct select_session *s)
{
    struct select_report *r = &s->rep;
    if (!s->o->reference_nofma_auto || r->march_nofma.attempted || session_interrupted()) return;
    for (size_t v = 1; v < r->n_variants; v++) {
        const struct select_variant *x = &r->variants[v];
        if (!x->fma || !x->built || !x->failure || strncmp(x->failure, "output", 6) != 0) continue;
        build_reference(s, &r->march_nofma, SESSION_NOFMA_INDEX(r), select_reference_kind("v3-nofma"),
                        "FMA changed the outputs, so the -march=x86-64-v3 build computes other floats", 0, 0);
        return;
    }
}

/* ---- the whole run ---- */

/* 1 when some target set's variant built. */
static int any_set_built(const struct select_report *r)
{
    for (size_t v = 1; v < r->n_variants; v++)
        if (r->variants[v].built) return 1;
    return 0;
}

/* The steps after the temp dir exists; the caller removes it. */
static enum select_status run_steps(struct select_session *s)
{
    const struct select_options *o = s->o;
    if (o->is_static)
        session_say("%zu candidates; one build: every candidate cloned", s->candidates.nfunctions);
    else
        session_say("%zu candidates; builds: baseline + %zu target sets%s%s + the selected one",
            s->candidates.nfunctions, s->n_sets, o->reference_v3 ? " + the -march=x86-64-v3 reference" : "",
            o->reference_nofma ? " + the -march=x86-64-v3 -mno-fma reference" : "");
    struct patch_assignments assigned = {0};
    int ok = build_all(s) == 0;
    if (ok && o->is_static) {
        if (!s->rep.variants[1].built) {
            fmv_error("%s: the all-candidates build failed; nothing selected", s->root);
            ok = 0;
        } else {
            select_static(s->builds[1].dir, &s->candidates, 1, &s->rep);
            ok = select_patch_assignments(&s->rep, &assigned) == 0;
            if (ok && assigned.n) {
                s->have_final = 1;
                ok = patch_validate_assignments(s->st, &assigned) == 0 &&
                     patch_plan_build_assigned_dispatch(s->st, &assigned, o->dispatch, &s->final_plan) == 0;
                if (ok) select_dispatch_record(&s->rep, &s->final_plan);
            }
        }
    } else if (ok && !any_set_built(&s->rep)) {
        /* nothing to compare: profiling the baseline alone would end in "no gain" */
        fmv_error("%s: no target set's build succeeded (%s: %s): nothing to measure, nothing selected (the "
                  "build's output is above)", s->root, s->rep.variants[1].name,
                  s->rep.variants[1].failure ? s->rep.variants[1].failure : "not built");
        ok = 0;
    } else if (ok) {
        /* the clones' bytes first: among sets the measurements cannot tell
         * apart, the one adding less code is taken (decision.h) */
        if (ok) session_measure_code(s);
        ok = session_check_all(s) == 0;
        if (ok) build_nofma_if_fma_differs(s);
        if (ok) ok = session_choose_runs(s) == 0;
        ok = ok && session_profile_all(s) == 0;
        if (ok) {
            session_note_noise(s);
            session_note_hot_rest(s);
            select_note_statistics(&s->rep);
            select_apply_decision(&s->rep);
            session_note_small_gains(s);
            session_note_fma_free(s);
            session_note_fma_bisect(s);
            ok = select_patch_assignments(&s->rep, &assigned) == 0;
            if (ok && assigned.n) {
                s->have_final = 1;
                session_placement_pins(s, &assigned);
                ok = session_confirm(s, &assigned, &s->final_plan) == 0;
                if (ok && s->have_final && !session_interrupted()) ok = session_placement_check(s) == 0;
            } else if (ok) {
                sv_push(&s->rep.notes, s->rep.budget.n_dropped
                                           ? "nothing is left within the code-growth budget: selected.patch is empty"
                                           : "no function gained significantly: selected.patch is empty");
                if (!session_interrupted()) session_time_references(s);
            }
        }
    }
    if (ok && !session_was_interrupted() && !s->rep.variants[0].code.measured && !s->rep.variants[1].code.measured) session_measure_code(s);
    patch_assignments_free(&assigned);
    if (session_was_interrupted()) return SELECT_INTERRUPTED;
    return ok ? SELECT_DONE : SELECT_FAILED;
}

static enum select_status run_session(struct select_session *s, const struct select_options *o, struct store *st)
{
    memset(s, 0, sizeof *s);
    s->opts = *o;
    s->o = &s->opts;
    s->sets = o->sets ? o->sets : select_target_sets;
    s->n_sets = o->sets ? o->n_sets : select_n_target_sets;
    s->st = st;
    s->root = store_meta_get(st, "root");
    if (!s->root) {
        fmv_error("%s: no project root recorded; run 'fmvgen scan' first", store_path(st));
        return SELECT_FAILED;
    }
    /* the references build through fmvgen-cc: refused before anything is built */
    if (!o->is_static && (o->reference_v3 || o->reference_nofma || o->reference_nofma_auto) &&
        wrapper_require("the -march=x86-64-v3 reference builds through it ('--reference none': no reference)") != 0)
        return SELECT_FAILED;
    s->builddir = path_absolute(store_builddir(st), NULL);
    s->tree = (struct select_tree){.root = s->root, .builddir = s->builddir, .configure = o->configure,
                                   .build = o->build, .timeout_s = o->timeout_s,
                                   .cancel = session_cancel_flag()};
    if (select_tree_check(&s->tree) != 0) return SELECT_FAILED;
    if (patch_plan_build(st, &(struct strvec)STRVEC_INIT, 0, &s->candidates) != 0) return SELECT_FAILED;
    if (s->candidates.nfunctions == 0) return SELECT_NO_CANDIDATES;
    init_report(s);
    s->work = make_temp_dir("fmvgen-select");
    if (!s->work) {
        fmv_error("cannot create a temp directory");
        return SELECT_FAILED;
    }
    select_isolation_setup(&s->tree, s->work, o->no_namespaces);
    struct session_signals saved;
    session_progress_begin(&saved);
    if (s->tree.ns_off && !o->is_static) {   /* isolation.h */
        sv_pushf(&s->rep.notes, "variants ran at their copies' own paths, not in private mount namespaces at the "
                                "project's path (%s): every profiled run was checked to run the variant's own "
                                "build", s->tree.ns_off);
        session_say("%s", s->rep.notes.v[s->rep.notes.n - 1]);
    }
    if (o->dispatch_why && !o->is_static) sv_pushf(&s->rep.notes, "%s", o->dispatch_why);
    enum select_status status = run_steps(s);
    if (o->keep && status != SELECT_INTERRUPTED) session_say("kept the temp directory %s", s->work);
    else remove_tree(s->work);
    session_progress_end(&saved);
    return status;
}

/* select plans the patch for every build: its warnings ("not patched")
 * are said once */
enum select_status select_run(struct select_session *s, const struct select_options *o, struct store *st)
{
    fmv_say_once_begin();
    enum select_status status = run_session(s, o, st);
    fmv_say_once_end();
    return status;
}

/* ---- outputs ---- */

int select_write_outputs(const struct select_session *s, struct select_outputs *out)
{
    memset(out, 0, sizeof *out);
    const char *dir = store_path(s->st);
    out->patch = path_join(dir, "selected.patch");
    out->markdown = path_join(dir, "report.md");
    out->json = path_join(dir, "report.json");
    out->html = path_join(dir, "report.html");
    const char *text = s->have_final && s->final_plan.text ? s->final_plan.text : "";
    char *md = select_report_markdown(&s->rep);
    char *html = select_report_html(&s->rep);
    json_t *j = select_report_json(&s->rep);
    out->json_text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(j);
    int rc = 0;
    if (write_output_file(out->patch, text, strlen(text)) != 0) rc = fmv_error("%s: cannot write", out->patch);
    if (write_output_file(out->markdown, md, strlen(md)) != 0) rc = fmv_error("%s: cannot write", out->markdown);
    if (write_output_file(out->json, out->json_text, strlen(out->json_text)) != 0)
        rc = fmv_error("%s: cannot write", out->json);
    if (write_output_file(out->html, html, strlen(html)) != 0) rc = fmv_error("%s: cannot write", out->html);
    free(md);
    free(html);
    return rc;
}

void select_outputs_free(struct select_outputs *out)
{
    free(out->patch);
    free(out->markdown);
    free(out->json);
    free(out->html);
    free(out->json_text);
    memset(out, 0, sizeof *out);
}

void select_session_free(struct select_session *s)
{
    for (size_t v = 0; s->builds && v <= SESSION_NOFMA_INDEX(&s->rep); v++) {
        variant_build_free(&s->builds[v]);
        free(s->sources[v]);
        if (s->clone_isa) free(s->clone_isa[v]);
    }
    free(s->clone_isa);
    free(s->builds);
    free(s->sources);
    free(s->builddir);
    select_isolation_free(&s->tree);
    for (size_t w = 0; s->base_outputs && w < s->rep.n_workloads; w++) workload_output_free(&s->base_outputs[w]);
    free(s->base_outputs);
    free(s->check_cpu);
    free(s->saved);
    placement_log_free(s->placement);
    linked_files_free(s->linked);
    patch_plan_free(&s->candidates);
    if (s->have_final) patch_plan_free(&s->final_plan);
    select_report_free(&s->rep);
    free(s->root);
    free(s->work);
    memset(s, 0, sizeof *s);
}
