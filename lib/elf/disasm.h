/* disasm.h - capstone for x86-64 machine code, with instruction details on,
 * behind one small interface: walk the instructions of a byte range. Used by
 * isa.c (what a clone's instructions need) and clones.c (which functions a
 * resolver can return). */
#ifndef FMVGEN_ELF_DISASM_H
#define FMVGEN_ELF_DISASM_H

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

/* Called for each decoded instruction (insn->detail is filled in); return
 * nonzero to stop.
 *
 * Capstone 4 does not know every VEX/EVEX instruction (several AVX512BW/
 * VNNI/VBMI forms, some mask-register ops). Rather than losing sync with
 * the instruction stream there, such an instruction is measured from its
 * prefix, ModRM, SIB, displacement and immediate, and passed on with
 * id X86_INS_INVALID, mnemonic "(vex)" or "(evex)", group AVX or AVX512
 * (mask ops: AVX512) and one register operand xmm0/ymm0/zmm0 telling its
 * vector length (none for mask ops). */
typedef int (*disasm_fn)(const cs_insn *insn, void *ctx);

/* Decodes code (mapped at addr) from the start. Bytes that do not decode
 * (data in .text, padding) are skipped one at a time and counted in
 * *n_undecoded (optional). Returns the number of instructions seen, or -1
 * when capstone cannot be opened (error printed). */
long disasm_walk(const uint8_t *code, size_t len, uint64_t addr, disasm_fn fn, void *ctx,
                 size_t *n_undecoded);

/* Decodes only what control can reach from the start of code: follows
 * conditional and unconditional jumps that stay inside [addr, addr+len),
 * stops a path at ret, at a jump leaving the range (a tail call) and at
 * undecodable bytes; calls fall through. Each instruction is seen once.
 * For code whose end is unknown (a stripped file): len is then a window,
 * and *extent (optional) gets the end of the furthest instruction reached,
 * minus addr. Returns the number of instructions seen, or -1. */
long disasm_walk_flow(const uint8_t *code, size_t len, uint64_t addr, disasm_fn fn, void *ctx, uint64_t *extent);

/* The first byte of the instruction after its legacy prefixes is 0x62 (EVEX:
 * an AVX-512 encoding), 0xC4/0xC5 (VEX: AVX). In 64-bit mode these bytes
 * always start an encoding, never LDS/LES/BOUND. */
int disasm_is_evex(const cs_insn *insn);
/* 1 for an instruction capstone could not decode, measured as above. */
int disasm_is_length_only(const cs_insn *insn);
int disasm_is_vex(const cs_insn *insn);

#endif
