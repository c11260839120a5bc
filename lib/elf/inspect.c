/* inspect.c - see inspect.h. Opens the file once, lists its clones, runs
 * the ISA analysis over each clone's bytes, and does the size account. */
#include "elf/inspect.h"

#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cpudetect.h"
#include "elf/cpukind.h"
#include "elf/elffile.h"
#include "elf/samecode.h"
#include "util/util.h"

/* How far a version without a symbol size may reach: clones of hot loops
 * are at most a few kilobytes. */
#define UNSIZED_WINDOW 65536

/* A function whose default is not named (a stripped file, a hand-written
 * ifunc) still has a fallback for the oldest CPUs: when exactly one version
 * needs nothing beyond baseline x86-64, that is it. With two such versions
 * (glibc's sse2 and erms memcpy differ in algorithm, not ISA) or a -march
 * build, none qualifies and no verdict is given. Since the default is the
 * only baseline version, no other version can be judged useless by it. */
static struct inspect_clone *infer_default(struct inspect_clone *clones, size_t n)
{
    const isa_set baseline = ISA_BIT(ISA_MMX) | ISA_BIT(ISA_SSE) | ISA_BIT(ISA_SSE2);
    struct inspect_clone *found = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!clones[i].analyzed || (clones[i].isa.needs & ~baseline)) continue;
        if (found) return NULL;
        found = &clones[i];
    }
    if (found) found->inferred_default = 1;
    return found;
}

/* Addresses where some function is known to start (symbols, versions,
 * resolvers), sorted: a version without a size cannot run past the next. */
struct starts {
    uint64_t *v;
    size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void collect_starts(const struct elf_file *ef, const struct elf_mv_list *l, struct starts *st)
{
    size_t cap = ef->n_syms + 1;
    for (size_t i = 0; i < l->n_functions; i++) cap += l->functions[i].n_clones + 1;
    st->v = xmalloc(cap * sizeof *st->v);
    st->n = 0;
    for (size_t i = 0; i < ef->n_syms; i++) st->v[st->n++] = ef->syms[i].value;
    for (size_t i = 0; i < l->n_functions; i++) {
        st->v[st->n++] = l->functions[i].resolver_addr;
        for (size_t c = 0; c < l->functions[i].n_clones; c++) st->v[st->n++] = l->functions[i].clones[c].addr;
    }
    qsort(st->v, st->n, sizeof *st->v, cmp_u64);
}

/* Bytes from addr to the next known start, at most UNSIZED_WINDOW. */
static uint64_t room_after(const struct starts *st, uint64_t addr)
{
    size_t lo = 0, hi = st->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->v[mid] <= addr) lo = mid + 1;
        else hi = mid;
    }
    uint64_t room = lo < st->n ? st->v[lo] - addr : UNSIZED_WINDOW;
    return room < UNSIZED_WINDOW ? room : UNSIZED_WINDOW;
}

static void analyze_function(const struct elf_file *ef, const struct starts *starts, const struct elf_mv_function *fn,
                             struct inspect_function *out)
{
    out->fn = fn;
    out->clones = xcalloc(fn->n_clones ? fn->n_clones : 1, sizeof *out->clones);
    const struct inspect_clone *def = NULL;
    for (size_t i = 0; i < fn->n_clones; i++) {
        const struct elf_clone *c = &fn->clones[i];
        struct inspect_clone *ic = &out->clones[i];
        ic->clone = c;
        ic->size = c->size;
        if (c->size) {
            const uint8_t *code = elf_file_bytes(ef, c->addr, c->size);
            if (code && isa_analyze(code, c->size, c->addr, &ic->isa) == 0) ic->analyzed = 1;
        } else {
            /* No symbol: follow the code from its entry instead. */
            uint64_t len = 0, extent = 0;
            const uint8_t *code = elf_file_window(ef, c->addr, room_after(starts, c->addr), &len);
            if (code && isa_analyze_reachable(code, len, c->addr, &ic->isa, &extent) == 0 && extent) {
                ic->analyzed = 1;
                ic->size = extent;
                ic->size_estimated = 1;
            }
        }
        if (c->is_default && ic->analyzed) def = ic;
    }
    if (!def) def = infer_default(out->clones, fn->n_clones);
    for (size_t i = 0; i < fn->n_clones; i++) {
        struct inspect_clone *ic = &out->clones[i];
        if (!def || ic == def || !ic->analyzed || ic->clone->is_default) continue;
        ic->beyond_default = ic->isa.needs & ~def->isa.needs;
        ic->wider_than_default = ic->isa.vector_bits > def->isa.vector_bits;
        ic->verdict = ic->beyond_default || ic->wider_than_default ? VERDICT_USEFUL : VERDICT_USELESS;
        if (ic->verdict == VERDICT_USELESS && !ic->size_estimated && !def->size_estimated)
            ic->same_as_default = elf_code_same(elf_file_bytes(ef, ic->clone->addr, ic->size), ic->size,
                                                ic->clone->addr, elf_file_bytes(ef, def->clone->addr, def->size),
                                                def->size, def->clone->addr) == 1;
    }
    out->counted = fn->origin != ELF_MV_IFUNC && elf_mv_default(fn) != NULL;
}

