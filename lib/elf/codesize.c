/* codesize.c - see codesize.h. Each file is read twice over: its sections
 * for the code bytes and their CRC (libelf), and inspect_file for its
 * multiversioned functions with inspect's own sizes. */
#include "elf/codesize.h"

#include <dirent.h>
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "elf/cpudetect.h"
#include "elf/cpukind.h"
#include "elf/cpuidcode.h"
#include "elf/elffile.h"
#include "elf/fmvpadding.h"
#include "elf/inspect.h"
#include "elf/padding.h"
#include "elf/pltslots.h"

int elf_is_linked_x86_64(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    unsigned char h[20];
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    /* ELFCLASS64, little-endian, e_type ET_EXEC or ET_DYN, e_machine EM_X86_64 */
    return n == sizeof h && !memcmp(h, ELFMAG, SELFMAG) && h[EI_CLASS] == ELFCLASS64 && h[EI_DATA] == ELFDATA2LSB &&
           (h[16] == ET_EXEC || h[16] == ET_DYN) && h[17] == 0 && h[18] == EM_X86_64 && h[19] == 0;
}

/* A directory where the build system keeps its own checks: CMake's
 * CMakeFiles (the compiler-id and ABI programs, try_compile), meson's
 * meson-private (its sanity check). Their programs are no code of the
 * project: counted, they would swell a second whole build. */
static int build_system_dir(const char *name)
{
    return !strcmp(name, "CMakeFiles") || !strcmp(name, "meson-private");
}

static void find_linked(const char *dir, struct strvec *out)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".fmvgen")) continue;
        char *p = path_join(dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) {
                if (!build_system_dir(e->d_name)) find_linked(p, out);
            } else if (S_ISREG(sb.st_mode) && elf_is_linked_x86_64(p)) sv_push(out, p);
        }
        free(p);
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void elf_find_linked(const char *dir, struct strvec *out)
{
    size_t first = out->n;
    find_linked(dir, out);
    if (out->n > first) qsort(out->v + first, out->n - first, sizeof *out->v, cmp_str);
}

/* The code sections' bytes folded into crc. */
static uint32_t code_crc(const struct elf_file *ef, uint32_t crc)
{
    Elf *elf = ef->elf;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        if (!(sh.sh_flags & SHF_ALLOC) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS) continue;
        Elf_Data *data = NULL;
        while ((data = elf_getdata(scn, data)))
            if (data->d_buf && data->d_size) crc = (uint32_t)crc32(crc, data->d_buf, (uInt)data->d_size);
    }
    return crc;
}

static struct code_size_function *function_slot(struct code_size *cs, size_t *cap, const char *name)
{
    for (size_t i = 0; i < cs->n_functions; i++)
        if (!strcmp(cs->functions[i].name, name)) return &cs->functions[i];
    if (cs->n_functions == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        cs->functions = xrealloc(cs->functions, *cap * sizeof *cs->functions);
    }
    struct code_size_function *f = &cs->functions[cs->n_functions++];
    memset(f, 0, sizeof *f);
    f->name = xstrdup(name);
    return f;
}

static void add_file(struct code_size_function *f, size_t file)
{
    if (f->n_files && f->files[f->n_files - 1] == file) return;
    f->files = xrealloc(f->files, (f->n_files + 1) * sizeof *f->files);
    f->files[f->n_files++] = file;
}

/* fmvgen's cpuid copies are counted per object file from elf/cpuidcode.h
 * (the budget needs their units), not from inspect's list. */
static int is_cpuid(const struct elf_mv_function *fn)
{
    return fn->dispatch == ELF_MV_DISPATCH_CPUID;
}

/* The padding after f's non-default clones and its resolver, and the PLT
 * entries its resolver fills, in ef. */
static void add_extra(const struct elf_file *ef, const struct elf_plt_slots *plt, const struct inspect_function *inf,
                      struct code_size_function *f)
{
    const struct elf_mv_function *fn = inf->fn;
    if (fn->resolver_addr) f->padding_bytes += elf_padding_after(ef, fn->resolver_addr, fn->resolver_size);
    uint64_t p = elf_plt_bytes_for(plt, fn->resolver_addr, fn->name, fn->ifunc);
    if (p) {
        f->plt = xrealloc(f->plt, (f->n_plt + 1) * sizeof *f->plt);
        f->plt[f->n_plt++] = (struct code_size_plt){f->files[f->n_files - 1], p};
    }
    for (size_t c = 0; c < fn->n_clones; c++)
        if (!fn->clones[c].is_default) f->padding_bytes += elf_padding_after(ef, fn->clones[c].addr, inf->clones[c].size);
}

