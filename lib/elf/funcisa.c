/* funcisa.c - see funcisa.h. The object is read by elffile.c, its code
 * decoded by disasm.c, each instruction's needs and registers judged by
 * isa.c; here only what an instruction does is told apart from how it is
 * encoded. */
#include "elf/funcisa.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/addr2line.h"
#include "elf/disasm.h"
#include "elf/elffile.h"
#include "util/demangle.h"

static const char *const op_names[FOP_N] = {
    [FOP_POPCNT] = "popcnt", [FOP_LZCNT] = "lzcnt", [FOP_TZCNT] = "tzcnt", [FOP_BMI] = "bmi",
    [FOP_SHIFTX] = "shiftx", [FOP_MOVBE] = "movbe", [FOP_ROUND] = "round", [FOP_FMA] = "fma",
    [FOP_SIMD] = "simd",
};

const char *funcisa_op_name(enum funcisa_op op)
{
    return op < FOP_N ? op_names[op] : "?";
}

static int in_list(const char *m, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(m, *list)) return 1;
    return 0;
}

static int starts_with_any(const char *m, const char *const *list)
{
    for (; *list; list++)
        if (!strncmp(m, *list, strlen(*list))) return 1;
    return 0;
}

/* Operations SSE2 has no single instruction for, by their legacy name (a
 * VEX/EVEX form without its 'v'). Data moves, lane inserts/extracts of
 * wide registers and mask-register bookkeeping are left out: they come
 * with the wider code and say nothing of their own. */
static const char *const SIMD_EXACT[] = {
    /* SSE3 */ "addsubps", "addsubpd", "haddps", "haddpd", "hsubps", "hsubpd", "movddup", "movshdup", "movsldup",
    /* SSSE3 */ "pabsb", "pabsw", "pabsd", "pabsq", "palignr", "phaddw", "phaddd", "phaddsw", "phsubw", "phsubd",
    "phsubsw", "pmaddubsw", "pmulhrsw", "pshufb", "psignb", "psignw", "psignd",
    /* SSE4.1 */ "blendpd", "blendps", "blendvpd", "blendvps", "dppd", "dpps", "insertps", "mpsadbw", "packusdw",
    "pblendvb", "pblendw", "pcmpeqq", "pextrb", "pextrd", "pextrq", "pinsrb", "pinsrd", "pinsrq", "phminposuw",
    "pmaxsb", "pmaxsd", "pmaxud", "pmaxuw", "pminsb", "pminsd", "pminud", "pminuw", "pmaxsq", "pmaxuq", "pminsq",
    "pminuq", "pmuldq", "pmulld", "pmullq", "ptest", "testps", "testpd",
    /* SSE4.2 */ "pcmpgtq", "pcmpestri", "pcmpestrm", "pcmpistri", "pcmpistrm", "crc32",
    /* AVX-512 scalar/unsigned conversions */ "cvtusi2ss", "cvtusi2sd", "cvtss2usi", "cvtsd2usi", "cvttss2usi",
    "cvttsd2usi", "cvtudq2ps", "cvtudq2pd", "cvtps2udq", "cvtpd2udq", "cvttps2udq", "cvttpd2udq", "cvtqq2ps",
    "cvtqq2pd", "cvtuqq2ps", "cvtuqq2pd", "cvtps2qq", "cvtpd2qq", "cvttps2qq", "cvttpd2qq", "cvtps2uqq",
    "cvtpd2uqq", "cvttps2uqq", "cvttpd2uqq", "cvtph2ps", "cvtps2ph",
    NULL};
static const char *const SIMD_PREFIX[] = {
    "broadcast", "pbroadcast", "perm", "pperm", "pmaskmov", "psllv", "psrlv", "psrav",
    "gather", "pgather", "scatter", "pscatter", "pternlog", "compress", "pcompress", "expand", "pexpand",
    "blendm", "pblendm", "fixupimm", "getexp", "getmant", "scalef", "range", "reduce", "rcp14", "rsqrt14",
    "pconflict", "plzcnt", "popcnt" /* vpopcnt after the v is dropped: vpopcntd -> popcntd, see below */,
    "pmadd52", "dbpsadbw", "pmultishift", "pmovm2", "pmovb2m", "pmovw2m", "pmovd2m", "pmovq2m", "prol", "pror",
    "pshldv", "pshrdv", "pshld", "pshrd", "pdpbusd", "pdpwssd",
    NULL};
