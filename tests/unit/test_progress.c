/* Unit tests of lib/util/progress: the bar line as rendered into a buffer
 * (bar, k/n, elapsed time, cutting to the width), the plain lines written
 * when the output is not a terminal, and the bar mode's redraws around
 * other messages (progress_say, fmv_error). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"
#include "util/util.h"

static void test_render(void **state)
{
    (void)state;
    char buf[256];
    size_t n = progress_render(buf, sizeof buf, "select", "building baseline", 1, 3, 5.4, 80);
    assert_string_equal(buf, "select [>           ] 1/3 0:05 building baseline");
    assert_int_equal(n, strlen(buf));
    /* two of four steps done: half the bar */
    progress_render(buf, sizeof buf, "select", "profiled runs, round 3", 3, 4, 67, 80);
    assert_string_equal(buf, "select [======>     ] 3/4 1:07 profiled runs, round 3");
    /* the last step past the end stays a full bar */
    progress_render(buf, sizeof buf, "select", "x", 5, 4, 0, 80);
    assert_string_equal(buf, "select [============] 5/4 0:00 x");
    /* no count: no bar; an hour and more: h:mm:ss */
    progress_render(buf, sizeof buf, "select", "timing", 0, 0, 3725, 80);
    assert_string_equal(buf, "select 1:02:05 timing");
    /* a message is one line */
    progress_render(buf, sizeof buf, "p", "first\nsecond", 0, 0, 0, 80);
    assert_string_equal(buf, "p 0:00 first");
}

static void test_render_cut(void **state)
{
    (void)state;
    char buf[256];
    size_t n = progress_render(buf, sizeof buf, "select", "building fma-levels with every candidate cloned", 2, 3,
                               0, 30);
    assert_int_equal(n, 30);
    assert_string_equal(buf, "select [====>       ] 2/3 0:00");
    /* never less than 20 columns */
    n = progress_render(buf, sizeof buf, "select", "building", 0, 0, 0, 3);
    assert_int_equal(n, 20);
    /* a UTF-8 sequence is not split: "é" is bytes 20-21 of the line */
    n = progress_render(buf, sizeof buf, "p", "abcdefghijkl\xc3\xa9z", 0, 0, 0, 20);
    assert_int_equal(n, 19);
    assert_string_equal(buf, "p 0:00 abcdefghijkl");
    /* a small buffer gets a NUL-terminated prefix; the length is the line's */
    char small[8];
    n = progress_render(small, sizeof small, "select", "building", 0, 0, 0, 80);
    assert_int_equal(n, strlen("select 0:00 building"));
    assert_string_equal(small, "select ");
}

static char *slurp(FILE *f)
{
    fflush(f);
    long len = ftell(f);
    rewind(f);
    char *s = xcalloc((size_t)len + 1, 1);
    assert_int_equal(fread(s, 1, (size_t)len, f), (size_t)len);
    fseek(f, 0, SEEK_END);
    return s;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static void test_plain_lines(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    /* AUTO on a file that is no terminal: plain lines */
    struct progress *p = progress_start(f, "select", PROGRESS_AUTO);
    assert_false(progress_is_bar(p));
    progress_step(p, 1, 3, "building %s", "baseline");
    progress_step(p, 2, 3, "building %s", "fma-levels");
    progress_say(p, "fma-free is not eligible: %s", "output differs");
    progress_write(p, "    | make: *** [prog] Error 1\n");
    progress_step(p, 0, 0, "timing baseline and selected");
    progress_finish(p);
    char *s = slurp(f);
    assert_string_equal(s, "select: building baseline (1/3)\n"
                           "select: building fma-levels (2/3)\n"
                           "select: fma-free is not eligible: output differs\n"
                           "    | make: *** [prog] Error 1\n"
                           "select: timing baseline and selected\n");
    free(s);
    fclose(f);
}

static void test_bar(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    struct progress *p = progress_start(f, "select", PROGRESS_BAR);
    assert_true(progress_is_bar(p));
    progress_step(p, 1, 2, "building baseline");
    char *s = slurp(f);
    assert_string_equal(s, "\r\033[Kselect [>           ] 1/2 0:00 building baseline");
    free(s);

    /* a message goes above the bar: clear, line, bar again */
    progress_say(p, "kept %s", "/tmp/x");
    s = slurp(f);
    assert_non_null(strstr(s, "building baseline\r\033[Kselect: kept /tmp/x\n\r\033[Kselect [>"));
    free(s);

    progress_write(p, "    | log\n");
    s = slurp(f);
    assert_non_null(strstr(s, "\r\033[K    | log\n\r\033[Kselect [>"));
    free(s);

    /* fmv_error's line (on stderr) makes the bar step aside too */
    progress_step(p, 2, 2, "building fma-levels");
    s = slurp(f);
    size_t before = count(s, "\r\033[K");
    free(s);
    FILE *saved = stderr;
    FILE *err = tmpfile();
    stderr = err;
    fmv_error("%s: build failed", "fma-levels");
    stderr = saved;
    s = slurp(f);
    assert_int_equal(count(s, "\r\033[K"), before + 2);
    assert_true(strlen(s) > 0 && strstr(s, "] 2/2 ") != NULL);
    free(s);
    s = slurp(err);
    assert_string_equal(s, "fmvgen: fma-levels: build failed\n");
    free(s);
    fclose(err);

    /* finish: the line is cleared, and the hook is gone */
    progress_finish(p);
    s = slurp(f);
    size_t len = strlen(s);
    assert_true(len > 4 && !strcmp(s + len - 4, "\r\033[K"));
    free(s);
    err = tmpfile();
    stderr = err;
    fmv_error("after");
    stderr = saved;
    s = slurp(f);
    assert_int_equal(strlen(s), len);
    free(s);
    fclose(err);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_render_cut),
        cmocka_unit_test(test_plain_lines),
        cmocka_unit_test(test_bar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
