/* samecode.h - whether two pieces of machine code are the same code, once
 * their addresses are set aside: two clones of one function (foo.default
 * and foo.popcnt) placed at different addresses. A target whose extensions
 * the compiler found no use for (popcnt for a function without a
 * popcount) yields the default's code again; timing such a clone measures
 * noise, so `fmvgen select` gives it no verdict and `fmvgen inspect` says
 * so.
 *
 * Same means: the same instructions, byte for byte, in the same order and
 * with the same lengths, except where an instruction holds an address
 * relative to itself:
 *   - a relative jump or call whose target lies inside the code: both must
 *     reach the same offset from their code's start;
 *   - one whose target lies outside (a call, a tail call): both must reach
 *     the same absolute address;
 *   - a RIP-relative memory operand: both must name the same absolute
 *     address.
 * Anything else that differs (a jump table of its own, a call to a clone
 * of another function, a longer encoding of the same jump) makes the code
 * different: the answer errs towards "different", never towards "same".
 * Bytes capstone cannot decode must be equal too, at the same offsets. */
#ifndef FMVGEN_ELF_SAMECODE_H
#define FMVGEN_ELF_SAMECODE_H

#include <stddef.h>
#include <stdint.h>

/* 1 when code a (a_len bytes mapped at a_addr) and code b are the same
 * code as above, 0 when not, -1 when capstone cannot be opened (error
 * printed). Empty code is never the same as anything. */
int elf_code_same(const uint8_t *a, size_t a_len, uint64_t a_addr, const uint8_t *b, size_t b_len,
                  uint64_t b_addr);

#endif
