/* isa.c - see isa.h. */
#include "candidates/isa.h"
#include "candidates/query.h"
#include "capture/codeprofile.h"
#include "capture/probe.h"
#include "capture/wrapper.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/demangle.h"

/* Functions a wider ISA computes in one instruction, by what replaces them. */
enum replacement { REP_POPCNT, REP_LZCNT, REP_TZCNT, REP_ROUND, REP_FMA, REP_NONE };

static enum replacement replacement_of(const char *callee)
{
    static const char *const popcnt[] = {"__popcountdi2", "__popcountsi2", "__popcountti2",
                                         "__paritydi2",   "__paritysi2",   NULL};
    static const char *const lz[] = {"__clzdi2", "__clzsi2", "__clzti2", NULL};
    static const char *const tz[] = {"__ctzdi2", "__ctzsi2", "__ctzti2", NULL};
    static const char *const round[] = {"floor", "ceil", "rint", "trunc", "nearbyint", "round", "roundeven",
                                        "lrint", "llrint", "lround", "llround", NULL};
    for (int i = 0; popcnt[i]; i++)
        if (!strcmp(callee, popcnt[i])) return REP_POPCNT;
    for (int i = 0; lz[i]; i++)
        if (!strcmp(callee, lz[i])) return REP_LZCNT;
    for (int i = 0; tz[i]; i++)
        if (!strcmp(callee, tz[i])) return REP_TZCNT;
    /* libm: the double name, or with the float/long double suffix. */
    size_t n = strlen(callee);
    for (int suffix = 0; suffix < 2; suffix++) {
        size_t len = n - (size_t)suffix;
        if (suffix && (n < 2 || (callee[n - 1] != 'f' && callee[n - 1] != 'l'))) break;
        if (len == 3 && !strncmp(callee, "fma", 3)) return REP_FMA;
        for (int i = 0; round[i]; i++)
            if (strlen(round[i]) == len && !strncmp(callee, round[i], len)) return REP_ROUND;
    }
    return REP_NONE;
}

static unsigned count_of(const struct strvec *v, const char *s)
{
    unsigned n = 0;
    for (size_t i = 0; i < v->n; i++) n += !strcmp(v->v[i], s);
    return n;
}

static const char *replacement_insn(enum replacement r, const struct func_isa *t)
{
    switch (r) {
    case REP_POPCNT: return t->op_example[FOP_POPCNT] ? t->op_example[FOP_POPCNT] : "popcnt";
    case REP_LZCNT: return t->op_example[FOP_LZCNT] ? t->op_example[FOP_LZCNT] : "lzcnt";
    case REP_TZCNT: return t->op_example[FOP_TZCNT] ? t->op_example[FOP_TZCNT] : "tzcnt";
    case REP_ROUND: return t->op_example[FOP_ROUND] ? t->op_example[FOP_ROUND] : "inline code";
    case REP_FMA: return t->op_example[FOP_FMA] ? t->op_example[FOP_FMA] : "inline code";
    default: return "inline code";
    }
}

static int width_slot(int bits)
{
    return bits >= 512 ? 3 : bits >= 256 ? 2 : bits >= 128 ? 1 : 0;
}

static void add_part(struct strbuf *sb, const char *text)
{
    if (sb->len) sb_adds(sb, "; ");
    sb_adds(sb, text);
}

/* The calls removed, grouped by the instruction that replaces them: one
 * drop per callee, in the build's call order within each group. */
struct drop {
    const char *callee;
    enum replacement rep;
    unsigned sites;   /* call sites removed */
};

static size_t calls_dropped(const struct func_isa *b, const struct func_isa *t, struct drop **out)
{
    struct drop *v = NULL;
    size_t n = 0;
    for (int r = 0; r < REP_NONE; r++)
        for (size_t i = 0; i < b->calls.n; i++) {
            const char *callee = b->calls.v[i];
            if (replacement_of(callee) != (enum replacement)r) continue;
            int seen = 0;
            for (size_t k = 0; k < n && !seen; k++) seen = !strcmp(v[k].callee, callee);
            unsigned nb = count_of(&b->calls, callee), nt = count_of(&t->calls, callee);
            if (seen || nt >= nb) continue;
            v = xrealloc(v, (n + 1) * sizeof *v);
            v[n++] = (struct drop){callee, (enum replacement)r, nb - nt};
        }
    *out = v;
    return n;
}

