/* verify.c - see verify.h. */
#include "verify/verify.h"
#include "elf/elffile.h"
#include "elf/isa.h"
#include "run/spawn.h"
#include "util/demangle.h"
#include "verify/copycheck.h"
#include "verify/cpus.h"
#include "verify/ltwrapper.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- one run of the program ---- */

/* A qemu error about itself ("qemu-x86_64: unable to find CPU model",
 * "Error mapping file") rather than the guest's. */
static char *emulator_error(const char *qemu, const char *err)
{
    if (!err) return NULL;
    const char *name = path_basename(qemu);
    size_t n = strlen(name);
    for (const char *line = err; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > n + 2 && !strncmp(line, name, n) && line[n] == ':' && line[n + 1] == ' ' &&
            strncmp(line + n + 2, "warning:", 8) != 0)
            return xstrndup(line, len);
        line += len + (end ? 1 : 0);
    }
    return NULL;
}

struct captured {
    char *out;
    size_t out_len;
    char **files;        /* per compare file; NULL: not written */
    size_t *file_lens;
};

/* Runs program (r->program, or r->against) with r's arguments, and with
 * LD_LIBRARY_PATH=library_path unless that is NULL; fills run's outcome,
 * exit status or signal, message and time, and cap. */
static void run_one(const struct verify_report *r, const char *program, const char *library_path,
                    struct verify_run *run, const char *model, double timeout_s, const char *stdin_path,
                    struct captured *cap)
{
    struct strvec cmd = STRVEC_INIT, env = STRVEC_INIT, guest_env = STRVEC_INIT;
    if (library_path) {
        /* Under qemu for the guest only (-E): qemu itself keeps ours. */
        if (run->emulated) {
            sv_pushf(&guest_env, "LD_LIBRARY_PATH=%s", library_path);
        } else {
            for (char **e = environ; *e; e++)
                if (strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0) sv_push(&env, *e);
            sv_pushf(&env, "LD_LIBRARY_PATH=%s", library_path);
        }
    }
    if (run->emulated) cpus_qemu_argv(&cmd, r->qemu, model, guest_env.n ? sv_argv(&guest_env) : NULL);
    sv_push(&cmd, program);
    for (size_t i = 1; r->argv[i]; i++) sv_push(&cmd, r->argv[i]);

    /* Each run must write its own files: a stale one from the previous run
     * would compare equal. */
    for (size_t k = 0; k < r->n_compare; k++) remove(r->compare[k]);

    struct run_opts o = {.capture_stdout = 1, .capture_stderr = 1, .timeout_s = timeout_s,
                         .stdin_path = stdin_path, .env = env.n ? sv_argv(&env) : NULL};
    struct run_result res;
    run_argv(sv_argv(&cmd), &o, &res);
    run->seconds = run->emulated ? -1 : res.seconds;
    char *qemu_err = run->emulated ? emulator_error(r->qemu, res.err) : NULL;
    if (!res.spawned) {
        run->outcome = VERIFY_NOT_STARTED;
        run->message = xasprintf("cannot start %s: %s", run->emulated ? r->qemu : program,
                                 strerror(res.errno_spawn));
    } else if (res.timed_out) {
        run->outcome = VERIFY_TIMED_OUT;
        run->message = xasprintf("stopped after %g s (--timeout)", timeout_s);
    } else if (res.signal) {
        run->outcome = VERIFY_SIGNALED;
        run->signal = res.signal;
        run->message = cpus_stderr_tail(res.err);
    } else if (qemu_err) {
        run->outcome = VERIFY_EMULATOR_ERROR;
        run->exit_status = res.status;
        run->message = qemu_err;
        qemu_err = NULL;
    } else {
        run->outcome = VERIFY_EXITED;
        run->exit_status = res.status;
        run->message = cpus_stderr_tail(res.err);
    }
    free(qemu_err);
    cap->out = res.out ? res.out : xstrdup("");
    cap->out_len = res.out ? res.out_len : 0;
    res.out = NULL;
    cap->files = xcalloc(r->n_compare + 1, sizeof *cap->files);
    cap->file_lens = xcalloc(r->n_compare + 1, sizeof *cap->file_lens);
    for (size_t k = 0; k < r->n_compare; k++) cap->files[k] = read_file(r->compare[k], &cap->file_lens[k]);
    run_result_free(&res);
    sv_free(&cmd);
    sv_free(&env);
    sv_free(&guest_env);
}