static void account_sizes(struct inspect_report *r, uint64_t text)
{
    struct inspect_size *s = &r->size;
    s->text = text;
    int same_n = -1;
    double weighted_n = 0;
    for (size_t i = 0; i < r->list.n_functions; i++) {
        if (!r->functions[i].counted) continue;
        const struct elf_mv_function *fn = r->functions[i].fn;
        const struct elf_clone *def = elf_mv_default(fn);
        int n = (int)fn->n_clones;
        s->n_counted++;
        s->resolver_bytes += fn->resolver_size;
        s->trampoline_bytes += fn->trampoline_size;
        s->default_bytes += def->size;
        for (size_t c = 0; c < fn->n_clones; c++)
            if (&fn->clones[c] != def) s->clone_bytes += fn->clones[c].size;
        s->predicted_growth += def->size * (uint64_t)(n - 1);
        weighted_n += (double)def->size * n;
        same_n = same_n == -1 ? n : same_n == n ? n : 0;
    }
    uint64_t extra = s->clone_bytes + s->resolver_bytes + s->trampoline_bytes;
    s->text_without = text > extra ? text - extra : 0;
    s->r = s->text_without ? (double)s->default_bytes / (double)s->text_without : 0;
    s->n_versions = same_n > 0 ? same_n : 0;
    s->n_mean = s->default_bytes ? weighted_n / (double)s->default_bytes : 0;
}

/* Both kinds of CPU detection: the runtime's bytes (cpudetect.h) and
 * fmvgen_cpu_levels (cpukind.h). */
static void cpu_detection(const struct elf_file *ef, struct inspect_report *r)
{
    struct inspect_size *s = &r->size;
    uint64_t runtime;
    struct elf_cpu_kinds k;
    if (elf_cpu_detect_bytes(ef, &runtime) != 0 || elf_cpu_kinds(ef, &k) != 0) {
        s->cpu_detect_bytes = -1;
        return;
    }
    s->runtime_cpu_detect_bytes = runtime;
    s->runtime_cpu_detect = runtime ? (k.runtime ? k.runtime : "the runtime's") : NULL;
    s->own_cpu_detect_bytes = k.levels_bytes;
    s->own_cpu_detect_copies = k.n_levels;
    s->own_cpu_detect_linked = k.n_linked_levels;
    s->own_cpu_detect_inlined = k.n_inlined;
    s->cpu_detect_bytes = (int64_t)(runtime + k.levels_bytes);
}

int inspect_file(const char *path, struct inspect_report *out)
{
    memset(out, 0, sizeof *out);
    struct elf_file ef;
    if (elf_file_open(path, &ef) != 0) return -1;
    out->path = xstrdup(path);
    out->elf_type = ef.elf_type;
    out->is_pie = ef.is_pie;
    out->is_static = ef.is_static;
    out->has_symtab = ef.has_symtab;
    elf_mv_scan(&ef, &out->list);
    out->functions = xcalloc(out->list.n_functions ? out->list.n_functions : 1, sizeof *out->functions);
    struct starts starts;
    collect_starts(&ef, &out->list, &starts);
    for (size_t i = 0; i < out->list.n_functions; i++)
        analyze_function(&ef, &starts, &out->list.functions[i], &out->functions[i]);
    free(starts.v);
    account_sizes(out, ef.text_size);
    cpu_detection(&ef, out);
    elf_file_close(&ef);
    return 0;
}