/* "X replaces a, b (N calls)" for each replacing instruction of drops. */
static void render_drops(const struct drop *d, size_t n, const struct func_isa *t, struct strbuf *sb)
{
    for (size_t i = 0; i < n;) {
        struct strbuf part = STRBUF_INIT;
        unsigned sites = 0;
        size_t j = i;
        sb_addf(&part, "%s replaces ", replacement_insn(d[i].rep, t));
        for (; j < n && d[j].rep == d[i].rep; j++) {
            sb_addf(&part, "%s%s", j > i ? ", " : "", d[j].callee);
            sites += d[j].sites;
        }
        if (sites > j - i) sb_addf(&part, " (%u calls)", sites);
        add_part(sb, sb_str(&part));
        sb_free(&part);
        i = j;
    }
}

/* Of the d FMA instructions t adds over b, those on a loop-carried
 * accumulator (elf/funcisa.h fma_chain). */
static unsigned fma_chain_added(const struct func_isa *b, const struct func_isa *t, unsigned d)
{
    unsigned dc = t->fma_chain > b->fma_chain ? t->fma_chain - b->fma_chain : 0;
    return dc < d ? dc : d;
}

int isa_compare(const struct func_isa *b, const struct func_isa *t, char **evidence, struct strvec *dropped)
{
    struct strbuf sb = STRBUF_INIT;
    int score = 0;
    int replaced[REP_NONE] = {0};
    /* Calls removed: the data (dropped) and the text are rendered from
     * the same list. */
    struct drop *drops = NULL;
    size_t ndrops = calls_dropped(b, t, &drops);
    for (size_t i = 0; i < ndrops; i++) {
        score += ISA_W_CALL * (int)drops[i].sites;
        replaced[drops[i].rep] = 1;
    }
    render_drops(drops, ndrops, t, &sb);
    /* Instructions the target has more of. */
    static const struct {
        enum funcisa_op op;
        int weight;
        int rep;   /* said already when it replaced a call */
    } singles[] = {
        {FOP_POPCNT, ISA_W_SINGLE, REP_POPCNT}, {FOP_LZCNT, ISA_W_SINGLE, REP_LZCNT},
        {FOP_TZCNT, ISA_W_SINGLE, REP_TZCNT},   {FOP_BMI, ISA_W_SINGLE, REP_NONE},
        {FOP_MOVBE, ISA_W_SINGLE, REP_NONE},    {FOP_ROUND, ISA_W_SINGLE, REP_ROUND},
        {FOP_SHIFTX, ISA_W_SHIFTX, REP_NONE},
    };
    for (size_t k = 0; k < sizeof singles / sizeof *singles; k++) {
        enum funcisa_op op = singles[k].op;
        if (t->ops[op] <= b->ops[op]) continue;
        unsigned d = t->ops[op] - b->ops[op];
        score += singles[k].weight * (int)d;
        if (singles[k].rep != REP_NONE && replaced[singles[k].rep]) continue;
        char *part = xasprintf("%u %s", d, t->op_example[op] ? t->op_example[op] : funcisa_op_name(op));
        add_part(&sb, part);
        free(part);
    }
    if (t->ops[FOP_FMA] > b->ops[FOP_FMA]) {
        unsigned d = t->ops[FOP_FMA] - b->ops[FOP_FMA], dc = fma_chain_added(b, t, d);
        score += ISA_W_FMA * (int)(d - dc) + (dc ? ISA_W_FMA_CHAIN : 0);
        if (!replaced[REP_FMA]) {
            char *part = dc == d  ? xasprintf("%u FMA on a loop-carried accumulator", d)
                         : dc > 0 ? xasprintf("%u FMA (%u on a loop-carried accumulator)", d, dc)
                                  : xasprintf("%u FMA", d);
            add_part(&sb, part);
            free(part);
        }
    }
    if (t->ops[FOP_SIMD] > b->ops[FOP_SIMD]) {
        unsigned d = t->ops[FOP_SIMD] - b->ops[FOP_SIMD];
        score += ISA_W_SIMD * (int)d;
        struct strbuf part = STRBUF_INIT;
        sb_addf(&part, "%u SSE4/AVX2/AVX-512 operation%s (", d, d == 1 ? "" : "s");
        size_t shown = 0;
        for (size_t i = 0; i < t->simd_ops.n; i++) {
            if (sv_contains(&b->simd_ops, t->simd_ops.v[i])) continue;
            if (shown == 4) {
                sb_adds(&part, ", ...");
                break;
            }
            sb_addf(&part, "%s%s", shown++ ? ", " : "", t->simd_ops.v[i]);
        }
        if (!shown) sb_adds(&part, "more of the same");
        sb_adds(&part, ")");
        add_part(&sb, sb_str(&part));
        sb_free(&part);
    }
    /* xmm is where scalar float code lives: only ymm/zmm are wider vectors. */
    int base = width_slot(b->vector_bits) > 1 ? width_slot(b->vector_bits) : 1;
    if (width_slot(t->vector_bits) > base) {
        unsigned wide = 0;
        for (int s = base + 1; s < 4; s++) wide += t->n_by_width[s];
        score += ISA_W_WIDE * (int)wide;
        char *part = xasprintf("%s (build: %s)", isa_register_class(t->vector_bits),
                               b->vector_bits ? isa_register_class(b->vector_bits) : "no vectors");
        add_part(&sb, part);
        free(part);
    }
    *evidence = NULL;
    if (score > 0) *evidence = sb_detach(&sb);
    for (size_t i = 0; dropped && score > 0 && i < ndrops; i++)
        if (!sv_contains(dropped, drops[i].callee)) sv_push(dropped, drops[i].callee);
    free(drops);
    sb_free(&sb);
    return score;
}

