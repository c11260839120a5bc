/* funcisa.h - the ISA profile of each function of a compiler's object file:
 * what its instructions need beyond baseline x86-64, counted where it
 * matters for speed (instructions that replace a sequence or a library
 * call, FMA, wider vectors), and the functions it calls. The scan keeps one
 * profile per function of the build's code and of the target probe's code;
 * candidates/isa.h compares the two.
 *
 * What is NOT counted: the encoding of an instruction. VEX or EVEX instead
 * of the legacy SSE encoding for the same xmm operation (vaddss for addss,
 * vmovdqu64 for movdqu, xmm16-31) changes nothing a function computes or
 * how fast, and at -O2 almost every float function differs that way. */
#ifndef FMVGEN_ELF_FUNCISA_H
#define FMVGEN_ELF_FUNCISA_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/isa.h"
#include "util/util.h"

/* Instructions counted one by one, by what they do (legacy, VEX or EVEX
 * encoding alike). */
enum funcisa_op {
    FOP_POPCNT,   /* popcnt */
    FOP_LZCNT,    /* lzcnt */
    FOP_TZCNT,    /* tzcnt (baseline code's "rep bsf" decodes as tzcnt too) */
    FOP_BMI,      /* andn bextr blsi blsmsk blsr bzhi pdep pext mulx */
    FOP_SHIFTX,   /* sarx shlx shrx rorx: flag-less shifts, a small gain */
    FOP_MOVBE,    /* movbe */
    FOP_ROUND,    /* round{ss,sd,ps,pd}, vrndscale*: floor/ceil/trunc/rint in one */
    FOP_FMA,      /* vfmadd*, vfmsub*, vfnmadd*, vfnmsub* */
    FOP_SIMD,     /* SSE3/SSSE3/SSE4.x, AVX/AVX2 and AVX-512 operations SSE2 has no
                   * single instruction for (pshufb, pminsd, ptest, vpbroadcast,
                   * vperm*, gathers, vpternlog, unsigned conversions, ...) */
    FOP_N
};

struct func_isa {
    char *name;               /* the symbol with any compiler suffix folded
                               * (from the first '.': foo.cold, foo.part.0 -> foo) */
    char *host;               /* NULL: the function's own code; else the share of
                               * function name's code the function host inlined
                               * (funcisa_read_object_shares) */
    isa_set needs;            /* extensions the instructions need (isa.h) */
    int vector_bits;          /* widest vector register: 0, 128, 256, 512 */
    unsigned n_insns;
    unsigned ops[FOP_N];
    unsigned fma_chain;       /* of ops[FOP_FMA]: those adding into an accumulator a
                               * loop carries and nothing else in the loop writes
                               * (`s += a[i] * b[i]`): latency-bound, no faster
                               * than mul + add, slower on AMD Zen */
    unsigned simd_avx512;     /* of ops[FOP_SIMD]: operations only AVX-512 has
                               * (vcvtusi2sd, vpternlog, ...: funcisa_avx512_only) */
    char *op_example[FOP_N];  /* the first mnemonic seen of each op, e.g. "vroundss" */
    unsigned n_by_width[4];   /* instructions by widest vector operand: none/xmm/ymm/zmm */
    struct strvec calls;      /* call and tail-call targets by relocation, one per call site */
    struct strvec simd_ops;   /* the distinct FOP_SIMD mnemonics (without the v prefix) */
};

struct func_isa_list {
    struct func_isa *v;
    size_t n;
};

/* Reads every function of an x86-64 relocatable object and folds the
 * symbols of one function (foo, foo.cold, foo.part.0) into one profile,
 * appended to out. Returns 0, or -1 with *why (caller frees): missing file,
 * not ELF, an LTO object without code, ... (elf_object_code). */
int funcisa_read_object(const char *path, struct func_isa_list *out, char **why);

/* The same, and with frames (NULL: as funcisa_read_object) also the share
 * of each callee a function inlined: each instruction that tells something
 * (an op above, a call, a ymm/zmm operand) whose inline frames
 * (elf/addr2line.h) end in the function itself goes to the frame just
 * inside it - the callee the function inlined there, with whatever that
 * callee inlined - as a profile named after the callee with host the
 * function (n_insns and n_by_width[0..1] count only those instructions).
 * frames(path, section, addrs, n, ctx) returns `addr2line -a -i -f -j
 * section` output for the section-relative addresses (caller frees), or
 * NULL; it is called once per code section that holds such instructions.
 * Code without line information (no -g) gives no shares. */
typedef char *(*funcisa_frames_fn)(const char *path, const char *section, const uint64_t *addrs, size_t n,
                                   void *ctx);
int funcisa_read_object_shares(const char *path, funcisa_frames_fn frames, void *ctx, struct func_isa_list *out,
                               char **why);

/* The profile as JSON (what the store keeps) and back: name is not part of
 * the JSON, host is ("inlined_into"). from_json returns 0, or -1 when j is not a profile. */
json_t *funcisa_to_json(const struct func_isa *f);
int funcisa_from_json(const char *name, json_t *j, struct func_isa *out);

/* Sorts l by name and merges the profiles of one name (funcisa_find needs
 * a sorted list: funcisa_read_object's is). */
void funcisa_sort(struct func_isa_list *l);
/* The profile of name's own code in a sorted list, or NULL. */
const struct func_isa *funcisa_find(const struct func_isa_list *l, const char *name);
/* The share of name's code that host inlined (host NULL: funcisa_find). */
const struct func_isa *funcisa_find_share(const struct func_isa_list *l, const char *name, const char *host);
/* Classifies one mnemonic as written by capstone (vex: it had a VEX or EVEX
 * encoding, so a leading 'v' is the encoding's). FOP_N for the rest. */
enum funcisa_op funcisa_classify(const char *mnemonic, int vex);
const char *funcisa_op_name(enum funcisa_op op);
/* 1 for a FOP_SIMD mnemonic (as funcisa_classify takes it) that only
 * AVX-512 has: an AVX2 clone cannot have it. */
int funcisa_avx512_only(const char *mnemonic, int vex);

void funcisa_free(struct func_isa *f);
void funcisa_list_free(struct func_isa_list *l);

#endif
