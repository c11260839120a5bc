/* targets.c - see targets.h. One table of the x86 targets fmvgen knows: the
 * flag that compiles for each, how wide its vectors are (to pick the probe
 * target), whether it lets the compiler contract a*b+c into FMA, and its
 * feature-name spelling for compilers whose resolver mis-dispatches the
 * psABI levels. Validation runs the user's compiler on a one-function file. */
#include "targets/targets.h"
#include "run/spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct target_info {
    const char *name;        /* as written in target_clones("...") */
    const char *flag;        /* the equivalent command-line option */
    int level;               /* ISA width rank: the widest is probed */
    int fma;                 /* the compiler may contract a*b+c */
    const char *feature;     /* spelling for clang < 19 / gcc < 11, or NULL: same */
};

/* Levels: 1 SSE3 .. 4 SSE4.2/v2, 5 AVX, 6 AVX2, 7 AVX2+FMA (v3), 8 AVX-512
 * subsets, 9 the full v4 set. CPU models are ranked by their ISA. */
static const struct target_info TARGETS[] = {
    {"arch=x86-64-v2", "-march=x86-64-v2", 4, 0, "sse4.2"},
    {"arch=x86-64-v3", "-march=x86-64-v3", 7, 1, "avx2"},
    {"arch=x86-64-v4", "-march=x86-64-v4", 9, 1, "avx512f"},
    {"sse3", "-msse3", 1, 0, NULL},
    {"ssse3", "-mssse3", 2, 0, NULL},
    {"sse4.1", "-msse4.1", 3, 0, NULL},
    {"sse4.2", "-msse4.2", 4, 0, NULL},
    {"popcnt", "-mpopcnt", 1, 0, NULL},
    {"avx", "-mavx", 5, 0, NULL},
    {"avx2", "-mavx2", 6, 0, NULL},
    {"fma", "-mfma", 6, 1, NULL},
    {"bmi", "-mbmi", 1, 0, NULL},
    {"bmi2", "-mbmi2", 1, 0, NULL},
    {"aes", "-maes", 1, 0, NULL},
    {"pclmul", "-mpclmul", 1, 0, NULL},
    {"avx512f", "-mavx512f", 8, 1, NULL},
    {"avx512vl", "-mavx512vl", 8, 1, NULL},
    {"avx512bw", "-mavx512bw", 8, 1, NULL},
    {"avx512dq", "-mavx512dq", 8, 1, NULL},
    {"avx512cd", "-mavx512cd", 8, 1, NULL},
    {"avx512vbmi", "-mavx512vbmi", 8, 1, NULL},
    {"avx512vnni", "-mavx512vnni", 8, 1, NULL},
    {"avx512bitalg", "-mavx512bitalg", 8, 1, NULL},
    {"avx512vpopcntdq", "-mavx512vpopcntdq", 8, 1, NULL},
    /* CPU models: dispatched by model, see target_is_cpu_model(). */
    {"arch=nehalem", "-march=nehalem", 4, 0, NULL},
    {"arch=westmere", "-march=westmere", 4, 0, NULL},
    {"arch=sandybridge", "-march=sandybridge", 5, 0, NULL},
    {"arch=ivybridge", "-march=ivybridge", 5, 0, NULL},
    {"arch=haswell", "-march=haswell", 7, 1, NULL},
    {"arch=broadwell", "-march=broadwell", 7, 1, NULL},
    {"arch=skylake", "-march=skylake", 7, 1, NULL},
    {"arch=alderlake", "-march=alderlake", 7, 1, NULL},
    {"arch=skylake-avx512", "-march=skylake-avx512", 9, 1, NULL},
    {"arch=cascadelake", "-march=cascadelake", 9, 1, NULL},
    {"arch=icelake-client", "-march=icelake-client", 9, 1, NULL},
    {"arch=icelake-server", "-march=icelake-server", 9, 1, NULL},
    {"arch=tigerlake", "-march=tigerlake", 9, 1, NULL},
    {"arch=sapphirerapids", "-march=sapphirerapids", 9, 1, NULL},
    {"arch=znver1", "-march=znver1", 7, 1, NULL},
    {"arch=znver2", "-march=znver2", 7, 1, NULL},
    {"arch=znver3", "-march=znver3", 7, 1, NULL},
    {"arch=znver4", "-march=znver4", 9, 1, NULL},
};

