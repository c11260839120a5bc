/* place.c - see plan_internal.h (patch_settle_in_files, patch_build_file,
 * patch_line_of_offset): where each line goes in a file's text - below
 * C++11 [[...]] lists, not again where an FMVGEN_CLONES* line is - and the
 * file's new content and diff. */
#include "patch/plan_internal.h"
#include "candidates/marker.h"
#include "patch/cpuid.h"
#include "patch/textpad.h"
#include "patch/diff.h"
#include "patch/lambda.h"
#include "patch/laterdecl.h"
#include "patch/ltexports.h"
#include "patch/pointer.h"
#include "patch/redecl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_CONTEXT 3
#define INLINE_MACRO PATCH_INLINE_MACRO

/* The line ending of the line at offset ("\r\n" or "\n"); a last line
 * without newline takes the file's first line ending. */
static const char *eol_at(const char *text, size_t len, size_t offset)
{
    const char *nl = offset < len ? memchr(text + offset, '\n', len - offset) : NULL;
    if (!nl) nl = memchr(text, '\n', len);
    return nl && nl > text && nl[-1] == '\r' ? "\r\n" : "\n";
}

static char *indent_at(const char *text, size_t len, size_t offset)
{
    size_t n = 0;
    while (offset + n < len && (text[offset + n] == ' ' || text[offset + n] == '\t')) n++;
    return xstrndup(text + offset, n);
}

/* Where the preamble goes: before the first candidate, unless that line is
 * inside an #if/#ifdef block (the macro would be undefined outside it),
 * then before the outermost open #if. Block comments are skipped so that a
 * commented-out "#if" does not count. */
static size_t preamble_offset(const char *text, size_t first)
{
    size_t pos = 0, open_at = 0;
    int depth = 0, in_comment = 0;
    while (pos < first) {
        const char *nl = memchr(text + pos, '\n', first - pos);
        size_t end = nl ? (size_t)(nl - text) + 1 : first;
        const char *s = text + pos, *e = text + end;
        if (!in_comment) {
            const char *c = s;
            while (c < e && (*c == ' ' || *c == '\t')) c++;
            if (c < e && *c == '#') {
                c++;
                while (c < e && (*c == ' ' || *c == '\t')) c++;
                size_t w = 0;
                while (c + w < e && ((c[w] >= 'a' && c[w] <= 'z'))) w++;
                if ((w == 2 && !strncmp(c, "if", 2)) || (w == 5 && !strncmp(c, "ifdef", 5)) ||
                    (w == 6 && !strncmp(c, "ifndef", 6))) {
                    if (depth == 0) open_at = pos;
                    depth++;
                } else if (w == 5 && !strncmp(c, "endif", 5) && depth > 0) {
                    depth--;
                }
            }
        }
        for (const char *c = s; c + 1 < e; c++) {
            if (!in_comment && c[0] == '/' && c[1] == '/') break;
            if (!in_comment && c[0] == '/' && c[1] == '*') in_comment = 1, c++;
            else if (in_comment && c[0] == '*' && c[1] == '/') in_comment = 0, c++;
        }
        pos = end;
    }
    return depth == 0 ? first : open_at;
}

/* 1 when the definition starting at pos has internal linkage: the word
 * "static" comes before the function's name (the identifier followed by
 * '('), skipping comments, __attribute__((...)) and [[...]]. */
static int is_static_at(const char *text, size_t len, size_t pos)
{
    size_t end = len - pos > 4096 ? pos + 4096 : len;
    size_t i = pos;
    while (i < end) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '*' || c == '&') {
            i++;
        } else if (c == '/' && i + 1 < end && text[i + 1] == '*') {
            const char *close = memmem(text + i + 2, end - i - 2, "*/", 2);
            if (!close) return 0;
            i = (size_t)(close - text) + 2;
        } else if (c == '/' && i + 1 < end && text[i + 1] == '/') {
            while (i < end && text[i] != '\n') i++;
        } else if (c == '[' && i + 1 < end && text[i + 1] == '[') {
            const char *close = memmem(text + i + 2, end - i - 2, "]]", 2);
            if (!close) return 0;
            i = (size_t)(close - text) + 2;
        } else if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            size_t w = i;
            while (w < end && (text[w] == '_' || (text[w] >= 'a' && text[w] <= 'z') ||
                               (text[w] >= 'A' && text[w] <= 'Z') || (text[w] >= '0' && text[w] <= '9')))
                w++;
            size_t n = w - i;
            if (n == 6 && !strncmp(text + i, "static", 6)) return 1;
            int attribute = (n == 13 && !strncmp(text + i, "__attribute__", 13)) ||
                            (n == 10 && !strncmp(text + i, "__declspec", 10));
            size_t k = w;
            while (k < end && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) k++;
            if (k < end && text[k] == '(') {
                if (!attribute) return 0;   /* the function's name: no "static" before it */
                int depth = 0;
                for (; k < end; k++) {
                    if (text[k] == '(') depth++;
                    else if (text[k] == ')' && --depth == 0) break;
                }
                w = k + 1;
            }
            i = w;
        } else {
            return 0;   /* "::", "<", ... : C++ shapes; external is the safe answer */
        }
    }
    return 0;
}