static void captured_free(struct captured *c, size_t n_compare)
{
    free(c->out);
    for (size_t k = 0; c->files && k < n_compare; k++) free(c->files[k]);
    free(c->files);
    free(c->file_lens);
}

/* ---- comparing with the native run ---- */

static void compare_file(const char *ref, size_t ref_len, const char *got, size_t got_len, double tol,
                         const struct line_ignore *ig, struct output_diff *d)
{
    if (!ref && !got) {
        memset(d, 0, sizeof *d);
        d->match = OUTPUT_IDENTICAL;   /* written by neither */
    } else if (!got) {
        memset(d, 0, sizeof *d);
        d->match = OUTPUT_MISSING;
    } else if (!ref) {
        memset(d, 0, sizeof *d);
        d->match = OUTPUT_DIFFERENT;   /* written here, not natively */
    } else {
        output_compare_filtered(ref, ref_len, got, got_len, tol, ig, d);
    }
}

static int output_ok(const struct output_diff *d, double tol)
{
    return d->match == OUTPUT_IDENTICAL || (tol >= 0 && d->match == OUTPUT_WITHIN_TOLERANCE);
}

/* ---- comparing with the against program ---- */

/* The against program's run on one CPU (run_one into a scratch run). */
static struct verify_against *run_against(const struct verify_report *r, const struct verify_run *run,
                                          const char *model, double timeout_s, const char *stdin_path,
                                          struct captured *cap)
{
    struct verify_run tmp = {.emulated = run->emulated};
    run_one(r, r->against, r->against_library_path, &tmp, model, timeout_s, stdin_path, cap);
    struct verify_against *a = xcalloc(1, sizeof *a);
    a->outcome = tmp.outcome;
    a->exit_status = tmp.exit_status;
    a->signal = tmp.signal;
    a->message = tmp.message;
    a->files = xcalloc(r->n_compare + 1, sizeof *a->files);
    return a;
}

/* How run (captured in got) compares with the against program's run on the
 * same CPU (captured in ref): the same ending, the same outputs. */
static void compare_against(const struct verify_report *r, struct verify_run *run, const struct captured *got,
                            const struct captured *ref, double tol)
{
    struct verify_against *a = run->against;
    a->reference_bytes = ref->out_len;
    a->status_match = a->outcome == run->outcome &&
                      ((a->outcome == VERIFY_EXITED && a->exit_status == run->exit_status) ||
                       (a->outcome == VERIFY_SIGNALED && a->signal == run->signal) || a->outcome == VERIFY_TIMED_OUT);
    a->ok = a->status_match;
    if (a->outcome == VERIFY_EXITED && run->outcome == VERIFY_EXITED) {
        a->compared = 1;
        compare_file(ref->out, ref->out_len, got->out, got->out_len, tol, &r->ignore, &a->out);
        a->ok &= output_ok(&a->out, tol);
        for (size_t k = 0; k < r->n_compare; k++) {
            compare_file(ref->files[k], ref->file_lens[k], got->files[k], got->file_lens[k], tol, &r->ignore,
                         &a->files[k]);
            a->ok &= output_ok(&a->files[k], tol);
        }
    }
    a->silent = run->outcome == VERIFY_EXITED && run->exit_status == 0 && got->out_len == 0 && ref->out_len > 0;
    if (!a->ok) run->ok = 0;
}

/* ---- FMA hints ---- */

/* Does the clone's code contain FMA instructions? Read from the code
 * (lib/elf/isa), not guessed from its target name. */
static int clone_uses_fma(const char *path, const struct elf_clone *c)
{
    if (!c || !c->size) return 0;
    struct elf_file ef;
    /* Already read once by the plan: a failure now is not the user's news. */
    fmv_set_quiet(1);
    int opened = elf_file_open(path, &ef) == 0;
    fmv_set_quiet(0);
    if (!opened) return 0;
    int fma = 0;
    const uint8_t *code = elf_file_bytes(&ef, c->addr, c->size);
    struct isa_usage u;
    if (code && isa_analyze(code, c->size, c->addr, &u) == 0) fma = (u.needs & ISA_BIT(ISA_FMA)) != 0;
    elf_file_close(&ef);
    return fma;
}

