/* codecost.c - see codecost.h. */
#include "select/codecost.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "elf/elffile.h"
#include "elf/pltslots.h"
#include "select/attribution.h"
#include "select/linkedfile.h"

/* Measures dir into c; the per-function sizes are kept in cs for the
 * caller (freed by it). 0 when dir was measured. */
static int measure(struct select_report *r, const char *what, const char *dir, struct select_code *c,
                   struct code_size *cs)
{
    memset(cs, 0, sizeof *cs);
    if (!dir) return -1;
    if (code_size_of_dir(dir, cs) != 0)
        sv_pushf(&r->notes, "%zu linked file%s of the %s build could not be read: its code size leaves %s out",
                 cs->n_unreadable, cs->n_unreadable == 1 ? "" : "s", what, cs->n_unreadable == 1 ? "it" : "them");
    c->measured = 1;
    c->n_files = cs->n_files;
    c->code_bytes = cs->code_bytes;
    c->clone_bytes = cs->clone_bytes;
    c->resolver_bytes = cs->resolver_bytes;
    c->code_crc = cs->code_crc;
    c->cpu_detect_bytes = c->cpu_levels_bytes = 0;
    for (size_t i = 0; i < cs->n_files && c->cpu_detect_bytes >= 0; i++) {
        const struct code_size_file *cf = &cs->files[i];
        if (cf->cpu_detect_bytes < 0 || cf->cpu_levels_bytes < 0) {
            c->cpu_detect_bytes = c->cpu_levels_bytes = -1;
            break;
        }
        c->cpu_detect_bytes += cf->cpu_detect_bytes + cf->cpu_levels_bytes;
        c->cpu_levels_bytes += cf->cpu_levels_bytes;
    }
    return 0;
}

/* The path of file (a path under dir) relative to dir. */
static const char *relative(const char *dir, const char *file)
{
    size_t n = strlen(dir);
    if (!strncmp(file, dir, n) && file[n] == '/') return file + n + 1;
    return file;
}

/* The file of base (under base_dir) at the same path as file i of cs
 * (under dir), or NULL. */
static const struct code_size_file *base_file(const struct code_size *cs, const char *dir, size_t i,
                                              const struct code_size *base, const char *base_dir)
{
    const char *rel = relative(dir, cs->files[i].path);
    for (size_t j = 0; base && j < base->n_files; j++)
        if (!strcmp(relative(base_dir, base->files[j].path), rel)) return &base->files[j];
    return NULL;
}

/* fn's PLT entries in cs that the baseline had already: one per file
 * where the baseline's same file called fn through a JUMP_SLOT entry
 * (elf/pltslots.h). */
static int64_t plt_before(const struct code_size *cs, const char *dir, const struct code_size_function *fn,
                          const struct code_size *base, const char *base_dir)
{
    int64_t before = 0;
    for (size_t k = 0; k < fn->n_plt; k++) {
        size_t i = fn->plt[k].file;
        const struct code_size_file *b = base_file(cs, dir, i, base, base_dir);
        if (!b || !elf_plt_jump_slot_named(&b->jump_slots, fn->name)) continue;
        uint64_t one = cs->files[i].plt_entry_bytes;
        before += (int64_t)(one < fn->plt[k].bytes ? one : fn->plt[k].bytes);
    }
    return before;
}

/* The bytes fn adds in cs: its clones, resolver, their padding and the PLT
 * entries that are new against the baseline. */
static int64_t function_added(const struct code_size *cs, const char *dir, const struct code_size_function *fn,
                              const struct code_size *base, const char *base_dir)
{
    return (int64_t)code_size_added(fn) - plt_before(cs, dir, fn, base, base_dir);
}

/* Bytes the clones of function name add in cs (summed over its multiversioned
 * functions whose base name is name), -1 when it has none there. */
static int64_t added_bytes(const struct code_size *cs, const char *dir, const char *name, const struct code_size *base,
                           const char *base_dir)
{
    int64_t total = -1;
    for (size_t i = 0; i < cs->n_functions; i++) {
        char *b = attribution_base_name(cs->functions[i].name);
        if (!strcmp(b, name))
            total = (total < 0 ? 0 : total) + function_added(cs, dir, &cs->functions[i], base, base_dir);
        free(b);
    }
    return total;
}

/* The baseline's linked files, opened (a file that cannot be read: its
 * elf NULL). */