size_t patch_line_of_offset(const char *text, size_t offset)
{
    size_t line = 1;
    for (size_t i = 0; i < offset; i++)
        if (text[i] == '\n') line++;
    return line;
}

int patch_guard_defined(const char *text, size_t offset, const char *word)
{
    char *guard = xasprintf("#ifndef %s", word);
    size_t glen = strlen(guard);
    int found = 0;
    for (const char *at = text; !found && (at = memmem(at, offset - (size_t)(at - text), guard, glen)); at++) {
        char after = (size_t)(at - text) + glen < offset ? at[glen] : '\n';
        found = after == '\n' || after == '\r' || after == ' ' || after == '\t';
    }
    free(guard);
    return found;
}

/* 1 when text before offset already holds the guard "#ifndef MACRO_STATIC"
 * of a preamble (the whole word: FMVGEN_CLONES_STATIC is not
 * FMVGEN_CLONES_AVX2_STATIC). */
static int preamble_defined(const char *text, size_t offset, const char *macro)
{
    char *word = xasprintf("%s_STATIC", macro);
    int found = patch_guard_defined(text, offset, word);
    free(word);
    return found;
}

/* Why f cannot take the pointer lines of dispatch d (cpuid: its own
 * copies' lines; else pointer dispatch's) for its set, or NULL with the
 * lines in *pl. */
static const char *pointer_lines(const struct patch_function *f, const char *text, size_t len, enum patch_dispatch d,
                                 const struct patch_target_set *set, struct patch_pointer_lines *pl)
{
    int cpuid = d == PATCH_DISPATCH_CPUID;
    const char *refused = patch_redecl_refuses_dispatch(f, cpuid ? PATCH_DISPATCH_CPUID : PATCH_DISPATCH_POINTER);
    /* its lines would have to be switched per TU too */
    if (f->switch_tag) return "a header's function, switched per TU (only its attribute line is)";
    if (refused) return refused;
    return cpuid ? patch_cpuid_lines(f, text, len, set, pl) : patch_pointer_lines(f, text, len, set->macro, pl);
}

/* the IFUNC fallbacks already noted on stderr ("REL:LINE NAME: why") */
static struct strvec fallbacks_said;

/* Settles each function's linkage and, with pointer dispatch, whether the
 * rename can take it (its lines in pl[i]; the others go to IFUNC, said
 * why in p->ifunc_fallback). A function libtool exports through a list it
 * made with nm (plain_symbol, patch/ltexports.h) takes the pointer lines
 * whatever the dispatch (cpuid: its trampoline, no IFUNC line), listed in
 * p->plain_symbol; where its shape refuses them, a warning says that its
 * library will not export it. */
