/* Unit tests of lib/patch/pointer.h on texts written here: the lines a
 * function gets with --dispatch pointer (the rename above, the trampoline
 * with the definition's head below, comments dropped and lines joined), a
 * static one's STATIC macros and CRLF endings kept (a C one's own
 * assembler name and labels), and each shape the
 * rename cannot take named with its reason (K&R, its name again in its
 * body, a qualified name, extern, a preprocessor line in its head, code
 * after its closing brace (comments there are taken), no final newline, a macro-given name); the
 * --dispatch words; the trampoline as bytes. The patched files are compiled by
 * tests/cli/test_patch_pointer.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "patch/plan.h"
#include "patch/pointer.h"
#include "util/util.h"

#include "test_patch_text_helpers.h"

static struct patch_function fn(const char *text, const char *name, const char *display, const char *first_line,
                                int is_static)
{
    return text_fn(text, name, display, first_line, is_static);
}

static const char *why_of(const char *text, struct patch_function *f)
{
    struct patch_pointer_lines l;
    const char *why = patch_pointer_lines(f, text, strlen(text), "FMVGEN_CLONES", &l);
    patch_pointer_lines_free(&l);
    return why;
}

static void test_lines(void **state)
{
    (void)state;
    const char *text = "#include \"k.h\"\n\n"
                       "long sum_sq(const int *a, /* the data */\n"
                       "            int n) // count\n"
                       "{\n    long s = 0;\n    return s + a[n];\n}\n"
                       "int after;\n";
    struct patch_function f = fn(text, "sum_sq", "sum_sq", "long sum_sq", 0);
    struct patch_pointer_lines l;
    assert_null(patch_pointer_lines(&f, text, strlen(text), "FMVGEN_CLONES", &l));
    assert_int_equal(l.before_offset, f.offset);
    assert_string_equal(l.before, "#ifdef FMVGEN_PTR_ON\n# define sum_sq fmvgen_mv_sum_sq\n#endif\nFMVGEN_CLONES_PTR\n");
    assert_int_equal(l.after_offset, (size_t)(strstr(text, "int after;") - text));
    assert_string_equal(l.after, "#ifdef FMVGEN_PTR_ON\n# undef sum_sq\n"
                                 "FMVGEN_PTR_DEF long sum_sq(const int *a, int n) FMVGEN_PTR_BODY(sum_sq, fmvgen_mv_sum_sq)\n"
                                 "#endif\n");
    patch_pointer_lines_free(&l);
}

static void test_static_crlf_cxx(void **state)
{
    (void)state;
    const char *text = "namespace ns {\r\n  static void fill(int *a) {\r\n    a[0] = 1;\r\n  }  \r\n}\r\n";
    struct patch_function f = fn(text, "_ZN2nsL4fillEPi", "ns::fill(int *)", "  static void fill", 1);
    /* the last '}' closes the namespace: point at fill's own brace */
    f.end_line = 4;
    f.end_col = 4;
    struct patch_pointer_lines l;
    assert_null(patch_pointer_lines(&f, text, strlen(text), "FMVGEN_CLONES_AVX2", &l));
    assert_string_equal(l.before, "#ifdef FMVGEN_PTR_STATIC_ON\r\n# define fill fmvgen_mv_fill\r\n#endif\r\n"
                                  "  FMVGEN_CLONES_AVX2_PTR_STATIC\r\n");
    assert_string_equal(l.after, "#ifdef FMVGEN_PTR_STATIC_ON\r\n# undef fill\r\n"
                                 "  FMVGEN_PTR_DEF static void fill(int *a) FMVGEN_PTR_BODY(_ZN2nsL4fillEPi, fmvgen_mv_fill)\r\n"
                                 "#endif\r\n");
    assert_int_equal(l.after_offset, (size_t)(strstr(text, "}\r\n") - text));
    patch_pointer_lines_free(&l);
}

/* A static C function: its renamed definition is declared first with an
 * assembler name of its file's (patch_pointer_static_asm_name), and its
 * trampoline's labels are named by its compiler symbol (STATIC_BODY): two
 * files' statics of one name stay apart under LTO. */