struct base_elves {
    struct elf_file *efs;
    size_t n;
};

/* The bytes the function named name had in the baseline: its function
 * symbols of that name, each address once per file; -1 when it has none
 * (a static function the compiler renamed, or inlined everywhere). */
static int64_t original_bytes(const struct base_elves *b, const char *name)
{
    int64_t sum = -1;
    for (size_t f = 0; b && f < b->n; f++) {
        if (!b->efs[f].elf) continue;
        const struct elf_sym *first;
        size_t n = elf_file_syms_named(&b->efs[f], name, &first);
        for (size_t i = 0; i < n; i++) {
            int dup = 0;
            for (size_t j = 0; j < i && !dup; j++) dup = first[j].value == first[i].value;
            if (dup || first[i].type != STT_FUNC) continue;
            sum = (sum < 0 ? 0 : sum) + (int64_t)first[i].size;
        }
    }
    return sum;
}

/* How much the default copies of function name in cs differ from the code
 * it had in the baseline (the default copy replaces it: target_clones'
 * NAME.default, cpuid's fmvgen_cp_NAME_default); 0 when either is not
 * known. */
static int64_t default_change(const struct code_size *cs, const char *name, const struct base_elves *b)
{
    int64_t def = 0;
    for (size_t i = 0; i < cs->n_functions; i++) {
        char *bn = attribution_base_name(cs->functions[i].name);
        if (!strcmp(bn, name)) def += (int64_t)cs->functions[i].default_bytes;
        free(bn);
    }
    int64_t orig = def > 0 ? original_bytes(b, name) : -1;
    return orig > 0 ? def - orig : 0;
}

/* What every multiversioned function of cs adds beyond its clones' and
 * resolvers' symbols: padding and new PLT entries. */
static int64_t extra_bytes(const struct code_size *cs, const char *dir, const struct code_size *base,
                           const char *base_dir)
{
    int64_t sum = 0;
    for (size_t i = 0; i < cs->n_functions; i++) {
        const struct code_size_function *fn = &cs->functions[i];
        sum += function_added(cs, dir, fn, base, base_dir) - (int64_t)(fn->clone_bytes + fn->resolver_bytes);
    }
    return sum;
}

/* The CPU-detection bytes file i of cs (under dir) holds beyond the same
 * file of the baseline (base, under base_dir; NULL: none measured): -1
 * when either cannot be told. */
static int64_t cpu_detect_added(const struct code_size *cs, const char *dir, size_t i, const struct code_size *base,
                                const char *base_dir)
{
    int64_t own = cs->files[i].cpu_detect_bytes;
    if (own < 0) return -1;
    const struct code_size_file *b = base_file(cs, dir, i, base, base_dir);
    if (!b) return own;   /* a file the baseline does not have */
    if (b->cpu_detect_bytes < 0) return -1;
    return own > b->cpu_detect_bytes ? own - b->cpu_detect_bytes : 0;
}

static void add_clone_file(struct select_clone_files *out, const char *rel, const char *unit, int64_t bytes,
                           uint64_t run_padding)
{
    for (size_t m = 0; m < out->n; m++)
        if (!strcmp(out->files[m].path, rel) && !out->files[m].unit == !unit &&
            (!unit || !strcmp(out->files[m].unit, unit)))
            return;
    out->files = xrealloc(out->files, (out->n + 1) * sizeof *out->files);
    out->files[out->n++] = (struct select_clone_file){xstrdup(rel), bytes, unit ? xstrdup(unit) : NULL, run_padding};
}

/* The files of cs where function name has clones, into out: each file
 * whose clones a compiler-made resolver reaches with that file's runtime
 * CPU detection, and each object file with its cpuid copies with its own
 * fmvgen code (an older fmvgen's fmvgen_cpu_levels, padding), and the
 * linked file's one fmvgen_cpu_levels (unit ELF_CPUID_LINKED_UNIT). */
static void clone_files(const struct code_size *cs, const char *dir, const char *name, const struct code_size *base,
                        const char *base_dir, struct select_clone_files *out)
{
    for (size_t k = 0; k < cs->n_functions; k++) {
        const struct code_size_function *fn = &cs->functions[k];
        char *b = attribution_base_name(fn->name);
        int match = !strcmp(b, name);
        free(b);
        if (!match) continue;
        for (size_t j = 0; j < fn->n_files; j++) {
            size_t i = fn->files[j];
            add_clone_file(out, relative(dir, cs->files[i].path), NULL, cpu_detect_added(cs, dir, i, base, base_dir),
                           cs->files[i].run_padding);
        }
        for (size_t u = 0; u < fn->n_units; u++) {
            const struct code_size_unit *cu = &fn->units[u];
            add_clone_file(out, relative(dir, cs->files[cu->file].path), cu->unit, (int64_t)cu->levels_bytes, 0);
        }
    }
}