static void settle_functions(struct patch_file *pf, struct patch_function **fs, size_t n, struct patch_plan *p,
                             struct patch_pointer_lines *pl)
{
    for (size_t i = 0; i < n; i++) {
        if (fs[i]->helper_of || fs[i]->switch_of) continue;
        char *indent = indent_at(pf->old, pf->old_len, fs[i]->offset);
        /* Internal linkage: "static", or a C++ anonymous namespace (its
         * mangled names hold _GLOBAL__N_): no global alias may be made. Or
         * libclang's linkage, when the scan stored it (a source file TUs
         * include: libjpeg-turbo's "METHODDEF(void)" hides its "static"). */
        fs[i]->is_static = fs[i]->linkage ? fs[i]->linkage == PATCH_LINKAGE_STATIC
                                        : is_static_at(pf->old, pf->old_len, fs[i]->offset + strlen(indent)) ||
                                              strstr(fs[i]->name, "_GLOBAL__N_");
        free(indent);
        fs[i]->plain_symbol = !fs[i]->is_static && sv_contains(&p->lt_exports, fs[i]->name);
    }
    for (size_t i = 0; i < n; i++) {
        if (fs[i]->helper_of || fs[i]->switch_of || patch_lambda_of(fs[i])) continue;   /* no IFUNC, no pointer */
        const char *later = patch_laterdecl_plain(fs[i]);
        if (p->dispatch != PATCH_DISPATCH_POINTER && p->dispatch != PATCH_DISPATCH_CPUID && !fs[i]->plain_symbol &&
            !later)
            continue;
        /* the pointer lines, for a libtool export or a function declared
         * below its definition (patch/laterdecl.h) under IFUNC dispatch too */
        const char *why = pointer_lines(fs[i], pf->old, pf->old_len, p->dispatch, &p->sets[fs[i]->set], &pl[i]);
        /* C++ overloads both renamed: fmvgen_mv_NAME would name two functions */
        char *ident = why ? NULL : patch_pointer_ident(fs[i]);
        for (size_t j = 0; ident && j < n && !why; j++) {
            if (j == i || fs[j]->helper_of || fs[j]->switch_of) continue;
            char *other = patch_pointer_ident(fs[j]);
            if (other && !strcmp(other, ident)) why = "another patched function of its file has the same name (an overload)";
            free(other);
        }
        free(ident);
        if (why && fs[i]->plain_symbol) {
            /* an IFUNC would be dropped from the library's exports: the
             * patch builds, the programs linking the library do not */
            fmv_warn("%s:%d: %s needs a plain symbol (%s), but cannot be reached through a pointer (%s): its "
                     "library will not export it; leave it out or give its library an -export-symbols list",
                     fs[i]->rel, fs[i]->line, fs[i]->display_name, PATCH_LTEXPORT_WHY, why);
        }
        if (why && p->dispatch != PATCH_DISPATCH_POINTER && p->dispatch != PATCH_DISPATCH_CPUID) {
            if (!fs[i]->switch_tag) patch_pointer_lines_free(&pl[i]);
            continue;
        }
        if (why) {
            if (!fs[i]->switch_tag) patch_pointer_lines_free(&pl[i]);
            sv_pushf(&p->ifunc_fallback, "%s:%d %s: %s", fs[i]->rel, fs[i]->line, fs[i]->display_name, why);
            /* said once per process: select plans every build with the same dispatch */
            if (!sv_contains(&fallbacks_said, p->ifunc_fallback.v[p->ifunc_fallback.n - 1])) {
                sv_push(&fallbacks_said, p->ifunc_fallback.v[p->ifunc_fallback.n - 1]);
                fmv_note("%s:%d: %s is dispatched by IFUNC (glibc only), not %s: %s", fs[i]->rel, fs[i]->line,
                         fs[i]->display_name,
                         p->dispatch == PATCH_DISPATCH_CPUID ? "by its own CPUID copies" : "through a pointer", why);
            }
            continue;
        }
        fs[i]->pointer = 1;
        if (fs[i]->plain_symbol && p->dispatch != PATCH_DISPATCH_POINTER) {
            sv_pushf(&p->plain_symbol, "%s:%d %s: %s", fs[i]->rel, fs[i]->line, fs[i]->display_name,
                     PATCH_LTEXPORT_WHY);
            if (!sv_contains(&fallbacks_said, p->plain_symbol.v[p->plain_symbol.n - 1])) {
                sv_push(&fallbacks_said, p->plain_symbol.v[p->plain_symbol.n - 1]);
                fmv_note("%s:%d: %s is reached through a pointer, not an IFUNC symbol: %s", fs[i]->rel, fs[i]->line,
                         fs[i]->display_name, PATCH_LTEXPORT_WHY);
            }
        } else if (later && p->dispatch == PATCH_DISPATCH_IFUNC) {
            sv_pushf(&p->plain_symbol, "%s:%d %s: %s", fs[i]->rel, fs[i]->line, fs[i]->display_name, later);
        }
    }
}

static int build_edits(struct patch_file *pf, struct patch_function **fs, size_t n, struct patch_function **pins,
                       size_t npins, struct patch_plan *p, struct strbuf *diff);

/* The pin lines (patch/pin.c) merged into ins[0..*k) by offset: a pinned
 * function is never a cloned one, so no other line shares its offset but
 * a preamble block, which stays above it. */
static void insert_pins(const struct patch_file *pf, struct patch_function **pins, size_t npins,
                        struct insertion *ins, size_t *k, char **texts)
{
    for (size_t i = 0; i < npins; i++) {
        char *indent = indent_at(pf->old, pf->old_len, pins[i]->offset);
        char *text = patch_pin_line(pins[i], indent, eol_at(pf->old, pf->old_len, pins[i]->offset));
        free(indent);
        size_t at = *k;
        while (at > 0 && ins[at - 1].offset > pins[i]->offset) at--;
        memmove(&ins[at + 1], &ins[at], (*k - at) * sizeof *ins);
        memmove(&texts[at + 1], &texts[at], (*k - at) * sizeof *texts);
        ins[at] = (struct insertion){.offset = pins[i]->offset, .text = text};
        texts[at] = text;
        (*k)++;
    }
}

/* The lines above a definition a header expands under several names
 * (plan.h): the pasting macro, an empty default switch per name, the line
 * that expands to this expansion's switch. */