/* Of those, the operations only AVX-512 has (by the legacy-style name, the
 * VEX/EVEX 'v' dropped): an AVX2 clone (`patch --exact`'s target) cannot
 * have them. */
static const char *const AVX512_EXACT[] = {
    "cvtusi2ss", "cvtusi2sd", "cvtss2usi", "cvtsd2usi", "cvttss2usi", "cvttsd2usi", "cvtudq2ps", "cvtudq2pd",
    "cvtps2udq", "cvtpd2udq", "cvttps2udq", "cvttpd2udq", "cvtqq2ps", "cvtqq2pd", "cvtuqq2ps", "cvtuqq2pd",
    "cvtps2qq", "cvtpd2qq", "cvttps2qq", "cvttpd2qq", "cvtps2uqq", "cvtpd2uqq", "cvttps2uqq", "cvttpd2uqq",
    "pabsq", "pmaxsq", "pmaxuq", "pminsq", "pminuq", "pmullq", NULL};
static const char *const AVX512_PREFIX[] = {
    "scatter", "pscatter", "pternlog", "compress", "pcompress", "expand", "pexpand", "blendm", "pblendm",
    "fixupimm", "getexp", "getmant", "scalef", "range", "reduce", "rcp14", "rsqrt14", "pconflict", "plzcnt",
    "popcnt", "pmadd52", "dbpsadbw", "pmultishift", "pmovm2", "pmovb2m", "pmovw2m", "pmovd2m", "pmovq2m", "prol",
    "pror", "pshldv", "pshrdv", "pshld", "pshrd", "pdpbusd", "pdpwssd", NULL};

int funcisa_avx512_only(const char *mnemonic, int vex)
{
    if (!vex || mnemonic[0] != 'v') return 0;
    const char *m = mnemonic + 1;
    return in_list(m, AVX512_EXACT) || starts_with_any(m, AVX512_PREFIX);
}

static const char *const BMI[] = {"andn", "bextr", "blsi", "blsmsk", "blsr", "bzhi", "pdep", "pext", "mulx", NULL};
static const char *const SHIFTX[] = {"sarx", "shlx", "shrx", "rorx", NULL};
static const char *const ROUND[] = {"roundss", "roundsd", "roundps", "roundpd", "rndscaless", "rndscalesd",
                                    "rndscaleps", "rndscalepd", NULL};
static const char *const FMA[] = {"fmadd", "fmsub", "fnmadd", "fnmsub", NULL};

enum funcisa_op funcisa_classify(const char *mnemonic, int vex)
{
    const char *m = mnemonic;
    if (!strcmp(m, "popcnt")) return FOP_POPCNT;
    if (!strcmp(m, "lzcnt")) return FOP_LZCNT;
    if (!strcmp(m, "tzcnt")) return FOP_TZCNT;
    if (!strcmp(m, "movbe")) return FOP_MOVBE;
    if (in_list(m, BMI)) return FOP_BMI;
    if (in_list(m, SHIFTX)) return FOP_SHIFTX;
    /* VEX/EVEX: the operation is the legacy one without the 'v'. */
    if (vex && m[0] == 'v') m++;
    else if (vex) return FOP_N;
    if (in_list(m, ROUND)) return FOP_ROUND;
    if (vex && starts_with_any(m, FMA)) return FOP_FMA;
    if (in_list(m, SIMD_EXACT) || !strncmp(m, "pmovsx", 6) || !strncmp(m, "pmovzx", 6)) return FOP_SIMD;
    /* Only encodings SSE2 code cannot have: a legacy "popcnt" is the scalar
     * one above; "perm"/"broadcast" exist only with VEX/EVEX. */
    if (vex && starts_with_any(m, SIMD_PREFIX)) return FOP_SIMD;
    /* vpmaskmov's legacy cousin maskmovdqu is SSE2, vmaskmovps is AVX. */
    if (vex && !strncmp(m, "maskmov", 7) && strcmp(m, "maskmovdqu") != 0) return FOP_SIMD;
    return FOP_N;
}

/* A new profile for one symbol, named with its suffix folded; the parts of
 * one function are merged by funcisa_sort. */
