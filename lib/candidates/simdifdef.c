/* simdifdef.c - see simdifdef.h. A directive is a '#' token that starts its
 * line, followed by the directive's name; its logical line (with backslash
 * continuations) is taken from the file text. */
#include "candidates/simdifdef.h"

#include <stdlib.h>
#include <string.h>

enum pp_kind { PP_IF, PP_ELIF, PP_ELSE, PP_ENDIF, PP_OTHER };

struct directive {
    enum pp_kind kind;
    unsigned offset, line;
    char *text;          /* "#ifdef __AVX2__", whitespace collapsed */
    char *simd_macro;    /* first SIMD macro it tests, or NULL */
};

struct pp_directives {
    struct directive *v;
    size_t n, cap;
};

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

struct pp_directives *pp_directives_scan(struct parsed_tu *tu)
{
    struct pp_directives *pp = xcalloc(1, sizeof *pp);
    CXTranslationUnit ctu = tu_handle(tu);
    CXFile main = tu_main_file(tu);
    size_t len = 0;
    const char *text = tu_file_text(tu, main, &len);
    if (!text || !len) return pp;
    CXSourceRange all = clang_getRange(clang_getLocationForOffset(ctu, main, 0),
                                       clang_getLocationForOffset(ctu, main, (unsigned)len));
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(ctu, all, &toks, &n);
    unsigned prev_line = 0;
    for (unsigned i = 0; i < n; i++) {
        if (clang_getTokenKind(toks[i]) == CXToken_Comment) continue;
        unsigned line = 0, off = 0;
        clang_getFileLocation(clang_getTokenLocation(ctu, toks[i]), NULL, &line, NULL, &off);
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
        struct directive d = {kind, off, line, collapse_space(text + off, end - off), NULL};
        /* The macros the condition tests: the identifiers of its line. */
        for (unsigned j = i + 1; j < n && kind != PP_ELSE && kind != PP_ENDIF; j++) {
            unsigned joff = 0;
            clang_getFileLocation(clang_getTokenLocation(ctu, toks[j]), NULL, NULL, NULL, &joff);
            if (joff >= end) break;
            if (clang_getTokenKind(toks[j]) != CXToken_Identifier) continue;
            char *id = cx_take(clang_getTokenSpelling(ctu, toks[j]));
            if (id && is_simd_macro(id)) {
                d.simd_macro = id;
                break;
            }
            free(id);
        }
        if (pp->n == pp->cap) pp->v = xrealloc(pp->v, (pp->cap = pp->cap ? pp->cap * 2 : 32) * sizeof *pp->v);
        pp->v[pp->n++] = d;
    }
    if (toks) clang_disposeTokens(ctu, toks, n);
    return pp;
}

void pp_directives_free(struct pp_directives *pp)
{
    if (!pp) return;
    for (size_t i = 0; i < pp->n; i++) {
        free(pp->v[i].text);
        free(pp->v[i].simd_macro);
    }
    free(pp->v);
    free(pp);
}

void simd_ifdef_details(const struct pp_directives *pp, const struct fn_def *def, struct strvec *details)
{
    /* The conditional blocks open where the definition starts: for each,
     * the SIMD test of its #if or of any #elif seen so far. */
    const struct directive *simd[64];
    int depth = 0;
    size_t i = 0;
    for (; i < pp->n && pp->v[i].offset < def->offset; i++) {
        const struct directive *d = &pp->v[i];
        if (d->kind == PP_IF) {
            if (depth < 64) simd[depth] = d->simd_macro ? d : NULL;
            depth++;
        } else if (d->kind == PP_ELIF && depth > 0 && depth <= 64) {
            if (!simd[depth - 1] && d->simd_macro) simd[depth - 1] = d;
        } else if (d->kind == PP_ENDIF && depth > 0) {
            depth--;
        }
    }
    for (int k = 0; k < depth && k < 64; k++) {
        if (!simd[k]) continue;
        sv_pushf(details,
                 "the definition is inside '%s' (line %u): %s is fixed when the TU is compiled, so every clone "
                 "gets the same code",
                 simd[k]->text, simd[k]->line, simd[k]->simd_macro);
    }
    for (; i < pp->n && pp->v[i].offset < def->end_offset; i++) {
        const struct directive *d = &pp->v[i];
        if (!d->simd_macro) continue;
        sv_pushf(details,
                 "'%s' at line %u picks the SIMD path with the preprocessor: %s is fixed before cloning, so every "
                 "clone takes the same path",
                 d->text, d->line, d->simd_macro);
    }
}