/* The padding before each run of added code in ef - the non-default
 * clones and resolvers of ir's counted functions and the CPU detection -
 * that ends its section's functions: the padding the function before it
 * needs now, which it did not need when it was last. (A run with functions
 * of the build after it took the place of padding that was there.) Which
 * function comes last before such a run depends on what else is cloned,
 * so the most it can need is counted: the run's alignment less one byte. */
static uint64_t run_padding(const struct elf_file *ef, const struct inspect_report *ir)
{
    uint64_t *v = NULL, *cpu = NULL;   /* pairs (address, size) */
    size_t n = 0, n_cpu = 0;
    if (elf_cpu_detect_functions(ef, &cpu, &n_cpu) != 0) n_cpu = 0;
    v = xrealloc(v, (2 * n_cpu + 1) * sizeof *v);
    for (size_t i = 0; i < 2 * n_cpu; i++) v[n++] = cpu[i];
    free(cpu);
    for (size_t i = 0; i < ir->list.n_functions; i++) {
        const struct inspect_function *inf = &ir->functions[i];
        if (!inf->counted || is_cpuid(inf->fn)) continue;   /* IFUNC and pointer clones only */
        const struct elf_mv_function *fn = inf->fn;
        v = xrealloc(v, (n + 2 * fn->n_clones + 2) * sizeof *v);
        if (fn->resolver_addr) v[n++] = fn->resolver_addr, v[n++] = fn->resolver_size;
        for (size_t c = 0; c < fn->n_clones; c++)
            if (!fn->clones[c].is_default) v[n++] = fn->clones[c].addr, v[n++] = inf->clones[c].size;
    }
    uint64_t sum = elf_padding_run_end(ef, v, n / 2, 0);
    free(v);
    return sum;
}

/* f's non-default copies in ef, each with the padding after it (every
 * dispatch: inspect lists cpuid copies too). */
static void add_copies(const struct elf_file *ef, const struct inspect_function *inf, struct code_size_function *f)
{
    const struct elf_mv_function *fn = inf->fn;
    for (size_t c = 0; c < fn->n_clones; c++) {
        if (fn->clones[c].is_default) continue;
        uint64_t bytes = inf->clones[c].size + elf_padding_after(ef, fn->clones[c].addr, inf->clones[c].size);
        size_t k = 0;
        while (k < f->n_copies && strcmp(f->copies[k].symbol, fn->clones[c].symbol)) k++;
        if (k == f->n_copies) {
            f->copies = xrealloc(f->copies, (f->n_copies + 1) * sizeof *f->copies);
            f->copies[f->n_copies++] = (struct code_size_copy){xstrdup(fn->clones[c].symbol), 0};
        }
        f->copies[k].bytes += bytes;
    }
}

static void add_functions(struct code_size *cs, size_t *cap, const struct inspect_report *ir, size_t file,
                          const struct elf_file *ef, const struct elf_plt_slots *plt)
{
    for (size_t i = 0; i < ir->list.n_functions; i++) {
        const struct inspect_function *inf = &ir->functions[i];
        if (inf->counted) add_copies(ef, inf, function_slot(cs, cap, inf->fn->name));
        if (!inf->counted || is_cpuid(inf->fn)) continue;
        const struct elf_mv_function *fn = inf->fn;
        struct code_size_function *f = function_slot(cs, cap, fn->name);
        if ((int)fn->n_clones > f->n_versions) f->n_versions = (int)fn->n_clones;
        add_file(f, file);
        f->resolver_bytes += fn->resolver_size + fn->trampoline_size;   /* pointer dispatch's trampoline */
        for (size_t c = 0; c < fn->n_clones; c++) {
            /* inspect's size: the symbol's, or estimated from the code */
            uint64_t size = inf->clones[c].size;
            if (inf->clones[c].size_estimated) f->estimated = 1;
            if (fn->clones[c].is_default) f->default_bytes += size;
            else f->clone_bytes += size;
        }
        add_extra(ef, plt, inf, f);
    }
}

