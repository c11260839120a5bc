/* padding.c - see padding.h. */
#include "elf/padding.h"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>

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

static int cmp_range(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorts the n ranges and merges those that overlap or touch, in place
 * (pairs become start, size); sizes 0 are dropped. Returns how many are
 * left. */
static size_t merge_ranges(uint64_t *pairs, size_t n)
{
    if (n) qsort(pairs, n, 2 * sizeof *pairs, cmp_range);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t start = pairs[2 * i], size = pairs[2 * i + 1];
        if (!size) continue;
        uint64_t *last = k ? &pairs[2 * (k - 1)] : NULL;
        if (last && start <= last[0] + last[1]) {
            if (start + size > last[0] + last[1]) last[1] = start + size - last[0];
            continue;
        }
        pairs[2 * k] = start;
        pairs[2 * k + 1] = size;
        k++;
    }
    return k;
}

uint64_t elf_padding_after_ranges(const struct elf_file *ef, uint64_t *pairs, size_t n)
{
    n = merge_ranges(pairs, n);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += elf_padding_after(ef, pairs[2 * i], pairs[2 * i + 1]);
    return sum;
}

/* The alignment of a function at addr with gap bytes of padding before
 * it: what the gap shows (the power of two above it), at least the 16
 * bytes GCC and Clang align functions to, at most what addr is a multiple
 * of (up to 64). */
static uint64_t run_alignment(uint64_t addr, uint64_t gap)
{
    uint64_t a = 16, most = 1;
    while (a <= gap) a *= 2;
    while (most < 64 && addr % (2 * most) == 0) most *= 2;
    return a < most ? a : most;
}

uint64_t elf_padding_run_end(const struct elf_file *ef, uint64_t *pairs, size_t n, int any_before)
{
    n = merge_ranges(pairs, n);
    uint64_t sum = 0, run_end = 0, run_start = 0, before = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t start = pairs[2 * i], end = start + pairs[2 * i + 1];
        if (start != run_end) before = elf_padding_before(ef, run_start = start);   /* a run starts */
        run_end = end + elf_padding_after(ef, start, pairs[2 * i + 1]);
        int last = i + 1 >= n || pairs[2 * (i + 1)] != run_end;   /* the run ends here */
        if (last && (before || any_before) && !elf_function_after(ef, end))
            sum += run_alignment(run_start, before) - 1;
    }
    return sum;
}
