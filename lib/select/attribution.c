/* attribution.c - see attribution.h. */
#include "select/attribution.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "elf/fmvnames.h"
#include "elf/symsource.h"
#include "store/notes.h"
#include "util/util.h"

char *attribution_base_name(const char *symbol)
{
    char *host = elf_fmv_lambda_host(symbol);   /* a lambda-dispatched virtual's lambda: its host's */
    if (host) return host;
    const char *start;
    size_t n = elf_fmv_base(symbol, &start);
    return xstrndup(start, n);
}

char *attribution_clone_suffix(const char *symbol)
{
    struct elf_fmv_name nm;
    if (elf_fmv_name(symbol, &nm) == ELF_FMV_COPY) return xstrdup(nm.slug);
    const char *dot = strchr(symbol, '.');
    if (!dot) return xstrdup("");
    const char *s = dot + 1;
    size_t n = strlen(s);
    /* Clang numbers its clones: avx2.0, arch_x86-64-v3.1, default.2 */
    const char *last = strrchr(s, '.');
    if (last) {
        const char *d = last + 1;
        int digits = *d != 0;
        for (; *d; d++)
            if (!isdigit((unsigned char)*d)) digits = 0;
        if (digits) n = (size_t)(last - s);
    }
    return xstrndup(s, n);
}

static int belongs_to(const char *symbol, const char *function)
{
    char *base = attribution_base_name(symbol);
    int r = !strcmp(base, function);
    free(base);
    return r;
}

long attribution_samples(const struct profile *p, const char *function)
{
    long n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (!p->entries[i].kernel && belongs_to(p->entries[i].symbol, function)) n += p->entries[i].samples;
    return n;
}

/* The dispatcher, not a clone: GCC's foo.resolver, Clang's foo.resolver and
 * foo.ifunc, fmvgen's fmvgen_resolve_foo, foo.fmvgen_init and foo.fmvgen_ctor.
 * Its samples are the function's (dispatch is part of what cloning costs),
 * but it is never "the clone that ran". */
static int is_dispatcher(const char *symbol)
{
    struct elf_fmv_name nm;
    enum elf_fmv_role role = elf_fmv_name(symbol, &nm);
    if (role == ELF_FMV_RESOLVER || role == ELF_FMV_TRAMPOLINE) return 1;
    if (role != ELF_FMV_NONE) return 0;
    char *suffix = attribution_clone_suffix(symbol);
    int yes = !strcmp(suffix, "resolver") || !strcmp(suffix, "ifunc");
    free(suffix);
    return yes;
}

const char *attribution_hottest_symbol(const struct profile *p, const char *function)
{
    const struct profile_entry *best = NULL;
    for (size_t i = 0; i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kernel || !belongs_to(e->symbol, function) || is_dispatcher(e->symbol)) continue;
        if (!best || e->samples > best->samples) best = e;
    }
    return best ? best->symbol : NULL;
}

/* ---- by source file ---- */

/* A local symbol's STT_FILE names its source only when it is one: after
 * LTO, GCC leaves the merged TU's STT_FILE empty and LLVM's linkers name it
 * "ld-temp.o" (measured) - every static function of the program, whatever
 * its file, then sits under that one name. */
static int names_source(const char *file)
{
    if (!file || !*file) return 0;
    size_t n = strlen(file);
    return !(n >= 2 && !strcmp(file + n - 2, ".o"));
}

struct attribution_origin *attribution_locate(const struct profile *p, struct elf_symsource_cache *cache)
{
    struct attribution_origin *o = xcalloc(p->n ? p->n : 1, sizeof *o);
    for (size_t i = 0; i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        /* "[vdso]", "[kernel.kallsyms]", "[unknown]": no file to read */
        if (e->kernel || !e->dso || e->dso[0] != '/' || !e->addr) continue;
        struct elf_symsource src;
        if (elf_symsource_lookup(cache, e->dso, e->addr, e->symbol, &src) != 0) continue;
        if (src.local && !names_source(src.file)) continue;
        o[i] = (struct attribution_origin){1, src.local, src.local ? path_basename(src.file) : NULL, 0};
    }
    return o;
}

