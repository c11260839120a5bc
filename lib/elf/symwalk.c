/* symwalk.c - see symwalk.h. */
#include "elf/symwalk.h"

#include <gelf.h>
#include <libelf.h>
#include <stddef.h>

int elf_symtab_walk(void *elf_, int dynsym_fallback, int (*fn)(const struct elf_walk_sym *s, void *ctx), void *ctx)
{
    Elf *elf = elf_;
    Elf_Scn *scn = NULL, *dynsym = NULL;
    GElf_Shdr sh, dynsym_sh;
    while ((scn = elf_nextscn(elf, scn))) {
        if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize) continue;
        if (sh.sh_type == SHT_SYMTAB) break;
        if (sh.sh_type == SHT_DYNSYM) dynsym = scn, dynsym_sh = sh;
    }
    if (!scn && dynsym_fallback) scn = dynsym, sh = dynsym_sh;
    if (!scn) return -1;
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data) return -1;
    size_t n = sh.sh_size / sh.sh_entsize;
    const char *tu = NULL;
    size_t tu_index = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(data, (int)i, &s)) break;
        int type = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
        const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
        if (type == STT_FILE) {
            tu = name && *name ? name : NULL;
            tu_index = tu ? i : 0;
            continue;
        }
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF || !name || !*name) continue;
        int in_tu = bind == STB_LOCAL && tu;
        struct elf_walk_sym w = {name, in_tu ? tu : NULL, s.st_value, s.st_size, type, bind, in_tu ? tu_index : 0};
        if (fn(&w, ctx)) break;
    }
    return 0;
}
