/* hostlines.c - see hostlines.h. Addresses are resolved by binutils'
 * addr2line (-a -i -f: each address, then its inline frames innermost
 * first), once per file and address for the whole selection: every run of
 * one build samples the same code. A site is SYMBOL+OFFSET in perf's terms;
 * the address addr2line takes is the symbol's st_value + OFFSET. */
#include "select/hostlines.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/addr2line.h"
#include "elf/elffile.h"
#include "run/spawn.h"
#include "select/attribution.h"

/* addresses per addr2line command (argv size) */
#define HOSTLINES_BATCH 2000

struct hl_addr {
    uint64_t addr;
    int known;               /* frames resolved */
    struct strvec names, files;
    int line;                /* the innermost frame's line, 0: unknown */
};

struct hl_sym {
    char *name;
    int found;               /* one symbol of that name in the file */
    uint64_t value;
};

struct hl_file {
    char *path;
    int readable;
    struct elf_file ef;
    struct hl_sym *syms;
    size_t n_syms;
    struct hl_addr *addrs;   /* sorted by addr */
    size_t n_addrs;
};

struct hostlines {
    struct hl_file *files;
    size_t n_files;
};

size_t hostlines_hosts_of(const json_t *notes, struct strvec *hosts, struct strvec *names)
{
    size_t i, k, n = 0;
    json_t *note, *host;
    json_array_foreach(notes, i, note)
    {
        const char *kind = json_string_value(json_object_get(note, "kind"));
        if (!kind || strcmp(kind, "inlined-into") != 0) continue;
        json_array_foreach(json_object_get(note, "hosts"), k, host)
        {
            /* the symbol: the profile names hosts as the ELF does (a C++
             * host's name is its display name); a store written before
             * hosts had symbols has only the name */
            const char *name = json_string_value(json_object_get(host, "name"));
            const char *sym = json_string_value(json_object_get(host, "symbol"));
            if (!sym || !*sym) sym = name;
            if (!sym || !*sym) continue;
            n++;
            if (sv_contains(hosts, sym)) continue;
            sv_push(hosts, sym);
            if (names) sv_push(names, name && *name ? name : sym);
        }
    }
    return n;
}

struct hostlines *hostlines_new(void)
{
    return xcalloc(1, sizeof(struct hostlines));
}

void hostlines_free(struct hostlines *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->n_files; i++) {
        struct hl_file *f = &h->files[i];
        if (f->readable) elf_file_close(&f->ef);
        for (size_t k = 0; k < f->n_syms; k++) free(f->syms[k].name);
        for (size_t k = 0; k < f->n_addrs; k++) {
            sv_free(&f->addrs[k].names);
            sv_free(&f->addrs[k].files);
        }
        free(f->syms);
        free(f->addrs);
        free(f->path);
    }
    free(h->files);
    free(h);
}

int hostlines_unjudged(long unresolved, long host_samples)
{
    return unresolved > 0 && 10 * unresolved > host_samples;
}

enum hostlines_verdict hostlines_verdict(long unresolved, long host_samples, long min_host)
{
    if (host_samples < min_host || !hostlines_unjudged(unresolved, host_samples)) return HOSTLINES_JUDGED;
    return unresolved >= host_samples ? HOSTLINES_NO_LINES : HOSTLINES_UNPLACED;
}

/* ---- the cache ---- */

static struct hl_file *file_of(struct hostlines *h, const char *path)
{
    for (size_t i = 0; i < h->n_files; i++)
        if (!strcmp(h->files[i].path, path)) return &h->files[i];
    h->files = xrealloc(h->files, (h->n_files + 1) * sizeof *h->files);
    struct hl_file *f = &h->files[h->n_files++];
    memset(f, 0, sizeof *f);
    f->path = xstrdup(path);
    /* "[vdso]", "[unknown]", a file gone: never resolved */
    f->readable = path[0] == '/' && file_exists(path) && elf_file_open(path, &f->ef) == 0;
    return f;
}

/* The symbol's st_value, when the file has exactly one symbol of that name. */
static int symbol_value(struct hl_file *f, const char *name, uint64_t *value)
{
    for (size_t i = 0; i < f->n_syms; i++)
        if (!strcmp(f->syms[i].name, name)) {
            *value = f->syms[i].value;
            return f->syms[i].found;
        }
    f->syms = xrealloc(f->syms, (f->n_syms + 1) * sizeof *f->syms);
    struct hl_sym *s = &f->syms[f->n_syms++];
    *s = (struct hl_sym){xstrdup(name), 0, 0};
    if (f->readable) {
        const struct elf_sym *first;
        s->found = elf_file_syms_named(&f->ef, name, &first) == 1;
        s->value = first ? first->value : 0;
    }
    *value = s->value;
    return s->found;
}

