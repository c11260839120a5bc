/* Unit tests of lib/patch/cpuid.h on texts written here: the lines a
 * function gets with --dispatch cpuid (the rename and pragmas above, the
 * copies, resolver, IFUNC declaration and trampoline below, the trampoline
 * alone for a weak or section head, forwarding the parameters of its
 * "params" note, no "return" for a void function, no second "static" for
 * a static one, the name replaced inside a head with attributes, CRLF and
 * indentation kept), the reasons it refuses (no params note, a refused
 * one, a target without a copy, pointer dispatch's shapes), the targets it
 * knows, and the preamble: only the target macros a set uses, IFUNC
 * where glibc is (static functions not with clang), the trampoline calling
 * the resolver itself, and whether a text defines it.
 * The patched files are compiled by tests/cli/test_patch_cpuid.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch/cpuid.h"
#include "patch/plan.h"
#include "store/notes.h"
#include "util/util.h"

#include "test_patch_text_helpers.h"

/* text_fn's function, with a params note from params_json (NULL: none). */
static struct patch_function fn(const char *text, const char *name, const char *first_line, int is_static,
                                const char *params_json)
{
    struct patch_function f = text_fn(text, name, name, first_line, is_static);
    f.notes = json_array();
    if (params_json) {
        json_error_t e;
        json_t *n = json_loads(params_json, 0, &e);
        assert_non_null(n);
        json_object_set_new(n, "kind", json_string(note_kind_name(NOTE_PARAMS)));
        json_array_append_new(f.notes, n);
    }
    return f;
}

/* The comma-separated list's items appended to v. */
static void split(struct strvec *v, const char *list)
{
    for (const char *at = list; *at;) {
        const char *comma = strchr(at, ',');
        size_t n = comma ? (size_t)(comma - at) : strlen(at);
        char *item = xstrndup(at, n);
        sv_push(v, item);
        free(item);
        at += n + (comma != NULL);
    }
}

static struct patch_target_set set_of(const char *targets)
{
    struct patch_target_set s;
    memset(&s, 0, sizeof s);
    split(&s.targets, targets);
    s.macro = (char *)"FMVGEN_CLONES";
    return s;
}

static void test_lines(void **state)
{
    (void)state;
    const char *text = "#include \"k.h\"\n"
                       "EXPORT long sum_sq(const int *a, /* the data */\n"
                       "                   int n)\n"
                       "{\n    return a[n];\n}\n"
                       "int after;\n";
    struct patch_function f = fn(text, "sum_sq", "EXPORT long", 0, "{\"names\": [\"a\", \"n\"], \"void\": false}");
    struct patch_target_set set = set_of("arch=x86-64-v4,arch=x86-64-v3");
    struct patch_pointer_lines l;
    assert_null(patch_cpuid_lines(&f, text, strlen(text), &set, &l));
    assert_int_equal(l.before_offset, f.offset);
    assert_string_equal(l.before, "#ifdef FMVGEN_CPU_ON\n# define sum_sq fmvgen_mv_sum_sq\n# pragma GCC diagnostic push\n"
                                  "# pragma GCC diagnostic ignored \"-Wattributes\"\n#endif\nFMVGEN_CLONES_CPU\n");
    assert_int_equal(l.after_offset, (size_t)(strstr(text, "int after;") - text));
    assert_string_equal(
        l.after,
        "#ifdef FMVGEN_CPU_ON\n# undef sum_sq\n"
        "static FMVGEN_CPU_T_X86_64_V4 EXPORT long fmvgen_cp_sum_sq_x86_64_v4(const int *a, int n) { return fmvgen_mv_sum_sq(a, n); }\n"
        "static FMVGEN_CPU_T_X86_64_V3 EXPORT long fmvgen_cp_sum_sq_x86_64_v3(const int *a, int n) { return fmvgen_mv_sum_sq(a, n); }\n"
        "static FMVGEN_CPU_T_DEFAULT EXPORT long fmvgen_cp_sum_sq_default(const int *a, int n) { return fmvgen_mv_sum_sq(a, n); }\n"
        "static __attribute__((used FMVGEN_CPU_SEC_)) __typeof__(&fmvgen_mv_sum_sq) fmvgen_resolve_sum_sq(void) { unsigned l = "
        "fmvgen_cpu_levels(); return l & 4u ? fmvgen_cp_sum_sq_x86_64_v4 : l & 2u ? fmvgen_cp_sum_sq_x86_64_v3 : "
        "fmvgen_cp_sum_sq_default; }\n"
        "# ifdef FMVGEN_CPU_IFUNC\n"
        "EXPORT long sum_sq(const int *a, int n) __attribute__((ifunc(\"fmvgen_resolve_sum_sq\")));\n"
        "# else\n"
        "FMVGEN_PTR_DEF EXPORT long sum_sq(const int *a, int n) FMVGEN_CPU_BODY(sum_sq, fmvgen_resolve_sum_sq)\n"
        "# endif\n"
        "# pragma GCC diagnostic pop\n#endif\n");
    patch_pointer_lines_free(&l);
    json_decref(f.notes);
    sv_free(&set.targets);
}