int isa_fma_score(const struct func_isa *b, const struct func_isa *t)
{
    int score = 0;
    struct strvec seen = STRVEC_INIT;
    for (size_t i = 0; i < b->calls.n; i++) {
        const char *callee = b->calls.v[i];
        if (replacement_of(callee) != REP_FMA || sv_contains(&seen, callee)) continue;
        sv_push(&seen, callee);
        unsigned nb = count_of(&b->calls, callee), nt = count_of(&t->calls, callee);
        if (nt < nb) score += ISA_W_CALL * (int)(nb - nt);
    }
    sv_free(&seen);
    if (t->ops[FOP_FMA] > b->ops[FOP_FMA]) {
        unsigned d = t->ops[FOP_FMA] - b->ops[FOP_FMA], dc = fma_chain_added(b, t, d);
        score += ISA_W_FMA * (int)(d - dc) + (dc ? ISA_W_FMA_CHAIN : 0);
    }
    return score;
}

int isa_exact_loss(const struct func_isa *b, const struct func_isa *t)
{
    return isa_fma_score(b, t) + isa_avx512_score(b, t);
}

int isa_avx512_score(const struct func_isa *b, const struct func_isa *t)
{
    if (t->ops[FOP_SIMD] <= b->ops[FOP_SIMD] || t->simd_avx512 <= b->simd_avx512) return 0;
    unsigned d = t->simd_avx512 - b->simd_avx512, all = t->ops[FOP_SIMD] - b->ops[FOP_SIMD];
    return ISA_W_SIMD * (int)(d < all ? d : all);
}

/* The host of the first share of name in l (the build inlined it there),
 * or NULL. */
static const char *build_share_host(const struct func_isa_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].host && !strcmp(l->v[i].name, name)) return l->v[i].host;
    return NULL;
}

/* The bare name of a function as an inline frame or a symbol names it:
 * "count" for "_ZN3dsp4Bits5countEy", "dsp::Bits::count(unsigned long
 * long)" or "count"; "snap" for "snap<double>" (caller frees). */
static char *bare_name(const char *name)
{
    char *d = symbol_is_mangled(name) ? symbol_demangle(name) : NULL;
    const char *s = d ? d : name;
    struct strbuf sb = STRBUF_INIT;
    int angle = 0;
    for (size_t i = 0; s[i]; i++) {
        char ch = s[i];
        if (ch == '<') angle++;
        else if (ch == '>' && angle) angle--;
        else if (angle) continue;
        else if (ch == '(' && i && (s[i - 1] == '_' || s[i - 1] == '>' || (s[i - 1] >= '0' && s[i - 1] <= '9') ||
                                    ((s[i - 1] | 32) >= 'a' && (s[i - 1] | 32) <= 'z')))
            break;   /* the parameter list */
        else if (ch == ':' || ch == ' ') sb_reset(&sb);   /* a qualifier or return type before */
        else sb_addc(&sb, ch);
    }
    free(d);
    return sb_detach(&sb);
}

/* The build's share of callee inlined into host: by the same name, else
 * by the same bare name (the build compiled with -g names C++ callees by
 * their symbol, the probe's -g1 by their plain name); NULL when none. */
