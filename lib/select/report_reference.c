/* report_reference.c - the whole-program references of `fmvgen select`
 * (select/reference.h) in the reports: how each was built (the flags
 * fmvgen's wrapper appended to every compile, how the build reached the
 * wrapper, how many of the scan's sources got them), and the FMA-free
 * reference's figures, which the tables (written for the plain
 * -march=x86-64-v3 one) do not hold. */
#include "select/report_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void add_iv(struct strbuf *sb, const struct stats_interval *iv)
{
    if (!iv->valid || !isfinite(iv->speedup) || !isfinite(iv->speedup_lo) || !isfinite(iv->speedup_hi))
        sb_adds(sb, "-");
    else
        sb_addf(sb, "%.2fx [%.2f, %.2f]", iv->speedup, iv->speedup_lo, iv->speedup_hi);
}

static void add_how(struct strbuf *sb, const struct select_march *m)
{
    sb_addf(sb, "\nThe %s reference%s%s%s: the unpatched project built once more, `%s` appended to every compile by "
                "fmvgen's compiler wrapper", m->title, m->why ? " (" : "", m->why ? m->why : "", m->why ? ")" : "",
            m->flags ? m->flags : "?");
    if (m->via) sb_addf(sb, ", reached through %s", m->via);
    if (m->n_sources) sb_addf(sb, "; %zu of the scan's %zu sources were compiled with them", m->n_flagged, m->n_sources);
    if (m->missed.n && m->n_flagged) {
        sb_adds(sb, " (not:");
        for (size_t i = 0; i < m->missed.n; i++) sb_addf(sb, " %s", m->missed.v[i]);
        sb_adds(sb, m->n_sources - m->n_flagged > m->missed.n ? " ...)" : ")");
    }
    if (m->failure) sb_addf(sb, "; no comparison: %s", m->failure);
    sb_adds(sb, ".\n");
}

void report_references_markdown(struct strbuf *sb, const struct select_report *r)
{
    if (r->march.attempted) add_how(sb, &r->march);
    const struct select_march *n = &r->march_nofma;
    if (!n->attempted) return;
    add_how(sb, n);
    if (n->code.measured && !n->failure && r->n_variants && r->variants[0].code.measured)
        sb_addf(sb, "Its code: %llu bytes in %zu files (the baseline's: %llu).\n", (unsigned long long)n->code.code_bytes,
                n->code.n_files, (unsigned long long)r->variants[0].code.code_bytes);
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        if (wr->nofma_failure) {
            sb_addf(sb, "- `%s`: the %s build failed it: %s\n", wr->command, n->title, wr->nofma_failure);
        } else if (wr->nofma_timed) {
            sb_addf(sb, "- `%s`: %s vs baseline ", wr->command, n->title);
            add_iv(sb, &wr->nofma_e2e);
            if (wr->selected_vs_nofma.valid) {
                sb_adds(sb, "; selected vs it ");
                add_iv(sb, &wr->selected_vs_nofma);
                sb_adds(sb, " (above 1x: the selected build is the faster)");
            }
            sb_adds(sb, "\n");
        }
    }
}

static json_t *reference_json(const struct select_report *r, const struct select_march *m, int nofma)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(m->name ? m->name : ""));
    json_object_set_new(o, "title", json_string(m->title ? m->title : ""));
    json_object_set_new(o, "why", m->why ? json_string(m->why) : json_null());
    json_object_set_new(o, "built", json_boolean(m->built));
    json_object_set_new(o, "flags", m->flags ? json_string(m->flags) : json_null());
    json_object_set_new(o, "built_via", m->via ? json_string(m->via) : json_null());
    json_object_set_new(o, "sources", json_integer((json_int_t)m->n_sources));
    json_object_set_new(o, "sources_with_flags", json_integer((json_int_t)m->n_flagged));
    json_t *missed = json_array();
    for (size_t i = 0; i < m->missed.n; i++) json_array_append_new(missed, json_string(m->missed.v[i]));
    json_object_set_new(o, "sources_without_flags", missed);
    json_object_set_new(o, "failure", m->failure ? json_string(m->failure) : json_null());
    int usable = m->code.measured && !m->failure;
    json_object_set_new(o, "code_bytes", usable ? json_integer((json_int_t)m->code.code_bytes) : json_null());
    json_object_set_new(o, "code_crc", usable ? json_integer((json_int_t)m->code.code_crc) : json_null());
    json_t *ws = json_array();
    for (size_t w = 0; w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        int timed = nofma ? wr->nofma_timed : wr->march_timed;
        json_t *j = json_object();
        json_object_set_new(j, "command", json_string(wr->command));
        json_object_set_new(j, "vs_baseline",
                            timed ? select_interval_json(nofma ? &wr->nofma_e2e : &wr->march_e2e) : json_null());
        const struct stats_interval *sel_vs = nofma ? &wr->selected_vs_nofma : &wr->selected_vs_march;
        json_object_set_new(j, "selected_vs_it", timed && sel_vs->valid ? select_interval_json(sel_vs) : json_null());
        const char *fail = nofma ? wr->nofma_failure : wr->march_failure;
        json_object_set_new(j, "failure", fail ? json_string(fail) : json_null());
        json_array_append_new(ws, j);
    }
    json_object_set_new(o, "workloads", ws);
    return o;
}

json_t *report_references_json(const struct select_report *r)
{
    json_t *a = json_array();
    if (r->march.attempted) json_array_append_new(a, reference_json(r, &r->march, 0));
    if (r->march_nofma.attempted) json_array_append_new(a, reference_json(r, &r->march_nofma, 1));
    return a;
}

void report_references_summary(struct strbuf *sb, const struct select_report *r)
{
    const struct select_march *n = &r->march_nofma;
    for (size_t w = 0; n->attempted && w < r->n_workloads; w++) {
        const struct select_workload_result *wr = &r->workloads[w];
        if (!wr->nofma_timed) continue;
        sb_addf(sb, "end to end, '%s': %s build ", wr->command, n->title);
        add_iv(sb, &wr->nofma_e2e);
        if (wr->selected_vs_nofma.valid) {
            sb_adds(sb, ", selected vs it ");
            add_iv(sb, &wr->selected_vs_nofma);
        } else {
            sb_adds(sb, " vs baseline (nothing selected)");
        }
        sb_adds(sb, "\n");
    }
    const struct select_march *refs[2] = {&r->march, n};
    for (int i = 0; i < 2; i++)
        if (refs[i]->attempted && refs[i]->failure)
            sb_addf(sb, "reference %s: not compared: %s\n", refs[i]->title, refs[i]->failure);
}
