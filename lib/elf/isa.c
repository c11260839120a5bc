/* isa.c - see isa.h. The feature of an instruction comes from capstone's
 * groups where capstone has one; the rest is inferred from the encoding and
 * the registers, because capstone 4 predates several AVX-512 details. */
#include "elf/isa.h"

#include <string.h>

#include "elf/disasm.h"

static const char *const feature_names[ISA_N] = {
    [ISA_MMX] = "MMX", [ISA_SSE] = "SSE", [ISA_SSE2] = "SSE2", [ISA_SSE3] = "SSE3",
    [ISA_SSSE3] = "SSSE3", [ISA_SSE41] = "SSE4.1", [ISA_SSE42] = "SSE4.2", [ISA_SSE4A] = "SSE4A",
    [ISA_POPCNT] = "POPCNT", [ISA_LZCNT] = "LZCNT", [ISA_MOVBE] = "MOVBE", [ISA_AES] = "AES",
    [ISA_PCLMUL] = "PCLMUL", [ISA_SHA] = "SHA", [ISA_AVX] = "AVX", [ISA_F16C] = "F16C",
    [ISA_AVX2] = "AVX2", [ISA_FMA] = "FMA", [ISA_FMA4] = "FMA4", [ISA_XOP] = "XOP",
    [ISA_BMI] = "BMI1", [ISA_BMI2] = "BMI2", [ISA_TBM] = "TBM", [ISA_ADX] = "ADX",
    [ISA_AVX512F] = "AVX512F", [ISA_AVX512CD] = "AVX512CD", [ISA_AVX512ER] = "AVX512ER",
    [ISA_AVX512PF] = "AVX512PF", [ISA_AVX512DQ] = "AVX512DQ", [ISA_AVX512BW] = "AVX512BW",
    [ISA_AVX512VL] = "AVX512VL", [ISA_3DNOW] = "3DNOW", [ISA_RTM] = "RTM", [ISA_HLE] = "HLE",
    [ISA_FSGSBASE] = "FSGSBASE",
};

const char *isa_feature_name(enum isa_feature f)
{
    return f < ISA_N ? feature_names[f] : "?";
}

/* Capstone group -> feature; groups that say nothing about the CPU level
 * (jump, call, mode64, FPU, CMOV which every x86-64 has) map to -1. */
static int group_feature(uint8_t group)
{
    switch (group) {
    case X86_GRP_MMX: return ISA_MMX;
    case X86_GRP_SSE1: return ISA_SSE;
    case X86_GRP_SSE2: return ISA_SSE2;
    case X86_GRP_SSE3: return ISA_SSE3;
    case X86_GRP_SSSE3: return ISA_SSSE3;
    case X86_GRP_SSE41: return ISA_SSE41;
    case X86_GRP_SSE42: return ISA_SSE42;
    case X86_GRP_SSE4A: return ISA_SSE4A;
    case X86_GRP_AES: return ISA_AES;
    case X86_GRP_PCLMUL: return ISA_PCLMUL;
    case X86_GRP_SHA: return ISA_SHA;
    case X86_GRP_AVX: return ISA_AVX;
    case X86_GRP_F16C: return ISA_F16C;
    case X86_GRP_AVX2: return ISA_AVX2;
    case X86_GRP_FMA: return ISA_FMA;
    case X86_GRP_FMA4: return ISA_FMA4;
    case X86_GRP_XOP: return ISA_XOP;
    case X86_GRP_BMI: return ISA_BMI;
    case X86_GRP_BMI2: return ISA_BMI2;
    case X86_GRP_TBM: return ISA_TBM;
    case X86_GRP_ADX: return ISA_ADX;
    case X86_GRP_AVX512: return ISA_AVX512F;
    case X86_GRP_CDI: return ISA_AVX512CD;
    case X86_GRP_ERI: return ISA_AVX512ER;
    case X86_GRP_PFI: return ISA_AVX512PF;
    case X86_GRP_DQI: return ISA_AVX512DQ;
    case X86_GRP_BWI: return ISA_AVX512BW;
    case X86_GRP_VLX: return ISA_AVX512VL;
    case X86_GRP_3DNOW: return ISA_3DNOW;
    case X86_GRP_RTM: return ISA_RTM;
    case X86_GRP_HLE: return ISA_HLE;
    case X86_GRP_FSGSBASE: return ISA_FSGSBASE;
    default: return -1;
    }
}

struct reg_facts {
    int bits;          /* widest vector register */
    int high_vector;   /* xmm16-31 / ymm16-31: only EVEX can name them */
    int mask;          /* k0-k7 */
};

