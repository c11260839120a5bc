/* simdifdef.c - see simdifdef.h. A directive is a '#' token that starts its
 * line, followed by the directive's name; its logical line (with backslash
 * continuations) is taken from the file text.
 *
 * Real code rarely tests __AVX2__ where it uses it: a header says
 *   #if defined(__SSSE3__)
 *   #define PROJ_HAVE_SSSE3 1
 * and functions test PROJ_HAVE_SSSE3. So the macros #defined inside a
 * conditional on a SIMD macro (or whose value mentions one), in the main
 * file and the project's own headers (not system headers), count as SIMD
 * macros too, transitively; and so does a macro whose name carries an
 * instruction set as a word (HAVE_AVX2, SNAPPY_HAVE_SSSE3: set by a
 * configure check, equally fixed before cloning). */
#include "candidates/simdifdef.h"

#include <stdlib.h>
#include <string.h>

enum pp_kind { PP_IF, PP_ELIF, PP_ELSE, PP_ENDIF, PP_DEFINE, PP_PRAGMA, PP_OTHER };

struct directive {
    enum pp_kind kind;
    unsigned offset, line;
    char *text;              /* "#ifdef __AVX2__", whitespace collapsed */
    char *defined;           /* PP_DEFINE: the macro's name */
    struct strvec idents;    /* identifiers of the condition / of the macro's value */
};

struct file_directives {
    char *name;              /* file name as libclang knows it */
    CXFile file;
    /* A file the main file includes (directly or through headers): offset
     * in the main file of the #include that brought it in. What the main
     * file's directives before it open (#if blocks, target pragmas) holds
     * for the file's definitions too. */
    unsigned include_offset;
    struct directive *v;
    size_t n, cap;
};

struct pp_directives {
    struct file_directives main;
    struct file_directives *others;   /* the project's own headers */
    size_t nothers;
    struct strvec derived;            /* macros set from SIMD macros */
    struct strvec derived_origin;     /* "snappy.cc:41, from __BMI2__" */
};

static int is_isa_word(const char *w, size_t n)
{
    static const char *const WORDS[] = {"SSE",   "SSE2",   "SSE3",  "SSSE3", "SSE4",    "SSE41",   "SSE42",
                                        "AVX",   "AVX2",   "AVX512", "AVX512F", "AVX512BW", "AVX512VL",
                                        "AVX512DQ", "AVX512VNNI", "AVXVNNI", "NEON", "FMA", "FMA3", "F16C", "SVE",
                                        "SVE2",  "ALTIVEC", "VSX",  "MMX", NULL};
    for (const char *const *p = WORDS; *p; p++)
        if (strlen(*p) == n && !strncmp(w, *p, n)) return 1;
    return 0;
}

/* HAVE_AVX2, SNAPPY_HAVE_SSSE3, USE_SSE4_1: an '_'-separated word of the
 * name is an instruction set. */
static int names_isa(const char *name)
{
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "_");
        if (n && is_isa_word(p, n)) return 1;
        p += n;
        while (*p == '_') p++;
    }
    return 0;
}

int is_simd_macro(const char *name)
{
    static const char *const PREFIXES[] = {
        "__AVX", "__SSE", "__SSSE3__", "__FMA", "__F16C__", "__MMX__", "__3dNOW", "__BMI", "__POPCNT__",
        "__LZCNT__", "__AES__", "__PCLMUL__", "__VPCLMULQDQ__", "__SHA__", "__XOP__", "__GFNI__", "__VAES__",
        "__AMX", "__ARM_NEON", "__ARM_FEATURE_SVE", "__ARM_FEATURE_SIMD32", "__ARM_FEATURE_FMA", "__ALTIVEC__",
        "__VSX__", "__VEC__", "__wasm_simd128__", "__riscv_vector", NULL,
    };
    for (const char *const *p = PREFIXES; *p; p++)
        if (!strncmp(name, *p, strlen(*p))) return 1;
    return 0;
}

static enum pp_kind kind_of(const char *name)
{
    if (!strcmp(name, "if") || !strcmp(name, "ifdef") || !strcmp(name, "ifndef")) return PP_IF;
    if (!strcmp(name, "elif") || !strcmp(name, "elifdef") || !strcmp(name, "elifndef")) return PP_ELIF;
    if (!strcmp(name, "else")) return PP_ELSE;
    if (!strcmp(name, "endif")) return PP_ENDIF;
    if (!strcmp(name, "define")) return PP_DEFINE;
    if (!strcmp(name, "pragma")) return PP_PRAGMA;
    return PP_OTHER;
}

