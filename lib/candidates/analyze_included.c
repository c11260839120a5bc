/* analyze_included.c - see analyze_internal.h and included.h: a definition
 * in a source file TUs #include is judged once over every TU that compiles
 * it, and all its rows get that verdict; a static function of a project
 * header (header.h) gets each TU's own verdict. */
#include "candidates/analyze_internal.h"
#include "candidates/header.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* The included source files holding a candidate. */
static void included_with_candidates(const struct tu_job *jobs, size_t n, struct strvec *out)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < jobs[i].included.n; k++) {
            const char *path = jobs[i].included.v[k];
            if (sv_contains(out, path)) continue;
            int has = 0;
            for (size_t a = 0; a < n && !has; a++)
                for (size_t r = 0; r < jobs[a].rows.n && !has; r++)
                    has = !jobs[a].rows.v[r].reason && jobs[a].rows.v[r].located && jobs[a].rows.v[r].file &&
                          !strcmp(jobs[a].rows.v[r].file, path);
            if (has) sv_push(out, path);
        }
}

/* A header's static function (header.h): each row gets its own TU's
 * verdict, or the exclusion common to all. */
static void apply_header_verdict(struct tu_job *jobs, size_t n, const char *path, unsigned offset,
                                 const struct sighting **group, size_t ng, const struct included_tu *tus)
{
    struct header_verdict v;
    header_verdict(group, ng, tus, &v);
    for (size_t a = 0; a < n; a++)
        for (size_t r = 0; r < jobs[a].rows.n; r++) {
            struct fn_row *row = &jobs[a].rows.v[r];
            if (row->reason || !row->located || strcmp(row->file, path) != 0 || row->insert_offset != offset)
                continue;
            size_t mine = ng;   /* its TU's sighting of its symbol */
            for (size_t k = 0; k < ng && mine == ng; k++)
                if (group[k]->compile == a && !strcmp(group[k]->symbol, row->name)) mine = k;
            if (v.reason || (mine < ng && v.tu_reason[mine])) {
                row->reason = v.reason ? v.reason : v.tu_reason[mine];
                free(row->detail);
                row->detail = xstrdup(v.reason ? v.detail : v.tu_detail[mine]);
            } else if (mine < ng && v.note_of[mine]) {
                fn_row_add_note(row, v.note_of[mine]);
            }
        }
    header_verdict_free(&v, ng);
}

/* Judges each definition of the files once over every TU that compiles it,
 * and gives its rows the verdict. */
static void apply_verdicts(struct tu_job *jobs, size_t n, const struct strvec *files, const struct included_tu *tus)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += jobs[i].sightings.n;
    const struct sighting **group = xcalloc(total ? total : 1, sizeof *group);
    for (size_t f = 0; f < files->n; f++) {
        const char *path = files->v[f];
        /* Each distinct definition (insert offset) of the file once. */
        for (size_t i = 0; i < n; i++)
            for (size_t s = 0; s < jobs[i].sightings.n; s++) {
                const struct sighting *lead = &jobs[i].sightings.v[s];
                if (strcmp(lead->file, path) != 0) continue;
                size_t ng = 0;
                int first = 1;
                for (size_t a = 0; a < n; a++)
                    for (size_t b = 0; b < jobs[a].sightings.n; b++) {
                        const struct sighting *g = &jobs[a].sightings.v[b];
                        if (strcmp(g->file, path) != 0 || g->insert_offset != lead->insert_offset) continue;
                        if (ng == 0 && g != lead) first = 0;   /* judged with an earlier sighting */
                        group[ng++] = g;
                    }
                if (!first) continue;
                if (path_is_header(path)) {
                    apply_header_verdict(jobs, n, path, lead->insert_offset, group, ng, tus);
                    continue;
                }
                struct included_verdict v;
                included_verdict(group, ng, tus, &v);
                for (size_t a = 0; a < n; a++)
                    for (size_t r = 0; r < jobs[a].rows.n; r++) {
                        struct fn_row *row = &jobs[a].rows.v[r];
                        if (row->reason || !row->located || strcmp(row->file, path) != 0 ||
                            row->insert_offset != lead->insert_offset)
                            continue;
                        if (v.reason) {
                            row->reason = v.reason;
                            free(row->detail);
                            row->detail = xstrdup(v.detail);
                        } else if (v.note) {
                            fn_row_add_note(row, v.note);
                        }
                    }
                free(v.detail);
                json_decref(v.note);
            }
    }
    free(group);
}

void analyze_included_sources(struct tu_job *jobs, size_t n, struct gcc_includes *includes)
{
    struct strvec files = STRVEC_INIT, sight = STRVEC_INIT;
    included_with_candidates(jobs, n, &files);
    if (files.n == 0) return;
    /* A source file's line reaches every TU that includes it: each must be
     * judged, also those the first pass did not parse. A header's switch
     * is on only in the TUs judged (header.h): the others need no pass. */
    for (size_t i = 0; i < files.n; i++)
        if (!path_is_header(files.v[i])) sv_push(&sight, files.v[i]);
    struct included_tu *tus = xcalloc(n, sizeof *tus);
    struct strvec sources = STRVEC_INIT;
    for (size_t i = 0; i < n; i++) sv_push(&sources, "");
    for (size_t i = 0; i < n; i++) {
        struct tu_job *j = &jobs[i];
        char *source = path_absolute(j->compile->source, j->compile->directory);
        free(sources.v[i]);
        sources.v[i] = source;
        tus[i].source = source;
        tus[i].output = j->compile->output;
        /* A TU the first pass did not parse may include one of the files;
         * one that compiles one as its own source saw only its functions
         * that vectorized there. */
        if (sight.n && ((!j->parsed && !j->unparsable && file_exists(source)) || sv_contains(&sight, source))) {
            j->sight_files = &sight;
            if (!j->gcc_include) j->gcc_include = gcc_include_dir(includes, j->compile);
        }
    }
    if (sight.n) analyze_run_jobs(jobs, n);
    for (size_t i = 0; i < n; i++) jobs[i].sight_files = NULL;
    apply_verdicts(jobs, n, &files, tus);
    sv_free(&sources);
    free(tus);
    sv_free(&files);
    sv_free(&sight);
}
