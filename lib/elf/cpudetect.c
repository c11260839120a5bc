/* cpudetect.c - see cpudetect.h. */
#include "elf/cpudetect.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "util/util.h"

int elf_cpu_detect_tu(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    static const char *const stems[] = {"cpuinfo", "cpu_model"};
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) {
        size_t n = strlen(stems[i]);
        if (!strncmp(base, stems[i], n) && (!strcmp(base + n, ".c") || !strcmp(base + n, ".o"))) return 1;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int elf_cpu_detect_bytes(const struct elf_file *ef, uint64_t *bytes)
{
    *bytes = 0;
    Elf *elf = ef->elf;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(elf, scn)))
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize) break;
    if (!scn) return -1;
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data) return -1;
    size_t n = sh.sh_size / sh.sh_entsize, count = 0, cap = 0;
    /* pairs (address, size) of the symbols counted, deduplicated below */
    uint64_t *found = NULL;
    int in_tu = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(data, (int)i, &s)) break;
        int type = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
        const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
        if (type == STT_FILE) {
            in_tu = name && elf_cpu_detect_tu(name);
            continue;
        }
        if (type != STT_FUNC || s.st_shndx == SHN_UNDEF || !s.st_size) continue;
        int named = name && !strcmp(name, "__cpu_indicator_init");
        if (!named && !(in_tu && bind == STB_LOCAL)) continue;
        if (count + 2 > cap) found = xrealloc(found, (cap = cap ? 2 * cap : 32) * sizeof *found);
        found[count++] = s.st_value;
        found[count++] = s.st_size;
    }
    if (count) qsort(found, count / 2, 2 * sizeof *found, cmp_u64);
    for (size_t i = 0; i < count; i += 2)
        if (i == 0 || found[i] != found[i - 2]) *bytes += found[i + 1];
    free(found);
    return 0;
}