/* End of the logical line starting at off: the '\n' not preceded by '\'. */
static size_t logical_line_end(const char *text, size_t len, size_t off)
{
    size_t i = off;
    while (i < len && text[i] != '\n') {
        if (text[i] == '\\') {
            size_t j = i + 1;
            if (j < len && text[j] == '\r') j++;
            if (j < len && text[j] == '\n') {
                i = j + 1;
                continue;
            }
        }
        i++;
    }
    return i;
}

static char *collapse_space(const char *s, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    int space = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            space = 1;
            continue;
        }
        if (space && sb.len) sb_addc(&sb, ' ');
        space = 0;
        sb_addc(&sb, c);
    }
    return sb_detach(&sb);
}

static unsigned token_offset(CXTranslationUnit tu, CXToken t, unsigned *line)
{
    unsigned off = 0;
    clang_getFileLocation(clang_getTokenLocation(tu, t), NULL, line, NULL, &off);
    return off;
}

static void scan_file(struct parsed_tu *tu, CXFile file, struct file_directives *out)
{
    CXTranslationUnit ctu = tu_handle(tu);
    out->name = cx_take(clang_getFileName(file));
    out->file = file;
    size_t len = 0;
    const char *text = tu_file_text(tu, file, &len);
    if (!text || !len) return;
    CXSourceRange all = clang_getRange(clang_getLocationForOffset(ctu, file, 0),
                                       clang_getLocationForOffset(ctu, file, (unsigned)len));
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(ctu, all, &toks, &n);
    unsigned prev_line = 0;
    for (unsigned i = 0; i < n; i++) {
        if (clang_getTokenKind(toks[i]) == CXToken_Comment) continue;
        unsigned line = 0;
        unsigned off = token_offset(ctu, toks[i], &line);
        int first_on_line = i == 0 || line != prev_line;
        prev_line = line;
        if (!first_on_line || clang_getTokenKind(toks[i]) != CXToken_Punctuation || off >= len || text[off] != '#' ||
            i + 1 >= n)
            continue;
        char *name = cx_take(clang_getTokenSpelling(ctu, toks[i + 1]));
        enum pp_kind kind = kind_of(name ? name : "");
        free(name);
        if (kind == PP_OTHER) continue;
        size_t end = logical_line_end(text, len, off);
        struct directive d = {kind, off, line, collapse_space(text + off, end - off), NULL, STRVEC_INIT};
        /* The identifiers of the directive's line: what a condition tests,
         * or for #define the name and then its value. */
        for (unsigned j = i + 2; j < n && kind != PP_ELSE && kind != PP_ENDIF; j++) {
            if (token_offset(ctu, toks[j], NULL) >= end) break;
            CXTokenKind k = clang_getTokenKind(toks[j]);
            if (k != CXToken_Identifier && k != CXToken_Keyword) continue;
            char *id = cx_take(clang_getTokenSpelling(ctu, toks[j]));
            if (kind == PP_DEFINE && !d.defined) d.defined = id;
            else {
                if (id && !sv_contains(&d.idents, id)) sv_push(&d.idents, id);
                free(id);
            }
        }
        if (out->n == out->cap) out->v = xrealloc(out->v, (out->cap = out->cap ? out->cap * 2 : 32) * sizeof *out->v);
        out->v[out->n++] = d;
    }
    if (toks) clang_disposeTokens(ctu, toks, n);
}

static void file_directives_free(struct file_directives *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].text);
        free(f->v[i].defined);
        sv_free(&f->v[i].idents);
    }
    free(f->v);
    free(f->name);
}

/* The first identifier of a directive that selects SIMD code, or NULL. */
static const char *simd_ident(const struct pp_directives *pp, const struct directive *d)
{
    for (size_t i = 0; i < d->idents.n; i++) {
        const char *id = d->idents.v[i];
        if (is_simd_macro(id) || names_isa(id) || sv_contains(&pp->derived, id)) return id;
    }
    return NULL;
}

/* Adds the macros one file #defines under a SIMD condition, or from a SIMD
 * macro's value. Returns how many were new. */