static const struct func_isa *build_share(const struct func_isa_list *build, const char *callee, const char *host)
{
    const struct func_isa *b = funcisa_find_share(build, callee, host);
    if (b) return b;
    char *want = bare_name(callee);
    for (size_t i = 0; i < build->n && !b; i++) {
        if (!build->v[i].host || strcmp(build->v[i].host, host) != 0) continue;
        char *have = bare_name(build->v[i].name);
        if (*want && !strcmp(have, want)) b = &build->v[i];
        free(have);
    }
    free(want);
    return b;
}

/* The build's share of callee s->name in a build whose code has no inline
 * frames (no -g): what the share s of the target's code holds beyond the
 * gain of its host as a whole (bh: the host's build code, th: its target
 * code) counts as the build's, so the share is credited with no more of
 * each kind of instruction than the host gained, with no wider vectors or
 * operations than the host's build code lacked; a call the host dropped
 * (__popcountdi2, floorf) counts as the share's when the share holds the
 * instruction that replaces it (popcnt, roundss), which no frame of the
 * build can tell otherwise: several such shares each get it. Its simd_ops
 * borrows bh's; free only its calls. */
static void host_gain_share(const struct func_isa *s, const struct func_isa *bh, const struct func_isa *th,
                            struct func_isa *out)
{
    memset(out, 0, sizeof *out);
    out->name = s->name;
    out->calls = (struct strvec)STRVEC_INIT;
    out->simd_ops = bh->simd_ops;
    for (int o = 0; o < FOP_N; o++) {
        unsigned gain = th->ops[o] > bh->ops[o] ? th->ops[o] - bh->ops[o] : 0;
        out->ops[o] = s->ops[o] > gain ? s->ops[o] - gain : 0;
    }
    unsigned chain = th->fma_chain > bh->fma_chain ? th->fma_chain - bh->fma_chain : 0;
    out->fma_chain = s->fma_chain > chain ? s->fma_chain - chain : 0;
    unsigned a512 = th->simd_avx512 > bh->simd_avx512 ? th->simd_avx512 - bh->simd_avx512 : 0;
    out->simd_avx512 = s->simd_avx512 > a512 ? s->simd_avx512 - a512 : 0;
    out->vector_bits = bh->vector_bits;
    static const enum funcisa_op by_rep[REP_NONE] = {FOP_POPCNT, FOP_LZCNT, FOP_TZCNT, FOP_ROUND, FOP_FMA};
    for (size_t i = 0; i < bh->calls.n; i++) {
        enum replacement r = replacement_of(bh->calls.v[i]);
        if (r == REP_NONE || !s->ops[by_rep[r]] || sv_contains(&out->calls, bh->calls.v[i])) continue;
        unsigned nb = count_of(&bh->calls, bh->calls.v[i]), nt = count_of(&th->calls, bh->calls.v[i]);
        for (unsigned k = nt; k < nb; k++) sv_push(&out->calls, bh->calls.v[i]);
    }
}

/* t: the target's share of a callee inlined into t->host, or the target's
 * own code of a callee the build inlined; compared with the build's share
 * when the callee has no code of its own in the build and the host has.
 * Without frames in the build (build_frames 0), a share of the target's
 * code is compared through its host's gain (host_gain_share). */
static void compare_share(const struct func_isa_list *build, const struct func_isa_list *target, int build_frames,
                          const struct func_isa *t, struct isa_result *out)
{
    const char *host = t->host ? t->host : build_share_host(build, t->name);
    if (!host || funcisa_find(build, t->name) || !funcisa_find(build, host)) return;
    struct func_isa empty, derived;
    memset(&empty, 0, sizeof empty);
    const struct func_isa *b = build_share(build, t->name, host);
    if (!b && !build_frames) {
        const struct func_isa *th = t->host ? funcisa_find(target, host) : NULL;
        if (!th) return;   /* the target's own code of a callee: no share of a host to weigh it by */
        host_gain_share(t, funcisa_find(build, host), th, &derived);
        b = &derived;
    }
    char *evidence = NULL;
    struct strvec dropped = STRVEC_INIT;
    int score = isa_compare(b ? b : &empty, t, &evidence, &dropped);
    int exact_loss = isa_exact_loss(b ? b : &empty, t);
    if (b == &derived) sv_free(&derived.calls);
    if (score <= 0) return;
    out->inl = xrealloc(out->inl, (out->ninl + 1) * sizeof *out->inl);
    out->inl[out->ninl++] = (struct isa_function){xstrdup(t->name), xstrdup(host), score,
                                                  exact_loss, evidence, dropped};
}