void inspect_free(struct inspect_report *r)
{
    for (size_t i = 0; i < r->list.n_functions; i++) free(r->functions[i].clones);
    free(r->functions);
    elf_mv_list_free(&r->list);
    free(r->path);
    memset(r, 0, sizeof *r);
}

const char *inspect_kind(const struct inspect_report *r)
{
    if (r->elf_type == ET_EXEC) return r->is_static ? "static executable" : "executable";
    if (r->is_pie) return r->is_static ? "static PIE executable" : "PIE executable";
    return "shared library";
}

char *inspect_stripped_note(const struct inspect_report *r)
{
    if (r->has_symtab) return NULL;
    struct strbuf sb = STRBUF_INIT;
    if (!r->list.n_irelative && !r->list.n_ifunc_symbols) {
        /* Every ifunc a linked file uses leaves an IFUNC symbol in .dynsym
         * (exported) or an IRELATIVE relocation (internal): none of either
         * means no function here is dispatched, stripped or not. */
        sb_adds(&sb, "stripped (no .symtab): with no IFUNC symbol in .dynsym and no IRELATIVE relocation, no "
                     "function of this file is dispatched by an ifunc; fmvgen's --dispatch pointer and cpuid are "
                     "found by local symbols, gone here");
        return sb_detach(&sb);
    }
    sb_adds(&sb, "stripped (no .symtab): ");
    if (r->is_static)
        sb_adds(&sb, "a static file has no .dynsym either, so no function has a name");
    else
        sb_adds(&sb, "only the exported symbols of .dynsym are left; local ones (GCC's clones) are gone");
    sb_addf(&sb, ". Still known: %zu IRELATIVE relocation%s (one per ifunc the loader resolves inside this "
                 "file; the addend is the resolver), %zu IFUNC symbol%s in .dynsym; from them and the resolvers' "
                 "code: %zu multiversioned function%s, versions named by address with sizes estimated (~) "
                 "from their code, the default inferred when only one version needs no more than baseline x86-64",
            r->list.n_irelative, r->list.n_irelative == 1 ? "" : "s", r->list.n_ifunc_symbols,
            r->list.n_ifunc_symbols == 1 ? "" : "s", r->list.n_functions, r->list.n_functions == 1 ? "" : "s");
    if (r->list.n_irelative_unlisted)
        sb_addf(&sb, " (%zu IRELATIVE resolver%s return%s no function of this file: not listed)",
                r->list.n_irelative_unlisted, r->list.n_irelative_unlisted == 1 ? "" : "s",
                r->list.n_irelative_unlisted == 1 ? "s" : "");
    /* cpuiddisp.h: its ifunc reach leaves an ifunc like any other, its
     * pointer reach nothing at all */
    sb_adds(&sb, ". fmvgen's --dispatch cpuid reached through an ifunc is listed as such an ifunc (origin ifunc: "
                 "the names fmvgen_resolve_* and fmvgen_cp_* that tell it are gone, so are its copies' targets); "
                 "reached through a pointer (and --dispatch pointer) it is found by local symbols only: not seen "
                 "here");
    sb_adds(&sb, ". To keep symbols: inspect the unstripped build, link without -s, or strip with "
                 "'strip --strip-debug' (keeps .symtab)");
    return sb_detach(&sb);
}

static json_t *names_json(isa_set s)
{
    json_t *a = json_array();
    for (int f = 0; f < ISA_N; f++)
        if (s & ISA_BIT(f)) json_array_append_new(a, json_string(isa_feature_name(f)));
    return a;
}

static json_t *hex(uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return json_string(buf);
}

static const char *verdict_name(enum inspect_verdict v)
{
    return v == VERDICT_USEFUL ? "useful" : v == VERDICT_USELESS ? "useless" : NULL;
}