static void note_reg(x86_reg r, struct reg_facts *f)
{
    int bits = 0, index = -1;
    if (r >= X86_REG_XMM0 && r <= X86_REG_XMM31) bits = 128, index = r - X86_REG_XMM0;
    else if (r >= X86_REG_YMM0 && r <= X86_REG_YMM31) bits = 256, index = r - X86_REG_YMM0;
    else if (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM31) bits = 512, index = r - X86_REG_ZMM0;
    else if (r >= X86_REG_K0 && r <= X86_REG_K7) f->mask = 1;
    if (bits > f->bits) f->bits = bits;
    if (index >= 16) f->high_vector = 1;
}

static int width_slot(int bits)
{
    return bits == 512 ? 3 : bits == 256 ? 2 : bits == 128 ? 1 : 0;
}

void isa_insn(const cs_insn *insn, isa_set *needs, int *vector_bits)
{
    const cs_detail *d = insn->detail;
    isa_set n = 0;
    struct reg_facts rf = {0, 0, 0};
    if (!d) {
        *needs = 0;
        *vector_bits = 0;
        return;
    }
    for (uint8_t i = 0; i < d->groups_count; i++) {
        int f = group_feature(d->groups[i]);
        if (f >= 0) n |= ISA_BIT(f);
    }
    /* Instructions capstone 4 leaves without a feature group. */
    switch (insn->id) {
    case X86_INS_POPCNT: n |= ISA_BIT(ISA_POPCNT); break;
    case X86_INS_LZCNT: n |= ISA_BIT(ISA_LZCNT); break;
    case X86_INS_MOVBE: n |= ISA_BIT(ISA_MOVBE); break;
    case X86_INS_TZCNT: n |= ISA_BIT(ISA_BMI); break;
    default: break;
    }
    for (uint8_t i = 0; i < d->x86.op_count; i++) {
        const cs_x86_op *op = &d->x86.operands[i];
        if (op->type == X86_OP_REG) note_reg(op->reg, &rf);
        else if (op->type == X86_OP_MEM) note_reg(op->mem.index, &rf);  /* gathers/scatters */
    }
    for (uint8_t i = 0; i < d->regs_read_count; i++) note_reg(d->regs_read[i], &rf);
    for (uint8_t i = 0; i < d->regs_write_count; i++) note_reg(d->regs_write[i], &rf);

    /* EVEX, zmm, k-registers, xmm16-31: AVX-512 whatever the groups say;
     * EVEX on xmm/ymm only is the VL subset. */
    int evex = disasm_is_evex(insn);
    if (evex || rf.bits == 512 || rf.mask || rf.high_vector) n |= ISA_BIT(ISA_AVX512F);
    if (evex && rf.bits && rf.bits < 512) n |= ISA_BIT(ISA_AVX512VL);
    /* A VEX encoding needs AVX even when capstone groups it as SSE. */
    if (disasm_is_vex(insn) && rf.bits) n |= ISA_BIT(ISA_AVX);
    if (rf.bits == 256 && !evex) n |= ISA_BIT(ISA_AVX);
    *needs = n;
    *vector_bits = rf.bits;
}

static int on_insn(const cs_insn *insn, void *ctx)
{
    struct isa_usage *u = ctx;
    u->n_insns++;
    if (disasm_is_length_only(insn)) u->n_length_only++;
    if (!insn->detail) return 0;
    isa_set needs;
    int bits;
    isa_insn(insn, &needs, &bits);
    u->needs |= needs;
    if (bits > u->vector_bits) u->vector_bits = bits;
    u->n_by_width[width_slot(bits)]++;
    return 0;
}

int isa_analyze(const uint8_t *code, size_t len, uint64_t addr, struct isa_usage *out)
{
    memset(out, 0, sizeof *out);
    long n = disasm_walk(code, len, addr, on_insn, out, &out->n_undecoded);
    return n < 0 ? -1 : 0;
}

int isa_analyze_reachable(const uint8_t *code, size_t window, uint64_t addr, struct isa_usage *out,
                          uint64_t *extent)
{
    memset(out, 0, sizeof *out);
    long n = disasm_walk_flow(code, window, addr, on_insn, out, extent);
    return n < 0 ? -1 : 0;
}

char *isa_set_format(isa_set s, const char *sep)
{
    struct strbuf sb = STRBUF_INIT;
    for (int f = 0; f < ISA_N; f++) {
        if (!(s & ISA_BIT(f))) continue;
        if (sb.len) sb_adds(&sb, sep);
        sb_adds(&sb, feature_names[f]);
    }
    return sb.len ? sb_detach(&sb) : xstrdup("");
}

void isa_set_names(isa_set s, struct strvec *out)
{
    for (int f = 0; f < ISA_N; f++)
        if (s & ISA_BIT(f)) sv_push(out, feature_names[f]);
}

const char *isa_register_class(int vector_bits)
{
    return vector_bits >= 512 ? "zmm" : vector_bits >= 256 ? "ymm" : vector_bits >= 128 ? "xmm" : "none";
}