static void test_static_void_crlf(void **state)
{
    (void)state;
    const char *text = "  static __attribute__((hot)) void fill(int *a)\r\n  {\r\n    a[0] = 1;\r\n  }\r\n";
    struct patch_function f = fn(text, "fill", "  static", 1, "{\"names\": [\"a\"], \"void\": true}");
    struct patch_target_set set = set_of("avx2");
    struct patch_pointer_lines l;
    assert_null(patch_cpuid_lines(&f, text, strlen(text), &set, &l));
    assert_string_equal(l.before, "#ifdef FMVGEN_CPU_ON\r\n# define fill fmvgen_mv_fill\r\n# pragma GCC diagnostic push\r\n"
                                  "# pragma GCC diagnostic ignored \"-Wattributes\"\r\n#endif\r\n  FMVGEN_CLONES_CPU_STATIC\r\n");
    assert_string_equal(l.after,
                        "#ifdef FMVGEN_CPU_ON\r\n# undef fill\r\n"
                        "  FMVGEN_CPU_T_AVX2 static __attribute__((hot)) void fmvgen_cp_fill_avx2(int *a) { fmvgen_mv_fill(a); }\r\n"
                        "  FMVGEN_CPU_T_DEFAULT static __attribute__((hot)) void fmvgen_cp_fill_default(int *a) { fmvgen_mv_fill(a); }\r\n"
                        "  static __attribute__((used FMVGEN_CPU_SEC_)) __typeof__(&fmvgen_mv_fill) fmvgen_resolve_fill(void) { unsigned l = "
                        "fmvgen_cpu_levels(); return l & 2u ? fmvgen_cp_fill_avx2 : fmvgen_cp_fill_default; }\r\n"
                        "# ifdef FMVGEN_CPU_IFUNC_STATIC\r\n"
                        "  static __attribute__((hot)) void fill(int *a) __attribute__((ifunc(\"fmvgen_resolve_fill\")));\r\n"
                        "# else\r\n"
                        "  FMVGEN_PTR_DEF static __attribute__((hot)) void fill(int *a) FMVGEN_CPU_STATIC_BODY(fill, fmvgen_resolve_fill)\r\n"
                        "# endif\r\n"
                        "# pragma GCC diagnostic pop\r\n#endif\r\n");
    patch_pointer_lines_free(&l);
    json_decref(f.notes);
    sv_free(&set.targets);
}

/* A head an IFUNC cannot take (weak, section) keeps the trampoline alone;
 * "weak" inside a string, or as part of a name, does not count. */
