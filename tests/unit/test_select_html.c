/* Unit tests of report.html (lib/select/report_html.c): the Markdown of
 * report.md's prose as HTML (report_mdhtml.c), and the page of a report
 * with two workloads, two all-candidates builds and both references: HTML
 * tables of the same cells as report.md's, one chart per workload with a
 * row per build (or why it has none), everything escaped, nothing loaded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "select/report_write.h"
#include "test_select_helpers.h"
#include "util/util.h"

static char *blocks(const char *md)
{
    struct strbuf sb = STRBUF_INIT;
    report_html_blocks(&sb, md);
    return sb_detach(&sb);
}

static char *inl(const char *md)
{
    struct strbuf sb = STRBUF_INIT;
    report_html_inline(&sb, md);
    return sb_detach(&sb);
}

static void expect_inline(const char *md, const char *html)
{
    char *got = inl(md);
    assert_string_equal(got, html);
    free(got);
}

static void test_markdown(void **state)
{
    (void)state;
    expect_inline("`a<b>` & \"c\"", "<code>a&lt;b&gt;</code> &amp; &quot;c&quot;");
    expect_inline("**A/A calibration.** the `x`", "<strong>A/A calibration.</strong> the <code>x</code>");
    expect_inline("1.67x *decides*", "1.67x <em>decides</em>");
    /* '*' that opens nothing stays text */
    expect_inline("operator* and a * b", "operator* and a * b");
    expect_inline("**not closed", "**not closed");
    expect_inline("an `unclosed tick", "an `unclosed tick");
    expect_inline("**Names:** `work` (a.c:3)", "<strong>Names:</strong> <code>work</code> (a.c:3)");

    char *h = blocks("## Statistics\n\nFirst line\nsame paragraph.\n\n**False selections.** rule.\n- one\n- two\n\nlast");
    assert_string_equal(h, "<h2>Statistics</h2>\n<p>First line\nsame paragraph.</p>\n"
                           "<p><strong>False selections.</strong> rule.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
                           "<p>last</p>\n");
    free(h);
    h = blocks("");
    assert_string_equal(h, "");
    free(h);
}

/* baseline + fma-levels + fma-free; dot selected; two workloads, the
 * second's selected build failed; both references, the FMA-free one not
 * timed on the second workload. */
