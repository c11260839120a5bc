/* codeisa.h - what a whole ELF file's code needs from the CPU: the union of
 * the ISA extensions of every function symbol's instructions and the widest
 * vector registers any of them touches (isa.h). `fmvgen inspect --isa`
 * shows it, so that a whole-program build (select's -march=x86-64-v3
 * reference) can be checked for the code it was meant to hold. */
#ifndef FMVGEN_ELF_CODEISA_H
#define FMVGEN_ELF_CODEISA_H

#include <stddef.h>

#include "elf/isa.h"

struct code_isa {
    struct isa_usage all;        /* needs: union; vector_bits: widest; counts summed */
    size_t n_functions;          /* function symbols analysed (with a size and code) */
    /* functions whose own code needs AVX2, FMA, BMI1/2 or 256-bit vectors:
     * code x86-64-v3 allows and a baseline build never emits itself */
    size_t n_v3_functions;
};

/* Analyses every defined function symbol of path with a size (.symtab, or
 * .dynsym when stripped). Returns 0, or -1 after one line naming the file. */
int elf_code_isa(const char *path, struct code_isa *out);

#endif
