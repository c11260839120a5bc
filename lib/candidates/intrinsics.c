/* intrinsics.c - see intrinsics.h. */
#include "candidates/intrinsics.h"
#include "candidates/tu.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

enum base_isa intrinsics_baseline(char *const *argv)
{
    static const struct {
        const char *flag;
        enum base_isa level;
    } FLAGS[] = {
        {"sse3", BASE_SSE3}, {"ssse3", BASE_SSSE3}, {"sse4.1", BASE_SSE41}, {"sse4.2", BASE_SSE42},
        {"sse4", BASE_SSE42}, {"avx", BASE_AVX},    {"avx2", BASE_AVX2},
    };
    enum base_isa level = BASE_SSE2;
    for (size_t i = 0; argv && argv[i]; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-m32")) return BASE_NONE;
        if (!strncmp(a, "-march=", 7)) {
            const char *m = a + 7;
            level = !strcmp(m, "x86-64-v2") ? BASE_SSE42
                    : !strcmp(m, "x86-64-v3") || !strcmp(m, "x86-64-v4") ? BASE_AVX2
                                                                         : BASE_SSE2;
            continue;
        }
        if (!strcmp(a, "-mno-sse2") || !strcmp(a, "-mno-sse")) return BASE_NONE;
        int no = !strncmp(a, "-mno-", 5);
        const char *f = no ? a + 5 : !strncmp(a, "-m", 2) ? a + 2 : NULL;
        for (size_t k = 0; f && k < sizeof FLAGS / sizeof FLAGS[0]; k++) {
            if (strcmp(f, FLAGS[k].flag) != 0) continue;
            if (!no && FLAGS[k].level > level) level = FLAGS[k].level;
            /* -mno-sse4 is -mno-sse4.1 */
            enum base_isa below = !strcmp(f, "sse4") ? BASE_SSE41 : FLAGS[k].level;
            if (no && level >= below) level = (enum base_isa)(below - 1);
        }
    }
    return level;
}

enum base_isa intrinsics_macro_level(const char *macro)
{
    static const struct {
        const char *word;
        enum base_isa level;
    } WORDS[] = {
        {"MMX", BASE_SSE2},    {"SSE", BASE_SSE2},    {"SSE2", BASE_SSE2},  {"MATH", BASE_SSE2},
        {"SSE3", BASE_SSE3},   {"SSSE3", BASE_SSSE3}, {"SSE4", BASE_SSE41}, {"SSE41", BASE_SSE41},
        {"SSE42", BASE_SSE42}, {"AVX", BASE_AVX},     {"AVX2", BASE_AVX2},
    };
    /* __SSE4_1__, SSE4_2: the digit after "SSE4_" names the level */
    if (strstr(macro, "SSE4_1")) return BASE_SSE41;
    if (strstr(macro, "SSE4_2")) return BASE_SSE42;
    enum base_isa level = BASE_ABOVE;
    int isa = 0;
    for (const char *p = macro; *p;) {
        size_t n = strcspn(p, "_");
        for (size_t k = 0; n && k < sizeof WORDS / sizeof WORDS[0]; k++)
            if (strlen(WORDS[k].word) == n && !strncmp(p, WORDS[k].word, n) && strcmp(WORDS[k].word, "MATH") != 0) {
                level = isa ? (WORDS[k].level > level ? WORDS[k].level : level) : WORDS[k].level;
                isa = 1;
            }
        p += n;
        while (*p == '_') p++;
    }
    return level;
}

/* The level a header's intrinsics need; BASE_ABOVE for an intrinsic header
 * of no baseline (or another architecture's), 0 for no intrinsic header. */