static struct func_isa *profile_for(struct func_isa_list *l, const char *symbol)
{
    size_t len = strcspn(symbol, ".");
    if (len == 0) len = strlen(symbol);   /* ".L" names: keep whole */
    if (!(l->n & (l->n + 1))) l->v = xrealloc(l->v, (2 * l->n + 1) * sizeof *l->v);
    struct func_isa *f = &l->v[l->n++];
    memset(f, 0, sizeof *f);
    f->name = xstrndup(symbol, len);
    f->calls = (struct strvec)STRVEC_INIT;
    f->simd_ops = (struct strvec)STRVEC_INIT;
    return f;
}

static int is_call_reloc(int type)
{
    return type == R_X86_64_PLT32 || type == R_X86_64_PC32 || type == R_X86_64_GOTPCREL ||
           type == R_X86_64_GOTPCRELX || type == R_X86_64_REX_GOTPCRELX;
}

static int has_group(const cs_insn *insn, uint8_t group)
{
    for (uint8_t i = 0; insn->detail && i < insn->detail->groups_count; i++)
        if (insn->detail->groups[i] == group) return 1;
    return 0;
}

/* What one instruction adds to a profile (on_insn), kept for the
 * instructions that can tell something (an op, a call, a wide vector) when
 * shares of inlined callees are wanted. */
struct insn_fact {
    uint64_t addr;
    size_t func;             /* index of its function's profile */
    isa_set needs;
    int bits;
    enum funcisa_op op;
    int chain;               /* an FMA on a loop-carried accumulator (loop_chains) */
    char *mnemonic;          /* op < FOP_N */
    int vex;
    struct strvec calls;
};

/* What loop_chains needs of one instruction. */
struct loop_insn {
    uint64_t addr;
    int addend;       /* an FMA: the vector register number of its addend (-1: memory); else -1 */
    int writes;       /* the vector register number its first operand writes, or -1 */
    uint64_t back;    /* a jump backwards inside the function: its target; else 0 */
};

struct walk {
    struct func_isa *f;
    size_t func;
    const struct elf_object_reloc *relocs;
    size_t nrelocs;
    struct insn_fact **facts;   /* NULL: none kept */
    size_t *nfacts;
    uint64_t start, end;        /* the function's code */
    struct loop_insn *li;
    size_t nli;
};

static void apply_fact(struct func_isa *f, const struct insn_fact *x)
{
    f->n_insns++;
    f->needs |= x->needs;
    if (x->bits > f->vector_bits) f->vector_bits = x->bits;
    f->n_by_width[x->bits >= 512 ? 3 : x->bits >= 256 ? 2 : x->bits >= 128 ? 1 : 0]++;
    if (x->op < FOP_N) {
        f->ops[x->op]++;
        if (!f->op_example[x->op]) f->op_example[x->op] = xstrdup(x->mnemonic);
        if (x->op == FOP_SIMD) {
            if (funcisa_avx512_only(x->mnemonic, x->vex)) f->simd_avx512++;
            const char *m = x->vex && x->mnemonic[0] == 'v' ? x->mnemonic + 1 : x->mnemonic;
            if (!sv_contains(&f->simd_ops, m)) sv_push(&f->simd_ops, m);
        }
    }
    if (x->chain) f->fma_chain++;
    for (size_t i = 0; i < x->calls.n; i++) sv_push(&f->calls, x->calls.v[i]);
}

/* The number of an xmm/ymm/zmm register (0-31), or -1. */
static int vector_reg(unsigned reg)
{
    if (reg >= X86_REG_XMM0 && reg <= X86_REG_XMM31) return (int)(reg - X86_REG_XMM0);
    if (reg >= X86_REG_YMM0 && reg <= X86_REG_YMM31) return (int)(reg - X86_REG_YMM0);
    if (reg >= X86_REG_ZMM0 && reg <= X86_REG_ZMM31) return (int)(reg - X86_REG_ZMM0);
    return -1;
}