static int only_floats_differ(const struct verify_run *run, size_t n_compare)
{
    int any = run->out.match == OUTPUT_FLOATS_DIFFER || run->out.match == OUTPUT_WITHIN_TOLERANCE;
    int other = run->out.match == OUTPUT_DIFFERENT || run->out.match == OUTPUT_MISSING;
    for (size_t k = 0; k < n_compare; k++) {
        any |= run->files[k].match == OUTPUT_FLOATS_DIFFER || run->files[k].match == OUTPUT_WITHIN_TOLERANCE;
        other |= run->files[k].match == OUTPUT_DIFFERENT || run->files[k].match == OUTPUT_MISSING;
    }
    return any && !other;
}

static double largest_float_diff(const struct verify_run *run, size_t n_compare)
{
    double m = run->out.max_diff;
    for (size_t k = 0; k < n_compare; k++)
        if (run->files[k].max_diff > m) m = run->files[k].max_diff;
    return m;
}

/* The explanation for one CPU whose output differs from native only in
 * floats, or NULL when no FMA clone explains it. */
static char *fma_explanation(const struct verify_report *r, const struct verify_run *run)
{
    const struct verify_run *native = &r->runs[0];
    /* Functions whose clone differs from the native pick, where one of the
     * two clones computes with FMA. */
    struct strbuf why = STRBUF_INIT;
    for (size_t e = 0; e < r->plan.n_entries; e++) {
        const struct elf_clone *here = run->dispatch.picks[e], *there = native->dispatch.picks[e];
        if (!here || !there || here == there) continue;
        const char *obj = r->plan.objects[r->plan.entries[e].object].path;
        const struct elf_clone *fma = clone_uses_fma(obj, there) ? there : clone_uses_fma(obj, here) ? here : NULL;
        if (!fma) continue;
        sb_addf(&why, "%s%s runs %s there and %s natively, and %s uses FMA instructions", why.len ? "; " : "",
                r->plan.entries[e].fn->name, here->symbol, there->symbol, fma->symbol);
    }
    if (!why.len && (r->plan.unavailable || run->dispatch.error || native->dispatch.error)) {
        /* No map (static program, helper failed): any FMA clone at all. With
         * a map that shows the same clones, FMA is not the explanation. */
        for (size_t o = 0; o < r->plan.n_objects; o++)
            for (size_t f = 0; f < r->plan.objects[o].mv.n_functions; f++) {
                const struct elf_mv_function *fn = &r->plan.objects[o].mv.functions[f];
                for (size_t c = 0; c < fn->n_clones; c++)
                    if (clone_uses_fma(r->plan.objects[o].path, &fn->clones[c]))
                        sb_addf(&why, "%s%s uses FMA instructions", why.len ? "; " : "", fn->clones[c].symbol);
            }
    }
    return why.len ? sb_detach(&why) : NULL;
}

/* One note per explanation, naming every CPU it applies to. */
static void add_fma_notes(struct verify_report *r)
{
    char **why = xcalloc(r->n_runs, sizeof *why);
    for (size_t i = 1; i < r->n_runs; i++)
        if (r->runs[i].compared && only_floats_differ(&r->runs[i], r->n_compare))
            why[i] = fma_explanation(r, &r->runs[i]);
    for (size_t i = 1; i < r->n_runs; i++) {
        if (!why[i]) continue;
        struct strbuf cpus = STRBUF_INIT;
        double diff = 0;
        for (size_t k = i; k < r->n_runs; k++) {
            if (!why[k] || (k != i && strcmp(why[k], why[i]) != 0)) continue;
            sb_addf(&cpus, "%s%s", cpus.len ? ", " : "", r->runs[k].cpu);
            double d = largest_float_diff(&r->runs[k], r->n_compare);
            if (d > diff) diff = d;
            if (k != i) {
                free(why[k]);
                why[k] = NULL;
            }
        }
        int beyond = r->float_tolerance < 0 || diff > r->float_tolerance;
        sv_pushf(&r->notes,
                 "%s: the output differs from native only in floating-point numbers (largest relative difference "
                 "%.3g): %s. FMA contraction (a*b+c rounded once) is the likely cause%s",
                 sb_str(&cpus), diff, why[i],
                 beyond ? "; accept it with --float-tolerance, or build the clones with -ffp-contract=off"
                        : " (within --float-tolerance)");
        sb_free(&cpus);
        free(why[i]);
        why[i] = NULL;
    }
    free(why);
}