static int header_level(const char *path)
{
    static const struct {
        const char *base;
        enum base_isa level;
    } X86[] = {
        {"mmintrin.h", BASE_SSE2},  {"xmmintrin.h", BASE_SSE2}, {"emmintrin.h", BASE_SSE2}, {"pmmintrin.h", BASE_SSE3},
        {"tmmintrin.h", BASE_SSSE3}, {"smmintrin.h", BASE_SSE41}, {"nmmintrin.h", BASE_SSE42},
        {"avxintrin.h", BASE_AVX},   {"avx2intrin.h", BASE_AVX2},
    };
    static const char *const OTHER[] = {"arm_neon.h", "arm_sve.h", "arm_acle.h", "arm_fp16.h",
                                        "arm_bf16.h", "arm_mve.h", "altivec.h", NULL};
    const char *base = path_basename(path);
    for (size_t k = 0; k < sizeof X86 / sizeof X86[0]; k++)
        if (!strcmp(base, X86[k].base)) return X86[k].level;
    size_t n = strlen(base);
    if (n > 8 && !strcmp(base + n - 8, "intrin.h")) return BASE_ABOVE;
    for (const char *const *a = OTHER; *a; a++)
        if (!strcmp(base, *a)) return BASE_ABOVE;
    return 0;
}

static int is_target_builtin(const char *name)
{
    static const char *const PREFIXES[] = {"__builtin_ia32_", "__builtin_neon_", "__builtin_arm_",
                                           "__builtin_aarch64_", "__builtin_altivec_", "__builtin_vsx_", NULL};
    for (const char *const *p = PREFIXES; *p; p++)
        if (!strncmp(name, *p, strlen(*p))) return 1;
    return 0;
}

static unsigned line_of(CXCursor c)
{
    unsigned line = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
    return line;
}

struct visit {
    struct parsed_tu *tu;
    struct body_scan *out;
    enum base_isa baseline;
    CXFile headers[64];   /* the TU's intrinsic headers (read on the first builtin) */
    size_t nheaders;
    int read_headers;
};

static void header_visit(CXFile included, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
    (void)stack;
    (void)depth;
    struct visit *v = data;
    char *name = cx_take(clang_getFileName(included));
    if (name && header_level(name) > 0 && v->nheaders < sizeof v->headers / sizeof v->headers[0])
        v->headers[v->nheaders++] = included;
    free(name);
}

/* The identifier written where the call c starts (a macro's name when a
 * macro wrote the call). Caller frees; NULL: none. */
static char *written_name(struct visit *v, CXCursor c)
{
    CXFile f = NULL;
    unsigned off = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), &f, NULL, NULL, &off);
    size_t len = 0;
    const char *text = f ? tu_file_text(v->tu, f, &len) : NULL;
    if (!text || off >= len) return NULL;
    size_t end = off;
    while (end < len && (text[end] == '_' || (text[end] >= 'a' && text[end] <= 'z') ||
                         (text[end] >= 'A' && text[end] <= 'Z') || (text[end] >= '0' && text[end] <= '9')))
        end++;
    return end > off ? xstrndup(text + off, end - off) : NULL;
}

/* The intrinsic header of the TU that #defines macro (libclang names a
 * macro-written call's location by its expansion only, so the header is
 * found by its text); its path in *path. 0: none. */
static int macro_header(struct visit *v, const char *macro, char **path)
{
    if (!v->read_headers) {
        v->read_headers = 1;
        clang_getInclusions(tu_handle(v->tu), header_visit, v);
    }
    size_t n = strlen(macro);
    for (size_t h = 0; h < v->nheaders; h++) {
        size_t len = 0;
        const char *text = tu_file_text(v->tu, v->headers[h], &len);
        for (const char *p = text; p && (p = memmem(p, len - (size_t)(p - text), macro, n)); p += n) {
            /* "#define NAME(" or "# define NAME(" */
            const char *q = p;
            while (q > text && (q[-1] == ' ' || q[-1] == '\t')) q--;
            if (q - text < 6 || strncmp(q - 6, "define", 6) != 0 || p[n] != '(') continue;
            *path = cx_take(clang_getFileName(v->headers[h]));
            int level = header_level(*path);
            return level;
        }
    }
    return 0;
}