static struct loop_insn loop_insn_of(const cs_insn *insn, enum funcisa_op op, const struct walk *w)
{
    struct loop_insn l = {insn->address, -1, -1, 0};
    if (!insn->detail || disasm_is_length_only(insn)) return l;
    const cs_x86 *x = &insn->detail->x86;
    if (x->op_count && x->operands[0].type == X86_OP_REG && (x->operands[0].access & CS_AC_WRITE || !x->operands[0].access))
        l.writes = vector_reg(x->operands[0].reg);
    /* Intel order: 132 d,a,b: d = d*b + a; 213 d,a,b: d = a*d + b; 231 d,a,b: d = a*b + d. */
    if (op == FOP_FMA && x->op_count == 3) {
        int k = strstr(insn->mnemonic, "231") ? 0 : strstr(insn->mnemonic, "132") ? 1 : strstr(insn->mnemonic, "213") ? 2 : -1;
        if (k >= 0 && x->operands[k].type == X86_OP_REG) l.addend = vector_reg(x->operands[k].reg);
    }
    if (has_group(insn, X86_GRP_JUMP) && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
        uint64_t t = (uint64_t)x->operands[0].imm;
        if (t >= w->start && t <= insn->address) l.back = t;
    }
    return l;
}

/* Marks the FMAs of one function (its loop_insns li, its facts from
 * fact0 on) on a loop-carried accumulator: in the instructions of a loop
 * (a backward jump's range, read straight through), a chain of FMAs each
 * adding into the previous one's result (whatever register it is renamed
 * to, as unrolled code does) that starts from a register's value at the
 * loop's top and ends in that register at its bottom - a reduction such as
 * `s += a[i] * b[i]`. Each such FMA waits for the one before: the step of
 * the loop's chain is the FMA's latency instead of an add's (4-5 cycles
 * against 3 on AMD Zen), and the multiply it saves was off the chain. An
 * FMA whose multiplicand is the carried value (a recurrence `v = x - a*v`)
 * does shorten the chain and is not one, nor is an FMA whose addend the
 * loop never writes (a loop-invariant constant). Returns how many. */
static unsigned loop_chains(const struct loop_insn *li, size_t n, struct insn_fact *facts, size_t fact0,
                            size_t nfacts)
{
    unsigned count = 0;
    char *chain = xcalloc(n ? n : 1, 1);
    int *label = xcalloc(n ? n : 1, sizeof *label);
    for (size_t j = 0; j < n; j++) {
        if (!li[j].back) continue;
        int carried[32];   /* the register whose loop-top value each register holds through FMA addends, or -1 */
        int written[32];   /* 1: the loop writes the register (else its value is loop-invariant) */
        for (int r = 0; r < 32; r++) carried[r] = r, written[r] = 0;
        size_t first = j;
        while (first > 0 && li[first - 1].addr >= li[j].back) first--;
        for (size_t k = first; k <= j; k++) {
            label[k] = -1;
            if (li[k].writes >= 0) written[li[k].writes] = 1;
            if (li[k].addend >= 0 && li[k].writes >= 0 && carried[li[k].addend] >= 0) {
                label[k] = carried[li[k].addend];
                carried[li[k].writes] = label[k];
            } else if (li[k].writes >= 0) {
                carried[li[k].writes] = -1;
            }
        }
        /* the chain ends in the register it started from, which the loop
         * writes: an addend the loop never writes (a constant, y = x*s + c)
         * carries nothing from one iteration to the next */
        for (size_t k = first; k <= j; k++)
            if (label[k] >= 0 && written[label[k]] && carried[label[k]] == label[k]) chain[k] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!chain[i]) continue;
        count++;
        for (size_t k = fact0; facts && k < nfacts; k++)
            if (facts[k].addr == li[i].addr) facts[k].chain = 1;
    }
    free(chain);
    free(label);
    return count;
}

static int on_insn(const cs_insn *insn, void *ctx)
{
    struct walk *w = ctx;
    struct insn_fact x = {.addr = insn->address, .func = w->func, .calls = STRVEC_INIT};
    isa_insn(insn, &x.needs, &x.bits);
    x.vex = disasm_is_vex(insn) || disasm_is_evex(insn);
    x.op = disasm_is_length_only(insn) ? FOP_N : funcisa_classify(insn->mnemonic, x.vex);
    x.mnemonic = (char *)insn->mnemonic;
    if (!(w->nli & (w->nli + 1))) w->li = xrealloc(w->li, (2 * w->nli + 1) * sizeof *w->li);
    w->li[w->nli++] = loop_insn_of(insn, x.op, w);
    /* A call or (tail-call) jump whose target a relocation names. */
    if (has_group(insn, X86_GRP_CALL) || has_group(insn, X86_GRP_JUMP)) {
        for (size_t i = 0; i < w->nrelocs; i++) {
            const struct elf_object_reloc *r = &w->relocs[i];
            if (r->offset < insn->address || r->offset >= insn->address + insn->size) continue;
            if (is_call_reloc(r->type)) sv_push(&x.calls, r->symbol);
        }
    }
    apply_fact(w->f, &x);
    if (w->facts && (x.op < FOP_N || x.calls.n || x.bits >= 256)) {
        if (!(*w->nfacts & (*w->nfacts + 1))) *w->facts = xrealloc(*w->facts, (2 * *w->nfacts + 1) * sizeof **w->facts);
        x.mnemonic = xstrdup(insn->mnemonic);
        (*w->facts)[(*w->nfacts)++] = x;
    } else {
        sv_free(&x.calls);
    }
    return 0;
}