static char *expansion_block(const struct patch_function *f, const char *indent, const char *eol)
{
    struct strbuf sb = STRBUF_INIT;
    patch_text_line(&sb, eol, "/* fmvgen: a TU that defines FMVGEN_CLONES_ON_%s defines FMVGEN_CLONE_%s_<name>",
                    f->expansion_place, f->expansion_place);
    patch_text_line(&sb, eol, " * as the attribute for the expansions of %s it multi-versions; the others default",
                    f->expansion_spelled);
    patch_text_line(&sb, eol, " * to nothing, and in a TU without it every expansion is left plain. */");
    patch_text_line(&sb, eol, "#ifndef FMVGEN_CLONES_IN_TU");
    patch_text_line(&sb, eol, "# define FMVGEN_CLONES_IN_TU(place, name) FMVGEN_CLONES_IN_TU_(place, name)");
    patch_text_line(&sb, eol,
                    "# define FMVGEN_CLONES_IN_TU_(place, name) FMVGEN_CLONES_GATE_##place(FMVGEN_CLONE_##place##_##name)");
    patch_text_line(&sb, eol, "#endif");
    patch_text_line(&sb, eol, "#ifndef FMVGEN_CLONES_GATE_%s", f->expansion_place);
    patch_text_line(&sb, eol, "# ifdef FMVGEN_CLONES_ON_%s", f->expansion_place);
    patch_text_line(&sb, eol, "#  define FMVGEN_CLONES_GATE_%s(attr) attr", f->expansion_place);
    patch_text_line(&sb, eol, "# else");
    patch_text_line(&sb, eol, "#  define FMVGEN_CLONES_GATE_%s(attr)", f->expansion_place);
    patch_text_line(&sb, eol, "# endif");
    patch_text_line(&sb, eol, "#endif");
    for (size_t i = 0; i < f->expansion_symbols.n; i++) {
        patch_text_line(&sb, eol, "#ifndef FMVGEN_CLONE_%s_%s", f->expansion_place, f->expansion_symbols.v[i]);
        patch_text_line(&sb, eol, "# define FMVGEN_CLONE_%s_%s", f->expansion_place, f->expansion_symbols.v[i]);
        patch_text_line(&sb, eol, "#endif");
    }
    patch_text_line(&sb, eol, "%sFMVGEN_CLONES_IN_TU(%s, %s)", indent, f->expansion_place, f->expansion_spelled);
    return sb_detach(&sb);
}

/* Reads one file, checks it is the scanned version, and computes its new
 * content and diff for functions fs[0..n). */
int patch_build_file(struct patch_file *pf, struct patch_function **fs, size_t n, struct patch_plan *p,
                     struct strbuf *diff)
{
    pf->path = xstrdup(fs[0]->file);
    pf->rel = xstrdup(fs[0]->rel);
    pf->old = read_file(pf->path, &pf->old_len);
    if (!pf->old) return fmv_error("%s: cannot read: %s", pf->path, strerror(errno));
    pf->hash = hash_bytes_hex(pf->old, pf->old_len);
    for (size_t i = 0; i < n; i++) {
        if (fs[i]->source_hash && strcmp(fs[i]->source_hash, pf->hash) != 0)
            return fmv_error("%s: changed since the scan; run 'fmvgen scan' again (nothing was written)", pf->path);
        /* Offsets come from the scan: a line start, on the line it says. */
        if (fs[i]->offset >= pf->old_len || !diff_is_line_start(pf->old, pf->old_len, fs[i]->offset) ||
            (fs[i]->insert_line > 0 && patch_line_of_offset(pf->old, fs[i]->offset) != (size_t)fs[i]->insert_line))
            return fmv_error("%s: the stored position of %s (offset %zu, line %d) is not the start of its line; "
                             "run 'fmvgen scan' again", pf->path, fs[i]->display_name, fs[i]->offset,
                             fs[i]->insert_line);
    }
    /* pinned functions (patch/pin.c) get their attribute line and nothing
     * else: the rest works on the cloned functions and helpers */
    struct patch_function **pins = xcalloc(n + 1, sizeof *pins), **all = fs;
    size_t npins = 0, nall = n;
    fs = xcalloc(n + 1, sizeof *fs);
    n = 0;
    for (size_t i = 0; i < nall; i++) {
        if (all[i]->pin) pins[npins++] = all[i];
        else fs[n++] = all[i];
    }
    pf->nfunctions = 0;   /* switch lines are no functions */
    for (size_t i = 0; i < n; i++) pf->nfunctions += !fs[i]->switch_of;
    int rc = build_edits(pf, fs, n, pins, npins, p, diff);
    free(fs);
    free(pins);
    return rc;
}

/* patch_build_file's edits once the file is read and checked: fs the
 * cloned functions and helpers, pins the pinned ones. */
