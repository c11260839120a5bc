/* textpad.c - see textpad.h. */
#include "select/textpad.h"

#include "util/util.h"

static uint64_t align_up(uint64_t x, uint64_t a)
{
    return a > 1 ? (x + a - 1) / a * a : x;
}

/* .text follows what precedes it, aligned as it says (no gap the model
 * does not know). */
static int follows(const struct elf_text_start *t)
{
    return t->before_end && t->addr == align_up(t->before_end, t->align);
}

int textpad_of_file(const struct textpad_file *f, unsigned *pad, char **why)
{
    *pad = 0;
    *why = NULL;
    /* .text aligned to 64 (-static: the C library's objects): it starts at
     * 0 mod 64 whatever precedes it, in every build */
    if (f->base.align >= 64) return 0;
    if (!follows(&f->base)) {
        *why = xasprintf("%s: its .text does not directly follow the sections before it in the baseline build", f->path);
        return -1;
    }
    uint64_t align = f->base.align, end = f->base.before_end;
    for (size_t i = 0; i < f->n_vars; i++) {
        const struct textpad_variant *v = &f->vars[i];
        int64_t moved = (int64_t)v->start.before_end - (int64_t)f->base.before_end;
        int64_t plt = (int64_t)v->start.plt_bytes - (int64_t)f->base.plt_bytes;
        if (!follows(&v->start) || moved != plt || moved != (int64_t)v->all_slots || v->sel_slots > v->all_slots) {
            *why = xasprintf("%s: in the build of %s what precedes .text grew by %lld bytes, its PLT by %lld, the "
                             "candidates' PLT entries there by %llu: not the PLT's growth alone (a linker that puts "
                             "more before .text, or its PLT after it)",
                             f->path, v->name, (long long)moved, (long long)plt, (unsigned long long)v->all_slots);
            return -1;
        }
        if (v->start.align > align) align = v->start.align;
        end += v->sel_slots;
    }
    if (f->pinned && align < 64) align = 64;
    uint64_t p = align_up(end, align);
    unsigned k = (unsigned)((f->base.addr - p) & 63u);
    if (k % 16) {
        *why = xasprintf("%s: a pad of %u bytes is no multiple of 16 (the next function's alignment would undo it)",
                         f->path, k);
        return -1;
    }
    *pad = k;
    return 0;
}