struct reading {
    struct func_isa_list *l;
    struct strvec sections;         /* per profile of l: its symbol's section */
    struct insn_fact *facts;        /* NULL: none kept */
    size_t nfacts;
    int keep;
    int lines;                      /* the object has line information */
};

static int on_function(const struct elf_object_func *of, const struct elf_object_reloc *relocs, size_t nrelocs,
                       void *ctx)
{
    struct reading *r = ctx;
    struct walk w = {profile_for(r->l, of->name), r->l->n - 1, relocs, nrelocs, r->keep ? &r->facts : NULL,
                     &r->nfacts, of->addr, of->addr + of->size, NULL, 0};
    sv_push(&r->sections, of->section ? of->section : "");
    r->lines |= of->debug_lines;
    size_t fact0 = r->nfacts;
    long rc = disasm_walk(of->code, (size_t)of->size, of->addr, on_insn, &w, NULL);
    if (rc >= 0) w.f->fma_chain += loop_chains(w.li, w.nli, r->facts, fact0, r->nfacts);
    free(w.li);
    return rc < 0 ? -1 : 0;
}

/* ---- shares of inlined callees ---- */

struct attributing {
    struct reading *r;
    const size_t *idx;              /* the facts of one section, by address */
    size_t n;
    struct func_isa_list *shares;
};

static struct func_isa *share_for(struct func_isa_list *l, const char *callee, const char *host)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].name, callee) && !strcmp(l->v[i].host, host)) return &l->v[i];
    struct func_isa *f = profile_for(l, callee);
    free(f->name);
    f->name = xstrdup(callee);
    f->host = xstrdup(host);
    return f;
}

static void on_frames(unsigned long long addr, char *const *names, char *const *files, const int *lines, size_t n,
                      void *ctx)
{
    (void)files;
    (void)lines;
    struct attributing *a = ctx;
    if (n < 2) return;
    size_t lo = 0, hi = a->n;   /* the first fact at or after addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->r->facts[a->idx[mid]].addr < addr) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < a->n && a->r->facts[a->idx[lo]].addr == addr; lo++) {
        const struct insn_fact *x = &a->r->facts[a->idx[lo]];
        /* the outermost frame is the function itself; the next one the
         * callee it inlined there (its own callees' code is the callee's).
         * A C++ function's frame may carry its plain name ("mix") where
         * the symbol is mangled ("_Z3mixiz": clang's -g1 keeps no linkage
         * names); the address lies in the symbol, so it is the host. */
        const char *host = a->r->l->v[x->func].name;
        if ((strcmp(names[n - 1], host) != 0 && !symbol_is_mangled(host)) || !strcmp(names[n - 2], host)) continue;
        apply_fact(share_for(a->shares, names[n - 2], host), x);
    }
}

static _Thread_local const struct insn_fact *sort_facts;   /* qsort has no context argument */

static int by_addr(const void *a, const void *b)
{
    uint64_t x = sort_facts[*(const size_t *)a].addr, y = sort_facts[*(const size_t *)b].addr;
    return (x > y) - (x < y);
}