static int build_edits(struct patch_file *pf, struct patch_function **fs, size_t n, struct patch_function **pins,
                       size_t npins, struct patch_plan *p, struct strbuf *diff)
{
    if (patch_redecl_check(fs, n, pf->path, pf->old, pf->old_len) != 0 ||
        patch_laterdecl_check(fs, n, pf->path, pf->old, pf->old_len) != 0)
        return -1;
    struct patch_pointer_lines *pl = xcalloc(n + 1, sizeof *pl);
    settle_functions(pf, fs, n, p, pl);
    /* the preamble, a line (pointer: two groups) per function, a redeclaration per function, a pin line each,
     * the lines above declarations below definitions */
    size_t nlater = patch_laterdecl_count(fs, n);
    struct insertion *ins = xcalloc(3 * n + npins + nlater + 1, sizeof *ins);
    char **texts = xcalloc(3 * n + npins + nlater + 1, sizeof *texts);
    size_t k = 0;
    /* The sets this file's functions use whose macros are not defined above
     * their first use yet (a file patched before has its preamble: once is
     * enough), for IFUNC and for pointer dispatch apart. Their blocks go
     * together above the first function needing one. */
    struct patch_target_set *missing = xcalloc(p->nsets, sizeof *missing);
    struct patch_target_set *missing_ptr = xcalloc(p->nsets, sizeof *missing_ptr);
    size_t nmissing = 0, nmissing_ptr = 0, first_missing = SIZE_MAX;
    for (int ptr = 0; ptr < 2; ptr++) {
        for (size_t s = 0; s < p->nsets; s++) {
            size_t first = SIZE_MAX;
            for (size_t i = 0; i < n; i++)   /* a redeclaration may come first (patch/redecl.h) */
                if (fs[i]->set == s && !fs[i]->helper_of && !fs[i]->switch_of && fs[i]->pointer == ptr &&
                    !patch_lambda_of(fs[i])) {   /* lambda dispatch needs no preamble */
                    size_t at = ptr ? fs[i]->start : patch_redecl_first_start(fs[i]);
                    if (at < first) first = at;
                }
            int defined = 0;
            if (first != SIZE_MAX && ptr && p->dispatch == PATCH_DISPATCH_CPUID) {
                defined = patch_cpuid_preamble_defined(pf->old, first, &p->sets[s], 1);
            } else if (first != SIZE_MAX) {
                char *macro = ptr ? patch_pointer_macro(p->sets[s].macro) : xstrdup(p->sets[s].macro);
                defined = preamble_defined(pf->old, first, macro);
                free(macro);
            }
            if (first == SIZE_MAX || defined) continue;
            if (first < first_missing) first_missing = first;
            if (ptr) missing_ptr[nmissing_ptr++] = p->sets[s];
            else missing[nmissing++] = p->sets[s];
        }
    }
    /* the helpers' macro, the same way */
    size_t first_helper = SIZE_MAX;
    for (size_t i = 0; i < n && first_helper == SIZE_MAX; i++)
        if (fs[i]->helper_of) first_helper = fs[i]->start;
    int inline_missing = first_helper != SIZE_MAX && !preamble_defined(pf->old, first_helper, INLINE_MACRO);
    /* the hidden-visibility macros, for the sets of such functions */
    struct patch_target_set *hidden_sets = xcalloc(p->nsets, sizeof *hidden_sets);
    size_t nhidden = 0;
    for (size_t s = 0; s < p->nsets; s++) {
        int used = 0;
        for (size_t i = 0; i < n && !used; i++)
            used = fs[i]->set == s && !fs[i]->helper_of && !fs[i]->switch_of && !fs[i]->pointer && !fs[i]->is_static &&
                   fs[i]->hidden && !patch_lambda_of(fs[i]);
        if (used && !memmem(pf->old, pf->old_len, "FMVGEN_HIDE_", 12)) hidden_sets[nhidden++] = p->sets[s];
        if (used && first_missing == SIZE_MAX)
            for (size_t i = 0; i < n; i++)
                if (fs[i]->set == s && !fs[i]->helper_of && !fs[i]->switch_of &&
                    patch_redecl_first_start(fs[i]) < first_missing)
                    first_missing = patch_redecl_first_start(fs[i]);
    }
    if (nmissing || nmissing_ptr || inline_missing || nhidden) {
        size_t pre = preamble_offset(pf->old, inline_missing && first_helper < first_missing ? first_helper : first_missing);
        const char *eol = eol_at(pf->old, pf->old_len, pre);
        struct strbuf text = STRBUF_INIT;
        char *part = nmissing ? patch_preamble_sets(missing, nmissing, eol) : NULL;
        if (part) sb_adds(&text, part);
        free(part);
        part = !nmissing_ptr                           ? NULL
               : p->dispatch == PATCH_DISPATCH_CPUID ? patch_preamble_cpuid(missing_ptr, nmissing_ptr, eol)
                                                       : patch_preamble_pointer(missing_ptr, nmissing_ptr, eol);
        if (part) sb_adds(&text, part);
        free(part);
        /* the pad before .text's functions, with cpuid dispatch's block */
        part = nmissing_ptr && p->dispatch == PATCH_DISPATCH_CPUID && p->text_pad ? patch_text_pad_block(p->text_pad, eol)
                                                                                 : NULL;
        if (part) sb_adds(&text, part);
        free(part);
        part = nhidden ? patch_preamble_hidden(hidden_sets, nhidden, eol) : NULL;
        if (part) sb_adds(&text, part);
        free(part);
        part = inline_missing ? patch_preamble_inline(eol) : NULL;
        if (part) sb_adds(&text, part);
        free(part);
        texts[k] = sb_detach(&text);
        ins[k].offset = pre;
        ins[k].text = texts[k];
        k++;
    }
    free(missing);
    free(missing_ptr);
    free(hidden_sets);
    size_t npre = k;
    for (size_t i = 0; i < n; i++) {
        if (fs[i]->pointer) {
            /* the lines after the previous definitions' end come first at one offset */
            texts[k] = pl[i].before;
            ins[k].offset = pl[i].before_offset;
            ins[k].text = texts[k];
            k++;
            texts[k] = pl[i].after;
            ins[k].offset = pl[i].after_offset;
            ins[k].text = texts[k];
            k++;
            memset(&pl[i], 0, sizeof pl[i]);
            continue;
        }
        if (patch_lambda_of(fs[i]) && !fs[i]->helper_of && !fs[i]->switch_of) {   /* its body's two insertions */
            if (patch_lambda_lines(fs[i], pf->old, pf->old_len, &p->sets[fs[i]->set], &ins[k], &texts[k]) != 0) {
                for (size_t j = 0; j < k; j++) free(texts[j]);
                free(texts);
                free(ins);
                free(pl);
                return -1;
            }
            k += 2;
            continue;
        }
        char *indent = indent_at(pf->old, pf->old_len, fs[i]->offset);
        const char *eol = eol_at(pf->old, pf->old_len, fs[i]->offset);
        if (fs[i]->switch_of && fs[i]->switch_pasted) {
            /* the place's gate, once per TU (expansion_block) */
            int gated = 0;
            for (size_t j = 0; j < i && !gated; j++)
                gated = fs[j]->switch_pasted && !strcmp(fs[j]->expansion_place, fs[i]->expansion_place);
            char *gate = gated ? xstrdup("")
                               : xasprintf("#define FMVGEN_CLONES_ON_%s 1 /* fmvgen: this TU multi-versions "
                                           "expansions of %s */%s",
                                           fs[i]->expansion_place, path_basename(fs[i]->switch_header), eol);
            /* an external function's attribute names its symbol, this
             * expansion's (clang < 18's alias, the hidden dispatcher) */
            char *attr = fs[i]->linkage == PATCH_LINKAGE_EXTERNAL
                             ? xasprintf("%s%s(%s)", p->sets[fs[i]->set].macro, fs[i]->hidden ? "_HIDDEN" : "",
                                         fs[i]->name)
                             : xasprintf("%s_STATIC", p->sets[fs[i]->set].macro);
            texts[k] = xasprintf("%s#define %s %s /* fmvgen: %s's %s multi-versioned in this TU */%s", gate,
                                 fs[i]->switch_of, attr, path_basename(fs[i]->switch_header), fs[i]->display_name, eol);
            free(attr);
            free(gate);
        }
        else if (fs[i]->switch_of)
            texts[k] = xasprintf("#define %s 1 /* fmvgen: %s's %s multi-versioned in this TU */%s", fs[i]->switch_of,
                                 path_basename(fs[i]->switch_header), fs[i]->display_name, eol);
        else if (fs[i]->expansion_place) {
            /* one block for every name of the place: the first function there writes it */
            int written = 0;
            for (size_t j = 0; j < i && !written; j++)
                written = fs[j]->expansion_place && fs[j]->offset == fs[i]->offset && !fs[j]->switch_of;
            if (written) {
                free(indent);
                continue;
            }
            texts[k] = expansion_block(fs[i], indent, eol);
        } else if (fs[i]->switch_tag && !fs[i]->is_static)   /* external: as below, switched */
            texts[k] = xasprintf("#ifdef %s%s%s%s%s(%s)%s#endif%s", fs[i]->switch_tag, eol, indent,
                                 p->sets[fs[i]->set].macro, fs[i]->hidden ? "_HIDDEN" : "",
                                 fs[i]->clones_arg ? fs[i]->clones_arg : fs[i]->name, eol, eol);
        else if (fs[i]->switch_tag)   /* on in the TUs that define the tag (patch_add_switches) */
            texts[k] = xasprintf("#ifdef %s%s%s%s_STATIC%s#endif%s", fs[i]->switch_tag, eol, indent,
                                 p->sets[fs[i]->set].macro, eol, eol);
        else if (fs[i]->helper_of)
            texts[k] = xasprintf("%s%s%s", indent, fs[i]->declared_inline ? PATCH_ALWAYS_INLINE_MACRO : INLINE_MACRO,
                                 eol_at(pf->old, pf->old_len, fs[i]->offset));
        else if (fs[i]->is_static)
            texts[k] = xasprintf("%s%s_STATIC%s", indent, p->sets[fs[i]->set].macro,
                                 eol_at(pf->old, pf->old_len, fs[i]->offset));
        else   /* the preamble macro-expands the argument: each TU's own symbol */
            texts[k] = xasprintf("%s%s%s(%s)%s", indent, p->sets[fs[i]->set].macro, fs[i]->hidden ? "_HIDDEN" : "",
                                 fs[i]->clones_arg ? fs[i]->clones_arg : fs[i]->name,
                                 eol_at(pf->old, pf->old_len, fs[i]->offset));
        free(indent);
        ins[k].offset = fs[i]->offset;
        ins[k].text = texts[k];
        k++;
    }
    free(pl);
    patch_redecl_insert(fs, n, p->sets, pf->old, pf->old_len, ins, &k, npre, texts);
    insert_pins(pf, pins, npins, ins, &k, texts);
    patch_laterdecl_insert(fs, n, p->sets, pf->old, pf->old_len, ins, &k, texts);
    /* A switch line (at the file's first directive) may come before the
     * preamble: by offset, stable (texts[] is freed by index, not order). */
    for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0 && ins[j - 1].offset > ins[j].offset; j--) {
            struct insertion t = ins[j];
            ins[j] = ins[j - 1];
            ins[j - 1] = t;
        }
    pf->new_data = diff_apply_insertions(pf->old, pf->old_len, ins, k, &pf->new_len);
    diff_write_insertions(diff, pf->rel, pf->old, pf->old_len, ins, k, DIFF_CONTEXT);
    for (size_t i = 0; i < k; i++) free(texts[i]);
    free(texts);
    free(ins);
    return 0;
}