static json_t *clone_json(const struct inspect_clone *ic)
{
    const struct elf_clone *c = ic->clone;
    json_t *o = json_object();
    json_object_set_new(o, "symbol", json_string(c->symbol));
    json_object_set_new(o, "target", json_string(c->target));
    json_object_set_new(o, "default", json_boolean(c->is_default));
    json_object_set_new(o, "address", hex(c->addr));
    json_object_set_new(o, "size", json_integer((json_int_t)ic->size));
    json_object_set_new(o, "size_estimated", json_boolean(ic->size_estimated));
    json_object_set_new(o, "analyzed", json_boolean(ic->analyzed));
    if (ic->analyzed) {
        json_object_set_new(o, "vector_registers", json_string(isa_register_class(ic->isa.vector_bits)));
        json_object_set_new(o, "vector_bits", json_integer(ic->isa.vector_bits));
        json_object_set_new(o, "isa", names_json(ic->isa.needs));
        json_object_set_new(o, "instructions", json_integer((json_int_t)ic->isa.n_insns));
        json_object_set_new(o, "instructions_unknown_to_capstone", json_integer((json_int_t)ic->isa.n_length_only));
        json_t *w = json_object();
        json_object_set_new(w, "xmm", json_integer((json_int_t)ic->isa.n_by_width[1]));
        json_object_set_new(w, "ymm", json_integer((json_int_t)ic->isa.n_by_width[2]));
        json_object_set_new(w, "zmm", json_integer((json_int_t)ic->isa.n_by_width[3]));
        json_object_set_new(o, "instructions_by_register", w);
    }
    json_object_set_new(o, "inferred_default", json_boolean(ic->inferred_default));
    const char *v = verdict_name(ic->verdict);
    json_object_set_new(o, "verdict", v ? json_string(v) : json_null());
    if (ic->verdict != VERDICT_NONE) {
        json_object_set_new(o, "isa_beyond_default", names_json(ic->beyond_default));
        json_object_set_new(o, "wider_than_default", json_boolean(ic->wider_than_default));
        json_object_set_new(o, "same_code_as_default", json_boolean(ic->same_as_default));
    }
    return o;
}

static json_t *function_json(const struct inspect_function *f)
{
    const struct elf_mv_function *fn = f->fn;
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(fn->name));
    json_object_set_new(o, "origin", json_string(elf_mv_origin_name(fn->origin)));
    json_object_set_new(o, "dispatch", json_string(elf_mv_dispatch_name(fn->dispatch)));
    const char *reach = elf_mv_reach_name(fn);
    json_object_set_new(o, "reach", reach ? json_string(reach) : json_null());
    json_t *res = json_object();
    json_object_set_new(res, "symbol", fn->resolver ? json_string(fn->resolver) : json_null());
    json_object_set_new(res, "address", hex(fn->resolver_addr));
    json_object_set_new(res, "size", json_integer((json_int_t)fn->resolver_size));
    json_object_set_new(o, "resolver", res);
    json_object_set_new(o, "trampoline_bytes", json_integer((json_int_t)fn->trampoline_size));
    if (fn->ifunc) {
        json_t *i = json_object();
        json_object_set_new(i, "symbol", json_string(fn->ifunc));
        json_object_set_new(i, "address", hex(fn->ifunc_addr));
        json_object_set_new(o, "ifunc", i);
    } else {
        json_object_set_new(o, "ifunc", json_null());
    }
    json_object_set_new(o, "versions", json_integer((json_int_t)fn->n_clones));
    json_t *clones = json_array();
    for (size_t i = 0; i < fn->n_clones; i++) json_array_append_new(clones, clone_json(&f->clones[i]));
    json_object_set_new(o, "clones", clones);
    json_object_set_new(o, "in_size_account", json_boolean(f->counted));
    return o;
}

/* Which kinds of CPU detection the file holds, and their bytes; null when
 * it cannot be told (stripped). */