/* The PLT entries the resolver of c fills in a file (ifunc reach: its
 * IRELATIVE slot, or a JUMP_SLOT naming its global IFUNC), as for
 * compiler-made resolvers; none with pointer reach. */
static void add_cpuid_plt(const struct elf_plt_slots *plt, const struct elf_cpuid_function *c, size_t file,
                          struct code_size_function *f)
{
    if (!c->ifunc) return;
    uint64_t p = elf_plt_bytes_for(plt, c->resolver_addr, NULL, c->ifunc_global ? c->ifunc : NULL);
    if (!p) return;
    for (size_t i = 0; i < f->n_plt; i++)
        if (f->plt[i].file == file) {
            /* two units' static functions of one name: slots are per resolver */
            f->plt[i].bytes += p;
            return;
        }
    f->plt = xrealloc(f->plt, (f->n_plt + 1) * sizeof *f->plt);
    f->plt[f->n_plt++] = (struct code_size_plt){file, p};
}

/* Unit (file, unit) of f, once. */
static void add_unit(struct code_size_function *f, size_t file, const char *unit, uint64_t levels_bytes)
{
    for (size_t u = 0; u < f->n_units; u++)
        if (f->units[u].file == file && !strcmp(f->units[u].unit, unit)) return;
    f->units = xrealloc(f->units, (f->n_units + 1) * sizeof *f->units);
    f->units[f->n_units++] = (struct code_size_unit){file, xstrdup(unit), levels_bytes};
}

/* The cpuid-dispatched functions of file (elf/cpuidcode.h); a function
 * using the file's fmvgen_cpu_levels (in no TU) gets the unit
 * ELF_CPUID_LINKED_UNIT for it besides its own. */
static void add_cpuid_functions(struct code_size *cs, size_t *cap, const struct elf_cpuid_code *cc, size_t file,
                                const struct elf_plt_slots *plt)
{
    for (size_t i = 0; i < cc->n_functions; i++) {
        const struct elf_cpuid_function *c = &cc->functions[i];
        struct code_size_function *f = function_slot(cs, cap, c->name);
        if (c->n_copies > f->n_versions) f->n_versions = c->n_copies;
        f->clone_bytes += c->copy_bytes;
        f->default_bytes += c->default_bytes;
        f->resolver_bytes += c->dispatch_bytes;
        add_unit(f, file, c->unit, c->levels_bytes);
        if (c->levels_linked) add_unit(f, file, ELF_CPUID_LINKED_UNIT, cc->linked_levels_bytes);
        add_cpuid_plt(plt, c, file, f);
    }
}

/* The padding after fmvgen's own code in ef (elf/fmvpadding.h), to the
 * functions of cs measured in file: each function's with its clones' and
 * resolvers' (pointer dispatch's trampoline; cpuid's copies, resolver and
 * trampoline), each cpuid unit's with its fmvgen_cpu_levels. */
static void add_fmv_padding(struct code_size *cs, const struct elf_file *ef, size_t file)
{
    struct elf_fmv_padding p;
    if (elf_fmv_padding(ef, &p) != 0) return;   /* stripped: none told */
    for (size_t i = 0; i < cs->n_functions; i++) {
        struct code_size_function *f = &cs->functions[i];
        int here = f->n_files && f->files[f->n_files - 1] == file;
        for (size_t u = 0; u < f->n_units; u++) {
            struct code_size_unit *cu = &f->units[u];
            if (cu->file != file) continue;
            here = 1;
            const struct elf_fmv_padding_unit *pu = elf_fmv_padding_unit(&p, cu->unit);
            if (pu) cu->levels_bytes += pu->levels + pu->run_end;
        }
        if (here) f->padding_bytes += elf_fmv_padding_of(&p, f->name);
    }
    elf_fmv_padding_free(&p);
}

static int cmp_function(const void *a, const void *b)
{
    return strcmp(((const struct code_size_function *)a)->name, ((const struct code_size_function *)b)->name);
}

