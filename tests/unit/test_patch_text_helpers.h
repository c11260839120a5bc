/* test_patch_text_helpers.h - shared by tests/unit/test_patch_pointer.c and
 * tests/unit/test_patch_cpuid.c: a struct patch_function over a text
 * written in the test, without a store. Static functions: each test
 * program includes it once. */
#ifndef TEST_PATCH_TEXT_HELPERS_H
#define TEST_PATCH_TEXT_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "patch/plan.h"

/* A function defined at the first line of text starting with first_line,
 * ending at the last '}' of text (end_line/end_col as libclang gives them:
 * just past the brace). Its strings are borrowed; notes NULL. */
static struct patch_function text_fn(const char *text, const char *name, const char *display, const char *first_line,
                                     int is_static)
{
    struct patch_function f;
    memset(&f, 0, sizeof f);
    f.name = (char *)name;
    f.display_name = (char *)display;
    f.is_static = is_static;
    const char *at = strstr(text, first_line);
    assert_non_null(at);
    f.offset = (size_t)(at - text);
    const char *brace = strrchr(text, '}');
    int line = 1, col = 1;
    for (const char *c = text; c < brace; c++) {
        if (*c == '\n') line++, col = 1;
        else col++;
    }
    f.end_line = line;
    f.end_col = col + 1;
    return f;
}

#endif