static void test_weak_section_trampoline(void **state)
{
    (void)state;
    static const struct {
        const char *head;
        int ifunc;
    } cases[] = {
        {"__attribute__((weak)) int f(int n)", 0},
        {"__attribute__((__weak__)) int f(int n)", 0},
        {"__attribute__((section(\".text.k\"))) int f(int n)", 0},
        {"__attribute__((alias_of(\"weak\"))) int weakly_f(int n)", 1},
        {"int f(int n)", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = xasprintf("%s\n{\n    return n;\n}\n", cases[i].head);
        const char *name = strstr(cases[i].head, "weakly_f") ? "weakly_f" : "f";
        struct patch_function f = fn(text, name, cases[i].head, 0, "{\"names\": [\"n\"], \"void\": false}");
        struct patch_target_set set = set_of("avx2");
        struct patch_pointer_lines l;
        assert_null(patch_cpuid_lines(&f, text, strlen(text), &set, &l));
        assert_int_equal(strstr(l.after, "__attribute__((ifunc(") != NULL, cases[i].ifunc);
        assert_int_equal(strstr(l.after, "# ifdef FMVGEN_CPU_IFUNC\n") != NULL, cases[i].ifunc);
        assert_non_null(strstr(l.after, "FMVGEN_CPU_BODY("));
        assert_non_null(strstr(l.after, "fmvgen_resolve_"));
        patch_pointer_lines_free(&l);
        json_decref(f.notes);
        sv_free(&set.targets);
        free(text);
    }
}

static const char *why_of(const char *text, const char *params, const char *targets)
{
    struct patch_function f = fn(text, "f", "int f", 0, params);
    struct patch_target_set set = set_of(targets);
    struct patch_pointer_lines l;
    static char why[256];   /* the reason may live in the note, freed here */
    const char *r = patch_cpuid_lines(&f, text, strlen(text), &set, &l);
    snprintf(why, sizeof why, "%s", r ? r : "");
    patch_pointer_lines_free(&l);
    json_decref(f.notes);
    sv_free(&set.targets);
    return r ? why : NULL;
}

static void test_refusals(void **state)
{
    (void)state;
    const char *text = "int f(int n)\n{\n    return n;\n}\n";
    const char *ok = "{\"names\": [\"n\"], \"void\": false}";
    assert_null(why_of(text, ok, "arch=x86-64-v2"));
    assert_string_equal(why_of(text, NULL, "avx2"),
                        "scanned before fmvgen recorded parameter names: run fmvgen scan again");
    assert_string_equal(why_of(text, "{\"refused\": \"a variadic function (its ... cannot be passed on)\"}", "avx2"),
                        "a variadic function (its ... cannot be passed on)");
    assert_string_equal(why_of(text, ok, "avx2,avx512f"), "a target --dispatch cpuid has no copy for");
    const char *rec = "int f(int n)\n{\n    return n ? f(n - 1) : 0;\n}\n";
    assert_non_null(strstr(why_of(rec, ok, "avx2"), "its body names it too"));
}

static void test_targets_and_preamble(void **state)
{
    (void)state;
    struct strvec t = STRVEC_INIT;
    split(&t, "arch=x86-64-v2,arch=x86-64-v3,arch=x86-64-v4,avx2");
    assert_null(patch_cpuid_unknown_target(&t));
    sv_push(&t, "sse4.2");
    assert_string_equal(patch_cpuid_unknown_target(&t), "sse4.2");
    sv_free(&t);

    struct patch_target_set set = set_of("avx2");
    char *pre = patch_preamble_cpuid(&set, 1, "\r\n");
    assert_non_null(strstr(pre, "# define FMVGEN_CPU_T_AVX2 __attribute__((target(\"sse3,ssse3,sse4.1,sse4.2,popcnt,cx16,"
                                "sahf,avx,avx2,bmi,bmi2,f16c,lzcnt,movbe,xsave\"), noinline FMVGEN_NO_IPA_RA_ FMVGEN_CPU_SEC_))\r\n"));
    assert_non_null(strstr(pre, "# define FMVGEN_CPU_T_DEFAULT __attribute__((noinline))\r\n"));
    /* the target copies and resolvers go to fmvgen_text (an orphan section
     * placed after the linked .text), unless -DFMVGEN_CPU_NO_SECTION; the
     * default copy stays in .text where the function was */
    assert_non_null(strstr(pre, "#  ifndef FMVGEN_CPU_NO_SECTION\r\n"));
    assert_true(strstr(pre, "#   define FMVGEN_CPU_SEC_ ,") > strstr(pre, "#   define FMVGEN_CPU_ON"));
    /* GCC: the target copies keep the vzeroupper before calls into the file's legacy-SSE code */
    assert_non_null(strstr(pre, "#  define FMVGEN_NO_IPA_RA_ , optimize(\"no-ipa-ra\")\r\n"));
    assert_null(strstr(pre, "FMVGEN_CPU_T_X86_64_V3"));
    assert_non_null(strstr(pre, "# define FMVGEN_CPU_BODY_(label, resolve, fn) { \\\r\n"));
    /* labels: an external function's by its name, a static one's by its
     * compiler symbol (LTO renames two files' statics of one name) */
    assert_non_null(strstr(pre, "# define FMVGEN_CPU_BODY(sym, resolve) FMVGEN_CPU_BODY_(#sym, resolve, resolve)\r\n"));
    assert_non_null(strstr(pre, "# define FMVGEN_CPU_STATIC_BODY(sym, resolve) FMVGEN_CPU_BODY_(\"%c1\", resolve, sym)\r\n"));
    /* the trampoline's instructions are bytes (-masm=intel assembles them), the
     * resolver's call a .long difference */
    assert_non_null(strstr(pre, "\".byte 72,131,236,8,232\\n\\t.long \" \"%c0\" \"-.-4\\n"));
    assert_null(strstr(pre, "%%r"));
    assert_null(strstr(pre, "%%xmm"));
    assert_null(strstr(pre, "\\tcall"));
    assert_null(strstr(pre, "FMVGEN_PTR_RESOLVER_"));
    assert_null(strstr(pre, "FMVGEN_PTR_HIDE_"));
    /* fmvgen_cpu_levels: one per linked file - a hidden declaration of the
     * versioned symbol, defined weak and hidden in a COMDAT group (its code
     * and its known byte), once per assembly file */
    assert_null(strstr(pre, "static __attribute__((unused, noinline, cold)) unsigned fmvgen_cpu_levels(void)"));
    assert_non_null(strstr(pre, "\r\n__attribute__((visibility(\"hidden\"), cold)) unsigned fmvgen_cpu_levels(void) "
                                "__asm__(\"fmvgen_cpu_levels.v1\");\r\n"));
    assert_non_null(strstr(pre, "__asm__(\".ifndef fmvgen_cpu_levels.v1\\n\""));
    /* in fmvgen_text with the copies (after the linked .text), or where
     * -DFMVGEN_CPU_NO_SECTION says so in .text.unlikely */
    assert_non_null(strstr(pre, "\".pushsection \" FMVGEN_CPU_LV_SEC_ \", \\\"axG\\\", @progbits, "
                                "fmvgen_cpu_levels.v1, comdat\\n\""));
    assert_non_null(strstr(pre, "#   define FMVGEN_CPU_SEC_ , section(\"fmvgen_text\")\r\n#   define FMVGEN_CPU_LV_SEC_ \"fmvgen_text\"\r\n"
                                "#  else\r\n#   define FMVGEN_CPU_SEC_\r\n"
                                "#   define FMVGEN_CPU_LV_SEC_ \".text.unlikely.fmvgen_cpu_levels.v1\"\r\n"));
    assert_non_null(strstr(pre, "\".pushsection .bss.fmvgen_cpu_levels.v1, \\\"awG\\\", @nobits, "
                                "fmvgen_cpu_levels.v1, comdat\\n\""));
    assert_non_null(strstr(pre, "\".weak fmvgen_cpu_levels.v1\\n.hidden fmvgen_cpu_levels.v1\\n"));
    assert_non_null(strstr(pre, ".popsection\\n.endif\\n\");\r\n"));
    /* C89: each __asm__ string (the label and three statements) is at most
     * 509 characters, an escape counted as one */
    size_t n_asm = 0;
    for (const char *a = pre; (a = strstr(a, "__asm__(\"")); n_asm++) {
        size_t chars = 0;
        const char *c = a + 8;
        while (*c && *c != ')') {
            if (*c == '"') {
                for (c++; *c && *c != '"'; c++, chars++)
                    if (*c == '\\') c++;
                c++;
            } else if (c[0] == '/' && c[1] == '*') {
                c = strstr(c, "*/") + 2;
            } else c++;
        }
        assert_true(chars <= 509);
        a = c;
    }
    assert_int_equal(n_asm, 4);
    /* IFUNC where glibc is, told by an include where no C library header came
     * before; static functions' only where it is not clang */
    assert_non_null(strstr(pre, "#   if !defined(__GLIBC__) && !defined(_FEATURES_H)\r\n#    include <limits.h>\r\n#   endif\r\n"
                                "#   if defined(__GLIBC__) && !defined(__UCLIBC__) && __has_attribute(ifunc) && "
                                "!defined(FMVGEN_CPU_NO_IFUNC)\r\n#    define FMVGEN_CPU_IFUNC\r\n"));
    assert_non_null(strstr(pre, "#    ifndef __clang__\r\n#     define FMVGEN_CPU_IFUNC_STATIC\r\n#    endif\r\n"));
    assert_null(strstr(pre, "fmvgen_fn_"));
    for (const char *c = pre; (c = strchr(c, '\n')); c++) assert_int_equal(c[-1], '\r');
    size_t len = strlen(pre);
    assert_int_equal(patch_cpuid_preamble_defined(pre, len, &set, 1), 1);
    assert_int_equal(patch_cpuid_preamble_defined(pre, len / 2, &set, 1), 0);
    struct patch_target_set v4 = set_of("arch=x86-64-v4");
    assert_int_equal(patch_cpuid_preamble_defined(pre, len, &v4, 1), 0);
    free(pre);
    sv_free(&set.targets);
    sv_free(&v4.targets);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_static_void_crlf),
        cmocka_unit_test(test_weak_section_trampoline),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_targets_and_preamble),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
