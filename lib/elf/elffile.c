/* elffile.c - see elffile.h. All libelf calls of the project live here, so
 * the other lib/elf modules see plain structs and byte ranges. */
#include "elf/elffile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

/* The architectures a user is most likely to hand us by mistake (a cross
 * build, a file copied from another machine). */
static const char *machine_name(int machine)
{
    switch (machine) {
    case EM_386: return "x86 (i386)";
    case EM_ARM: return "ARM";
    case EM_AARCH64: return "AArch64";
    case EM_RISCV: return "RISC-V";
    case EM_PPC: return "PowerPC";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "s390";
    case EM_MIPS: return "MIPS";
    case EM_SPARCV9: return "SPARC64";
    case EM_LOONGARCH: return "LoongArch";
    case EM_IA_64: return "IA-64";
    default: return NULL;
    }
}

static int cmp_sym_name(const void *a, const void *b)
{
    const struct elf_sym *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* By address; among aliases by name (syms is name-sorted, so by position). */
static int cmp_sym_addr(const void *a, const void *b)
{
    const struct elf_sym *x = *(const struct elf_sym *const *)a, *y = *(const struct elf_sym *const *)b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Keeps the defined FUNC/IFUNC symbols of one symbol table section. */
static void load_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct elf_file *ef, size_t *cap)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || !sh->sh_entsize) return;
    size_t n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym)) break;
        int type = GELF_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF) continue;
        const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
        if (!name || !*name) continue;
        if (ef->n_syms == *cap) {
            *cap = *cap ? 2 * *cap : 256;
            ef->syms = xrealloc(ef->syms, *cap * sizeof *ef->syms);
        }
        ef->syms[ef->n_syms++] = (struct elf_sym){name, sym.st_value, sym.st_size, type,
                                                   GELF_ST_BIND(sym.st_info)};
    }
}

static void collect_irelative(Elf_Scn *scn, const GElf_Shdr *sh, struct elf_file *ef)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || !sh->sh_entsize) return;
    size_t n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 0; i < n; i++) {
        GElf_Rela rela;
        if (!gelf_getrela(data, (int)i, &rela)) break;
        if (GELF_R_TYPE(rela.r_info) != R_X86_64_IRELATIVE) continue;
        ef->irelative_resolvers = xrealloc(ef->irelative_resolvers,
                                           (ef->n_irelative + 1) * sizeof *ef->irelative_resolvers);
        ef->irelative_resolvers[ef->n_irelative++] = (uint64_t)rela.r_addend;
    }
}

/* From the dynamic section: DT_FLAGS_1 & DF_1_PIE (how a static PIE says
 * it is an executable) and DT_SONAME (a library, even when runnable like
 * libc.so.6, which also has an interpreter). */
static void read_dynamic(Elf_Scn *scn, const GElf_Shdr *sh, int *pie_flag, int *soname)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || !sh->sh_entsize) return;
    size_t n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 0; i < n; i++) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL) break;
        if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE)) *pie_flag = 1;
        if (dyn.d_tag == DT_SONAME) *soname = 1;
    }
}

