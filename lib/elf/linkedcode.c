/* linkedcode.c - see linkedcode.h. */
#include "elf/linkedcode.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* The bytes of a relocation's field. */
static size_t field_width(int type)
{
    switch (type) {
    case R_X86_64_64:
    case R_X86_64_PC64:
    case R_X86_64_GOTOFF64:
    case R_X86_64_GOTPC64:
    case R_X86_64_GOT64:
    case R_X86_64_GOTPCREL64:
    case R_X86_64_GOTPLT64:
    case R_X86_64_PLTOFF64:
    case R_X86_64_SIZE64:
    case R_X86_64_DTPOFF64:
    case R_X86_64_TPOFF64:
    case R_X86_64_DTPMOD64:
        return 8;
    default:
        return 4;
    }
}

/* Bytes before a relocation's field that a relaxation may rewrite (REX,
 * opcode, ModRM). */
#define RELAX_BYTES 3

int elf_linked_code_matches(const uint8_t *code, size_t len, const struct elf_object_func *f,
                            const struct elf_object_reloc *relocs, size_t nrelocs)
{
    if (!code || !f->code || len != f->size || !len) return 0;
    uint8_t *skip = xcalloc(len, 1);
    for (size_t i = 0; i < nrelocs; i++) {
        if (relocs[i].offset < f->addr) continue;
        uint64_t at = relocs[i].offset - f->addr;
        uint64_t lo = at >= RELAX_BYTES ? at - RELAX_BYTES : 0, hi = at + field_width(relocs[i].type);
        for (uint64_t k = lo; k < hi && k < len; k++) skip[k] = 1;
    }
    int same = 1;
    for (size_t k = 0; k < len && same; k++) same = skip[k] || code[k] == f->code[k];
    free(skip);
    return same;
}

struct find {
    const char *name;
    const uint8_t *code;
    size_t len;
    int found, matches;
};

static int on_function(const struct elf_object_func *f, const struct elf_object_reloc *relocs, size_t nrelocs,
                       void *ctx)
{
    struct find *x = ctx;
    if (!f->global || strcmp(f->name, x->name) != 0) return 0;
    x->found = 1;
    x->matches |= elf_linked_code_matches(x->code, x->len, f, relocs, nrelocs);
    return 0;
}

int elf_linked_from_object(const struct elf_file *ef, const char *name, const char *object, char **why)
{
    *why = NULL;
    const struct elf_sym *first = NULL, *sym = NULL;
    size_t n = elf_file_syms_named(ef, name, &first);
    for (size_t i = 0; first && i < n; i++)
        if (first[i].bind != STB_LOCAL && first[i].type == STT_FUNC) {
            if (sym) return *why = xasprintf("%s: %s is defined twice", ef->path, name), -1;
            sym = &first[i];
        }
    if (!sym) return 0;   /* no object's code of that name is there */
    const uint8_t *code = elf_file_bytes(ef, sym->value, sym->size);
    if (!code) return *why = xasprintf("%s: the code of %s cannot be read", ef->path, name), -1;
    struct find x = {name, code, (size_t)sym->size, 0, 0};
    if (elf_object_code_all_relocs(object, on_function, &x, why) != 0) return -1;
    return x.matches;
}