/* A function whose resolver returned the default clone on every CPU, the
 * newest included, never runs its other clones: a resolver that ignores its
 * targets (clang before 19 with arch=x86-64-vN), or targets beyond every
 * CPU here. Said as a fact, with the clones that never ran. */
static void add_never_picked_notes(struct verify_report *r)
{
    for (size_t e = 0; e < r->plan.n_entries; e++) {
        const struct elf_mv_function *fn = r->plan.entries[e].fn;
        if (fn->n_clones < 2 || !elf_mv_default(fn)) continue;
        size_t answered = 0;
        int only_default = 1;
        for (size_t i = 0; i < r->n_runs && only_default; i++) {
            const struct elf_clone *c = r->runs[i].dispatch.picks ? r->runs[i].dispatch.picks[e] : NULL;
            if (!c) continue;
            answered++;
            only_default = c->is_default;
        }
        if (!answered || !only_default || !r->runs[0].dispatch.picks[e]) continue;
        struct strbuf others = STRBUF_INIT;
        for (size_t c = 0; c < fn->n_clones; c++)
            if (!fn->clones[c].is_default) sb_addf(&others, "%s%s", others.len ? ", " : "", fn->clones[c].symbol);
        char *readable = symbol_demangle(fn->name);
        sv_pushf(&r->notes,
                 "%s: the resolver returned the default clone on every CPU, natively (%s) too, so its other "
                 "clones (%s) never ran: their targets are beyond these CPUs%s",
                 readable ? readable : fn->name, r->runs[0].level ? r->runs[0].level : "?", sb_str(&others),
                 fn->dispatch == ELF_MV_DISPATCH_CPUID
                     ? ""
                     : ", or the resolver ignores them (clang before 19 does with arch=x86-64-vN)");
        free(readable);
        sb_free(&others);
    }
}

/* fmvgen's cpuid dispatch on each CPU (copycheck.h): an error fails the run. */
static void check_copies(struct verify_report *r)
{
    for (size_t i = 0; i < r->n_runs; i++) {
        struct verify_run *run = &r->runs[i];
        run->ok_but_dispatch = run->ok;
        if (!run->dispatch.answered) continue;
        for (size_t e = 0; e < r->plan.n_entries; e++) {
            char *why = copycheck_error(&r->plan, e, &run->dispatch, run->dispatch.level);
            if (!why) continue;
            fmv_error("verify: %s: %s", run->cpu, why);
            sv_push(&run->dispatch_errors, why);
            free(why);
            run->ok = 0;
        }
    }
}

/* ---- the whole verification ---- */

/* When our stdin is redirected from a file, every run gets the same bytes.
 * Anything else (a terminal, a pipe that may never close) is not read: the
 * runs get /dev/null. */