/* Checks the header; returns 0 or prints why the file is not for us. */
static int check_header(struct elf_file *ef, Elf *elf, uint64_t file_size)
{
    if (elf_kind(elf) != ELF_K_ELF)
        return fmv_error("%s: not an ELF file", ef->path);
    const char *ident = elf_getident(elf, NULL);
    GElf_Ehdr eh;
    if (!ident || !gelf_getehdr(elf, &eh))
        return fmv_error("%s: corrupt ELF header (%s)", ef->path, elf_errmsg(-1));
    if (eh.e_machine != EM_X86_64) {
        const char *m = machine_name(eh.e_machine);
        if (m) return fmv_error("%s: an ELF file for %s, not x86-64", ef->path, m);
        return fmv_error("%s: an ELF file for machine %d, not x86-64", ef->path, eh.e_machine);
    }
    if (ident[EI_CLASS] != ELFCLASS64)
        return fmv_error("%s: a 32-bit ELF file (x32?), not x86-64", ef->path);
    if (eh.e_type == ET_REL)
        return fmv_error("%s: a relocatable object file; inspect the linked executable or shared library", ef->path);
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
        return fmv_error("%s: an ELF file of type %d, neither an executable nor a shared library", ef->path,
                         eh.e_type);
    ef->elf_type = eh.e_type;
    /* libelf reads a truncated file without complaint, as one with fewer
     * sections: check the tables against the file's size ourselves. */
    size_t shnum = 0;
    if (elf_getshdrnum(elf, &shnum) != 0)
        return fmv_error("%s: corrupt ELF file (%s)", ef->path, elf_errmsg(-1));
    if ((eh.e_shoff && eh.e_shoff + (uint64_t)shnum * eh.e_shentsize > file_size) ||
        (eh.e_phoff && eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize > file_size) || eh.e_shoff > file_size ||
        eh.e_phoff > file_size)
        return fmv_error("%s: truncated or corrupt ELF file (its header tables run past the end of the file)", ef->path);
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            return fmv_error("%s: corrupt ELF section header (%s)", ef->path, elf_errmsg(-1));
        if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset))
            return fmv_error("%s: truncated or corrupt ELF file (section %zu runs past the end of the file)", ef->path,
                             elf_ndxscn(scn));
    }
    return 0;
}

/* Reads the ELF image ef->image[0..ef->image_len) into ef; on failure the
 * caller closes ef. */
static int open_image(struct elf_file *ef)
{
    static char empty[1];
    const char *path = ef->path;
    if (elf_version(EV_CURRENT) == EV_NONE) return fmv_error("%s: libelf is unusable: %s", path, elf_errmsg(-1));
    Elf *elf = elf_memory(ef->image_len ? ef->image : empty, ef->image_len);
    if (!elf) return fmv_error("%s: not an ELF file (%s)", path, elf_errmsg(-1));
    ef->elf = elf;
    if (check_header(ef, elf, (uint64_t)ef->image_len) != 0) return -1;

    size_t nph = 0;
    int dynamic = 0, interp = 0;
    if (elf_getphdrnum(elf, &nph) == 0) {
        for (size_t i = 0; i < nph; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(elf, (int)i, &ph)) continue;
            if (ph.p_type == PT_INTERP || ph.p_type == PT_DYNAMIC) dynamic = 1;
            if (ph.p_type == PT_INTERP) interp = 1;
            if (ph.p_type == PT_INTERP && ef->elf_type == ET_DYN) ef->is_pie = 1;
            size_t raw_len = 0;
            const char *raw = ph.p_type == PT_INTERP ? elf_rawfile(elf, &raw_len) : NULL;
            if (raw && ph.p_filesz && ph.p_offset < raw_len && ph.p_filesz <= raw_len - ph.p_offset && !ef->interp)
                ef->interp = xstrndup(raw + ph.p_offset, strnlen(raw + ph.p_offset, ph.p_filesz));
        }
    }
    ef->is_static = !dynamic;

    /* .symtab when there is one (it holds the local clones GCC makes);
     * .dynsym otherwise. */
    int pie_flag = 0, soname = 0;
    Elf_Scn *symtab = NULL, *dynsym = NULL, *scn = NULL;
    GElf_Shdr symtab_sh, dynsym_sh;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        if (sh.sh_type == SHT_SYMTAB) symtab = scn, symtab_sh = sh;
        else if (sh.sh_type == SHT_DYNSYM) dynsym = scn, dynsym_sh = sh;
        else if (sh.sh_type == SHT_RELA) collect_irelative(scn, &sh, ef);
        else if (sh.sh_type == SHT_DYNAMIC) read_dynamic(scn, &sh, &pie_flag, &soname);
        if ((sh.sh_flags & SHF_ALLOC) && (sh.sh_flags & SHF_EXECINSTR)) ef->text_size += sh.sh_size;
    }
    if (ef->elf_type == ET_DYN && pie_flag) ef->is_pie = 1;
    if (soname && !pie_flag) ef->is_pie = 0;
    /* A static PIE (-static-pie) has a dynamic section for its own
     * relocations but no interpreter: nothing can be preloaded into it. */
    if (ef->is_pie && !interp) ef->is_static = 1;
    size_t cap = 0;
    ef->has_symtab = symtab != NULL;
    if (symtab) load_symbols(elf, symtab, &symtab_sh, ef, &cap);
    else if (dynsym) load_symbols(elf, dynsym, &dynsym_sh, ef, &cap);
    if (ef->n_syms) qsort(ef->syms, ef->n_syms, sizeof *ef->syms, cmp_sym_name);
    ef->by_addr = xmalloc((ef->n_syms ? ef->n_syms : 1) * sizeof *ef->by_addr);
    for (size_t i = 0; i < ef->n_syms; i++) ef->by_addr[i] = &ef->syms[i];
    if (ef->n_syms) qsort(ef->by_addr, ef->n_syms, sizeof *ef->by_addr, cmp_sym_addr);
    return 0;
}