static void test_static_c(void **state)
{
    (void)state;
    const char *text = "static void fill(int *a)\n{\n    a[0] = 1;\n}\n";
    struct patch_function f = fn(text, "fill", "fill", "static void fill", 1);
    f.rel = "src/one.c";
    char *name = patch_pointer_static_asm_name(&f, "fill");
    struct patch_pointer_lines l;
    assert_null(patch_pointer_lines(&f, text, strlen(text), "FMVGEN_CLONES", &l));
    char *want = xasprintf("#ifdef FMVGEN_PTR_STATIC_ON\n# define fill fmvgen_mv_fill\n"
                           "static void fill(int *a) __asm__(\"%s\");\n#endif\nFMVGEN_CLONES_PTR_STATIC\n", name);
    assert_string_equal(l.before, want);
    assert_string_equal(l.after, "#ifdef FMVGEN_PTR_STATIC_ON\n# undef fill\n"
                                 "FMVGEN_PTR_DEF static void fill(int *a) FMVGEN_PTR_STATIC_BODY(fill, fmvgen_mv_fill)\n"
                                 "#endif\n");
    assert_int_equal(strncmp(name, "fmvgen_mv_fill.tu", 17), 0);
    assert_int_equal(strlen(name), 17 + 8);
    f.rel = "src/two.c";
    char *other = patch_pointer_static_asm_name(&f, "fill");
    assert_string_not_equal(name, other);
    free(other);
    free(want);
    free(name);
    patch_pointer_lines_free(&l);
}

static void test_refusals(void **state)
{
    (void)state;
    const char *kr = "int add(a, n)\nint *a; int n;\n{\n    return a[n];\n}\n";
    struct patch_function f = fn(kr, "add", "add", "int add", 0);
    assert_string_equal(why_of(kr, &f), "a K&R definition (parameter declarations after its head)");

    const char *self = "void scale(struct acc *s, int *a)\n{\n    a[0] *= s->scale;\n}\n";
    f = fn(self, "scale", "scale", "void scale", 0);
    assert_non_null(strstr(why_of(self, &f), "its body names it too"));

    const char *member = "void S::run(int *a)\n{\n    a[0] = 1;\n}\n";
    f = fn(member, "_ZN1S3runEPi", "S::run(int *)", "void S::run", 0);
    assert_non_null(strstr(why_of(member, &f), "a qualified name"));

    const char *ext = "extern void go(int *a)\n{\n    a[0] = 1;\n}\n";
    f = fn(ext, "go", "go", "extern void go", 0);
    assert_non_null(strstr(why_of(ext, &f), "extern"));

    const char *pp = "void go(int *a,\n#ifdef X\n int b,\n#endif\n int n)\n{\n    a[0] = n;\n}\n";
    f = fn(pp, "go", "go", "void go", 0);
    assert_string_equal(why_of(pp, &f), "a preprocessor line inside its head");

    const char *tail = "void go(int *a)\n{\n    a[0] = 1;\n} int x;\n";
    f = fn(tail, "go", "go", "void go", 0);
    assert_string_equal(why_of(tail, &f), "code follows its closing brace on the same line");

    /* comments after the brace are no code: the lines after it start after
     * the line the last comment closes on */
    const char *named = "void go(int *a)\n{\n    a[0] = 1;\n} /* go */ // end\nint x;\n";
    const char *longer = "void go(int *a)\n{\n    a[0] = 1;\n}\t/* go:\n  more */\nint x;\n";
    const char *commented[] = {named, longer};
    for (size_t i = 0; i < 2; i++) {
        struct patch_pointer_lines l;
        f = fn(commented[i], "go", "go", "void go", 0);
        assert_null(patch_pointer_lines(&f, commented[i], strlen(commented[i]), "FMVGEN_CLONES", &l));
        assert_int_equal(l.after_offset, (size_t)(strstr(commented[i], "int x;") - commented[i]));
        patch_pointer_lines_free(&l);
    }
    const char *code_after = "void go(int *a)\n{\n    a[0] = 1;\n} /* go */ int x;\n";
    f = fn(code_after, "go", "go", "void go", 0);
    assert_string_equal(why_of(code_after, &f), "code follows its closing brace on the same line");
    const char *open_comment = "void go(int *a)\n{\n    a[0] = 1;\n} /* go\n";
    f = fn(open_comment, "go", "go", "void go", 0);
    assert_string_equal(why_of(open_comment, &f), "an unterminated comment follows its closing brace");

    const char *noeol = "void go(int *a)\n{\n    a[0] = 1;\n}";
    f = fn(noeol, "go", "go", "void go", 0);
    /* a file that ends on the closing brace without a newline: taken, the
     * lines after it start with the newline it lacks */
    {
        struct patch_pointer_lines l;
        assert_null(patch_pointer_lines(&f, noeol, strlen(noeol), "FMVGEN_CLONES", &l));
        assert_int_equal(l.after_offset, strlen(noeol));
        assert_true(!strncmp(l.after, "\n#ifdef FMVGEN_PTR_ON\n", 22));
        patch_pointer_lines_free(&l);
    }

    const char *plain = "void go(int *a)\n{\n    a[0] = 1;\n}\n";
    f = fn(plain, "go", "go", "void go", 0);
    f.clones_arg = (char *)"GO";
    assert_non_null(strstr(why_of(plain, &f), "given by a macro"));
    f.clones_arg = NULL;
    f.end_line = 2;   /* a stale end: not at a closing brace */
    assert_non_null(strstr(why_of(plain, &f), "run 'fmvgen scan' again"));
}