/* pos moved past spaces and tabs. */
static size_t skip_blanks(const char *text, size_t len, size_t pos)
{
    while (pos < len && (text[pos] == ' ' || text[pos] == '\t')) pos++;
    return pos;
}

/* The end of the C++11 attribute list "[[...]]" starting at pos (just after
 * its "]]"), or 0 when text at pos is not a complete list. Brackets nest;
 * string literals are skipped. */
static size_t cxx_attribute_list_end(const char *text, size_t len, size_t pos)
{
    if (len - pos < 4 || text[pos] != '[' || text[pos + 1] != '[') return 0;
    int depth = 0;
    for (size_t i = pos; i < len; i++) {
        char c = text[i];
        if (c == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\') i++;
        } else if (c == '[') {
            depth++;
        } else if (c == ']' && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* clang refuses a GNU __attribute__ before a C++11 attribute list ("an
 * attribute list cannot appear here"), so the attribute line may not go
 * above a definition led by "[[...]]" lists. A static function whose lists
 * fill their own lines gets its line below them, just above the
 * decl-specifiers (where g++, clang++ 14 and 19 all clone it). Left out,
 * said why: a list sharing the declaration's line (the line would need
 * splitting), and an external function (its line starts, for clang < 18,
 * with the alias's asm declaration, which may not follow a list either).
 * Moves f's line, or returns why f is left out (NULL: kept). */
static const char *place_after_cxx_attribute_lists(struct patch_function *f, const char *text, size_t len)
{
    size_t at = f->offset, moved = f->offset;
    int same_line = 0;
    while (text && at < len && !same_line) {
        at = skip_blanks(text, len, at);
        size_t end = cxx_attribute_list_end(text, len, at);
        if (!end) break;
        while (end < len && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r')) end++;
        if (end < len && text[end] == '\n') {
            at = moved = end + 1;   /* the lists fill the line: the next line may hold more */
        } else if (end + 1 < len && text[end] == '[' && text[end + 1] == '[') {
            at = end;   /* another list on the same line */
        } else {
            same_line = 1;
        }
    }
    /* An external function's line starts, for clang < 18, with the
     * alias's asm declaration, which may not follow a list either. */
    if (same_line)
        return "a C++11 attribute list [[...]] precedes the declaration on its line, and "
               "clang refuses the attribute before it: move the list to its own line";
    if (moved != f->offset && !strstr(f->name, "_GLOBAL__N_") && !is_static_at(text, len, skip_blanks(text, len, moved)))
        return "it starts with a C++11 attribute list [[...]]: clang refuses the attribute before it, and "
               "the alias clang < 18 needs cannot follow it (static functions are patched below the list)";
    if (moved != f->offset) {
        if (f->insert_line > 0) f->insert_line += (int)(patch_line_of_offset(text, moved) - patch_line_of_offset(text, f->offset));
        f->offset = moved;
    }
    return NULL;
}

/* Why f, which must be reached through a pointer (patch_laterdecl_plain),
 * cannot be under p's dispatch (its target set not known yet: the shape,
 * the params, the redeclaration), or NULL. */
static const char *later_refused(const struct patch_plan *p, const struct patch_function *f, const char *text,
                                 size_t len)
{
    if (f->offset >= len) return NULL;   /* patch_build_file says so */
    struct patch_target_set none;
    memset(&none, 0, sizeof none);
    char macro[] = "FMVGEN_CLONES";
    none.macro = macro;
    struct patch_pointer_lines pl;
    memset(&pl, 0, sizeof pl);
    const char *why = pointer_lines(f, text, len, p->dispatch, &none, &pl);
    patch_pointer_lines_free(&pl);
    return why;
}

/* 1 when f (a function, not a helper) keeps an external symbol that
 * libtool exports through a list it made with nm (patch/ltexports.h):
 * an IFUNC there would be dropped from the library's exports. */
static int lt_exported(const struct patch_plan *p, const struct patch_function *f, const char *text, size_t len)
{
    if (f->helper_of || f->switch_of || !sv_contains(&p->lt_exports, f->name)) return 0;
    if (f->linkage) return f->linkage == PATCH_LINKAGE_EXTERNAL;
    if (f->offset >= len || strstr(f->name, "_GLOBAL__N_")) return 0;
    return !is_static_at(text, len, skip_blanks(text, len, f->offset));
}

/* Settles fs[0..*n) against their files' text, each file read once: each
 * line placed after [[...]] lists (or skipped, said why), then dropped when
 * it already carries the attribute line - after the placement, so a patched
 * file's line below the lists counts as patched - and counted in *already
 * (NULL: not counted). */
void patch_settle_in_files(struct patch_plan *p, struct patch_function *fs, size_t *n, size_t *already)
{
    size_t out = 0, len = 0;
    char *path = NULL, *text = NULL;
    for (size_t i = 0; i < *n; i++) {
        struct patch_function *f = &fs[i];
        if (!path || strcmp(path, f->file) != 0) {
            free(text);
            free(path);
            path = xstrdup(f->file);
            text = read_file(path, &len);   /* unreadable: patch_build_file says so */
        }
        const char *why = place_after_cxx_attribute_lists(f, text, len);
        if (why) {
            sv_pushf(&p->skipped, "%s:%d %s: %s", f->rel, f->line, f->display_name, why);
            fmv_warn("%s:%d: %s not patched: %s", f->file, f->line, f->display_name, why);
            patch_function_free(f);
            continue;
        }
        if (text && f->offset <= len && patch_marker_at(text, len, f->offset, NULL)) {
            if (already) (*already)++;
            patch_function_free(f);
            continue;
        }
        if (patch_lambda_of(f) && (why = patch_lambda_refused(f, text, len))) {
            sv_pushf(&p->skipped, "%s:%d %s: %s", f->rel, f->line, f->display_name, why);
            fmv_warn("%s:%d: %s not patched: %s", f->file, f->line, f->display_name, why);
            patch_function_free(f);
            continue;
        }
        const char *later = patch_laterdecl_plain(f);
        if (later && text && (why = later_refused(p, f, text, len))) {
            sv_pushf(&p->skipped, "%s:%d %s: %s, and it cannot be reached through a pointer: %s", f->rel, f->line,
                     f->display_name, later, why);
            fmv_warn("%s:%d: %s not patched: %s, and it cannot be reached through a pointer: %s", f->file, f->line,
                     f->display_name, later, why);
            patch_function_free(f);
            continue;
        }
        /* a libtool export needs a plain symbol: where the pointer lines
         * refuse it, an IFUNC would vanish from the library's exports and
         * every program linking it would fail ("undefined reference") */
        if (!later && text && lt_exported(p, f, text, len) && (why = later_refused(p, f, text, len))) {
            sv_pushf(&p->skipped, "%s:%d %s: %s, and it cannot be reached through a pointer: %s", f->rel, f->line,
                     f->display_name, PATCH_LTEXPORT_WHY, why);
            fmv_warn("%s:%d: %s not patched: %s, and it cannot be reached through a pointer: %s", f->file, f->line,
                     f->display_name, PATCH_LTEXPORT_WHY, why);
            patch_function_free(f);
            continue;
        }
        fs[out++] = *f;
    }
    free(text);
    free(path);
    *n = out;
}