int code_size_measure(char *const *files, size_t n, struct code_size *out)
{
    memset(out, 0, sizeof *out);
    out->code_crc = (uint32_t)crc32(0, Z_NULL, 0);
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        struct elf_file ef;
        if (elf_file_open(files[i], &ef) != 0) {
            out->n_unreadable++;
            continue;
        }
        out->code_bytes += ef.text_size;
        out->code_crc = code_crc(&ef, out->code_crc);
        struct code_size_file file = {.path = NULL, .code_bytes = ef.text_size, .cpu_detect_bytes = -1,
                                      .cpu_levels_bytes = -1};
        uint64_t runtime = 0;
        struct elf_cpu_kinds kinds;
        if (elf_cpu_detect_bytes(&ef, &runtime) == 0 && elf_cpu_kinds(&ef, &kinds) == 0) {
            file.cpu_detect_bytes = (int64_t)runtime;
            file.cpu_levels_bytes = (int64_t)kinds.levels_bytes;
        }
        struct elf_cpuid_code cc;
        elf_cpuid_code(&ef, &cc);   /* stripped: none found */
        struct inspect_report ir;
        if (inspect_file(files[i], &ir) != 0) {
            elf_file_close(&ef);
            out->n_unreadable++;
            elf_cpuid_code_free(&cc);
            continue;
        }
        struct elf_plt_slots plt;
        elf_plt_slots_read(&ef, &plt);
        file.path = xstrdup(files[i]);
        file.plt_entry_bytes = plt.entry_bytes;
        file.run_padding = run_padding(&ef, &ir);
        out->files = xrealloc(out->files, (out->n_files + 1) * sizeof *out->files);
        out->files[out->n_files] = file;
        add_functions(out, &cap, &ir, out->n_files, &ef, &plt);
        add_cpuid_functions(out, &cap, &cc, out->n_files, &plt);
        out->files[out->n_files].jump_slots = plt.jump_slots;   /* kept */
        plt.jump_slots = (struct strvec)STRVEC_INIT;
        out->n_files++;
        add_fmv_padding(out, &ef, out->n_files - 1);
        elf_plt_slots_free(&plt);
        inspect_free(&ir);
        elf_cpuid_code_free(&cc);
        elf_file_close(&ef);
    }
    if (out->n_functions) qsort(out->functions, out->n_functions, sizeof *out->functions, cmp_function);
    for (size_t i = 0; i < out->n_functions; i++) {
        out->clone_bytes += out->functions[i].clone_bytes;
        out->resolver_bytes += out->functions[i].resolver_bytes;
    }
    return out->n_unreadable ? -1 : 0;
}

int code_size_of_dir(const char *dir, struct code_size *out)
{
    struct strvec files = STRVEC_INIT;
    elf_find_linked(dir, &files);
    int rc = code_size_measure(sv_argv(&files), files.n, out);
    sv_free(&files);
    return rc;
}

const struct code_size_function *code_size_find(const struct code_size *cs, const char *name)
{
    size_t lo = 0, hi = cs->n_functions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(cs->functions[mid].name, name);
        if (c == 0) return &cs->functions[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

uint64_t code_size_plt_bytes(const struct code_size_function *f)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < f->n_plt; i++) sum += f->plt[i].bytes;
    return sum;
}

uint64_t code_size_added(const struct code_size_function *f)
{
    return f->clone_bytes + f->resolver_bytes + f->padding_bytes + code_size_plt_bytes(f);
}

void code_size_free(struct code_size *cs)
{
    for (size_t i = 0; i < cs->n_functions; i++) {
        free(cs->functions[i].name);
        free(cs->functions[i].files);
        free(cs->functions[i].plt);
        for (size_t u = 0; u < cs->functions[i].n_units; u++) free(cs->functions[i].units[u].unit);
        free(cs->functions[i].units);
        for (size_t c = 0; c < cs->functions[i].n_copies; c++) free(cs->functions[i].copies[c].symbol);
        free(cs->functions[i].copies);
    }
    free(cs->functions);
    for (size_t i = 0; i < cs->n_files; i++) {
        free(cs->files[i].path);
        sv_free(&cs->files[i].jump_slots);
    }
    free(cs->files);
    memset(cs, 0, sizeof *cs);
}