/* The shares of inlined callees in r's functions, appended to out. */
static void attribute(const char *path, struct reading *r, funcisa_frames_fn frames, void *ctx,
                      struct func_isa_list *out)
{
    struct func_isa_list shares = {0};
    struct strvec done = STRVEC_INIT;
    size_t *idx = xcalloc(r->nfacts, sizeof *idx);
    uint64_t *addrs = xcalloc(r->nfacts, sizeof *addrs);
    for (size_t i = 0; i < r->nfacts; i++) {
        const char *section = r->sections.v[r->facts[i].func];
        if (sv_contains(&done, section)) continue;
        sv_push(&done, section);
        size_t n = 0;
        for (size_t k = i; k < r->nfacts; k++)
            if (!strcmp(r->sections.v[r->facts[k].func], section)) idx[n++] = k;
        sort_facts = r->facts;
        qsort(idx, n, sizeof *idx, by_addr);
        size_t na = 0;
        for (size_t k = 0; k < n; k++)
            if (!na || addrs[na - 1] != r->facts[idx[k]].addr) addrs[na++] = r->facts[idx[k]].addr;
        char *text = frames(path, section, addrs, na, ctx);
        struct attributing a = {r, idx, n, &shares};
        if (text) addr2line_parse(text, on_frames, &a);
        free(text);
    }
    free(idx);
    free(addrs);
    sv_free(&done);
    for (size_t i = 0; i < shares.n; i++) {
        out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
        out->v[out->n++] = shares.v[i];
    }
    free(shares.v);
}

int funcisa_read_object_shares(const char *path, funcisa_frames_fn frames, void *ctx, struct func_isa_list *out,
                               char **why)
{
    struct func_isa_list l = {0};
    struct reading r = {&l, STRVEC_INIT, NULL, 0, frames != NULL, 0};
    int rc = elf_object_code(path, on_function, &r, why);
    struct func_isa_list shares = {0};
    if (rc == 0 && frames && r.lines && r.nfacts) attribute(path, &r, frames, ctx, &shares);
    for (size_t i = 0; i < r.nfacts; i++) {
        free(r.facts[i].mnemonic);
        sv_free(&r.facts[i].calls);
    }
    free(r.facts);
    sv_free(&r.sections);
    funcisa_sort(&l);
    for (size_t i = 0; i < l.n; i++) {
        out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
        out->v[out->n++] = l.v[i];
    }
    for (size_t i = 0; i < shares.n; i++) {
        out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
        out->v[out->n++] = shares.v[i];
    }
    free(l.v);
    free(shares.v);
    funcisa_sort(out);
    return rc;
}

int funcisa_read_object(const char *path, struct func_isa_list *out, char **why)
{
    return funcisa_read_object_shares(path, NULL, NULL, out, why);
}

/* By name, then host: a function's own profile (no host) first. */
static int by_name(const void *a, const void *b)
{
    const struct func_isa *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c || x->host == y->host) return c;
    if (!x->host || !y->host) return x->host ? 1 : -1;
    return strcmp(x->host, y->host);
}

/* b's counts into a (two parts of one function: foo and foo.cold). */
static void merge_into(struct func_isa *a, struct func_isa *b)
{
    a->needs |= b->needs;
    if (b->vector_bits > a->vector_bits) a->vector_bits = b->vector_bits;
    a->n_insns += b->n_insns;
    for (int k = 0; k < FOP_N; k++) {
        a->ops[k] += b->ops[k];
        if (!a->op_example[k] && b->op_example[k]) a->op_example[k] = xstrdup(b->op_example[k]);
    }
    for (int k = 0; k < 4; k++) a->n_by_width[k] += b->n_by_width[k];
    a->fma_chain += b->fma_chain;
    a->simd_avx512 += b->simd_avx512;
    for (size_t i = 0; i < b->calls.n; i++) sv_push(&a->calls, b->calls.v[i]);
    for (size_t i = 0; i < b->simd_ops.n; i++)
        if (!sv_contains(&a->simd_ops, b->simd_ops.v[i])) sv_push(&a->simd_ops, b->simd_ops.v[i]);
    funcisa_free(b);
}

void funcisa_sort(struct func_isa_list *l)
{
    if (!l->n) return;
    /* Stable for equal names is not needed: merged counts do not depend
     * on the order, and the first op example of either part will do. */
    qsort(l->v, l->n, sizeof *l->v, by_name);
    size_t out = 0;
    for (size_t i = 1; i < l->n; i++) {
        if (!by_name(&l->v[out], &l->v[i])) merge_into(&l->v[out], &l->v[i]);
        else l->v[++out] = l->v[i];
    }
    l->n = out + 1;
}

const struct func_isa *funcisa_find_share(const struct func_isa_list *l, const char *name, const char *host)
{
    if (!l || !l->n) return NULL;
    struct func_isa key;
    key.name = (char *)name;
    key.host = (char *)host;
    return bsearch(&key, l->v, l->n, sizeof *l->v, by_name);
}

