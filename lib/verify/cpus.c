/* cpus.c - see cpus.h. */
#include "verify/cpus.h"
#include "run/spawn.h"

#include <stdlib.h>
#include <string.h>

int cpus_parse(const char *list, struct strvec *models)
{
    if (!list || !*list) return fmv_error("--cpu: empty list; give qemu CPU models like %s", VERIFY_DEFAULT_CPUS);
    /* Models may carry qemu feature switches ("Haswell,-fma"): a part that
     * starts with + or - (or holds '=') belongs to the model before it. */
    char *copy = xstrdup(list);
    char *save = NULL;
    int rc = 0, named = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        if ((tok[0] == '+' || tok[0] == '-' || strchr(tok, '=')) && models->n) {
            char *joined = xasprintf("%s,%s", models->v[models->n - 1], tok);
            free(models->v[models->n - 1]);
            models->v[models->n - 1] = joined;
            continue;
        }
        if (!*tok || tok[0] == '+' || tok[0] == '-') {
            rc = fmv_error("--cpu: '%s' is not a CPU model name", tok);
            break;
        }
        named = 1;
        if (!strcmp(tok, "native")) continue;
        if (!sv_contains(models, tok)) sv_push(models, tok);
    }
    free(copy);
    if (!rc && !named) rc = fmv_error("--cpu: '%s' names no CPU model", list);
    return rc;
}

char *cpus_find_qemu(void)
{
    const char *env = getenv("FMVGEN_QEMU");
    if (env && *env) return find_in_path(env);
    char *q = find_in_path("qemu-x86_64");
    return q ? q : find_in_path("qemu-x86_64-static");
}

int cpus_check_models(const char *qemu, const struct strvec *models)
{
    char *argv[] = {(char *)qemu, "-cpu", "help", NULL};
    struct run_opts o = {.capture_stdout = 1, .null_stderr = 1, .timeout_s = 30};
    struct run_result r;
    run_argv(argv, &o, &r);
    if (!r.out || !r.out_len) {
        /* An old qemu without the listing: let the runs say it. */
        run_result_free(&r);
        return 0;
    }
    /* Lines look like "x86 Haswell-v1   Intel Core Processor (Haswell)". */
    struct strvec known = STRVEC_INIT;
    char *save = NULL;
    for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "x86 ", 4) != 0) continue;
        char *name = line + 4;
        size_t n = strcspn(name, " \t");
        char *model = xstrndup(name, n);
        sv_push(&known, model);
        free(model);
    }
    run_result_free(&r);
    int rc = 0;
    for (size_t i = 0; i < models->n && !rc && known.n; i++) {
        char *model = xstrndup(models->v[i], strcspn(models->v[i], ","));
        if (!sv_contains(&known, model))
            rc = fmv_error("%s: no CPU model '%s'; 'qemu-x86_64 -cpu help' lists them", qemu, model);
        free(model);
    }
    sv_free(&known);
    return rc;
}

const char *cpus_native_level(void)
{
    __builtin_cpu_init();
    int v2 = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") &&
             __builtin_cpu_supports("ssse3");
    int v3 = v2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi2");
    int v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512cd");
    return v4 ? "x86-64-v4" : v3 ? "x86-64-v3" : v2 ? "x86-64-v2" : "x86-64";
}

void cpus_qemu_argv(struct strvec *out, const char *qemu, const char *model, char *const *guest_env)
{
    sv_push(out, qemu);
    sv_push(out, "-cpu");
    sv_push(out, model);
    for (size_t i = 0; guest_env && guest_env[i]; i++) {
        sv_push(out, "-E");
        sv_push(out, guest_env[i]);
    }
}

int cpus_is_qemu_line(const char *line)
{
    return !strncmp(line, "qemu: uncaught target signal", 28) || !strncmp(line, "qemu-x86_64: warning:", 21) ||
           !strncmp(line, "qemu-x86_64-static: warning:", 28);
}

char *cpus_stderr_tail(const char *err)
{
    if (!err) return NULL;
    char *copy = xstrdup(err), *save = NULL, *last = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (!cpus_is_qemu_line(line) && line[strspn(line, " \t\r")]) last = line;
    char *out = NULL;
    if (last) out = strlen(last) > 160 ? xasprintf("%.157s...", last) : xstrdup(last);
    free(copy);
    return out;
}