/* The baseline's file at rel (under base_dir), opened, or NULL. */
static const struct elf_file *base_elf(const struct base_elves *b, const char *base_dir, const char *rel)
{
    for (size_t i = 0; b && base_dir && i < b->n; i++)
        if (b->efs[i].elf && !strcmp(relative(base_dir, b->efs[i].path), rel)) return &b->efs[i];
    return NULL;
}

/* A function told by linked file (select_build_dirs.linked): its bytes
 * added and clone files, from each file of cs (under dir) whose baseline
 * copy holds its own definition (the files holding none of that name, or
 * a namesake's, are left out), each measured alone. */
static void owned_files(const struct select_build_dirs *dirs, long id, struct select_function *fn, size_t index,
                        const struct code_size *cs, const char *dir, const struct code_size *base,
                        const char *base_dir, const struct base_elves *elves)
{
    int64_t total = -1;
    for (size_t i = 0; i < cs->n_files; i++) {
        const char *rel = relative(dir, cs->files[i].path);
        const struct elf_file *be = base_elf(elves, base_dir, rel);
        const struct elf_sym *first = NULL;
        if (!be || !elf_file_syms_named(be, fn->name, &first)) continue;   /* none of that name there */
        char *at = xasprintf("%s/%s", dirs->builddir, rel);
        long owner = linked_files_owner(dirs->linked, fn->name, at, be->path);
        free(at);
        if (owner != id) continue;
        struct code_size one;
        char *path = cs->files[i].path;
        if (code_size_measure(&path, 1, &one) == 0) {
            int64_t added = added_bytes(&one, dir, fn->name, base, base_dir);
            if (added >= 0) {
                if (index > 0) {
                    struct base_elves only = {(struct elf_file *)be, 1};
                    added += default_change(&one, fn->name, &only);
                    if (added < 0) added = 0;
                }
                total = (total < 0 ? 0 : total) + added;
            }
            clone_files(&one, dir, fn->name, base, base_dir, &fn->clone_files[index]);
        }
        code_size_free(&one);
    }
    fn->bytes_added[index] = total;
}

/* Empties cf (its files freed). */
static void clone_files_reset(struct select_clone_files *cf)
{
    for (size_t i = 0; i < cf->n; i++) {
        free(cf->files[i].path);
        free(cf->files[i].unit);
    }
    free(cf->files);
    memset(cf, 0, sizeof *cf);
}

/* The non-default copies of function name in cs (its multiversioned
 * functions whose base name is name), into out (emptied first). */
static void fill_copies(const struct code_size *cs, const char *name, struct select_copies *out)
{
    select_copies_clear(out);
    for (size_t i = 0; i < cs->n_functions; i++) {
        char *b = attribution_base_name(cs->functions[i].name);
        int match = !strcmp(b, name);
        free(b);
        for (size_t c = 0; match && c < cs->functions[i].n_copies; c++) {
            const struct code_size_copy *cp = &cs->functions[i].copies[c];
            size_t k = 0;
            while (k < out->n && strcmp(out->symbols[k], cp->symbol)) k++;
            if (k == out->n) {
                out->symbols = xrealloc(out->symbols, (out->n + 1) * sizeof *out->symbols);
                out->bytes = xrealloc(out->bytes, (out->n + 1) * sizeof *out->bytes);
                out->symbols[out->n] = xstrdup(cp->symbol);
                out->bytes[out->n++] = 0;
            }
            out->bytes[k] += (int64_t)cp->bytes;
        }
    }
}