const struct func_isa *funcisa_find(const struct func_isa_list *l, const char *name)
{
    return funcisa_find_share(l, name, NULL);
}

static json_t *strvec_json(const struct strvec *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++) json_array_append_new(a, json_string(v->v[i]));
    return a;
}

json_t *funcisa_to_json(const struct func_isa *f)
{
    json_t *j = json_object();
    char *needs = isa_set_format(f->needs, ",");
    json_object_set_new(j, "needs", json_string(needs));
    free(needs);
    json_object_set_new(j, "vector_bits", json_integer(f->vector_bits));
    json_object_set_new(j, "insns", json_integer(f->n_insns));
    json_t *ops = json_object(), *ex = json_object();
    for (int k = 0; k < FOP_N; k++) {
        if (!f->ops[k]) continue;
        json_object_set_new(ops, op_names[k], json_integer(f->ops[k]));
        if (f->op_example[k]) json_object_set_new(ex, op_names[k], json_string(f->op_example[k]));
    }
    json_object_set_new(j, "ops", ops);
    if (f->fma_chain) json_object_set_new(j, "fma_chain", json_integer(f->fma_chain));
    if (f->simd_avx512) json_object_set_new(j, "simd_avx512", json_integer(f->simd_avx512));
    json_object_set_new(j, "op_examples", ex);
    json_t *w = json_array();
    for (int k = 0; k < 4; k++) json_array_append_new(w, json_integer(f->n_by_width[k]));
    json_object_set_new(j, "by_width", w);
    json_object_set_new(j, "calls", strvec_json(&f->calls));
    json_object_set_new(j, "simd_ops", strvec_json(&f->simd_ops));
    if (f->host) json_object_set_new(j, "inlined_into", json_string(f->host));
    return j;
}

static isa_set needs_parse(const char *s)
{
    isa_set set = 0;
    while (s && *s) {
        size_t len = strcspn(s, ",");
        for (int k = 0; k < ISA_N; k++)
            if (strlen(isa_feature_name(k)) == len && !strncmp(isa_feature_name(k), s, len)) set |= ISA_BIT(k);
        s += len + (s[len] == ',');
    }
    return set;
}

int funcisa_from_json(const char *name, json_t *j, struct func_isa *out)
{
    memset(out, 0, sizeof *out);
    out->calls = (struct strvec)STRVEC_INIT;
    out->simd_ops = (struct strvec)STRVEC_INIT;
    if (!json_is_object(j)) return -1;
    out->name = xstrdup(name);
    const char *host = json_string_value(json_object_get(j, "inlined_into"));
    out->host = host ? xstrdup(host) : NULL;
    out->needs = needs_parse(json_string_value(json_object_get(j, "needs")));
    out->vector_bits = (int)json_integer_value(json_object_get(j, "vector_bits"));
    out->n_insns = (unsigned)json_integer_value(json_object_get(j, "insns"));
    json_t *ops = json_object_get(j, "ops"), *ex = json_object_get(j, "op_examples");
    for (int k = 0; k < FOP_N; k++) {
        out->ops[k] = (unsigned)json_integer_value(json_object_get(ops, op_names[k]));
        const char *e = json_string_value(json_object_get(ex, op_names[k]));
        if (e) out->op_example[k] = xstrdup(e);
    }
    out->fma_chain = (unsigned)json_integer_value(json_object_get(j, "fma_chain"));
    out->simd_avx512 = (unsigned)json_integer_value(json_object_get(j, "simd_avx512"));
    json_t *w = json_object_get(j, "by_width");
    for (int k = 0; k < 4; k++) out->n_by_width[k] = (unsigned)json_integer_value(json_array_get(w, (size_t)k));
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(j, "calls"), i, v) if (json_is_string(v)) sv_push(&out->calls, json_string_value(v));
    json_array_foreach(json_object_get(j, "simd_ops"), i, v) if (json_is_string(v)) sv_push(&out->simd_ops, json_string_value(v));
    return 0;
}

void funcisa_free(struct func_isa *f)
{
    free(f->name);
    free(f->host);
    for (int k = 0; k < FOP_N; k++) free(f->op_example[k]);
    sv_free(&f->calls);
    sv_free(&f->simd_ops);
    memset(f, 0, sizeof *f);
}

void funcisa_list_free(struct func_isa_list *l)
{
    for (size_t i = 0; i < l->n; i++) funcisa_free(&l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
