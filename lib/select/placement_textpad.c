/* placement_textpad.c - session_text_pad (session_phases.h): before the
 * selected build, after the placement pins, the pad before .text's
 * functions (select/textpad.h) is measured on the baseline's and the
 * all-candidates builds' linked files and set in the assignments
 * (patch/plan.h: patch_assignments.text_pad), within the code-growth
 * budget's room (budget_take_pad: its bytes in every linked file that
 * will hold it). --dispatch cpuid only: the other dispatches put the
 * clones in .text, which moves the functions after them anyway.
 *
 * The files that hold it: those of an all-candidates build where a
 * selected function of its set has its IFUNC or its default copy (the
 * patched objects' files). One pad serves them all (the patch writes one
 * for the whole selection), so they must agree; where they do not, or the
 * model does not hold for one of them, there is no pad and a note says
 * why. A pad of 0 (nothing shifts) is none, and costs nothing. */
#include "select/session_phases.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/codesize.h"
#include "elf/elffile.h"
#include "elf/pltslots.h"
#include "elf/textstart.h"
#include "select/budget.h"
#include "select/textpad.h"

/* The linked files of one build, opened, with their PLT entries and .text. */
struct build_files {
    const char *dir;
    struct strvec paths;
    struct elf_file *efs;      /* elf NULL: unreadable */
    struct elf_plt_slots *plt;
    struct elf_text_start *text;
    int *text_ok;
};

static void open_build(const char *dir, struct build_files *b)
{
    memset(b, 0, sizeof *b);
    b->dir = dir;
    elf_find_linked(dir, &b->paths);
    size_t n = b->paths.n + 1;
    b->efs = xcalloc(n, sizeof *b->efs);
    b->plt = xcalloc(n, sizeof *b->plt);
    b->text = xcalloc(n, sizeof *b->text);
    b->text_ok = xcalloc(n, sizeof *b->text_ok);
    for (size_t i = 0; i < b->paths.n; i++) {
        if (elf_file_open(b->paths.v[i], &b->efs[i]) != 0) {
            memset(&b->efs[i], 0, sizeof b->efs[i]);
            continue;
        }
        elf_plt_slots_read(&b->efs[i], &b->plt[i]);
        b->text_ok[i] = elf_text_start_read(&b->efs[i], &b->text[i]) == 0;
    }
}

static void close_build(struct build_files *b)
{
    for (size_t i = 0; i < b->paths.n; i++) {
        if (b->efs[i].elf) elf_file_close(&b->efs[i]);
        elf_plt_slots_free(&b->plt[i]);
    }
    free(b->efs);
    free(b->plt);
    free(b->text);
    free(b->text_ok);
    sv_free(&b->paths);
}

static const char *rel_of(const struct build_files *b, size_t i)
{
    size_t n = strlen(b->dir);
    const char *p = b->paths.v[i];
    return !strncmp(p, b->dir, n) && p[n] == '/' ? p + n + 1 : p;
}

/* The index of b's file at relative path rel, or SIZE_MAX. */
static size_t file_at(const struct build_files *b, const char *rel)
{
    for (size_t i = 0; i < b->paths.n; i++)
        if (b->efs[i].elf && !strcmp(rel_of(b, i), rel)) return i;
    return SIZE_MAX;
}

/* The PLT entries of file i of b reaching function name's IFUNC that the
 * baseline's same file (bi, SIZE_MAX: none) did not have, in bytes; 0
 * where b's PLT does not lie below .text. */
static uint64_t new_slots(const struct build_files *b, size_t i, const struct build_files *base, size_t bi,
                          const char *name)
{
    if (b->text[i].plt_after || !b->text[i].plt_bytes) return 0;
    const struct elf_plt_slots *p = &b->plt[i];
    const struct elf_sym *first;
    size_t n = elf_file_syms_named(&b->efs[i], name, &first);
    uint64_t bytes = 0;
    for (size_t k = 0; k < n; k++) {
        int dup = 0;
        for (size_t j = 0; j < k && !dup; j++) dup = first[j].value == first[k].value;
        if (!dup && first[k].type == STT_GNU_IFUNC) bytes += elf_plt_bytes_for(p, first[k].value, NULL, NULL);
    }
    if (bi == SIZE_MAX || !elf_plt_jump_slot_named(&base->plt[bi].jump_slots, name))
        bytes += elf_plt_bytes_for(p, 0, name, NULL);
    return bytes;
}

/* Function name's code is in file i of b: its IFUNC or its default copy. */
static int holds(const struct build_files *b, size_t i, const char *name)
{
    const struct elf_sym *first;
    size_t n = elf_file_syms_named(&b->efs[i], name, &first);
    for (size_t k = 0; k < n; k++)
        if (first[k].type == STT_GNU_IFUNC) return 1;
    char *def = xasprintf("fmvgen_cp_%s_default", name);
    int h = elf_file_sym_named(&b->efs[i], def) != NULL;
    free(def);
    return h;
}

/* A placement pin (aligned to 64) lies in file bi of the baseline's .text:
 * a pinned function's symbol is there, or a pinned default copy is in
 * file i of b. */
static int pinned_in(const struct patch_assignments *a, const struct build_files *base, size_t bi,
                     const struct build_files *b, size_t i)
{
    for (size_t k = 0; k < a->n_pins; k++)
        if (elf_file_sym_named(&base->efs[bi], a->pins[k].name)) return 1;
    for (size_t k = 0; b && k < a->n_copy_pins; k++) {
        if (strcmp(a->copy_pins[k].slug, "default")) continue;
        char *def = xasprintf("fmvgen_cp_%s_default", a->copy_pins[k].name);
        int h = elf_file_sym_named(&b->efs[i], def) != NULL;
        free(def);
        if (h) return 1;
    }
    return 0;
}