static void fill_functions(struct select_report *r, size_t index, const struct code_size *cs, const char *dir,
                           const struct code_size *base, const char *base_dir, const struct base_elves *elves,
                           const struct select_build_dirs *dirs)
{
    for (size_t f = 0; f < r->n_functions; f++) {
        struct select_function *fn = &r->functions[f];
        if (!fn->bytes_added) {
            fn->bytes_added = xcalloc(r->n_variants + 1, sizeof *fn->bytes_added);
            for (size_t v = 0; v <= r->n_variants; v++) fn->bytes_added[v] = -1;
        }
        if (!fn->clone_files) fn->clone_files = xcalloc(r->n_variants + 1, sizeof *fn->clone_files);
        if (!fn->copies) fn->copies = xcalloc(r->n_variants + 1, sizeof *fn->copies);
        fill_copies(cs, fn->name, &fn->copies[index]);
        long id = dirs->builddir ? linked_files_id(dirs->linked, f) : 0;
        if (id > 0) {
            clone_files_reset(&fn->clone_files[index]);   /* measured anew each time */
            owned_files(dirs, id, fn, index, cs, dir, base, base_dir, elves);
            continue;
        }
        fn->bytes_added[index] = added_bytes(cs, dir, fn->name, base, base_dir);
        if (fn->bytes_added[index] >= 0 && index > 0) {
            /* at least nothing: -1 means unknown, and dropping a function
             * whose default copy shrank more than its clones add saves
             * nothing */
            fn->bytes_added[index] += default_change(cs, fn->name, elves);
            if (fn->bytes_added[index] < 0) fn->bytes_added[index] = 0;
        }
        struct select_clone_files *cf = &fn->clone_files[index];
        clone_files_reset(cf);   /* measured anew each time */
        clone_files(cs, dir, fn->name, base, base_dir, cf);
    }
}

void select_measure_code(struct select_report *r, const struct select_build_dirs *dirs)
{
    struct code_size cs, base;
    memset(&base, 0, sizeof base);
    const char *base_dir = r->n_variants && dirs->variants ? dirs->variants[0] : NULL;
    int have_base = 0;
    struct strvec base_files = STRVEC_INIT;
    struct base_elves elves = {NULL, 0};
    if (base_dir) {
        elf_find_linked(base_dir, &base_files);
        elves.n = base_files.n;
        elves.efs = xcalloc(elves.n + 1, sizeof *elves.efs);
        for (size_t i = 0; i < elves.n; i++)
            if (elf_file_open(base_files.v[i], &elves.efs[i]) != 0) memset(&elves.efs[i], 0, sizeof elves.efs[i]);
    }
    for (size_t v = 0; v < r->n_variants; v++) {
        const char *dir = dirs->variants ? dirs->variants[v] : NULL;
        if (measure(r, r->variants[v].name, dir, &r->variants[v].code, &cs) == 0) {
            fill_functions(r, v, &cs, dir, have_base ? &base : NULL, base_dir, &elves, dirs);
            r->variants[v].code.extra_bytes = extra_bytes(&cs, dir, have_base ? &base : NULL, base_dir);
        }
        if (v == 0 && r->variants[0].code.measured) {
            base = cs;   /* kept: the other builds' files are told against it */
            have_base = 1;
        } else
            code_size_free(&cs);
    }
    if (measure(r, "selected", dirs->selected, &r->selected_code, &cs) == 0) {
        fill_functions(r, r->n_variants, &cs, dirs->selected, have_base ? &base : NULL, base_dir, &elves, dirs);
        r->selected_code.extra_bytes = extra_bytes(&cs, dirs->selected, have_base ? &base : NULL, base_dir);
    }
    code_size_free(&cs);
    code_size_free(&base);
    for (size_t i = 0; i < elves.n; i++)
        if (elves.efs[i].elf) elf_file_close(&elves.efs[i]);
    free(elves.efs);
    sv_free(&base_files);

    struct select_march *refs[2] = {&r->march, &r->march_nofma};
    const char *ref_dirs[2] = {dirs->march, dirs->march_nofma};
    for (int i = 0; i < 2; i++) {
        struct select_march *m = refs[i];
        if (measure(r, m->title ? m->title : "reference", ref_dirs[i], &m->code, &cs) == 0 && !m->failure) {
            const struct select_code *base = r->n_variants ? &r->variants[0].code : NULL;
            if (!m->code.n_files)
                m->failure = xstrdup("it produced no linked x86-64 program or library");
            else if (base && base->measured && base->n_files == m->code.n_files &&
                     base->code_crc == m->code.code_crc && base->code_bytes == m->code.code_bytes)
                m->failure = xasprintf("its code is identical to the baseline's: %s reached no compile that made "
                                       "the linked files", m->flags ? m->flags : "its flags");
        }
        code_size_free(&cs);
    }
}