int elf_file_open_buffer(const char *name, const void *data, size_t len, struct elf_file *ef)
{
    memset(ef, 0, sizeof *ef);
    ef->path = xstrdup(name);
    ef->fd = -1;
    /* A copy of our own: libelf may convert data in place in its image. */
    ef->image = xmalloc(len ? len : 1);
    memcpy(ef->image, data, len);
    ef->image_len = len;
    if (open_image(ef) != 0) goto fail;
    return 0;
fail:
    elf_file_close(ef);
    return -1;
}

int elf_file_open(const char *path, struct elf_file *ef)
{
    memset(ef, 0, sizeof *ef);
    ef->path = xstrdup(path);
    ef->fd = -1;
    struct stat st;
    if (stat(path, &st) != 0) {
        fmv_error("%s: %s", path, strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        fmv_error("%s: is a directory, not an ELF file", path);
        goto fail;
    }
    ef->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (ef->fd < 0 || fstat(ef->fd, &st) != 0) {
        fmv_error("%s: %s", path, strerror(errno));
        goto fail;
    }
    /* A private writable mapping: libelf may convert data in place, and
     * the file stays as it is. Anything that cannot be mapped is read. */
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, ef->fd, 0);
        if (map != MAP_FAILED) {
            ef->image = map;
            ef->image_len = (size_t)st.st_size;
            ef->image_mapped = 1;
        }
    }
    if (!ef->image_mapped) {
        ef->image = read_file(path, &ef->image_len);
        if (!ef->image) {
            fmv_error("%s: %s", path, strerror(errno));
            goto fail;
        }
    }
    close(ef->fd);
    ef->fd = -1;
    if (open_image(ef) != 0) goto fail;
    return 0;
fail:
    elf_file_close(ef);
    return -1;
}

void elf_file_close(struct elf_file *ef)
{
    if (ef->elf) elf_end(ef->elf);
    if (ef->fd >= 0) close(ef->fd);
    if (ef->image_mapped) munmap(ef->image, ef->image_len);
    else free(ef->image);
    free(ef->syms);
    free(ef->by_addr);
    free(ef->irelative_resolvers);
    free(ef->path);
    free(ef->interp);
    memset(ef, 0, sizeof *ef);
    ef->fd = -1;
}

/* The allocated section holding [addr, addr+size), or NULL. */
static Elf_Scn *section_at(const struct elf_file *ef, uint64_t addr, uint64_t size, GElf_Shdr *out)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(ef->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size) continue;
        if (addr >= sh.sh_addr && addr - sh.sh_addr < sh.sh_size && size <= sh.sh_size - (addr - sh.sh_addr)) {
            *out = sh;
            return scn;
        }
    }
    return NULL;
}

