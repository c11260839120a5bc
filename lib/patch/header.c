/* header.c - see plan_internal.h (patch_render_header) and plan.h
 * (patch_plan_to_json): what a plan says of itself, as the comment above
 * the diff and as the --json summary. */
#include "patch/cpuid.h"
#include "patch/lambda.h"
#include "patch/plan_internal.h"
#include "store/notes.h"
#include "targets/targets.h"

#include <string.h>

#ifndef FMVGEN_VERSION
#define FMVGEN_VERSION "unknown"
#endif

#define INLINE_MACRO PATCH_INLINE_MACRO

/* The functions whose clones differ in the last bits even without FMA. */
static void describe_reassoc(struct strbuf *sb, const struct patch_plan *p)
{
    sb_addf(sb, "  BUT %zu function%s compiled with floating-point reassociation (-ffast-math,\n"
                "  -Ofast or -fassociative-math): each clone may sum a reduction in the order of\n"
                "  its own vector width, so %s results may differ from the unpatched build's in\n"
                "  the last bits whatever the targets:\n",
            p->reassoc.n, p->reassoc.n == 1 ? " was" : "s were", p->reassoc.n == 1 ? "its" : "their");
    for (size_t i = 0; i < p->reassoc.n; i++) sb_addf(sb, "    %s\n", p->reassoc.v[i]);
}

static void describe_why(struct strbuf *sb, const struct patch_function *f)
{
    if (f->kind == KIND_ISA) {
        sb_addf(sb, "no loop vectorized; isa: %s (score %d) [isa]",
                f->evidence ? f->evidence : "its code differs at the target", f->score);
        return;
    }
    if (f->build_loops > 0) {
        sb_addf(sb, "%d loop%s vectorized in the build", f->build_loops, f->build_loops == 1 ? "" : "s");
        if (f->build_bytes > 0) sb_addf(sb, " (%d-byte vectors)", f->build_bytes);
        if (f->probe_target && f->probe_loops > 0) {
            sb_addf(sb, "; %d at %s", f->probe_loops, f->probe_target);
            if (f->probe_bytes > 0) sb_addf(sb, " (%d-byte vectors)", f->probe_bytes);
        }
    } else if (f->probe_target && f->probe_loops > 0) {
        sb_addf(sb, "vectorizes only at %s: %d loop%s", f->probe_target, f->probe_loops,
                f->probe_loops == 1 ? "" : "s");
        if (f->probe_bytes > 0) sb_addf(sb, " (%d-byte vectors)", f->probe_bytes);
    } else {
        sb_adds(sb, "vectorized (no loop records kept)");
    }
    if (f->evidence) sb_addf(sb, "; isa: %s (score %d)", f->evidence, f->score);
    if (candidate_kind_name(f->kind)) sb_addf(sb, " [%s]", candidate_kind_name(f->kind));
}

/* The spelling and CPU-model remarks of one target set, each line starting
 * with indent. */
static void describe_targets(struct strbuf *sb, const struct strvec *targets, const char *indent)
{
    struct strvec modern = STRVEC_INIT, features = STRVEC_INIT;
    targets_spell(targets, "gcc", 12, &modern);
    targets_spell(targets, "clang", 14, &features);
    int differ = modern.n != features.n;
    for (size_t i = 0; !differ && i < modern.n; i++) differ = strcmp(modern.v[i], features.v[i]) != 0;
    if (differ) {
        sb_addf(sb, "%sspelled ", indent);
        sb_add_joined(sb, &features, ", ");
        sb_addf(sb, " for clang < 19 and gcc < 11 (clang 14 accepts arch=x86-64-vN but its\n"
                    "%sresolver always runs the default clone; feature names dispatch correctly)\n", indent);
    }
    sv_free(&modern);
    sv_free(&features);
    for (size_t i = 0; i < targets->n; i++)
        if (target_is_cpu_model(targets->v[i]))
            sb_addf(sb, "%s%s: picked by CPU model only; newer CPUs run the default clone\n", indent, targets->v[i]);
}