static char *stdin_copy(const char *scratch)
{
    struct stat st;
    if (fstat(0, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
    size_t len;
    char *data = read_file("/dev/stdin", &len);
    if (!data) return NULL;
    char *path = path_join(scratch, "stdin");
    if (write_file_atomic(path, data, len) != 0) {
        free(path);
        path = NULL;
    }
    free(data);
    return path;
}

/* When *program is a libtool wrapper script: *program becomes its program,
 * *wrapper the script, *library_path what the program runs with. -1 after
 * an error line. */
static int unwrap(char **program, char **wrapper, char **library_path)
{
    struct ltwrapper w;
    int rc = ltwrapper_read(*program, &w);
    if (rc <= 0) return rc;
    *wrapper = *program;
    *program = w.program;
    w.program = NULL;
    *library_path = ltwrapper_run_library_path(&w, getenv("LD_LIBRARY_PATH"));
    ltwrapper_free(&w);
    return 0;
}

int verify_program(const struct verify_options *o, struct verify_report *r)
{
    memset(r, 0, sizeof *r);
    if (!o->argv || !o->argv[0]) return fmv_error("verify: no program given (fmvgen verify -- PROG ARGS...)");
    /* Bad patterns are refused before anything runs. */
    for (size_t i = 0; o->ignore_lines && o->ignore_lines[i]; i++)
        if (line_ignore_add(&r->ignore, o->ignore_lines[i]) != 0) return -1;
    r->program = find_in_path(o->argv[0]);
    /* An existing file that is not executable: still read it first, so a
     * text file is called "not an ELF file" rather than "not executable". */
    if (!r->program && strchr(o->argv[0], '/') && file_exists(o->argv[0])) r->program = xstrdup(o->argv[0]);
    if (!r->program)
        return fmv_error("%s: no such program%s", o->argv[0], strchr(o->argv[0], '/') ? "" : " in PATH");
    if (unwrap(&r->program, &r->wrapper, &r->library_path) != 0) return -1;
    struct strvec args = STRVEC_INIT, cmp = STRVEC_INIT;
    sv_push_all(&args, o->argv);
    r->argv = args.v;
    if (o->compare) sv_push_all(&cmp, o->compare);
    r->compare = cmp.v;
    r->n_compare = cmp.n;
    r->float_tolerance = o->float_tolerance;

    if (o->against) {
        r->against = find_in_path(o->against);
        if (!r->against && strchr(o->against, '/') && file_exists(o->against)) r->against = xstrdup(o->against);
        if (!r->against)
            return fmv_error("%s: no such program%s (--against)", o->against, strchr(o->against, '/') ? "" : " in PATH");
        if (access(r->against, X_OK) != 0 || is_directory(r->against))
            return fmv_error("%s: not executable (--against)", r->against);
        if (unwrap(&r->against, &r->against_wrapper, &r->against_library_path) != 0) return -1;
    }

    char *scratch = make_temp_dir("verify");
    if (!scratch) return fmv_error("cannot create a scratch directory: %s", strerror(errno));
    int rc = -1;
    if (dispatch_plan_build(r->program, r->library_path ? r->library_path : getenv("LD_LIBRARY_PATH"), scratch,
                            &r->plan) != 0)
        goto out;
    if (r->library_path) r->plan.library_path = xstrdup(r->library_path);
    if (access(r->program, X_OK) != 0 || is_directory(r->program)) {
        fmv_error("%s: not executable", r->program);
        goto out;
    }
    struct strvec defaults = STRVEC_INIT;
    const struct strvec *models = o->cpus;
    if (!models) {
        cpus_parse(VERIFY_DEFAULT_CPUS, &defaults);
        models = &defaults;
    }
    if (models->n) {
        r->qemu = cpus_find_qemu();
        if (!r->qemu) {
            fmv_error("qemu-x86_64: not found; install the Debian package %s (apt-get install %s)",
                      VERIFY_QEMU_PACKAGE, VERIFY_QEMU_PACKAGE);
            sv_free(&defaults);
            goto out;
        }
        if (cpus_check_models(r->qemu, models) != 0) {
            sv_free(&defaults);
            goto out;
        }
    }
    r->helper = dispatch_find_helper();
    if (!r->helper && !r->plan.unavailable)
        r->plan.unavailable = xstrdup("libfmvgen-dispatch.so not found (set FMVGEN_DISPATCH_LIB, or reinstall)");

    /* qemu writes a guest core file into the current directory on a fatal
     * signal (and the host may dump one of qemu): SIGILL is an expected
     * result here, not something to keep. Inherited by every run. */
    struct rlimit no_core = {0, 0};
    getrlimit(RLIMIT_CORE, &no_core);
    no_core.rlim_cur = 0;
    setrlimit(RLIMIT_CORE, &no_core);

    /* A static program cannot take the helper: learn each CPU's level from
     * a small system program instead (the CPU is the same for every program). */
    struct dispatch_plan level_plan = {0};
    struct strvec probe_argv = STRVEC_INIT;
    int probe_level = r->helper && r->plan.objects[0].mv.is_static &&
                      dispatch_level_probe_argv(&probe_argv) == 0 &&
                      dispatch_plan_level_only(scratch, &level_plan) == 0;

    /* The helper runs the program itself, not a wrapper script. */
    struct strvec run_argv = STRVEC_INIT;
    sv_push(&run_argv, r->program);
    for (size_t i = 1; r->argv[i]; i++) sv_push(&run_argv, r->argv[i]);
    char *stdin_path = stdin_copy(scratch);
    if (!stdin_path) stdin_path = xstrdup("/dev/null");

    r->n_runs = models->n + 1;
    r->runs = xcalloc(r->n_runs, sizeof *r->runs);
    struct captured *caps = xcalloc(r->n_runs, sizeof *caps);
    struct captured *ref_caps = r->against ? xcalloc(r->n_runs, sizeof *ref_caps) : NULL;
    r->runs[0].cpu = xstrdup("native");
    for (size_t i = 1; i < r->n_runs; i++) {
        r->runs[i].cpu = xstrdup(models->v[i - 1]);
        r->runs[i].emulated = 1;
    }
    /* Emulated CPUs first, native last: the --compare files left behind are
     * the native run's, as after a normal run. */
    for (size_t step = 0; step < r->n_runs; step++) {
        size_t i = (step + 1) % r->n_runs;
        struct verify_run *run = &r->runs[i];
        const char *model = run->emulated ? run->cpu : NULL;
        char *out_path = xasprintf("%s/dispatch-%zu", scratch, i);
        dispatch_run(&r->plan, r->helper, sv_argv(&run_argv), run->emulated ? r->qemu : NULL, model, o->timeout_s, out_path,
                     &run->dispatch);
        if (probe_level) {
            struct dispatch_result level;
            dispatch_run(&level_plan, r->helper, sv_argv(&probe_argv), run->emulated ? r->qemu : NULL, model,
                         o->timeout_s, out_path, &level);
            run->dispatch.level = level.level;
            run->dispatch.features = level.features;
            level.level = level.features = NULL;
            dispatch_result_free(&level);
        }
        free(out_path);
        if (run->dispatch.level) {
            run->level = xstrdup(run->dispatch.level);
            run->features = xstrdup(run->dispatch.features);
        } else if (!run->emulated) {
            run->level = xstrdup(cpus_native_level());
        }
        /* The against program just before, so that the program's own
         * --compare files are the ones left behind. */
        if (r->against) run->against = run_against(r, run, model, o->timeout_s, stdin_path, &ref_caps[i]);
        run_one(r, r->program, r->library_path, run, model, o->timeout_s, stdin_path, &caps[i]);
    }
    free(stdin_path);
    sv_free(&run_argv);
    sv_free(&defaults);
    sv_free(&probe_argv);
    dispatch_plan_free(&level_plan);

    /* Compare with the native run. */
    struct verify_run *native = &r->runs[0];
    int native_exited = native->outcome == VERIFY_EXITED;
    /* A run passes when it exits 0: a program that cannot start (a missing
     * library: 127) or fails the same way everywhere has not been verified. */
    native->ok = native_exited && native->exit_status == 0;
    native->compared = native_exited;
    native->files = xcalloc(r->n_compare + 1, sizeof *native->files);
    native->out.ignored = line_ignore_count(&r->ignore, caps[0].out, caps[0].out_len);
    native->out.binary = output_is_binary(caps[0].out, caps[0].out_len);
    for (size_t k = 0; k < r->n_compare; k++) {
        native->files[k].match = caps[0].files[k] ? OUTPUT_IDENTICAL : OUTPUT_MISSING;
        native->files[k].ignored = line_ignore_count(&r->ignore, caps[0].files[k], caps[0].file_lens[k]);
        native->files[k].binary = output_is_binary(caps[0].files[k], caps[0].file_lens[k]);
        if (!caps[0].files[k] && native_exited) {
            native->ok = 0;
            sv_pushf(&r->notes, "%s: the native run did not write this file (--compare names files the program writes)",
                     r->compare[k]);
        }
    }
    for (size_t i = 1; i < r->n_runs; i++) {
        struct verify_run *run = &r->runs[i];
        run->files = xcalloc(r->n_compare + 1, sizeof *run->files);
        run->ok = run->outcome == VERIFY_EXITED && run->exit_status == 0;
        if (!native_exited || run->outcome != VERIFY_EXITED) continue;
        run->compared = 1;
        compare_file(caps[0].out, caps[0].out_len, caps[i].out, caps[i].out_len, o->float_tolerance, &r->ignore,
                     &run->out);
        if (!output_ok(&run->out, o->float_tolerance)) run->ok = 0;
        for (size_t k = 0; k < r->n_compare; k++) {
            compare_file(caps[0].files[k], caps[0].file_lens[k], caps[i].files[k], caps[i].file_lens[k],
                         o->float_tolerance, &r->ignore, &run->files[k]);
            if (!output_ok(&run->files[k], o->float_tolerance)) run->ok = 0;
        }
    }
    for (size_t i = 0; r->against && i < r->n_runs; i++)
        compare_against(r, &r->runs[i], &caps[i], &ref_caps[i], o->float_tolerance);
    for (size_t i = 0; i < r->n_runs; i++) captured_free(&caps[i], r->n_compare);
    for (size_t i = 0; ref_caps && i < r->n_runs; i++) captured_free(&ref_caps[i], r->n_compare);
    free(caps);
    free(ref_caps);

    check_copies(r);
    r->ok = 1;
    for (size_t i = 0; i < r->n_runs; i++) r->ok &= r->runs[i].ok;

    /* What the reader must know to trust the table. */
    if (r->wrapper)
        sv_pushf(&r->notes, "%s is a libtool wrapper script: its program %s ran, with LD_LIBRARY_PATH=%s as the "
                 "script sets it", r->wrapper, r->program, r->library_path);
    if (r->against_wrapper)
        sv_pushf(&r->notes, "%s (--against) is a libtool wrapper script: its program %s ran, with "
                 "LD_LIBRARY_PATH=%s as the script sets it", r->against_wrapper, r->against,
                 r->against_library_path);
    if (native_exited && native->exit_status != 0)
        sv_pushf(&r->notes, "the native run exited with status %d; outputs are compared with it anyway",
                 native->exit_status);
    if (!native_exited)
        sv_pushf(&r->notes, "the native run failed, so no output could be compared");
    if (strcmp(cpus_native_level(), "x86-64-v4") != 0)
        sv_pushf(&r->notes, "this CPU is %s, not x86-64-v4, and qemu does not emulate AVX-512: x86-64-v4 clones "
                 "were not run", cpus_native_level());
    for (size_t i = 0; i < r->plan.missing_libs.n; i++)
        sv_pushf(&r->notes, "%s: not found in LD_LIBRARY_PATH, the program's rpath or the system's library "
                 "directories", r->plan.missing_libs.v[i]);
    if (r->plan.system_libs.n) {
        struct strbuf libs = STRBUF_INIT;
        for (size_t i = 0; i < r->plan.system_libs.n; i++)
            sb_addf(&libs, "%s%s", i ? ", " : "", r->plan.system_libs.v[i]);
        sv_pushf(&r->notes, "system libraries not examined for the dispatch map: %s", sb_str(&libs));
        sb_free(&libs);
    }
    add_never_picked_notes(r);
    add_fma_notes(r);
    rc = 0;
out:
    remove_tree(scratch);
    free(scratch);
    return rc;
}

static void against_free(struct verify_against *a, size_t n_compare)
{
    if (!a) return;
    free(a->message);
    output_diff_free(&a->out);
    for (size_t k = 0; a->files && k < n_compare; k++) output_diff_free(&a->files[k]);
    free(a->files);
    free(a);
}

void verify_report_free(struct verify_report *r)
{
    free(r->program);
    free(r->against);
    free(r->wrapper);
    free(r->against_wrapper);
    free(r->library_path);
    free(r->against_library_path);
    for (size_t i = 0; r->argv && r->argv[i]; i++) free(r->argv[i]);
    free(r->argv);
    for (size_t i = 0; r->compare && r->compare[i]; i++) free(r->compare[i]);
    free(r->compare);
    line_ignore_free(&r->ignore);
    free(r->qemu);
    free(r->helper);
    for (size_t i = 0; i < r->n_runs; i++) {
        struct verify_run *run = &r->runs[i];
        free(run->cpu);
        free(run->level);
        free(run->features);
        free(run->message);
        output_diff_free(&run->out);
        for (size_t k = 0; run->files && k < r->n_compare; k++) output_diff_free(&run->files[k]);
        free(run->files);
        dispatch_result_free(&run->dispatch);
        sv_free(&run->dispatch_errors);
        against_free(run->against, r->n_compare);
    }
    free(r->runs);
    dispatch_plan_free(&r->plan);
    sv_free(&r->notes);
    memset(r, 0, sizeof *r);
}