static const struct target_info *lookup(const char *name)
{
    for (size_t i = 0; i < sizeof TARGETS / sizeof *TARGETS; i++)
        if (!strcmp(TARGETS[i].name, name)) return &TARGETS[i];
    return NULL;
}

static char *trim(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    /* Accept target_clones' own quoting: --targets '"avx2","default"'. */
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') s++, n -= 2;
    return xstrndup(s, n);
}

int targets_parse(const char *spec, struct strvec *out)
{
    struct strvec parsed = STRVEC_INIT;
    const char *p = spec ? spec : "";
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *name = trim(p, n);
        if (*name && strcmp(name, "default") != 0) {
            if (!lookup(name)) {
                fmv_error("%s: unknown target (known: arch=x86-64-v2, arch=x86-64-v3, arch=x86-64-v4, "
                          "feature names such as avx2 or avx512f, arch=CPU such as arch=haswell)",
                          name);
                free(name);
                sv_free(&parsed);
                return -1;
            }
            if (!sv_contains(&parsed, name)) sv_push(&parsed, name);
        }
        free(name);
        if (!comma) break;
        p = comma + 1;
    }
    if (parsed.n == 0) {
        sv_free(&parsed);
        return fmv_error("%s: no target besides default; name at least one (e.g. %s)", spec ? spec : "",
                         TARGETS_DEFAULT);
    }
    for (size_t i = 0; i < parsed.n; i++) sv_push(out, parsed.v[i]);
    sv_free(&parsed);
    return 0;
}

int target_compile_flags(const char *target, struct strvec *flags)
{
    const struct target_info *t = lookup(target);
    if (!t) return -1;
    sv_push(flags, t->flag);
    return 0;
}

const char *targets_widest(const struct strvec *targets)
{
    const char *best = NULL;
    int best_level = -1;
    for (size_t i = 0; i < targets->n; i++) {
        const struct target_info *t = lookup(targets->v[i]);
        if (t && t->level > best_level) {
            best = targets->v[i];
            best_level = t->level;
        }
    }
    return best;
}

int target_enables_fma(const char *target)
{
    const struct target_info *t = lookup(target);
    /* Unknown: say it may, the safe answer for a bit-exactness warning. */
    return t ? t->fma : 1;
}

int targets_enable_fma(const struct strvec *targets)
{
    for (size_t i = 0; i < targets->n; i++)
        if (target_enables_fma(targets->v[i])) return 1;
    return 0;
}

int target_is_cpu_model(const char *target)
{
    return !strncmp(target, "arch=", 5) && strncmp(target, "arch=x86-64", 11) != 0;
}

const char *target_spell(const char *target, const char *compiler_kind, int major)
{
    const struct target_info *t = lookup(target);
    if (!t || !t->feature) return t ? t->name : target;
    int feature_names = compiler_kind && !strcmp(compiler_kind, "clang") ? major < 19 : major < 11;
    return feature_names ? t->feature : t->name;
}

void targets_spell(const struct strvec *targets, const char *compiler_kind, int major, struct strvec *out)
{
    for (size_t i = 0; i < targets->n; i++) {
        const char *s = target_spell(targets->v[i], compiler_kind, major);
        if (!sv_contains(out, s)) sv_push(out, s);
    }
}

/* The first line of compiler output that says "error", for a one-line
 * message; else the first line. */
static char *first_error_line(const char *text)
{
    if (!text || !*text) return xstrdup("no message");
    const char *line = text, *pick = NULL;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char *l = xstrndup(line, n);
        int is_err = strstr(l, "error") != NULL;
        free(l);
        if (is_err) {
            pick = line;
            break;
        }
        if (!end) break;
        line = end + 1;
    }
    if (!pick) pick = text;
    const char *end = strchr(pick, '\n');
    size_t n = end ? (size_t)(end - pick) : strlen(pick);
    /* Drop "/tmp/...probe.c:2:31: ": the temp file means nothing to a user. */
    const char *err = memmem(pick, n, "error:", 6);
    if (err) {
        n -= (size_t)(err - pick);
        pick = err;
    }
    return xstrndup(pick, n);
}