static void make_report(struct select_report *r)
{
    sel_report_init(r);
    for (int v = 0; v < 3; v++) {
        r->variants[v].code.measured = 1;
        r->variants[v].code.n_files = 1;
        r->variants[v].code.code_bytes = 10000 + 500 * (uint64_t)v;
    }
    size_t dot = sel_add_function(r, "dot", "k.c", 3);
    r->functions[dot].in_patch = 1;
    r->functions[dot].set = 1;
    r->decision.n_workloads = 2;
    struct decision_function *d = &r->decision.functions[dot];
    d->chosen = 1;
    d->share = 0.9;
    d->base_samples = 100;
    sel_interval(&d->by_variant[1], 100, 50);
    sel_interval(&d->by_variant[2], 100, 60);
    r->decision.calibrated = 1;
    r->decision.aa_workload = xcalloc(2, sizeof(struct stats_interval));
    r->decision.aa_workload_margin = xcalloc(2, sizeof(double));
    r->n_selected = 1;
    r->n_workloads = 2;
    r->workloads = xcalloc(2, sizeof *r->workloads);
    r->workloads[0].command = xstrdup("./prog <in.txt");
    r->workloads[1].command = xstrdup("./prog 2");
    for (int w = 0; w < 2; w++) {
        struct select_workload_result *wr = &r->workloads[w];
        sel_interval(&r->decision.aa_workload[w], 1000, 1000);
        wr->all_candidates = xcalloc(3, sizeof(struct stats_interval));
        sel_interval(&wr->all_candidates[1], 1000, 600);
        sel_interval(&wr->all_candidates[2], 1000, 700);
        sel_interval(&wr->march_e2e, 1.0, 0.5);
        sel_interval(&wr->selected_vs_march, 0.5, 0.6);
        wr->march_timed = 1;
    }
    sel_interval(&r->workloads[0].e2e, 1.0, 0.6);
    r->workloads[0].timed = 1;
    r->workloads[1].failure = xstrdup("exit 1 <core dumped>");
    sel_interval(&r->workloads[0].nofma_e2e, 1.0, 0.55);
    sel_interval(&r->workloads[0].selected_vs_nofma, 0.55, 0.6);
    r->workloads[0].nofma_timed = 1;
    r->march.attempted = r->march.built = 1;
    r->march.title = "-march=x86-64-v3";
    r->march_nofma.attempted = r->march_nofma.built = 1;
    r->march_nofma.title = "-march=x86-64-v3 -mno-fma";
    sv_push(&r->notes, "a note on `x` & <y>");
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static void test_page(void **state)
{
    (void)state;
    struct select_report r;
    make_report(&r);
    char *html = select_report_html(&r);
    /* tables, not Markdown in a <pre> */
    assert_null(strstr(html, "<pre"));
    assert_null(strstr(html, "|---|"));
    assert_non_null(strstr(html, "<table id=\"end-to-end-table\">"));
    assert_non_null(strstr(html, "<table id=\"functions-table\">"));
    assert_non_null(strstr(html, "<table id=\"variants-table\">"));
    assert_non_null(strstr(html, "<table id=\"code-table\">"));
    assert_non_null(strstr(html, "<tr><td>dot</td><td>k.c:3</td><td>90.0%</td><td>100</td><td>2.00x ["));
    /* the table's commands are code, escaped */
    assert_non_null(strstr(html, "<td><code>./prog &lt;in.txt</code></td>"));
    assert_non_null(strstr(html, "<td>failed: exit 1 &lt;core dumped&gt;</td>"));
    /* one chart per workload, a row per build */
    assert_int_equal(count(html, "<figure class=\"workload-chart\">"), 2);
    static const char *const rows[] = {">baseline again (A/A)</text>", ">fma-levels (all candidates)</text>",
                                       ">fma-free (all candidates)</text>", ">-march=x86-64-v3</text>",
                                       ">-march=x86-64-v3 -mno-fma</text>"};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) assert_int_equal(count(html, rows[i]), 2);
    /* the selected build's interval on the first; on the second, why none */
    const char *second = strstr(html, "<code>./prog 2</code></figcaption>");
    assert_non_null(second);
    assert_non_null(strstr(html, "<title>1.67x ["));
    assert_non_null(strstr(second, "<title>exit 1 &lt;core dumped&gt;</title>"));
    assert_non_null(strstr(second, "<title>not timed</title>"));   /* the FMA-free reference there */
    /* the A/A calibration and the statistics, as prose */
    assert_non_null(strstr(html, "<h2>Statistics</h2>"));
    assert_non_null(strstr(html, "<strong>A/A calibration.</strong>"));
    assert_non_null(strstr(html, "<li>a note on <code>x</code> &amp; &lt;y&gt;</li>"));
    /* self-contained: nothing fetched */
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "src="));
    assert_null(strstr(html, "href="));
    assert_null(strstr(html, "url("));
    /* charts fit the page: never wider than REPORT_CHART_WIDTH, scaled down by CSS */
    assert_int_equal(count(html, "<svg class=\"chart\""), 4);
    assert_non_null(strstr(html, "svg.chart{display:block;max-width:100%;height:auto}"));
    free(html);

    /* nothing profiled: no all-candidates rows; static: no workload chart */
    for (size_t w = 0; w < r.n_workloads; w++) {
        free(r.workloads[w].all_candidates);
        r.workloads[w].all_candidates = NULL;
    }
    html = select_report_html(&r);
    assert_null(strstr(html, "(all candidates)</text>"));
    assert_int_equal(count(html, "<figure class=\"workload-chart\">"), 2);
    free(html);
    r.static_mode = 1;
    html = select_report_html(&r);
    assert_null(strstr(html, "workload-chart"));
    assert_non_null(strstr(html, "<table id=\"functions-table\">"));
    free(html);
    select_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