const uint8_t *elf_file_bytes(const struct elf_file *ef, uint64_t addr, uint64_t size)
{
    GElf_Shdr sh;
    Elf_Scn *scn = section_at(ef, addr, size, &sh);
    if (!scn || sh.sh_type == SHT_NOBITS) return NULL;
    Elf_Data *data = elf_getdata(scn, NULL);
    uint64_t off = addr - sh.sh_addr;
    if (!data || !data->d_buf || off + size > data->d_size) return NULL;
    return (const uint8_t *)data->d_buf + off;
}

const uint8_t *elf_file_window(const struct elf_file *ef, uint64_t addr, uint64_t max, uint64_t *len)
{
    GElf_Shdr sh;
    Elf_Scn *scn = section_at(ef, addr, 1, &sh);
    *len = 0;
    if (!scn || sh.sh_type == SHT_NOBITS) return NULL;
    Elf_Data *data = elf_getdata(scn, NULL);
    uint64_t off = addr - sh.sh_addr;
    if (!data || !data->d_buf || off >= data->d_size) return NULL;
    *len = data->d_size - off < max ? data->d_size - off : max;
    return (const uint8_t *)data->d_buf + off;
}

int elf_file_addr_is_code(const struct elf_file *ef, uint64_t addr)
{
    GElf_Shdr sh;
    return section_at(ef, addr, 1, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

int elf_file_addr_in_section(const struct elf_file *ef, uint64_t addr, const char *name)
{
    GElf_Shdr sh;
    size_t shstrndx;
    if (!section_at(ef, addr, 1, &sh) || elf_getshdrstrndx(ef->elf, &shstrndx) != 0) return 0;
    const char *here = elf_strptr(ef->elf, shstrndx, sh.sh_name);
    return here && !strcmp(here, name);
}

size_t elf_file_sym_lower_bound(const struct elf_file *ef, const char *key)
{
    size_t lo = 0, hi = ef->n_syms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ef->syms[mid].name, key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

const struct elf_sym *elf_file_sym_named(const struct elf_file *ef, const char *name)
{
    size_t i = elf_file_sym_lower_bound(ef, name);
    return i < ef->n_syms && !strcmp(ef->syms[i].name, name) ? &ef->syms[i] : NULL;
}

size_t elf_file_syms_named(const struct elf_file *ef, const char *name, const struct elf_sym **first)
{
    size_t i = elf_file_sym_lower_bound(ef, name), n = 0;
    *first = i < ef->n_syms && !strcmp(ef->syms[i].name, name) ? &ef->syms[i] : NULL;
    while (i + n < ef->n_syms && !strcmp(ef->syms[i + n].name, name)) n++;
    return n;
}

size_t elf_file_addr_lower_bound(const struct elf_file *ef, uint64_t addr)
{
    size_t lo = 0, hi = ef->n_syms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ef->by_addr[mid]->value < addr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

const struct elf_sym *elf_file_func_at(const struct elf_file *ef, uint64_t addr)
{
    for (size_t i = elf_file_addr_lower_bound(ef, addr); i < ef->n_syms && ef->by_addr[i]->value == addr; i++)
        if (ef->by_addr[i]->type == STT_FUNC) return ef->by_addr[i];
    return NULL;
}

const struct elf_sym *elf_file_ifunc_at(const struct elf_file *ef, uint64_t addr, const char *name)
{
    const struct elf_sym *any = NULL;
    for (size_t i = elf_file_addr_lower_bound(ef, addr); i < ef->n_syms && ef->by_addr[i]->value == addr; i++) {
        const struct elf_sym *s = ef->by_addr[i];
        if (s->type != STT_GNU_IFUNC) continue;
        if (!name || !strcmp(s->name, name)) return s;
        if (!any) any = s;
    }
    return name ? NULL : any;
}

/* 1 when the object is a slim LTO object: .gnu.lto_ sections and no
 * executable code. symtab/symsh (optional) get its symbol table section. */
static int object_is_slim_lto(Elf *elf, size_t shstrndx, Elf_Scn **symtab, GElf_Shdr *symsh)
{
    int lto = 0;
    uint64_t code = 0;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (name && !strncmp(name, ".gnu.lto_", 9)) lto = 1;
        if (sh.sh_flags & SHF_EXECINSTR) code += sh.sh_size;
        if (symtab && sh.sh_type == SHT_SYMTAB) *symtab = scn, *symsh = sh;
    }
    return lto && !code;
}

int elf_object_functions(const char *path, struct strvec *names)
{
    if (elf_version(EV_CURRENT) == EV_NONE) return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    int rc = -1;
    size_t shstrndx = 0;
    if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) && eh.e_type == ET_REL &&
        eh.e_machine == EM_X86_64 && elf_getshdrstrndx(elf, &shstrndx) == 0) {
        /* A slim LTO object (GCC -flto) holds GIMPLE, no code: its symbols
         * say nothing of what was inlined. */
        Elf_Scn *scn = object_is_slim_lto(elf, shstrndx, NULL, NULL) ? NULL : elf_nextscn(elf, NULL);
        for (; scn; scn = elf_nextscn(elf, scn)) {
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB) continue;
            struct elf_file tmp = {0};
            size_t cap = 0;
            load_symbols(elf, scn, &sh, &tmp, &cap);
            for (size_t i = 0; i < tmp.n_syms; i++) sv_push(names, tmp.syms[i].name);
            free(tmp.syms);
            rc = 0;
        }
    }
    if (elf) elf_end(elf);
    close(fd);
    return rc;
}

