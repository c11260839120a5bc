/* rounds.c - see rounds.h. */
#include "select/rounds.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void rounds_init(struct rounds *d, size_t nf, size_t nv, size_t nw, size_t nr)
{
    memset(d, 0, sizeof *d);
    d->nr = nr;
    d->samples = xcalloc(nw * nv * nf * nr + 1, sizeof *d->samples);
    /* by name too: a shared name that one profile could not tell by file
     * is counted by name in every run, so its runs stay comparable */
    d->name_samples = xcalloc(nw * nv * nf * nr + 1, sizeof *d->name_samples);
    d->aa_samples = xcalloc(nw * nf * nr + 1, sizeof *d->aa_samples);
    d->aa_name_samples = xcalloc(nw * nf * nr + 1, sizeof *d->aa_name_samples);
    d->totals = xcalloc(nw * nv * nr + 1, sizeof *d->totals);
    d->aa_totals = xcalloc(nw * nr + 1, sizeof *d->aa_totals);
    d->position = xcalloc((nv + 1) * nr + 1, sizeof *d->position);
    for (size_t i = 0; i < (nv + 1) * nr; i++) d->position[i] = -1;
}

void rounds_free(struct rounds *d)
{
    free(d->samples);
    free(d->name_samples);
    free(d->aa_samples);
    free(d->aa_name_samples);
    free(d->totals);
    free(d->aa_totals);
    free(d->position);
    outlined_log_free(&d->helpers_log);
    libcall_log_free(&d->libcall_log);
    memset(d, 0, sizeof *d);
}

/* Rows of na values then rows of nb, row by row. */
static void *concat_rows(const void *a, size_t na, const void *b, size_t nb, size_t rows, size_t size)
{
    char *out = xcalloc(rows * (na + nb) + 1, size);
    for (size_t i = 0; i < rows; i++) {
        memcpy(out + i * (na + nb) * size, (const char *)a + i * na * size, na * size);
        memcpy(out + (i * (na + nb) + na) * size, (const char *)b + i * nb * size, nb * size);
    }
    return out;
}

void rounds_append(struct rounds *a, struct rounds *b, size_t nf, size_t nv, size_t nw)
{
    size_t na = a->nr, nb = b->nr;
    double **pairs[][2] = {{&a->samples, &b->samples},       {&a->name_samples, &b->name_samples},
                           {&a->aa_samples, &b->aa_samples}, {&a->aa_name_samples, &b->aa_name_samples},
                           {&a->totals, &b->totals},         {&a->aa_totals, &b->aa_totals}};
    size_t rows[] = {nw * nv * nf, nw * nv * nf, nw * nf, nw * nf, nw * nv, nw};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        double *joined = concat_rows(*pairs[i][0], na, *pairs[i][1], nb, rows[i], sizeof(double));
        free(*pairs[i][0]);
        *pairs[i][0] = joined;
    }
    int *position = concat_rows(a->position, na, b->position, nb, nv + 1, sizeof(int));
    free(a->position);
    a->position = position;
    a->nr = na + nb;
    rounds_free(b);
}
