/* textstart.c - see textstart.h. */
#include "elf/textstart.h"

#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "elf/elffile.h"

static int is_plt(const char *name)
{
    return !strcmp(name, ".plt") || !strcmp(name, ".iplt") || !strcmp(name, ".plt.got") || !strcmp(name, ".plt.sec");
}

int elf_text_start_read(const struct elf_file *ef, struct elf_text_start *out)
{
    memset(out, 0, sizeof *out);
    size_t shstrndx;
    if (!ef || !ef->elf || elf_getshdrstrndx(ef->elf, &shstrndx) != 0) return -1;
    int found = 0;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(ef->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC)) continue;
        const char *name = elf_strptr(ef->elf, shstrndx, sh.sh_name);
        if (name && !strcmp(name, ".text")) {
            out->addr = sh.sh_addr;
            out->align = sh.sh_addralign ? sh.sh_addralign : 1;
            found = 1;
            break;
        }
    }
    if (!found) return -1;
    /* what lies below it: the section ending last there is the one .text
     * follows */
    scn = NULL;
    while ((scn = elf_nextscn(ef->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS) continue;
        const char *name = elf_strptr(ef->elf, shstrndx, sh.sh_name);
        if (!name || !strcmp(name, ".text")) continue;
        uint64_t end = sh.sh_addr + sh.sh_size;
        if (sh.sh_addr < out->addr) {
            if (end > out->before_end) out->before_end = end;
            if (is_plt(name)) out->plt_bytes += sh.sh_size;
        } else if (is_plt(name)) {
            out->plt_after += sh.sh_size;
        }
    }
    return 0;
}
