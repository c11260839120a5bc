/* codeisa.c - see codeisa.h. */
#include "elf/codeisa.h"

#include <elf.h>
#include <string.h>

#include "elf/elffile.h"

static int v3_code(const struct isa_usage *u)
{
    return (u->needs & (ISA_BIT(ISA_AVX2) | ISA_BIT(ISA_FMA) | ISA_BIT(ISA_BMI) | ISA_BIT(ISA_BMI2))) ||
           u->vector_bits >= 256;
}

int elf_code_isa(const char *path, struct code_isa *out)
{
    memset(out, 0, sizeof *out);
    struct elf_file ef;
    if (elf_file_open(path, &ef) != 0) return -1;
    int rc = 0;
    for (size_t i = 0; i < ef.n_syms && rc == 0; i++) {
        const struct elf_sym *s = &ef.syms[i];
        if (s->type == STT_GNU_IFUNC || !s->size) continue;
        const uint8_t *code = elf_file_bytes(&ef, s->value, s->size);
        if (!code) continue;
        struct isa_usage u;
        if (isa_analyze(code, s->size, s->value, &u) != 0) {
            rc = -1;
            break;
        }
        out->n_functions++;
        out->n_v3_functions += (size_t)v3_code(&u);
        out->all.needs |= u.needs;
        if (u.vector_bits > out->all.vector_bits) out->all.vector_bits = u.vector_bits;
        out->all.n_insns += u.n_insns;
        out->all.n_undecoded += u.n_undecoded;
        out->all.n_length_only += u.n_length_only;
        for (int k = 0; k < 4; k++) out->all.n_by_width[k] += u.n_by_width[k];
    }
    elf_file_close(&ef);
    return rc;
}