/* The trampoline's instructions are bytes (no AT&T operand: a -masm=intel
 * build assembles them; tests/cli/test_patch_cpuid.sh builds it), its
 * PC-relative operands .long differences. */
static void test_preamble_bytes(void **state)
{
    (void)state;
    struct patch_target_set set;
    memset(&set, 0, sizeof set);
    sv_push(&set.targets, "avx2");
    set.macro = (char *)"FMVGEN_CLONES";
    char *pre = patch_preamble_pointer(&set, 1, "\n");
    assert_non_null(strstr(pre, "# define FMVGEN_PTR_BODY_(label, mv, fn) { \\\n"));
    assert_non_null(strstr(pre, "\".byte 255,37\\n\\t.long \" label \".fmvgen_ptr-.-4\\n\\t\""));
    assert_non_null(strstr(pre, "\".long \" FMVGEN_PTR_RESOLVER_(mv) \"-.-4\\n\\t.byte 72,137,5\\n\\t.long \" label \".fmvgen_ptr-.-4"));
    assert_null(strstr(pre, "%%r"));
    assert_null(strstr(pre, "%%xmm"));
    assert_null(strstr(pre, "jmp"));
    assert_null(strstr(pre, "\\tcall"));
    assert_null(strstr(pre, "movdqu"));
    free(pre);
    sv_free(&set.targets);
}

static void test_ident_and_words(void **state)
{
    (void)state;
    struct patch_function f;
    memset(&f, 0, sizeof f);
    f.name = (char *)"_ZN2ns3sumEPfi";
    f.display_name = (char *)"ns::sum(float *, int)";
    char *id = patch_pointer_ident(&f);
    assert_string_equal(id, "sum");
    free(id);
    f.display_name = (char *)"V::operator+(const V &)";
    assert_null(patch_pointer_ident(&f));
    enum patch_dispatch d;
    assert_int_equal(patch_dispatch_parse("auto", &d), 0);
    assert_int_equal(d, PATCH_DISPATCH_IFUNC);
    assert_int_equal(patch_dispatch_parse("pointer", &d), 0);
    assert_int_equal(d, PATCH_DISPATCH_POINTER);
    assert_int_equal(patch_dispatch_parse("ifunc", &d), 0);
    assert_int_equal(d, PATCH_DISPATCH_IFUNC);
    assert_int_equal(patch_dispatch_parse("ptr", &d), -1);
    assert_string_equal(patch_dispatch_name(PATCH_DISPATCH_POINTER), "pointer");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_static_crlf_cxx),
        cmocka_unit_test(test_static_c),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_ident_and_words),
        cmocka_unit_test(test_preamble_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
