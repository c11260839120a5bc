/* attribution.c - see attribution.h. */
#include "select/attribution.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

char *attribution_base_name(const char *symbol)
{
    return xstrndup(symbol, strcspn(symbol, "."));
}

char *attribution_clone_suffix(const char *symbol)
{
    const char *dot = strchr(symbol, '.');
    if (!dot) return xstrdup("");
    const char *s = dot + 1;
    size_t n = strlen(s);
    /* Clang numbers its clones: avx2.0, arch_x86-64-v3.1, default.2 */
    const char *last = strrchr(s, '.');
    if (last) {
        const char *d = last + 1;
        int digits = *d != 0;
        for (; *d; d++)
            if (!isdigit((unsigned char)*d)) digits = 0;
        if (digits) n = (size_t)(last - s);
    }
    return xstrndup(s, n);
}

static int belongs_to(const char *symbol, const char *function)
{
    size_t n = strlen(function);
    return !strncmp(symbol, function, n) && (symbol[n] == 0 || symbol[n] == '.');
}

long attribution_samples(const struct profile *p, const char *function)
{
    long n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (!p->entries[i].kernel && belongs_to(p->entries[i].symbol, function)) n += p->entries[i].samples;
    return n;
}

/* The dispatcher, not a clone: GCC's foo.resolver, Clang's foo.resolver and
 * foo.ifunc. Its samples are the function's (dispatch is part of what
 * cloning costs), but it is never "the clone that ran". */
static int is_dispatcher(const char *symbol)
{
    char *suffix = attribution_clone_suffix(symbol);
    int yes = !strcmp(suffix, "resolver") || !strcmp(suffix, "ifunc");
    free(suffix);
    return yes;
}

const char *attribution_hottest_symbol(const struct profile *p, const char *function)
{
    const struct profile_entry *best = NULL;
    for (size_t i = 0; i < p->n; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kernel || !belongs_to(e->symbol, function) || is_dispatcher(e->symbol)) continue;
        if (!best || e->samples > best->samples) best = e;
    }
    return best ? best->symbol : NULL;
}