/* What one file needs: *gets (it will hold the pad) and the pad, or -1 and
 * *why. */
static int file_pad(const struct select_session *s, const struct patch_assignments *a, const struct build_files *base,
                    size_t bi, const struct build_files *vb, int *gets, unsigned *pad, char **why)
{
    const struct select_report *r = &s->rep;
    struct textpad_variant *vars = xcalloc(r->n_variants + 1, sizeof *vars);
    struct textpad_file f = {.path = rel_of(base, bi), .base = base->text[bi], .vars = vars};
    *gets = 0;
    f.pinned = pinned_in(a, base, bi, NULL, 0);
    for (size_t v = 1; v < r->n_variants; v++) {
        const struct build_files *b = &vb[v];
        size_t i = b->dir ? file_at(b, f.path) : SIZE_MAX;
        if (i == SIZE_MAX || !b->text_ok[i]) continue;
        struct textpad_variant tv = {.name = r->variants[v].name, .start = b->text[i]};
        int here = 0;
        struct strvec seen = STRVEC_INIT;
        for (size_t fi = 0; fi < r->n_functions && fi < s->candidates.nfunctions; fi++) {
            const char *name = s->candidates.functions[fi].name;
            int sel = r->functions[fi].in_patch && r->functions[fi].set == (int)v;
            if (sel && holds(b, i, name)) here = 1;
            if (sv_contains(&seen, name)) continue;
            sv_push(&seen, name);
            uint64_t bytes = new_slots(b, i, base, bi, name);
            tv.all_slots += bytes;
            int any_sel = 0;   /* a namesake selected from this set */
            for (size_t fj = 0; fj < r->n_functions && fj < s->candidates.nfunctions && !any_sel; fj++)
                any_sel = r->functions[fj].in_patch && r->functions[fj].set == (int)v &&
                          !strcmp(s->candidates.functions[fj].name, name);
            if (any_sel) tv.sel_slots += bytes;
        }
        sv_free(&seen);
        if (!here) continue;
        *gets = 1;
        f.pinned = f.pinned || pinned_in(a, base, bi, b, i);
        vars[f.n_vars++] = tv;
    }
    int rc = *gets ? textpad_of_file(&f, pad, why) : 0;
    free(vars);
    return rc;
}

void session_text_pad(struct select_session *s, struct patch_assignments *a)
{
    struct select_report *r = &s->rep;
    if (s->o->dispatch != PATCH_DISPATCH_CPUID || !a->n) return;
    struct build_files base, *vb = xcalloc(r->n_variants + 1, sizeof *vb);
    open_build(s->builds[0].dir, &base);
    for (size_t v = 1; v < r->n_variants; v++) {
        int used = 0;
        for (size_t f = 0; f < r->n_functions && !used; f++) used = r->functions[f].in_patch && r->functions[f].set == (int)v;
        if (used && r->variants[v].built) open_build(s->builds[v].dir, &vb[v]);
    }
    struct strbuf files = STRBUF_INIT, bad = STRBUF_INIT;
    size_t n_files = 0;
    int differ = 0;
    unsigned pad = 0;
    for (size_t bi = 0; bi < base.paths.n; bi++) {
        if (!base.efs[bi].elf || !base.text_ok[bi]) continue;
        int gets = 0;
        unsigned k = 0;
        char *why = NULL;
        if (file_pad(s, a, &base, bi, vb, &gets, &k, &why) != 0) {
            sb_addf(&bad, "%s%s", bad.len ? "; " : "", why);
            free(why);
            continue;
        }
        if (!gets) continue;
        if (n_files && k != pad) differ = 1;
        if (!n_files || k > pad) pad = k;
        sb_addf(&files, "%s%s %u", files.len ? ", " : "", rel_of(&base, bi), k);
        n_files++;
    }
    if (bad.len)
        sv_pushf(&r->notes, "no pad before .text's functions: the selected build's start of .text cannot be told "
                            "from the builds measured (%s), so the functions the selection does not change may "
                            "move with it", sb_str(&bad));
    else if (differ)
        sv_pushf(&r->notes, "no pad before .text's functions: the linked files holding the selection need different "
                            "ones (bytes: %s) and the patch writes one", sb_str(&files));
    else if (pad && !budget_take_pad(&r->budget, pad, n_files))
        sv_pushf(&r->notes, "no pad before .text's functions: no room in the code-growth budget for %u bytes in each "
                            "of %zu linked file%s", pad, n_files, n_files == 1 ? "" : "s");
    else if (pad) {
        a->text_pad = pad;
        sv_pushf(&r->notes, "a pad of %u bytes before .text's functions (fmvgen_text_pad, one per linked file) keeps "
                            "the functions the selection does not change at the offsets mod 64 they had in the "
                            "baseline build, which the selection's IFUNC PLT entries before .text, or the 64-byte alignment "
                            "of its pins in .text, would move: %s",
                 pad, sb_str(&files));
    }
    sb_free(&files);
    sb_free(&bad);
    for (size_t v = 1; v < r->n_variants; v++)
        if (vb[v].dir) close_build(&vb[v]);
    free(vb);
    close_build(&base);
}
