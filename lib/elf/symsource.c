/* symsource.c - see symsource.h. Each file is opened with elf_file_open
 * (elffile.h: its checks) only after the quiet header test of codesize.h,
 * its symbol table read once in table order - the order carries the STT_FILE
 * of each local symbol - and kept as a small table sorted by address. */
#include "elf/symsource.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "elf/elffile.h"
#include "elf/symwalk.h"
#include "util/util.h"

/* How many symbols below an address are looked at for one that holds it:
 * zero-size FUNC labels inside a function (hand-written assembly) may sit
 * between an address and its function's start. */
#define LOOKBACK 64

struct sym {
    uint64_t value, size;
    char *name;
    const char *file;      /* into struct symfile's files */
    int local;
};

struct segment {
    uint64_t offset, filesz, vaddr;
};

struct symfile {
    char *path;
    int readable;          /* read, with a .symtab or a .dynsym */
    struct sym *syms;      /* by address, then table order */
    size_t n_syms;
    struct segment *segs;  /* PT_LOAD */
    size_t n_segs;
    struct strvec files;   /* the STT_FILE names */
};

struct elf_symsource_cache {
    struct symfile *files;
    size_t n, cap;
};

struct elf_symsource_cache *elf_symsource_cache_new(void)
{
    return xcalloc(1, sizeof(struct elf_symsource_cache));
}

static void symfile_free(struct symfile *f)
{
    for (size_t i = 0; i < f->n_syms; i++) free(f->syms[i].name);
    free(f->syms);
    free(f->segs);
    sv_free(&f->files);
    free(f->path);
}

void elf_symsource_cache_free(struct elf_symsource_cache *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) symfile_free(&c->files[i]);
    free(c->files);
    free(c);
}

static int cmp_sym(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    return x < y ? -1 : x > y;   /* stable enough: the table order came first */
}

struct walk {
    struct symfile *f;
    size_t cap;
    const char *tu;        /* the last STT_FILE name seen, as in the file */
};

static int keep_sym(const struct elf_walk_sym *s, void *ctx)
{
    struct walk *w = ctx;
    struct symfile *f = w->f;
    const char *file = NULL;
    if (s->tu) {
        /* symbols keep pointing at the copy: a strvec's strings do not move
         * when it grows, only its array does */
        if (s->tu != w->tu) sv_push(&f->files, s->tu);
        w->tu = s->tu;
        file = f->files.v[f->files.n - 1];
    }
    if (f->n_syms == w->cap) f->syms = xrealloc(f->syms, (w->cap = w->cap ? 2 * w->cap : 256) * sizeof *f->syms);
    f->syms[f->n_syms++] = (struct sym){s->value, s->size, xstrdup(s->name), file, s->bind == STB_LOCAL};
    return 0;
}

/* The function symbols of the .symtab (else of the .dynsym: a stripped
 * file), each local one with the STT_FILE before it. */
static void read_symtab(Elf *elf, struct symfile *f)
{
    struct walk w = {f, 0, NULL};
    if (elf_symtab_walk(elf, 1, keep_sym, &w) == 0) f->readable = 1;
}

static void read_segments(Elf *elf, struct symfile *f)
{
    size_t nph = 0;
    if (elf_getphdrnum(elf, &nph) != 0) return;
    f->segs = xcalloc(nph ? nph : 1, sizeof *f->segs);
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
            f->segs[f->n_segs++] = (struct segment){ph.p_offset, ph.p_filesz, ph.p_vaddr};
    }
}

static void symfile_read(struct symfile *f)
{
    /* the header test is quiet; elf_file_open would print a line for a
     * file that is not ELF at all ([vdso], a script) */
    if (!elf_is_linked_x86_64(f->path)) return;
    struct elf_file ef;
    if (elf_file_open(f->path, &ef) != 0) return;
    read_segments(ef.elf, f);
    read_symtab(ef.elf, f);
    elf_file_close(&ef);
    if (f->n_syms) qsort(f->syms, f->n_syms, sizeof *f->syms, cmp_sym);
}

static struct symfile *symfile_get(struct elf_symsource_cache *c, const char *path)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->files[i].path, path)) return &c->files[i];
    if (c->n == c->cap) c->files = xrealloc(c->files, (c->cap = c->cap ? 2 * c->cap : 8) * sizeof *c->files);
    struct symfile *f = &c->files[c->n++];
    memset(f, 0, sizeof *f);
    f->path = xstrdup(path);
    f->files = (struct strvec)STRVEC_INIT;
    symfile_read(f);
    return f;
}

/* File offset -> address, through the PT_LOAD segment holding it. */
static int offset_to_vaddr(const struct symfile *f, uint64_t offset, uint64_t *vaddr)
{
    for (size_t i = 0; i < f->n_segs; i++) {
        const struct segment *s = &f->segs[i];
        if (offset >= s->offset && offset - s->offset < s->filesz) {
            *vaddr = offset - s->offset + s->vaddr;
            return 0;
        }
    }
    return -1;
}

int elf_symsource_lookup(struct elf_symsource_cache *c, const char *path, uint64_t offset, const char *name,
                         struct elf_symsource *out)
{
    memset(out, 0, sizeof *out);
    const struct symfile *f = symfile_get(c, path);
    uint64_t vaddr;
    if (!f->readable || !f->n_syms || offset_to_vaddr(f, offset, &vaddr) != 0) return -1;
    /* the first symbol above vaddr */
    size_t lo = 0, hi = f->n_syms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->syms[mid].value <= vaddr) lo = mid + 1;
        else hi = mid;
    }
    for (size_t k = 0; k < LOOKBACK && k < lo; k++) {
        const struct sym *s = &f->syms[lo - 1 - k];
        int holds = s->size ? vaddr - s->value < s->size : vaddr == s->value;
        if (!holds || (name && strcmp(s->name, name) != 0)) continue;
        *out = (struct elf_symsource){s->name, s->local, s->file};
        return 0;
    }
    return -1;
}