static int derive_from(struct pp_directives *pp, const struct file_directives *f)
{
    const char *simd[64];
    int depth = 0, added = 0;
    for (size_t i = 0; i < f->n; i++) {
        const struct directive *d = &f->v[i];
        if (d->kind == PP_IF) {
            if (depth < 64) simd[depth] = simd_ident(pp, d);
            depth++;
        } else if (d->kind == PP_ELIF) {
            if (depth > 0 && depth <= 64 && !simd[depth - 1]) simd[depth - 1] = simd_ident(pp, d);
        } else if (d->kind == PP_ENDIF) {
            if (depth > 0) depth--;
        } else if (d->kind == PP_DEFINE && d->defined && !is_simd_macro(d->defined) && !names_isa(d->defined) &&
                   !sv_contains(&pp->derived, d->defined)) {
            const char *from = simd_ident(pp, d);
            for (int k = 0; k < depth && k < 64 && !from; k++) from = simd[k];
            if (!from) continue;
            sv_push(&pp->derived, d->defined);
            sv_pushf(&pp->derived_origin, "%s:%u, from %s", path_basename(f->name ? f->name : "?"), d->line, from);
            added++;
        }
    }
    return added;
}

struct inclusion_scan {
    struct parsed_tu *tu;
    struct pp_directives *pp;
};

static void inclusion_visit(CXFile file, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
    struct inclusion_scan *s = data;
    CXTranslationUnit ctu = tu_handle(s->tu);
    if (depth == 0 || tu_is_main_file(s->tu, file)) return;   /* the main file is scanned apart */
    if (clang_Location_isInSystemHeader(clang_getLocationForOffset(ctu, file, 0))) return;
    for (size_t i = 0; i < s->pp->nothers; i++)
        if (clang_File_isEqual(s->pp->others[i].file, file)) return;   /* included again: read once */
    s->pp->others = xrealloc(s->pp->others, (s->pp->nothers + 1) * sizeof *s->pp->others);
    struct file_directives *f = &s->pp->others[s->pp->nothers++];
    memset(f, 0, sizeof *f);
    scan_file(s->tu, file, f);
    /* The stack's last entry is the #include in the main file. */
    f->include_offset = loc_offset(stack[depth - 1], NULL, NULL, NULL);
}

struct pp_directives *pp_directives_scan(struct parsed_tu *tu)
{
    struct pp_directives *pp = xcalloc(1, sizeof *pp);
    scan_file(tu, tu_main_file(tu), &pp->main);
    struct inclusion_scan s = {tu, pp};
    clang_getInclusions(tu_handle(tu), inclusion_visit, &s);
    /* Macros derived from derived macros: a few rounds reach the end. */
    for (int round = 0; round < 8; round++) {
        int added = 0;
        for (size_t i = 0; i < pp->nothers; i++) added += derive_from(pp, &pp->others[i]);
        added += derive_from(pp, &pp->main);
        if (!added) break;
    }
    return pp;
}

void pp_directives_free(struct pp_directives *pp)
{
    if (!pp) return;
    file_directives_free(&pp->main);
    for (size_t i = 0; i < pp->nothers; i++) file_directives_free(&pp->others[i]);
    free(pp->others);
    sv_free(&pp->derived);
    sv_free(&pp->derived_origin);
    free(pp);
}

/* The directives the preprocessor reads before offset of file, as at most
 * two spans: the main file's (up to offset, or for an included file up to
 * its #include), then the included file's own up to offset. */
struct dir_span {
    const struct file_directives *f;
    unsigned limit;
};

static size_t spans_before(const struct pp_directives *pp, CXFile file, unsigned offset, struct dir_span out[2])
{
    if (!file || (pp->main.file && clang_File_isEqual(file, pp->main.file))) {
        out[0] = (struct dir_span){&pp->main, offset};
        return 1;
    }
    for (size_t i = 0; i < pp->nothers; i++) {
        if (!clang_File_isEqual(pp->others[i].file, file)) continue;
        out[0] = (struct dir_span){&pp->main, pp->others[i].include_offset};
        out[1] = (struct dir_span){&pp->others[i], offset};
        return 2;
    }
    return 0;   /* a system header: nothing of the project's */
}

/* What a #pragma does to the target of the functions after it. */
enum pragma_effect { PRAGMA_NONE, PRAGMA_TARGET, PRAGMA_PUSH, PRAGMA_POP, PRAGMA_RESET, PRAGMA_PUSH_TARGET };

static enum pragma_effect pragma_effect(const struct directive *d)
{
    const struct strvec *w = &d->idents;   /* the words after "pragma" */
    if (w->n >= 2 && !strcmp(w->v[0], "GCC")) {
        if (!strcmp(w->v[1], "target")) return PRAGMA_TARGET;
        if (!strcmp(w->v[1], "push_options")) return PRAGMA_PUSH;
        if (!strcmp(w->v[1], "pop_options")) return PRAGMA_POP;
        if (!strcmp(w->v[1], "reset_options")) return PRAGMA_RESET;
    }
    if (w->n >= 3 && !strcmp(w->v[0], "clang") && !strcmp(w->v[1], "attribute")) {
        if (sv_contains(w, "pop")) return PRAGMA_POP;
        if (sv_contains(w, "push")) return sv_contains(w, "target") ? PRAGMA_PUSH_TARGET : PRAGMA_PUSH;
    }
    return PRAGMA_NONE;
}

