/* trimcopies.c - see trimcopies.h. */
#include "select/trimcopies.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "targets/targets.h"
#include "util/util.h"

/* s with every character but letters and digits as '_', lower case. */
static char *folded(const char *s, size_t n)
{
    char *out = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) out[i] = isalnum((unsigned char)s[i]) ? (char)tolower((unsigned char)s[i]) : '_';
    out[n] = 0;
    return out;
}

/* 1 when slug (folded) names target t: as written, without "arch=", or as
 * an older compiler spells it; slug may end in clang's "_N". */
static int names_target(const char *slug, const char *t)
{
    const char *forms[] = {t, !strncmp(t, "arch=", 5) ? t + 5 : t, target_spell(t, "clang", 14),
                           target_spell(t, "gcc", 10)};
    size_t ls = strlen(slug);
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        if (!forms[i]) continue;
        char *f = folded(forms[i], strlen(forms[i]));
        size_t lf = strlen(f);
        int ok = !strncmp(slug, f, lf) && (slug[lf] == 0 || slug[lf] == '_');
        if (ok && slug[lf] == '_')   /* a clone number: "_0" */
            for (size_t k = lf + 1; k < ls && ok; k++) ok = isdigit((unsigned char)slug[k]) != 0;
        if (ok && slug[lf] == '_' && lf + 1 == ls) ok = 0;
        free(f);
        if (ok) return 1;
    }
    return 0;
}

char *trim_target_of(const char *targets, const char *name, const char *sym)
{
    if (!targets || !name || !sym) return NULL;
    char *cp = xasprintf("fmvgen_cp_%s_", name);
    size_t ln = strlen(name);
    const char *rest = NULL;
    if (!strncmp(sym, cp, strlen(cp))) rest = sym + strlen(cp);
    else if (!strncmp(sym, name, ln) && sym[ln] == '.') rest = sym + ln + 1;
    free(cp);
    if (!rest || !*rest) return NULL;
    char *slug = folded(rest, strlen(rest));
    struct strvec set = STRVEC_INIT;
    char *found = NULL;
    int n = 0;
    if (targets_parse(targets, &set) == 0)
        for (size_t i = 0; i < set.n; i++)
            if (names_target(slug, set.v[i])) n++, found = set.v[i];
    char *out = n == 1 ? xstrdup(found) : NULL;
    sv_free(&set);
    free(slug);
    return out;
}

int64_t trim_unran_bytes(const struct select_report *r, size_t f, size_t v, char **target, const char **symbol)
{
    *target = NULL;
    *symbol = NULL;
    const struct select_function *fn = &r->functions[f];
    if (v < 1 || v >= r->n_variants || !fn->copies || !fn->ran || !fn->ran[v]) return 0;
    const struct select_copies *c = &fn->copies[v];
    int64_t other = 0;
    int seen = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!strcmp(c->symbols[i], fn->ran[v])) seen = 1;
        else other += c->bytes[i];
    }
    if (!seen || other <= 0) return 0;   /* the default ran, or no other copy */
    char *t = trim_target_of(r->variants[v].targets, fn->name, fn->ran[v]);
    if (!t) return 0;
    *target = t;
    *symbol = fn->ran[v];
    return other;
}

/* Marks trim[f] for each selected function with copies that never ran
 * where it was measured (select/trimcopies.h); returns how many. */
size_t trim_mark(const struct select_report *r, size_t n, int *trim)
{
    size_t k = 0;
    for (size_t f = 0; f < n; f++) {
        int v = r->decision.functions[f].chosen;
        char *t = NULL;
        const char *sym;
        trim[f] = v >= 1 && trim_unran_bytes(r, f, (size_t)v, &t, &sym) > 0;
        k += trim[f];
        free(t);
    }
    return k;
}

/* Each kept function left with the copy that ran alone: its fields
 * (copy_only, copy_only_symbol, trimmed_bytes), a note, and a line in
 * r->notes. */
void trim_report(struct select_report *r, size_t n, const int *dropped, const int *trim)
{
    struct strbuf sb = STRBUF_INIT;
    int64_t total = 0;
    for (size_t f = 0; f < n; f++) {
        struct select_function *fn = &r->functions[f];
        int v = r->decision.functions[f].chosen;
        if (!trim[f] || dropped[f] || v < 1) continue;
        char *t = NULL;
        const char *sym;
        int64_t left = trim_unran_bytes(r, f, (size_t)v, &t, &sym);
        if (left <= 0 || !t) {
            free(t);
            continue;
        }
        free(fn->copy_only);
        free(fn->copy_only_symbol);
        fn->copy_only = t;
        fn->copy_only_symbol = xstrdup(sym);
        fn->trimmed_bytes = left;
        total += left;
        free(fn->note);
        fn->note = xasprintf("selected with its %s copy alone (and the default): the other copies of its %s set "
                             "(%lld bytes) never ran where its gain was measured (this CPU ran %s), and the "
                             "code-growth budget has room for more functions without them; a CPU without %s runs "
                             "its default code",
                             t, r->variants[v].name, (long long)left, sym, t);
        sb_addf(&sb, "%s%s (%s, %lld bytes left out)", sb.len ? ", " : "", fn->display_name, t, (long long)left);
    }
    if (sb.len)
        sv_pushf(&r->notes, "code-growth budget: copies that never ran where the gain was measured are left out "
                            "before any function is dropped: %s; %lld bytes in all",
                 sb_str(&sb), (long long)total);
    sb_free(&sb);
}