/* ---- the code of a relocatable object, per function (elf_object_code) ---- */

static int cmp_reloc(const void *a, const void *b)
{
    const struct elf_object_reloc *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

struct section_relocs {
    struct elf_object_reloc *v;
    size_t n;
};

/* The relocations that name a symbol, per section they apply to (indexed
 * by section; nsec entries), each sorted by offset: read in one pass, so
 * that a C++ object's thousands of COMDAT sections cost no more. */
static struct section_relocs *object_relocs(Elf *elf, size_t nsec, int all_relocs)
{
    struct section_relocs *all = xcalloc(nsec ? nsec : 1, sizeof *all);
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_info >= nsec || !sh.sh_entsize) continue;
        struct elf_object_reloc **out = &all[sh.sh_info].v;
        size_t *n = &all[sh.sh_info].n;
        Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
        GElf_Shdr symsh;
        Elf_Data *syms = symscn && gelf_getshdr(symscn, &symsh) ? elf_getdata(symscn, NULL) : NULL;
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!syms || !data) continue;
        size_t count = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < count; i++) {
            GElf_Rela rela;
            GElf_Sym sym;
            if (!gelf_getrela(data, (int)i, &rela)) break;
            if (!gelf_getsym(syms, (int)GELF_R_SYM(rela.r_info), &sym)) continue;
            const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
            if (!name) name = "";
            if (!*name && !all_relocs) continue;   /* a section symbol: code or data of this object */
            if (!(*n & (*n + 1))) *out = xrealloc(*out, (2 * *n + 1) * sizeof **out);   /* n+1 a power of 2 */
            (*out)[(*n)++] = (struct elf_object_reloc){rela.r_offset, name, (int)GELF_R_TYPE(rela.r_info)};
        }
    }
    for (size_t i = 0; i < nsec; i++)
        if (all[i].n) qsort(all[i].v, all[i].n, sizeof *all[i].v, cmp_reloc);
    return all;
}