const char *pp_target_pragma_at(const struct pp_directives *pp, CXFile file, unsigned offset, unsigned *line,
                                const char **in_file)
{
    const struct directive *stack[64];
    const struct directive *current = NULL;
    const char *current_file = NULL;
    int depth = 0;
    struct dir_span spans[2];
    size_t nspans = spans_before(pp, file, offset, spans);
    for (size_t sp = 0; sp < nspans; sp++)
    for (size_t i = 0; i < spans[sp].f->n && spans[sp].f->v[i].offset < spans[sp].limit; i++) {
        const struct directive *d = &spans[sp].f->v[i];
        const char *name = spans[sp].f->name;
        if (d->kind != PP_PRAGMA) continue;
        switch (pragma_effect(d)) {
        case PRAGMA_TARGET: current = d, current_file = name; break;
        case PRAGMA_RESET: current = NULL; break;
        case PRAGMA_PUSH:
        case PRAGMA_PUSH_TARGET:
            if (depth < 64) stack[depth] = current;
            depth++;
            if (pragma_effect(d) == PRAGMA_PUSH_TARGET) current = d, current_file = name;
            break;
        case PRAGMA_POP:
            /* Where a popped-to pragma stands is not kept: the main file's
             * name is close enough for the message. */
            if (depth > 0 && --depth < 64) current = stack[depth], current_file = pp->main.name;
            break;
        case PRAGMA_NONE: break;
        }
    }
    if (current && line) *line = current->line;
    if (in_file) *in_file = current ? current_file : NULL;
    return current ? current->text : NULL;
}

/* "__AVX2__", "PROJ_HAVE_SSSE3 (snappy.cc:41, from __SSSE3__)". */
static char *describe_macro(const struct pp_directives *pp, const char *id)
{
    for (size_t i = 0; i < pp->derived.n; i++)
        if (!strcmp(pp->derived.v[i], id)) return xasprintf("%s (set at %s)", id, pp->derived_origin.v[i]);
    return xstrdup(id);
}

/* simd_ifdef_details's walk: the sentences to details, the SIMD macros
 * the tests name to macros (each may be NULL). */
static void simd_ifdef_walk(const struct pp_directives *pp, const struct fn_def *def, struct strvec *details,
                            struct strvec *macros)
{
    /* The conditional blocks open where the definition starts: for each,
     * the SIMD test of its #if or of any #elif seen so far. For a file the
     * main file includes, blocks the main file opens around the #include
     * count too. */
    const struct directive *simd[64];
    const char *opened_in[64];
    int depth = 0;
    struct dir_span spans[2];
    size_t nspans = spans_before(pp, def->cxfile, def->offset, spans);
    if (nspans == 0) return;
    size_t i = 0;
    for (size_t sp = 0; sp < nspans; sp++) {
        const struct file_directives *f = spans[sp].f;
        for (i = 0; i < f->n && f->v[i].offset < spans[sp].limit; i++) {
            const struct directive *d = &f->v[i];
            if (d->kind == PP_IF) {
                if (depth < 64) simd[depth] = simd_ident(pp, d) ? d : NULL, opened_in[depth] = f->name;
                depth++;
            } else if (d->kind == PP_ELIF && depth > 0 && depth <= 64) {
                if (!simd[depth - 1] && simd_ident(pp, d)) simd[depth - 1] = d, opened_in[depth - 1] = f->name;
            } else if (d->kind == PP_ENDIF && depth > 0) {
                depth--;
            }
        }
    }
    const struct file_directives *own = spans[nspans - 1].f;
    for (int k = 0; k < depth && k < 64; k++) {
        if (!simd[k]) continue;
        if (macros && !sv_contains(macros, simd_ident(pp, simd[k]))) sv_push(macros, simd_ident(pp, simd[k]));
        if (!details) continue;
        char *m = describe_macro(pp, simd_ident(pp, simd[k]));
        char *where = opened_in[k] == own->name ? xstrdup("")
                                                : xasprintf(" of %s", path_basename(opened_in[k] ? opened_in[k] : "?"));
        sv_pushf(details,
                 "the definition is inside '%s' (line %u%s): %s is fixed when the TU is compiled, so every clone "
                 "gets the same code",
                 simd[k]->text, simd[k]->line, where, m);
        free(where);
        free(m);
    }
    for (; i < own->n && own->v[i].offset < def->end_offset; i++) {
        const struct directive *d = &own->v[i];
        if (d->kind != PP_IF && d->kind != PP_ELIF) continue;
        const char *id = simd_ident(pp, d);
        if (!id) continue;
        if (macros && !sv_contains(macros, id)) sv_push(macros, id);
        if (!details) continue;
        char *m = describe_macro(pp, id);
        sv_pushf(details,
                 "'%s' at line %u picks the SIMD path with the preprocessor: %s is fixed before cloning, so every "
                 "clone takes the same path",
                 d->text, d->line, m);
        free(m);
    }
}

