/* padding.c - see padding.h. */
#include "elf/padding.h"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include "elf/elffile.h"

#define PADDING_MAX 64

/* The allocated executable section holding addr: [*start, *end). 0 when
 * none does. */
static int code_section(const struct elf_file *ef, uint64_t addr, uint64_t *start, uint64_t *end)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(ef->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        if (!(sh.sh_flags & SHF_ALLOC) || !(sh.sh_flags & SHF_EXECINSTR)) continue;
        if (addr >= sh.sh_addr && addr - sh.sh_addr < sh.sh_size) {
            *start = sh.sh_addr;
            *end = sh.sh_addr + sh.sh_size;
            return 1;
        }
    }
    return 0;
}

/* The gap from end to next counts as padding (see padding.h). */
static uint64_t padding(uint64_t end, uint64_t next)
{
    if (next <= end || next - end >= PADDING_MAX) return 0;
    uint64_t gap = next - end, align = 1;
    while (align <= gap) align <<= 1;
    return next % align == 0 ? gap : 0;
}

uint64_t elf_padding_after(const struct elf_file *ef, uint64_t addr, uint64_t size)
{
    uint64_t start, end, here = addr + size;
    if (!size || !code_section(ef, addr, &start, &end) || here >= end) return 0;
    size_t i = elf_file_addr_lower_bound(ef, here);
    /* no symbol after it in its section: the gap is not told */
    return i < ef->n_syms && ef->by_addr[i]->value < end ? padding(here, ef->by_addr[i]->value) : 0;
}

uint64_t elf_padding_before(const struct elf_file *ef, uint64_t addr)
{
    uint64_t start, end;
    if (!code_section(ef, addr, &start, &end)) return 0;
    /* the symbols that start last before addr (aliases, or a symbol and a
     * sized alias): the furthest end among them */
    size_t i = elf_file_addr_lower_bound(ef, addr);
    uint64_t prev = 0, prev_end = 0;
    int found = 0;
    while (i-- > 0) {
        const struct elf_sym *s = ef->by_addr[i];
        if (s->value < start || (found && s->value != prev)) break;
        if (!s->size) continue;
        if (!found || s->value + s->size > prev_end) prev_end = s->value + s->size;
        prev = s->value;
        found = 1;
    }
    return found && prev_end <= addr ? padding(prev_end, addr) : 0;
}

int elf_function_after(const struct elf_file *ef, uint64_t end)
{
    uint64_t start, sec_end;
    if (!end || !code_section(ef, end - 1, &start, &sec_end)) return 0;
    size_t i = elf_file_addr_lower_bound(ef, end);
    return i < ef->n_syms && ef->by_addr[i]->value < sec_end;
}