int targets_compiler_macros(const char *compiler, const char **kind, int *major)
{
    char *dir = make_temp_dir("targets");
    if (!dir) return fmv_error("%s: cannot create a temporary directory", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    char *src = path_join(dir, "macros.c");
    static const char probe[] = "fmvgen_clang __clang__ __clang_major__\nfmvgen_gnuc __GNUC__\n";
    int rc = -1;
    if (write_file_atomic(src, probe, strlen(probe)) != 0) {
        fmv_error("%s: cannot write", src);
        goto out;
    }
    char *argv[] = {(char *)compiler, "-E", "-P", "-x", "c", src, NULL};
    struct run_opts o = {.capture_stdout = 1, .null_stderr = 1, .timeout_s = 60};
    struct run_result r;
    if (run_argv(argv, &o, &r) != 0 || !r.out) {
        fmv_error("%s: cannot run the compiler (%s)", compiler, r.spawned ? "preprocessing failed" : "not found");
    } else {
        int clang = -1, clang_major = 0, gnuc = 0;
        const char *c = strstr(r.out, "fmvgen_clang "), *g = strstr(r.out, "fmvgen_gnuc ");
        /* An undefined macro stays a name: "__clang__ __clang_major__". */
        if (c && sscanf(c, "fmvgen_clang %d %d", &clang, &clang_major) == 2 && clang == 1) {
            *kind = "clang";
            *major = clang_major;
            rc = 0;
        } else if (g && sscanf(g, "fmvgen_gnuc %d", &gnuc) == 1) {
            *kind = "gcc";
            *major = gnuc;
            rc = 0;
        } else {
            fmv_error("%s: not GCC or Clang; target_clones needs one of them", compiler);
        }
    }
    run_result_free(&r);
out:
    remove_tree(dir);
    free(src);
    free(dir);
    return rc;
}

int targets_validate(const struct strvec *targets, const char *compiler, const char *compiler_kind, int major)
{
    char *dir = make_temp_dir("targets");
    if (!dir) return fmv_error("%s: cannot create a temporary directory", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    char *src = path_join(dir, "probe.c");
    char *obj = path_join(dir, "probe.o");
    int rc = 0;
    /* One compile per target, so the error names the target at fault. */
    for (size_t i = 0; i < targets->n && rc == 0; i++) {
        const char *spelled = target_spell(targets->v[i], compiler_kind, major);
        char *text = xasprintf("/* fmvgen: does this compiler accept target %s? */\n"
                               "__attribute__((target_clones(\"%s\", \"default\")))\n"
                               "int fmvgen_probe_sum(const int *a, int n)\n"
                               "{\n    int s = 0, i;\n    for (i = 0; i < n; i++) s += a[i];\n    return s;\n}\n",
                               targets->v[i], spelled);
        if (write_file_atomic(src, text, strlen(text)) != 0) {
            rc = fmv_error("%s: cannot write", src);
            free(text);
            break;
        }
        free(text);
        /* Clang only warns about a target it does not know, and drops the
         * attribute: that warning must fail the check. */
        int is_clang = compiler_kind && !strcmp(compiler_kind, "clang");
        char *argv[] = {(char *)compiler, "-x", "c", "-c", is_clang ? "-Werror=ignored-attributes" : "-Werror=attributes",
                        src, "-o", obj, NULL};
        struct run_opts o = {.capture_stdout = 1, .capture_stderr = 1, .timeout_s = 120};
        struct run_result r;
        if (run_argv(argv, &o, &r) != 0) {
            if (!r.spawned) {
                rc = fmv_error("%s: cannot run the compiler to check targets", compiler);
            } else {
                char *why = first_error_line(r.err && *r.err ? r.err : r.out);
                rc = fmv_error("%s: target not accepted by %s %d (%s): %s", targets->v[i],
                               compiler_kind ? compiler_kind : "compiler", major, compiler, why);
                free(why);
            }
        }
        run_result_free(&r);
    }
    remove_tree(dir);
    free(src);
    free(obj);
    free(dir);
    return rc;
}