static int compare_addrs(const void *a, const void *b)
{
    const struct hl_addr *x = a, *y = b;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

static struct hl_addr *addr_find(struct hl_file *f, uint64_t addr)
{
    struct hl_addr key = {.addr = addr};
    return f->n_addrs ? bsearch(&key, f->addrs, f->n_addrs, sizeof *f->addrs, compare_addrs) : NULL;
}

struct collect {
    struct hl_file *f;
    size_t first;   /* the new entries start here */
};

static void store_frames(unsigned long long addr, char *const *names, char *const *files, const int *lines, size_t n,
                         void *ctx)
{
    struct collect *c = ctx;
    for (size_t i = c->first; i < c->f->n_addrs; i++) {
        struct hl_addr *a = &c->f->addrs[i];
        if (a->addr != addr || a->known) continue;
        a->known = n > 0;
        a->line = n > 0 ? lines[0] : 0;
        for (size_t k = 0; k < n; k++) {
            sv_push(&a->names, names[k]);
            sv_push(&a->files, files[k]);
        }
        return;
    }
}

/* Resolves the addresses of want (not in f yet) with addr2line, then
 * keeps f's addresses sorted. Unresolved ones stay, unknown. */
static void resolve(struct hl_file *f, const uint64_t *want, size_t n)
{
    size_t first = f->n_addrs;
    f->addrs = xrealloc(f->addrs, (f->n_addrs + n + 1) * sizeof *f->addrs);
    for (size_t i = 0; i < n; i++) {
        struct hl_addr *a = &f->addrs[f->n_addrs++];
        memset(a, 0, sizeof *a);
        a->addr = want[i];
        a->names = (struct strvec)STRVEC_INIT;
        a->files = (struct strvec)STRVEC_INIT;
    }
    for (size_t at = 0; f->readable && at < n; at += HOSTLINES_BATCH) {
        struct strvec argv = STRVEC_INIT;
        sv_push_all(&argv, (char *const[]){"addr2line", "-a", "-i", "-f", "-e", f->path, NULL});
        for (size_t i = at; i < n && i < at + HOSTLINES_BATCH; i++)
            sv_pushf(&argv, "0x%llx", (unsigned long long)want[i]);
        struct run_opts opts = {.capture_stdout = 1, .null_stderr = 1};
        struct run_result res;
        if (run_argv(sv_argv(&argv), &opts, &res) == 0 && res.out) {
            struct collect c = {f, first};
            addr2line_parse(res.out, store_frames, &c);
        }
        run_result_free(&res);
        sv_free(&argv);
    }
    qsort(f->addrs, f->n_addrs, sizeof *f->addrs, compare_addrs);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The base name of a symbol ("main" for "main.cold") is among hosts. */
static int is_host(const char *symbol, char *const *hosts)
{
    size_t n = strcspn(symbol, ".");
    for (size_t i = 0; hosts && hosts[i]; i++)
        if (strlen(hosts[i]) == n && !strncmp(symbol, hosts[i], n)) return 1;
    return 0;
}

static int any_host(const char *symbol, const struct hostlines_function *fs, size_t nf)
{
    for (size_t f = 0; f < nf; f++)
        if (is_host(symbol, fs[f].hosts)) return 1;
    return 0;
}

/* The frames hold fn: a frame of its name from one of its files (any file
 * when the frame names none), or the innermost line lies in its definition.
 * The outermost frame is the host itself. */
static int holds(const struct hl_addr *a, const struct hostlines_function *fn)
{
    if (fn->file && fn->end_line > 0 && a->line >= fn->line && a->line <= fn->end_line && a->files.n &&
        !strcmp(path_basename(a->files.v[0]), path_basename(fn->file)))
        return 1;
    for (size_t i = 0; i + 1 < a->names.n; i++) {
        if (strcmp(a->names.v[i], fn->name) != 0) continue;
        const char *file = a->files.v[i];
        if (!*file || attribution_file_among(fn->files, path_basename(file))) return 1;
    }
    return 0;
}

void hostlines_count(struct hostlines *h, const struct profile *p, const struct hostlines_function *fs, size_t nf,
                     long *samples, long *unresolved, long *host_samples)
{
    memset(samples, 0, nf * sizeof *samples);
    memset(unresolved, 0, nf * sizeof *unresolved);
    memset(host_samples, 0, nf * sizeof *host_samples);
    /* sites come sorted by dso: resolve each file's new addresses at once */
    for (size_t i = 0; i < p->n_sites;) {
        size_t end = i;
        while (end < p->n_sites && !strcmp(p->sites[end].dso, p->sites[i].dso)) end++;
        struct hl_file *f = file_of(h, p->sites[i].dso);
        uint64_t *want = xcalloc(end - i + 1, sizeof *want);
        uint64_t *at = xcalloc(end - i + 1, sizeof *at);
        int *ok = xcalloc(end - i + 1, sizeof *ok);
        size_t nwant = 0;
        for (size_t k = i; k < end; k++) {
            const struct profile_site *s = &p->sites[k];
            uint64_t value;
            if (!any_host(s->symbol, fs, nf) || !symbol_value(f, s->symbol, &value)) continue;
            ok[k - i] = 1;
            at[k - i] = value + s->offset;
            if (!addr_find(f, at[k - i])) want[nwant++] = at[k - i];
        }
        if (nwant) {
            qsort(want, nwant, sizeof *want, compare_u64);
            size_t u = 0;
            for (size_t k = 0; k < nwant; k++)
                if (!u || want[u - 1] != want[k]) want[u++] = want[k];
            resolve(f, want, u);
        }
        for (size_t k = i; k < end; k++) {
            const struct profile_site *s = &p->sites[k];
            const struct hl_addr *a = ok[k - i] ? addr_find(f, at[k - i]) : NULL;
            for (size_t fn = 0; fn < nf; fn++) {
                if (!is_host(s->symbol, fs[fn].hosts)) continue;
                host_samples[fn] += s->samples;
                if (!a || !a->known) unresolved[fn] += s->samples;
                else if (holds(a, &fs[fn])) samples[fn] += s->samples;
            }
        }
        free(want);
        free(at);
        free(ok);
        i = end;
    }
}