static json_t *cpu_detection_json(const struct inspect_size *s)
{
    if (s->cpu_detect_bytes < 0) return json_null();
    json_t *o = json_object(), *kinds = json_array();
    if (s->runtime_cpu_detect_bytes) json_array_append_new(kinds, json_string(s->runtime_cpu_detect));
    if (s->own_cpu_detect_bytes || s->own_cpu_detect_inlined) json_array_append_new(kinds, json_string("fmvgen_cpu_levels"));
    json_object_set_new(o, "kinds", kinds);
    json_object_set_new(o, "runtime", s->runtime_cpu_detect ? json_string(s->runtime_cpu_detect) : json_null());
    json_object_set_new(o, "runtime_bytes", json_integer((json_int_t)s->runtime_cpu_detect_bytes));
    json_object_set_new(o, "fmvgen_cpu_levels_bytes", json_integer((json_int_t)s->own_cpu_detect_bytes));
    json_object_set_new(o, "fmvgen_cpu_levels_copies", json_integer((json_int_t)s->own_cpu_detect_copies));
    json_object_set_new(o, "fmvgen_cpu_levels_linked", json_integer((json_int_t)s->own_cpu_detect_linked));
    json_object_set_new(o, "inlined_in_resolvers", json_integer((json_int_t)s->own_cpu_detect_inlined));
    return o;
}

static json_t *size_json(const struct inspect_size *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "functions_counted", json_integer((json_int_t)s->n_counted));
    json_object_set_new(o, "text_bytes", json_integer((json_int_t)s->text));
    json_object_set_new(o, "text_bytes_without_clones", json_integer((json_int_t)s->text_without));
    json_object_set_new(o, "clone_bytes", json_integer((json_int_t)s->clone_bytes));
    json_object_set_new(o, "resolver_bytes", json_integer((json_int_t)s->resolver_bytes));
    json_object_set_new(o, "trampoline_bytes", json_integer((json_int_t)s->trampoline_bytes));
    json_object_set_new(o, "measured_growth_bytes",
                        json_integer((json_int_t)(s->clone_bytes + s->resolver_bytes + s->trampoline_bytes)));
    json_object_set_new(o, "cpu_detection_bytes",
                        s->cpu_detect_bytes >= 0 ? json_integer((json_int_t)s->cpu_detect_bytes) : json_null());
    json_object_set_new(o, "cpu_detection", cpu_detection_json(s));
    json_object_set_new(o, "default_clone_bytes", json_integer((json_int_t)s->default_bytes));
    json_object_set_new(o, "R", json_real(s->r));
    json_object_set_new(o, "N", s->n_versions ? json_integer(s->n_versions) : json_null());
    json_object_set_new(o, "N_mean", json_real(s->n_mean));
    json_object_set_new(o, "predicted_growth_bytes", json_integer((json_int_t)s->predicted_growth));
    json_object_set_new(o, "predicted_text_bytes", json_integer((json_int_t)(s->text_without + s->predicted_growth)));
    json_object_set_new(o, "formula", json_string("(1-R)*C + R*C*N, C = text_bytes_without_clones"));
    return o;
}

json_t *inspect_to_json(const struct inspect_report *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(r->path));
    json_object_set_new(o, "kind", json_string(inspect_kind(r)));
    json_object_set_new(o, "static", json_boolean(r->is_static));
    json_object_set_new(o, "stripped", json_boolean(!r->has_symtab));
    json_object_set_new(o, "symbol_table", json_string(r->has_symtab ? ".symtab" : ".dynsym"));
    json_object_set_new(o, "irelative_relocations", json_integer((json_int_t)r->list.n_irelative));
    json_object_set_new(o, "ifunc_symbols", json_integer((json_int_t)r->list.n_ifunc_symbols));
    json_object_set_new(o, "irelative_unlisted", json_integer((json_int_t)r->list.n_irelative_unlisted));
    json_object_set_new(o, "ifunc_unresolved",
                        r->list.ifunc_unresolved ? json_string(r->list.ifunc_unresolved) : json_null());
    char *note = inspect_stripped_note(r);
    json_object_set_new(o, "note", note ? json_string(note) : json_null());
    free(note);
    json_t *fns = json_array();
    for (size_t i = 0; i < r->list.n_functions; i++) json_array_append_new(fns, function_json(&r->functions[i]));
    json_object_set_new(o, "functions", fns);
    json_object_set_new(o, "code_size", size_json(&r->size));
    return o;
}
