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

/* Whether function sym_a of file a and sym_b of file b (two builds of one
 * program, the second with other functions added or moved: fmvgen select's
 * baseline and selected builds) are the same code placed elsewhere: as
 * elf_code_same, except that an address outside the function is compared
 * by what it names, not by its value, since everything around the function
 * may have moved:
 *   - a relative jump or call leaving the function must reach a function
 *     symbol of the same name at the same offset from its start in both
 *     files (one reaching a function and the other not, or another name,
 *     makes the code different: a call that now goes through a clone's
 *     dispatcher is different code); a target inside no function symbol (a
 *     PLT entry) is taken as the same on both sides;
 *   - a RIP-relative memory operand is set aside (the data moved with the
 *     layout; what is there is not compared).
 * The bytes must otherwise be equal, with the same instruction lengths and
 * jumps inside the function reaching the same offsets. 1 same, 0 not, -1
 * when a symbol's bytes cannot be read or capstone cannot be opened. */
struct elf_file;
struct elf_sym;
int elf_code_same_moved(const struct elf_file *a, const struct elf_sym *sym_a, const struct elf_file *b,
                        const struct elf_sym *sym_b);

#endif