char *patch_render_header(const struct patch_plan *p)
{
    struct strbuf sb = STRBUF_INIT;
    int mixed = p->nsets > 1;
    sb_addf(&sb, "fmvgen %s: function multi-versioning patch (GCC/Clang target_clones)\n\n", FMVGEN_VERSION);
    sb_adds(&sb, "Apply with 'patch -p1 < FILE', 'git apply FILE' or 'quilt import FILE'.\n");
    int ifunc_used = p->dispatch == PATCH_DISPATCH_IFUNC || p->ifunc_fallback.n;
    if (!mixed) {
        if (ifunc_used) {
            sb_adds(&sb, "Each patched file gets a preamble defining FMVGEN_CLONES(symbol) and\n"
                         "FMVGEN_CLONES_STATIC (empty for compilers without target_clones; build with\n"
                         "-DFMVGEN_NO_CLONES to turn the clones off). The symbol is used by clang < 18\n"
                         "only, which names the dispatcher symbol.ifunc: the preamble defines symbol too.\n"
                         "clang < 18 also makes a static function's resolver a global symbol (two files'\n"
                         "static functions of one name would not link): FMVGEN_CLONES_STATIC is empty\n"
                         "there, static functions get no clones.\n");
            sb_adds(&sb, PATCH_PREAMBLE_LIBC_NOTE "\n");
        }
        sb_adds(&sb, "Targets: ");
        sb_add_joined(&sb, &p->targets, ", ");
        sb_adds(&sb, ", default\n");
        describe_targets(&sb, &p->targets, "  ");
    } else {
        if (ifunc_used) {
            sb_adds(&sb, "Functions get different target sets. Each patched file gets a preamble\n"
                         "defining, for each set its functions use, FMVGEN_CLONES_<SET>(symbol) and\n"
                         "FMVGEN_CLONES_<SET>_STATIC (empty for compilers without target_clones; build\n"
                         "with -DFMVGEN_NO_CLONES to turn the clones off). The symbol is used by\n"
                         "clang < 18 only, which names the dispatcher symbol.ifunc: the preamble defines\n"
                         "symbol too. clang < 18 also makes a static function's resolver a global symbol\n"
                         "(two files' static functions of one name would not link): the _STATIC macros\n"
                         "are empty there, static functions get no clones.\n");
            sb_adds(&sb, PATCH_PREAMBLE_LIBC_NOTE "\n");
        } else {
            sb_adds(&sb, "Functions get different target sets:\n");
        }
        sb_addf(&sb, "Target sets (%zu):\n", p->nsets);
        for (size_t s = 0; s < p->nsets; s++) {
            sb_addf(&sb, "  %s: ", p->sets[s].macro);
            sb_add_joined(&sb, &p->sets[s].targets, ", ");
            sb_adds(&sb, ", default\n");
            describe_targets(&sb, &p->sets[s].targets, "    ");
        }
    }
    if (p->exact && !p->reassoc.n)
        sb_adds(&sb, "  --exact: FMA-free targets, every clone computes bit-identical results\n");
    if (p->exact && p->reassoc.n) {
        sb_adds(&sb, "  --exact: FMA-free targets: no clone fuses a*b+c into FMA\n");
        describe_reassoc(&sb, p);
    }
    if (p->dispatch == PATCH_DISPATCH_POINTER) {
        sb_adds(&sb, "\nDispatch: pointer (--dispatch pointer). A function marked <SET>_PTR is compiled as\n"
                     "target_clones under the name fmvgen_mv_<name> (a #define around its definition);\n"
                     "<name> is defined below it as a jump through a pointer that its first call sets,\n"
                     "once, to the clone the clones' resolver picks for this CPU. No IFUNC: the clones\n"
                     "run with glibc and musl, dynamic and static. clang < 18 gives C++ and static\n"
                     "functions no clones there (see the preamble).\n");
    } else if (p->dispatch == PATCH_DISPATCH_CPUID) {
        sb_adds(&sb, "\nDispatch: cpuid (--dispatch cpuid). A function marked " PATCH_CPUID_MACRO " becomes an\n"
                     "always_inline body named fmvgen_mv_<name> (a #define around its definition),\n"
                     "inlined into one copy per target, fmvgen_cp_<name>_<target> (target attributes,\n"
                     "no target_clones), and a resolver that picks one by the preamble's own CPUID\n"
                     "code (fmvgen_cpu_levels, once per program or library; no libgcc CPU detection).\n"
                     "With glibc (dynamic, -static, -static-pie) <name> is an IFUNC of that resolver\n"
                     "(static functions only with gcc); with musl and other C libraries, for clang's\n"
                     "static functions and with -DFMVGEN_CPU_NO_IFUNC, <name> is defined below it as a\n"
                     "jump through a pointer set, once, to the copy the resolver picks. C only.\n");
    }
    if (p->dispatch != PATCH_DISPATCH_IFUNC && p->ifunc_fallback.n) {
        sb_addf(&sb, "Dispatched by IFUNC instead, FMVGEN_CLONES (glibc only) (%zu):\n", p->ifunc_fallback.n);
        for (size_t i = 0; i < p->ifunc_fallback.n; i++) sb_addf(&sb, "  %s\n", p->ifunc_fallback.v[i]);
    }
    if (p->plain_symbol.n) {
        sb_addf(&sb, "\nReached through a pointer%s, not an IFUNC symbol (%zu): <name> stays a plain\n"
                     "function whose body jumps through a pointer its first call sets%s:\n",
                p->dispatch == PATCH_DISPATCH_CPUID ? " (the cpuid trampoline)" : " (<SET>_PTR lines)",
                p->plain_symbol.n,
                p->dispatch == PATCH_DISPATCH_CPUID ? " to the copy the resolver picks" : " to the clone its resolver picks");
        for (size_t i = 0; i < p->plain_symbol.n; i++) sb_addf(&sb, "  %s\n", p->plain_symbol.v[i]);
    }

    sb_addf(&sb, "\nFunctions (%zu), with the loops the compiler vectorized and what their code at the target\n"
                 "changes, [kind]: vectorized, target-vectorized or isa (no loop vectorized):\n",
            p->nfunctions);
    for (size_t i = 0; i < p->nfunctions; i++) {
        const struct patch_function *f = &p->functions[i];
        sb_addf(&sb, "  %s:%d %s: ", f->rel, f->line, f->display_name);
        if (mixed) {
            sb_adds(&sb, "targets ");
            sb_add_joined(&sb, &p->sets[f->set].targets, ", ");
            sb_adds(&sb, "; ");
        }
        describe_why(&sb, f);
        sb_addc(&sb, '\n');
        if (patch_lambda_of(f))
            sb_adds(&sb, "      dispatch: lambda (virtual: its body is duplicated in the source, one lambda per target "
                         "chosen by __builtin_cpu_supports; -DFMVGEN_NO_CLONES keeps the plain function)\n");
        size_t j;
        json_t *note;
        json_array_foreach(f->notes, j, note)
        {
            if (note_kind_of(note) == NOTE_PARAMS) continue;   /* said in the fallback list when it matters */
            const char *kind = json_string_value(json_object_get(note, "kind"));
            const char *detail = json_string_value(json_object_get(note, "detail"));
            sb_addf(&sb, "      note (%s): %s\n", kind ? kind : "note", detail ? detail : "");
        }
    }
    if (p->nhelpers) {
        sb_addf(&sb, "\nHelpers (%zu): static functions that a function above inlined, used by no\n"
                     "other, holding its loops. %s (always_inline; %s for one declared\n"
                     "inline already) keeps them inlined\n"
                     "into each of its clones, so their loops are compiled for each clone's target\n"
                     "(cloning the function alone would leave them out of line, built for the\n"
                     "baseline):\n",
                p->nhelpers, INLINE_MACRO, PATCH_ALWAYS_INLINE_MACRO);
        for (size_t i = 0; i < p->nhelpers; i++)
            sb_addf(&sb, "  %s:%d %s: inlined into %s\n", p->helpers[i].rel, p->helpers[i].line, p->helpers[i].display_name,
                    p->helpers[i].helper_of);
    }
    if (p->npinned) {
        sb_addf(&sb, "\nKept in place (%zu): not cloned, but hot; each keeps the offset from a 64-byte\n"
                     "boundary its code had in the build without clones (measured by fmvgen select),\n"
                     "so that the clones added before it do not move it across a cache line:\n",
                p->npinned);
        for (size_t i = 0; i < p->npinned; i++)
            sb_addf(&sb, "  %s:%d %s: at %d mod 64%s%s%s\n", p->pinned[i].rel, p->pinned[i].line,
                    p->pinned[i].display_name, p->pinned[i].pin - 1, p->pinned[i].pin_note ? " (" : "",
                    p->pinned[i].pin_note ? p->pinned[i].pin_note : "", p->pinned[i].pin_note ? ")" : "");
    }
    size_t ncopies = 0;
    for (size_t i = 0; i < p->nfunctions; i++) ncopies += p->functions[i].copy_pins.n > 0;
    if (ncopies) {
        sb_addf(&sb, "\nCopies kept where they were measured (%zu function%s): each copy starts at the offset\n"
                     "from a 64-byte boundary it had in the build where fmvgen select measured its gain:\n",
                ncopies, ncopies == 1 ? "" : "s");
        for (size_t i = 0; i < p->nfunctions; i++) {
            const struct patch_function *f = &p->functions[i];
            if (!f->copy_pins.n) continue;
            sb_addf(&sb, "  %s:%d %s:", f->rel, f->line, f->display_name);
            for (size_t k = 0; k < f->copy_pins.n; k++) {
                const char *eq = strchr(f->copy_pins.v[k], '=');
                if (!eq) continue;
                sb_addf(&sb, "%s %.*s at %s", k ? "," : "", (int)(eq - f->copy_pins.v[k]), f->copy_pins.v[k], eq + 1);
            }
            sb_adds(&sb, " mod 64\n");
        }
    }
    if (p->text_pad && p->dispatch == PATCH_DISPATCH_CPUID)
        sb_addf(&sb, "\nPad before .text's functions: %u bytes (fmvgen_text_pad, once per linked file), so that\n"
                     "the PLT entries this selection's IFUNCs add before .text do not move the functions\n"
                     "it leaves alone (measured by fmvgen select).\n",
                p->text_pad);
    if (p->already)
        sb_addf(&sb, "\nAlready patched, left alone: %zu function%s.\n", p->already, p->already == 1 ? "" : "s");
    if (p->skipped.n) {
        sb_addf(&sb, "\nNot patched (%zu):\n", p->skipped.n);
        for (size_t i = 0; i < p->skipped.n; i++) sb_addf(&sb, "  %s\n", p->skipped.v[i]);
    }
    if (p->fma) {
        struct strvec fma = STRVEC_INIT, fns = STRVEC_INIT;
        for (size_t i = 0; i < p->targets.n; i++)
            if (target_enables_fma(p->targets.v[i])) sv_push(&fma, p->targets.v[i]);
        for (size_t i = 0; mixed && i < p->nfunctions; i++)
            if (p->sets[p->functions[i].set].fma && !sv_contains(&fns, p->functions[i].display_name))
                sv_push(&fns, p->functions[i].display_name);
        /* The clang < 19 / gcc < 11 spelling of the same targets is another
         * set of features, which may not enable FMA (avx2 does not, avx512f
         * does): the warning says which compilers it applies to. */
        struct strvec spelled = STRVEC_INIT, spelled_fma = STRVEC_INIT;
        targets_spell(&fma, "clang", 14, &spelled);
        int differ = spelled.n != fma.n;
        for (size_t i = 0; !differ && i < fma.n; i++) differ = strcmp(spelled.v[i], fma.v[i]) != 0;
        for (size_t i = 0; i < spelled.n; i++)
            if (target_enables_fma(spelled.v[i])) sv_push(&spelled_fma, spelled.v[i]);
        sb_adds(&sb, differ ? "\nFMA WARNING: with GCC and clang >= 19 these targets enable FMA: "
                            : "\nFMA WARNING: these targets enable FMA: ");
        sb_add_joined(&sb, &fma, ", ");
        if (mixed) {
            sb_adds(&sb, ".\nThey are the targets of ");
            sb_add_joined(&sb, &fns, ", ");
        }
        if (differ) {
            sb_adds(&sb, ".\nThe clang < 19 and gcc < 11 spelling (");
            sb_add_joined(&sb, &spelled, ", ");
            if (spelled_fma.n) {
                sb_adds(&sb, ") enables FMA only in ");
                sb_add_joined(&sb, &spelled_fma, ", ");
            } else {
                sb_adds(&sb, ") does not enable FMA");
            }
        }
        sb_addf(&sb, ".\nTheir clones may contract a*b+c into one fused multiply-add, which changes\n"
                     "floating-point results in the last bits and breaks bit-exact tests (e.g. tests\n"
                     "comparing output checksums). Only functions doing floating-point arithmetic\n"
                     "are affected: integer-only code computes the same results in every clone.\n"
                     "'fmvgen patch --exact' uses FMA-free targets (%s) whose clones compute\n"
                     "bit-identical results%s.\n",
                TARGETS_EXACT, p->reassoc.n ? " - except where -ffast-math reorders sums (below)" : "");
        if (p->reassoc.n) describe_reassoc(&sb, p);
        sv_free(&spelled);
        sv_free(&spelled_fma);
        sv_free(&fma);
        sv_free(&fns);
    }
    sb_addc(&sb, '\n');
    return sb_detach(&sb);
}