int attribution_file_among(char *const *files, const char *basename)
{
    for (size_t i = 0; files && files[i]; i++)
        if (!strcmp(path_basename(files[i]), basename)) return 1;
    return 0;
}

/* basename is one of f's sources' basenames. */
static int from_sources(const struct attribution_function *f, const char *basename)
{
    return attribution_file_among(f->files, basename);
}

int attribution_files_clash(const struct attribution_function *fs, size_t n, size_t f)
{
    for (size_t g = 0; g < n; g++) {
        if (g == f || strcmp(fs[g].name, fs[f].name) != 0) continue;
        if (fs[f].linked > 0 && fs[g].linked > 0 && fs[f].linked != fs[g].linked) continue;
        if (!fs[f].files || !fs[f].files[0] || !fs[g].files || !fs[g].files[0]) return 1;
        for (size_t i = 0; fs[g].files[i]; i++)
            if (from_sources(&fs[f], path_basename(fs[g].files[i]))) return 1;
        if (!fs[f].is_static && !fs[g].is_static) return 1;
    }
    return 0;
}

/* Entry i of f's name is f's by file: 1 yes, 0 no, -1 its origin is unknown. */
static int is_own(const struct attribution_origin *o, const struct attribution_function *f)
{
    if (f->linked > 0) {
        if (o->known && o->local && (!o->file || !from_sources(f, o->file))) return 0;
        return o->linked_owner == 0 ? -1 : o->linked_owner == f->linked;
    }
    if (!o->known) return -1;
    if (!o->local) return !f->is_static;
    return o->file && from_sources(f, o->file);
}

/* The profile holds local symbols of f's name from a file that is none of
 * f's sources (namesakes the candidates do not know of). */
static int has_namesakes(const struct profile *p, const struct attribution_origin *origins,
                         const struct attribution_function *f)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct attribution_origin *o = &origins[i];
        if (!p->entries[i].kernel && o->known && o->local && o->file && belongs_to(p->entries[i].symbol, f->name) &&
            !from_sources(f, o->file))
            return 1;
    }
    return 0;
}

void attribution_sources(const char *file, const json_t *notes, struct strvec *out)
{
    sv_push(out, file);
    size_t i, k;
    json_t *note, *tu;
    json_array_foreach(notes, i, note)
    {
        /* a header's static function: the TUs that switch it on, so the
         * copies of the TUs that do not (namesakes) are not its time */
        if (note_kind_of(note) != NOTE_INCLUDED_SOURCE && note_kind_of(note) != NOTE_HEADER_SWITCH) continue;
        json_array_foreach(json_object_get(note, "tus"), k, tu)
        {
            const char *source = json_string_value(json_object_get(tu, "source"));
            if (source && !sv_contains(out, source)) sv_push(out, source);
        }
    }
}

void attribution_count(const struct profile *p, const struct attribution_origin *origins,
                       const struct attribution_function *f, enum attribution_need need,
                       struct attribution_count *out)
{
    memset(out, 0, sizeof *out);
    out->name_samples = out->samples = attribution_samples(p, f->name);
    out->hottest = attribution_hottest_symbol(p, f->name);
    if (need == ATTRIBUTION_BY_NAME || !origins || !f->files || !f->files[0]) return;
    if (need == ATTRIBUTION_BY_FILE_IF_NAMESAKES && !has_namesakes(p, origins, f)) return;
    long samples = 0;
    const struct profile_entry *best = NULL;
    for (size_t i = 0; i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kernel || !belongs_to(e->symbol, f->name)) continue;
        int own = is_own(&origins[i], f);
        if (own < 0) {
            /* one entry that may be anybody's: by file says nothing sure */
            out->undecided = need == ATTRIBUTION_BY_FILE;
            return;
        }
        if (!own) continue;
        samples += e->samples;
        if (!is_dispatcher(e->symbol) && (!best || e->samples > best->samples)) best = e;
    }
    out->samples = samples;
    out->hottest = best ? best->symbol : NULL;
    out->by_file = 1;
}
