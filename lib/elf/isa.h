/* isa.h - what a piece of x86-64 machine code needs from the CPU: the ISA
 * extensions of its instructions (from capstone's instruction groups, plus
 * the encodings and registers capstone 4 does not group: EVEX, mask
 * registers, xmm16-31, POPCNT/LZCNT/MOVBE) and the widest vector registers
 * it touches. inspect compares a clone's needs with its default clone's to
 * tell whether the clone buys anything. */
#ifndef FMVGEN_ELF_ISA_H
#define FMVGEN_ELF_ISA_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* In the order a person reads them: older, narrower extensions first. */
enum isa_feature {
    ISA_MMX, ISA_SSE, ISA_SSE2, ISA_SSE3, ISA_SSSE3, ISA_SSE41, ISA_SSE42, ISA_SSE4A,
    ISA_POPCNT, ISA_LZCNT, ISA_MOVBE, ISA_AES, ISA_PCLMUL, ISA_SHA,
    ISA_AVX, ISA_F16C, ISA_AVX2, ISA_FMA, ISA_FMA4, ISA_XOP, ISA_BMI, ISA_BMI2, ISA_TBM, ISA_ADX,
    ISA_AVX512F, ISA_AVX512CD, ISA_AVX512ER, ISA_AVX512PF, ISA_AVX512DQ, ISA_AVX512BW, ISA_AVX512VL,
    ISA_3DNOW, ISA_RTM, ISA_HLE, ISA_FSGSBASE,
    ISA_N
};

typedef uint64_t isa_set;
#define ISA_BIT(f) ((isa_set)1 << (f))

struct isa_usage {
    isa_set needs;           /* extensions the instructions need */
    int vector_bits;         /* widest vector register touched: 0, 128, 256, 512 */
    size_t n_insns;          /* instructions decoded */
    size_t n_undecoded;      /* bytes that are no instruction (skipped) */
    size_t n_length_only;    /* VEX/EVEX instructions capstone 4 does not
                              * know: judged by their encoding (disasm.h) */
    size_t n_by_width[4];    /* instructions whose widest vector operand is
                              * none / xmm / ymm / zmm */
};

/* Analyses code mapped at addr. Returns 0, or -1 when the disassembler
 * cannot run (error printed). */
int isa_analyze(const uint8_t *code, size_t len, uint64_t addr, struct isa_usage *out);

/* The same for code whose end is unknown (a version in a stripped file):
 * only what control reaches from addr inside the window is analysed, and
 * *extent gets the bytes it spans (an estimate of the function's size). */
int isa_analyze_reachable(const uint8_t *code, size_t window, uint64_t addr, struct isa_usage *out,
                          uint64_t *extent);

/* What one decoded instruction (detail on) needs, and the widest vector
 * register it touches (0, 128, 256, 512): the per-instruction step of
 * isa_analyze. */
struct cs_insn;
void isa_insn(const struct cs_insn *insn, isa_set *needs, int *vector_bits);

/* "SSE4.1", "AVX512VL", ... */
const char *isa_feature_name(enum isa_feature f);
/* The names of the set, in enum order, joined by sep; "" for the empty set. */
char *isa_set_format(isa_set s, const char *sep);
/* Appends each name of the set to out. */
void isa_set_names(isa_set s, struct strvec *out);
/* "xmm" / "ymm" / "zmm" / "none" for 128 / 256 / 512 / 0. */
const char *isa_register_class(int vector_bits);

#endif