/* The stored profiles of one (compile, variant); 0 when none. */
static int load_profiles(struct store *st, int64_t compile_id, const char *variant, struct func_isa_list *out)
{
    struct strvec names = STRVEC_INIT, texts = STRVEC_INIT;
    int found = store_function_profiles(st, compile_id, variant, &names, &texts);
    for (size_t i = 0; i < names.n; i++) {
        json_error_t e;
        json_t *j = json_loads(texts.v[i], 0, &e);
        struct func_isa f;
        if (funcisa_from_json(names.v[i], j, &f) == 0) {
            out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
            out->v[out->n++] = f;
        } else {
            funcisa_free(&f);
        }
        json_decref(j);
    }
    sv_free(&names);
    sv_free(&texts);
    funcisa_sort(out);
    return found;
}

void isa_compare_compile(struct store *st, const struct compile_row *c, struct isa_result *out)
{
    memset(out, 0, sizeof *out);
    out->notes = (struct strvec)STRVEC_INIT;
    char *variant = candidates_query_profile_variant(st, c->id);
    if (!variant) return;
    struct func_isa_list target = {0}, build = {0};
    load_profiles(st, c->id, variant, &target);
    int have_build = load_profiles(st, c->id, "build", &build);
    if (!have_build) {
        char *why = NULL;
        if (!c->output || !*c->output) {
            why = xstrdup("the compile names no object");
        } else {
            char *object = path_absolute(c->output, c->directory);
            if (codeprofile_read(object, &build, &why) == 0) have_build = 1;
            /* The build deleted it (make's intermediate files): the copy
             * the wrapper kept (capture/wrapper.h). */
            char *kept = have_build ? NULL : wrapper_kept_object(store_path(st), c->source, object);
            char *kept_why = NULL;
            if (kept && codeprofile_read(kept, &build, &kept_why) == 0) {
                have_build = 1;
                free(why);
                why = NULL;
            }
            free(kept_why);
            free(kept);
            free(object);
        }
        if (!have_build) {
            sv_pushf(&out->notes, "build: %s; its code at %s is not compared", why ? why : "no code",
                     variant + strlen("probe:"));
            free(why);
        }
    }
    /* The build's code has inline frames (-g, or a share read from it). */
    int build_frames = probe_compile_has_debug(c);
    for (size_t i = 0; i < build.n && !build_frames; i++) build_frames = build.v[i].host != NULL;
    struct strvec unmatched = STRVEC_INIT;
    for (size_t i = 0; have_build && i < target.n; i++) {
        const struct func_isa *t = &target.v[i];
        const struct func_isa *b = funcisa_find(&build, t->name);
        char *evidence = NULL;
        if (t->host || (!b && build_share_host(&build, t->name))) {
            compare_share(&build, &target, build_frames, t, out);
            continue;
        }
        if (!b) {
            /* Inlined into its callers in the build, or named otherwise
             * there: said only when its target code alone shows something. */
            struct func_isa empty;
            memset(&empty, 0, sizeof empty);
            if (isa_compare(&empty, t, &evidence, NULL) > 0) sv_push(&unmatched, t->name);
            free(evidence);
            continue;
        }
        struct strvec dropped = STRVEC_INIT;
        int score = isa_compare(b, t, &evidence, &dropped);
        if (score <= 0) continue;
        out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
        out->v[out->n++] =
            (struct isa_function){xstrdup(t->name), NULL, score, isa_exact_loss(b, t), evidence, dropped};
    }
    if (unmatched.n) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t i = 0; i < unmatched.n && i < 5; i++) sb_addf(&sb, "%s%s", i ? ", " : "", unmatched.v[i]);
        if (unmatched.n > 5) sb_adds(&sb, ", ...");
        sv_pushf(&out->notes, "%zu function%s of the code at %s %s no counterpart in the build's code (inlined or "
                              "renamed there), not compared: %s",
                 unmatched.n, unmatched.n == 1 ? "" : "s", variant + strlen("probe:"), unmatched.n == 1 ? "has" : "have",
                 sb_str(&sb));
        sb_free(&sb);
    }
    sv_free(&unmatched);
    funcisa_list_free(&target);
    funcisa_list_free(&build);
    free(variant);
}

void isa_result_free(struct isa_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].name);
        free(r->v[i].evidence);
        sv_free(&r->v[i].dropped);
    }
    free(r->v);
    for (size_t i = 0; i < r->ninl; i++) {
        free(r->inl[i].name);
        free(r->inl[i].host);
        free(r->inl[i].evidence);
        sv_free(&r->inl[i].dropped);
    }
    free(r->inl);
    sv_free(&r->notes);
    memset(r, 0, sizeof *r);
}

