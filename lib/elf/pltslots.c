/* pltslots.c - see pltslots.h. */
#include "elf/pltslots.h"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The relocations of the PLT's relocation section scn (a SHT_RELA). */
static void read_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct elf_plt_slots *out)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || !sh->sh_entsize) return;
    /* the symbol table the relocations refer to (.dynsym) */
    Elf_Scn *symscn = sh->sh_link ? elf_getscn(elf, sh->sh_link) : NULL;
    GElf_Shdr symsh;
    Elf_Data *syms = symscn && gelf_getshdr(symscn, &symsh) ? elf_getdata(symscn, NULL) : NULL;
    size_t n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 0; i < n; i++) {
        GElf_Rela rela;
        if (!gelf_getrela(data, (int)i, &rela)) break;
        unsigned type = (unsigned)GELF_R_TYPE(rela.r_info);
        if (type == R_X86_64_IRELATIVE) {
            out->resolvers = xrealloc(out->resolvers, (out->n_resolvers + 1) * sizeof *out->resolvers);
            out->resolvers[out->n_resolvers++] = (uint64_t)rela.r_addend;
        } else if (type == R_X86_64_JUMP_SLOT && syms) {
            GElf_Sym sym;
            const char *name = gelf_getsym(syms, (int)GELF_R_SYM(rela.r_info), &sym)
                                   ? elf_strptr(elf, symsh.sh_link, sym.st_name)
                                   : NULL;
            if (name && *name) sv_push(&out->jump_slots, name);
        }
    }
}

void elf_plt_slots_read(const struct elf_file *ef, struct elf_plt_slots *out)
{
    memset(out, 0, sizeof *out);
    Elf *elf = ef->elf;
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) return;
    uint64_t plt = 0, iplt = 0, sec = 0;
    int have_plt = 0;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (!name) continue;
        if (sh.sh_type == SHT_RELA && (!strcmp(name, ".rela.plt") || !strcmp(name, ".rela.iplt")))
            read_relocs(elf, scn, &sh, out);
        else if (!(sh.sh_flags & SHF_EXECINSTR))
            continue;
        else if (!strcmp(name, ".plt"))
            plt = sh.sh_entsize ? sh.sh_entsize : 16, have_plt = 1;
        else if (!strcmp(name, ".iplt"))
            iplt = sh.sh_entsize ? sh.sh_entsize : 16, have_plt = 1;
        else if (!strcmp(name, ".plt.sec"))
            sec = sh.sh_entsize ? sh.sh_entsize : 16;
    }
    out->entry_bytes = have_plt ? (iplt ? iplt : plt) + sec : 0;
    if (out->n_resolvers) qsort(out->resolvers, out->n_resolvers, sizeof *out->resolvers, cmp_u64);
    if (out->jump_slots.n) qsort(out->jump_slots.v, out->jump_slots.n, sizeof *out->jump_slots.v, cmp_str);
}

/* How many times the sorted list holds name. */
static size_t count_named(const struct strvec *sorted, const char *name)
{
    size_t lo = 0, hi = sorted->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(sorted->v[mid], name) < 0) lo = mid + 1;
        else hi = mid;
    }
    size_t n = 0;
    while (lo + n < sorted->n && !strcmp(sorted->v[lo + n], name)) n++;
    return n;
}

uint64_t elf_plt_bytes_for(const struct elf_plt_slots *p, uint64_t resolver, const char *name, const char *ifunc)
{
    uint64_t n = 0;
    for (size_t i = 0; resolver && i < p->n_resolvers; i++) n += p->resolvers[i] == resolver;
    if (name) n += count_named(&p->jump_slots, name);
    if (ifunc && (!name || strcmp(ifunc, name))) n += count_named(&p->jump_slots, ifunc);
    return n * p->entry_bytes;
}

int elf_plt_jump_slot_named(const struct strvec *jump_slots, const char *name)
{
    return count_named(jump_slots, name) > 0;
}

void elf_plt_slots_free(struct elf_plt_slots *p)
{
    free(p->resolvers);
    sv_free(&p->jump_slots);
    memset(p, 0, sizeof *p);
}