void simd_ifdef_details(const struct pp_directives *pp, const struct fn_def *def, struct strvec *details)
{
    simd_ifdef_walk(pp, def, details, NULL);
}

void simd_ifdef_macros(const struct pp_directives *pp, const struct fn_def *def, struct strvec *macros)
{
    simd_ifdef_walk(pp, def, NULL, macros);
}

/* "#define MACRO NAME", whitespace collapsed, "# define" too: NAME, or
 * NULL when d is no such plain rename. */
static const char *plain_rename_of(const struct directive *d, const char *macro)
{
    if (d->kind != PP_DEFINE || !d->defined || strcmp(d->defined, macro) != 0) return NULL;
    const char *p = d->text + 1;
    if (*p == ' ') p++;
    if (strncmp(p, "define ", 7) != 0) return NULL;
    p += 7;
    size_t m = strlen(macro);
    if (strncmp(p, macro, m) != 0 || p[m] != ' ') return NULL;   /* '(' : a function-like macro */
    p += m + 1;
    if (!*p || (*p >= '0' && *p <= '9')) return NULL;
    for (const char *q = p; *q; q++)
        if (!(*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')))
            return NULL;
    return p;
}

/* Through a chain of plain renames (soxr: fft4g.c's "#define rdft
 * lsx_rdft", aliases.h's "#define lsx_rdft _soxr_rdft"), at most depth
 * steps. */
static int renames_within(const struct pp_directives *pp, const char *macro, const char *name, int depth)
{
    if (depth <= 0) return 0;
    for (size_t f = 0; f <= pp->nothers; f++) {
        const struct file_directives *ds = f == 0 ? &pp->main : &pp->others[f - 1];
        for (size_t i = 0; i < ds->n; i++) {
            const char *to = plain_rename_of(&ds->v[i], macro);
            if (to && (!strcmp(to, name) || renames_within(pp, to, name, depth - 1))) return 1;
        }
    }
    return 0;
}

int pp_renames(const struct pp_directives *pp, const char *macro, const char *name)
{
    return renames_within(pp, macro, name, 8);
}

static int ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The names in the __attribute__((...)) lists of text: "t __attribute__
 * ((noinline, hot))": noinline, hot; "__noinline__" as noinline. */
static void attribute_names_in(const char *text, struct strvec *out)
{
    for (const char *a = strstr(text, "__attribute__"); a; a = strstr(a, "__attribute__")) {
        const char *b = strchr(a + 13, '(');
        int depth = 0;
        for (; b && *b; b++) {
            if (*b == '(') depth++;
            else if (*b == ')' && --depth == 0) break;
            else if (depth == 2 && ident_char(*b) && !(*b >= '0' && *b <= '9') &&
                     (b[-1] == '(' || b[-1] == ',' || b[-1] == ' ')) {
                const char *e = b;
                while (ident_char(*e)) e++;
                size_t n = (size_t)(e - b);
                char *name = n > 4 && !strncmp(b, "__", 2) && !strncmp(e - 2, "__", 2) ? xstrndup(b + 2, n - 4)
                                                                                      : xstrndup(b, n);
                if (!sv_contains(out, name)) sv_push(out, name);
                free(name);
                b = e - 1;
            }
        }
        a = b && *b ? b : a + 13;
    }
}

void pp_macro_attributes(const struct pp_directives *pp, const char *macro, struct strvec *out)
{
    for (size_t f = 0; f <= pp->nothers; f++) {
        const struct file_directives *ds = f == 0 ? &pp->main : &pp->others[f - 1];
        for (size_t i = 0; i < ds->n; i++)
            if (ds->v[i].kind == PP_DEFINE && ds->v[i].defined && !strcmp(ds->v[i].defined, macro))
                attribute_names_in(ds->v[i].text, out);
    }
}