static const char *level_name(int level)
{
    switch (level) {
    case BASE_SSE2: return "SSE2";
    case BASE_SSE3: return "SSE3";
    case BASE_SSSE3: return "SSSE3";
    case BASE_SSE41: return "SSE4.1";
    case BASE_SSE42: return "SSE4.2";
    case BASE_AVX: return "AVX";
    case BASE_AVX2: return "AVX2";
    default: return "none";
    }
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    struct visit *v = data;
    struct body_scan *s = v->out;
    enum CXCursorKind k = clang_getCursorKind(c);
    if ((k == CXCursor_AsmStmt || k == CXCursor_MSAsmStmt) && !s->asm_line) s->asm_line = line_of(c);
    if (k != CXCursor_CallExpr || s->intrinsic) return CXChildVisit_Recurse;
    CXCursor callee = clang_getCursorReferenced(c);
    if (clang_getCursorKind(callee) != CXCursor_FunctionDecl) return CXChildVisit_Recurse;
    char *name = cx_take(clang_getCursorSpelling(callee));
    CXFile f = NULL;
    clang_getExpansionLocation(clang_getCursorLocation(callee), &f, NULL, NULL, NULL);
    char *file = f ? cx_take(clang_getFileName(f)) : NULL;
    /* A builtin written by a baseline header's macro (_mm_shuffle_ps) is
     * that header's intrinsic; written in the source, it is above. */
    char *via = NULL;
    /* a generic builtin (__builtin_popcountll) is implicitly declared where
     * first used, which may be an intrinsic header: no intrinsic */
    int level = file && name && strncmp(name, "__builtin_", 10) != 0 ? header_level(file) : 0;
    const char *what = "intrinsic";
    if (name && is_target_builtin(name)) {
        char *macro = written_name(v, c);
        level = macro && strcmp(macro, name) != 0 ? macro_header(v, macro, &via) : 0;
        if (!level) level = BASE_ABOVE;
        what = "target builtin";
        if (via) {   /* named by its macro, the intrinsic */
            free(name);
            name = macro;
            macro = NULL;
            what = "intrinsic";
        }
        free(macro);
    }
    if (level) {
        const char *hdr = path_basename(via ? via : file ? file : "?");
        unsigned line = line_of(c);
        if (level > (int)v->baseline) {
            if (level == BASE_ABOVE && !via && !strcmp(what, "target builtin"))
                s->intrinsic = xasprintf("uses the target builtin %s at line %u", name, line);
            else if (v->baseline == BASE_NONE && level != BASE_ABOVE)
                s->intrinsic = xasprintf("calls the %s %s (%s) at line %u, and the build has no SIMD baseline "
                                         "(-m32 or -mno-sse2)",
                                         what, name, hdr, line);
            else
                s->intrinsic = xasprintf("calls the %s %s (%s) at line %u, above the build's baseline (%s)", what,
                                         name, hdr, line, level_name(v->baseline));
        } else if (!s->baseline) {
            s->baseline = xasprintf("calls the %s %s (%s) at line %u, within the build's baseline (%s)", what, name,
                                    hdr, line, level_name(v->baseline));
        }
    }
    free(via);
    free(name);
    free(file);
    return CXChildVisit_Recurse;
}

void intrinsics_scan_body(struct parsed_tu *tu, CXCursor body, enum base_isa baseline, struct body_scan *out)
{
    memset(out, 0, sizeof *out);
    struct visit v;
    memset(&v, 0, sizeof v);
    v.tu = tu;
    v.out = out;
    v.baseline = baseline;
    if (!clang_Cursor_isNull(body)) clang_visitChildren(body, visit, &v);
}

void body_scan_free(struct body_scan *s)
{
    free(s->intrinsic);
    free(s->baseline);
    memset(s, 0, sizeof *s);
}
