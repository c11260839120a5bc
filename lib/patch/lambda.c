/* lambda.c - see lambda.h. */
#include "patch/lambda.h"
#include "patch/plan.h"
#include "store/notes.h"

#include <stdlib.h>
#include <string.h>

/* The CPU test of each target lambda dispatch knows, highest first. */
static const struct {
    const char *target, *cond;
} LEVELS[] = {
    {"arch=x86-64-v4", "__builtin_cpu_supports(\"avx512f\") && __builtin_cpu_supports(\"avx512bw\") && "
                       "__builtin_cpu_supports(\"avx512cd\") && __builtin_cpu_supports(\"avx512dq\") && "
                       "__builtin_cpu_supports(\"avx512vl\") && __builtin_cpu_supports(\"avx2\") && "
                       "__builtin_cpu_supports(\"bmi2\") && __builtin_cpu_supports(\"fma\")"},
    {"arch=x86-64-v3", "__builtin_cpu_supports(\"avx2\") && __builtin_cpu_supports(\"bmi\") && "
                       "__builtin_cpu_supports(\"bmi2\") && __builtin_cpu_supports(\"fma\")"},
    {"avx2", "__builtin_cpu_supports(\"avx2\")"},
    {"arch=x86-64-v2", "__builtin_cpu_supports(\"sse4.2\") && __builtin_cpu_supports(\"popcnt\") && "
                       "__builtin_cpu_supports(\"ssse3\")"},
};
#define NLEVELS (sizeof LEVELS / sizeof LEVELS[0])
#define GUARD "#if defined(__x86_64__) && defined(__GNUC__) && !defined(FMVGEN_NO_CLONES)"

int patch_lambda_of(const struct patch_function *f) { return notes_find(f->notes, NOTE_LAMBDA_DISPATCH) != NULL; }

/* The offsets of the body's braces from the note; 0 when they are not
 * "{" and "}" in text. */
static int braces(const struct patch_function *f, const char *text, size_t len, size_t *open, size_t *close)
{
    json_t *n = notes_find(f->notes, NOTE_LAMBDA_DISPATCH);
    json_t *b = n ? json_object_get(n, "body") : NULL, *e = n ? json_object_get(n, "end") : NULL;
    if (!json_is_integer(b) || !json_is_integer(e)) return 0;
    *open = (size_t)json_integer_value(b);
    *close = (size_t)json_integer_value(e);
    return *open < *close && *close < len && text[*open] == '{' && text[*close] == '}';
}

const char *patch_lambda_refused(const struct patch_function *f, const char *text, size_t len)
{
    size_t open, close;
    if (!text || !braces(f, text, len, &open, &close))
        return "lambda dispatch: its body's braces are not where the scan saw them";
    size_t i = open + 1;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) i++;
    if (i >= len || text[i] != '\n') return "lambda dispatch needs its body's \"{\" at the end of its line";
    size_t j = close;
    while (j > 0 && (text[j - 1] == ' ' || text[j - 1] == '\t')) j--;
    if (j > 0 && text[j - 1] != '\n') return "lambda dispatch needs its body's \"}\" at the start of its line";
    if (j < i + 1) return "lambda dispatch needs a body of whole lines";
    return NULL;
}

int patch_lambda_lines(const struct patch_function *f, const char *text, size_t len,
                       const struct patch_target_set *set, struct insertion ins[2], char *texts[2])
{
    size_t open, close;
    if (!braces(f, text, len, &open, &close)) {
        fmv_error("%s:%d: %s: its body's braces are not where the scan saw them", f->rel, f->line, f->display_name);
        return -1;
    }
    size_t first = open;
    while (text[first] != '\n') first++;
    first++;
    size_t last = close;
    while (last > 0 && text[last - 1] != '\n') last--;
    const char *eol = first >= 2 && text[first - 2] == '\r' ? "\r\n" : "\n";
    json_t *n = notes_find(f->notes, NOTE_LAMBDA_DISPATCH);
    const char *result = json_string_value(json_object_get(n, "result"));
    /* the body's own indentation */
    size_t ind = last;
    while (ind < close && (text[ind] == ' ' || text[ind] == '\t')) ind++;
    char *indent = xasprintf("%.*s    ", (int)(ind - last), text + last);
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s /* fmvgen: lambda dispatch (a virtual function), its body duplicated per target */%s", GUARD,
            eol);
    sb_addf(&sb, "%sstatic const int fmvgen_sel = (__builtin_cpu_init(), ", indent);
    int k = 0;
    for (size_t l = 0; l < NLEVELS; l++)
        if (sv_contains(&set->targets, LEVELS[l].target)) sb_addf(&sb, "(%s) ? %d : ", LEVELS[l].cond, ++k);
    sb_addf(&sb, "0);%s", eol);
    for (size_t t = 0; t < set->targets.n; t++) {
        int known = 0;
        for (size_t l = 0; l < NLEVELS; l++) known |= !strcmp(set->targets.v[t], LEVELS[l].target);
        if (!known) {
            fmv_error("%s:%d: %s: lambda dispatch has no CPU test for target %s (it knows arch=x86-64-v2/-v3/-v4 "
                      "and avx2)",
                      f->rel, f->line, f->display_name, set->targets.v[t]);
            free(indent);
            sb_free(&sb);
            return -1;
        }
    }
    k = 0;
    for (size_t l = 0; l < NLEVELS; l++) {
        if (!sv_contains(&set->targets, LEVELS[l].target)) continue;
        sb_addf(&sb, "%sif (fmvgen_sel == %d) return [&]() __attribute__((target(\"%s\"))) -> %s {%s", indent, ++k,
                LEVELS[l].target, result, eol);
        sb_add(&sb, text + first, last - first);
        sb_addf(&sb, "%s}();%s", indent, eol);
    }
    sb_addf(&sb, "%sreturn [&]() -> %s {%s#endif%s", indent, result, eol, eol);
    texts[0] = sb_detach(&sb);
    texts[1] = xasprintf("%s%s%s}();%s#endif%s", GUARD, eol, indent, eol, eol);
    free(indent);
    ins[0] = (struct insertion){.offset = first, .text = texts[0]};
    ins[1] = (struct insertion){.offset = last, .text = texts[1]};
    return 0;
}