/* ["avx2", "default"] */
static json_t *targets_json(const struct strvec *targets)
{
    json_t *t = json_array();
    for (size_t i = 0; i < targets->n; i++) json_array_append_new(t, json_string(targets->v[i]));
    json_array_append_new(t, json_string("default"));
    return t;
}

json_t *patch_plan_to_json(const struct patch_plan *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "root", p->root ? json_string(p->root) : json_null());
    json_object_set_new(o, "targets", targets_json(&p->targets));
    json_t *sets = json_array();
    for (size_t s = 0; s < p->nsets; s++)
        json_array_append_new(sets, json_pack("{s:s, s:o, s:b}", "macro", p->sets[s].macro, "targets",
                                              targets_json(&p->sets[s].targets), "fma", p->sets[s].fma));
    json_object_set_new(o, "sets", sets);
    json_object_set_new(o, "fma", json_boolean(p->fma));
    json_t *ra = json_array();
    for (size_t i = 0; i < p->reassoc.n; i++) json_array_append_new(ra, json_string(p->reassoc.v[i]));
    json_object_set_new(o, "reassociating", ra);
    json_object_set_new(o, "exact", json_boolean(p->exact));
    json_t *files = json_array();
    for (size_t i = 0; i < p->nfiles; i++) {
        json_t *f = json_object();
        json_object_set_new(f, "file", json_string(p->files[i].rel));
        json_object_set_new(f, "functions", json_integer((json_int_t)p->files[i].nfunctions));
        json_array_append_new(files, f);
    }
    json_object_set_new(o, "files", files);
    json_t *fns = json_array();
    for (size_t i = 0; i < p->nfunctions; i++) {
        const struct patch_function *f = &p->functions[i];
        json_t *j = json_object();
        json_object_set_new(j, "file", json_string(f->rel));
        json_object_set_new(j, "line", json_integer(f->line));
        json_object_set_new(j, "name", json_string(f->name));
        json_object_set_new(j, "display_name", json_string(f->display_name));
        json_object_set_new(j, "build_loops", json_integer(f->build_loops));
        json_object_set_new(j, "probe_loops", json_integer(f->probe_loops));
        json_object_set_new(j, "probe_target", f->probe_target ? json_string(f->probe_target) : json_null());
        json_object_set_new(j, "kind", candidate_kind_json(f->kind));
        json_object_set_new(j, "score", json_integer(f->score));
        json_object_set_new(j, "evidence", f->evidence ? json_string(f->evidence) : json_null());
        json_object_set_new(j, "targets", targets_json(&p->sets[f->set].targets));
        json_object_set_new(j, "macro", json_string(p->sets[f->set].macro));
        json_object_set_new(j, "dispatch", json_string(patch_lambda_of(f) ? "lambda"   /* patch/lambda.h */
                                                         : !f->pointer ? "ifunc"
                                                         : p->dispatch == PATCH_DISPATCH_IFUNC ? "pointer"
                                                         : f->plain_symbol && p->dispatch == PATCH_DISPATCH_CPUID ? "cpuid-pointer"
                                                         : patch_dispatch_name(p->dispatch)));
        json_object_set(j, "notes", f->notes);
        json_array_append_new(fns, j);
    }
    json_object_set_new(o, "functions", fns);
    json_t *helpers = json_array();
    for (size_t i = 0; i < p->nhelpers; i++) {
        const struct patch_function *h = &p->helpers[i];
        json_array_append_new(helpers, json_pack("{s:s, s:i, s:s, s:s, s:s, s:o, s:s}", "file", h->rel, "line", h->line,
                                                 "name", h->name, "display_name", h->display_name, "helper_of",
                                                 h->helper_of, "targets", targets_json(&p->sets[h->set].targets),
                                                 "macro", h->declared_inline ? PATCH_ALWAYS_INLINE_MACRO : INLINE_MACRO));
    }
    json_object_set_new(o, "helpers", helpers);
    json_t *skipped = json_array();
    for (size_t i = 0; i < p->skipped.n; i++) json_array_append_new(skipped, json_string(p->skipped.v[i]));
    json_object_set_new(o, "skipped", skipped);
    json_object_set_new(o, "already_patched", json_integer((json_int_t)p->already));
    json_object_set_new(o, "dispatch", json_string(patch_dispatch_name(p->dispatch)));
    json_t *fallback = json_array();
    for (size_t i = 0; i < p->ifunc_fallback.n; i++) json_array_append_new(fallback, json_string(p->ifunc_fallback.v[i]));
    json_object_set_new(o, "ifunc_fallback", fallback);
    json_t *plain = json_array();
    for (size_t i = 0; i < p->plain_symbol.n; i++) json_array_append_new(plain, json_string(p->plain_symbol.v[i]));
    json_object_set_new(o, "plain_symbol", plain);
    return o;
}