static int object_code(const char *path, int all_relocs, elf_object_code_fn fn, void *ctx, char **why)
{
    *why = NULL;
    if (elf_version(EV_CURRENT) == EV_NONE) return *why = xstrdup("libelf does not start"), -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return *why = xasprintf("%s: cannot open (%s)", path, strerror(errno)), -1;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    size_t shstrndx = 0;
    int rc = -1;
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        /* Clang's -flto writes LLVM bitcode ("BC\xc0\xde"). */
        *why = xasprintf("%s: not an ELF object (an LTO bitcode file holds no code)", path);
    } else if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_REL || eh.e_machine != EM_X86_64 ||
               elf_getshdrstrndx(elf, &shstrndx) != 0) {
        *why = xasprintf("%s: not an x86-64 relocatable object", path);
    } else {
        Elf_Scn *symtab = NULL;
        GElf_Shdr symsh;
        memset(&symsh, 0, sizeof symsh);
        if (object_is_slim_lto(elf, shstrndx, &symtab, &symsh)) {
            *why = xasprintf("%s: a GCC LTO object (GIMPLE, no code)", path);
        } else if (!symtab) {
            *why = xasprintf("%s: no symbol table", path);
        } else {
            rc = 0;
            Elf_Data *data = elf_getdata(symtab, NULL);
            size_t n = data && symsh.sh_entsize ? symsh.sh_size / symsh.sh_entsize : 0;
            size_t nsec = 0;
            if (elf_getshdrnum(elf, &nsec) != 0) nsec = 0;
            struct section_relocs *all = object_relocs(elf, nsec, all_relocs);
            int debug_lines = 0;
            for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !debug_lines; scn = elf_nextscn(elf, scn)) {
                GElf_Shdr sh;
                const char *sn = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
                debug_lines = sn && !strcmp(sn, ".debug_line");
            }
            for (size_t i = 0; i < n && rc == 0; i++) {
                GElf_Sym sym;
                if (!gelf_getsym(data, (int)i, &sym)) break;
                if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
                    sym.st_shndx >= SHN_LORESERVE)
                    continue;
                const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
                Elf_Scn *cs = elf_getscn(elf, sym.st_shndx);
                GElf_Shdr csh;
                Elf_Data *cd = cs && gelf_getshdr(cs, &csh) && csh.sh_type == SHT_PROGBITS ? elf_getdata(cs, NULL) : NULL;
                if (!name || !*name || !cd || !cd->d_buf || sym.st_value > cd->d_size ||
                    sym.st_size > cd->d_size - sym.st_value)
                    continue;
                const struct elf_object_reloc *relocs = sym.st_shndx < nsec ? all[sym.st_shndx].v : NULL;
                size_t nrelocs = sym.st_shndx < nsec ? all[sym.st_shndx].n : 0;
                size_t lo = 0, hi = nrelocs;   /* the first at or after the function */
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (relocs[mid].offset < sym.st_value) lo = mid + 1;
                    else hi = mid;
                }
                size_t first = lo;
                size_t last = first;
                while (last < nrelocs && relocs[last].offset < sym.st_value + sym.st_size) last++;
                const char *section = elf_strptr(elf, shstrndx, csh.sh_name);
                struct elf_object_func f = {name, (const uint8_t *)cd->d_buf + sym.st_value, sym.st_value,
                                            sym.st_size, section ? section : "", debug_lines,
                                            GELF_ST_BIND(sym.st_info) != STB_LOCAL};
                if (fn(&f, relocs + first, last - first, ctx) != 0) rc = -1;
            }
            for (size_t i = 0; i < nsec; i++) free(all[i].v);
            free(all);
            if (rc != 0) *why = xasprintf("%s: its code cannot be read", path);
        }
    }
    if (elf) elf_end(elf);
    close(fd);
    return rc;
}

int elf_object_code(const char *path, elf_object_code_fn fn, void *ctx, char **why)
{
    return object_code(path, 0, fn, ctx, why);
}

int elf_object_code_all_relocs(const char *path, elf_object_code_fn fn, void *ctx, char **why)
{
    return object_code(path, 1, fn, ctx, why);
}
