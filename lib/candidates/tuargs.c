/* tuargs.c - see tuargs.h. A table says, per option, whether it takes a
 * separate value, whether that value is a path, and whether libclang needs
 * it; everything not in the table is a single token kept as is unless it is
 * a warning or a positional argument. */
#include "candidates/tuargs.h"

#include <stdlib.h>
#include <string.h>

enum opt_action { KEEP, DROP };

struct opt_rule {
    const char *name;       /* exact spelling, or prefix when joined != 0 */
    int takes_value;        /* 1: "-o X" form takes the next argument */
    int value_is_path;      /* the value is a path relative to the compile dir */
    enum opt_action action;
};

/* Options whose value may be separate ("-I dir") or joined ("-Idir"). */
static const struct opt_rule RULES[] = {
    {"-I", 1, 1, KEEP},          {"-isystem", 1, 1, KEEP},   {"-iquote", 1, 1, KEEP},
    {"-idirafter", 1, 1, KEEP},  {"-include", 1, 1, KEEP},   {"-imacros", 1, 1, KEEP},
    {"-isysroot", 1, 1, KEEP},   {"--sysroot", 1, 1, KEEP},  {"-iprefix", 1, 1, KEEP},
    {"-iwithprefix", 1, 0, KEEP}, {"-iwithprefixbefore", 1, 0, KEEP},
    {"-D", 1, 0, KEEP},          {"-U", 1, 0, KEEP},         {"-target", 1, 0, KEEP},
    {"-o", 1, 0, DROP},          {"-MF", 1, 0, DROP},        {"-MT", 1, 0, DROP},
    {"-MQ", 1, 0, DROP},         {"-x", 1, 0, DROP},         {"-dumpdir", 1, 0, DROP},
    {"-dumpbase", 1, 0, DROP},   {"-dumpbase-ext", 1, 0, DROP}, {"-aux-info", 1, 0, DROP},
    {"-Xclang", 1, 0, DROP},     {"-Xlinker", 1, 0, DROP},   {"-Xassembler", 1, 0, DROP},
    {"-Xpreprocessor", 1, 0, DROP}, {"--param", 1, 0, DROP}, {"-l", 1, 0, DROP},
    {"-L", 1, 0, DROP},          {"-T", 1, 0, DROP},         {"-u", 1, 0, DROP},
    {"-z", 1, 0, DROP},          {"-arch", 1, 0, DROP},      {"-specs", 1, 0, DROP},
    {"-B", 1, 1, KEEP},          {"-MJ", 1, 0, DROP},        {"--serialize-diagnostics", 1, 0, DROP},
};

/* Single-token options that must not reach libclang: they make it write
 * files, produce outputs, or only concern the compile's side products. */
static const char *const DROP_EXACT[] = {
    "-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-MP", "-MG", "-pipe", "-v", "-###",
    "-shared", "-static", "-rdynamic", "-pedantic-errors", "-save-temps", "-fsyntax-only",
    "-time", "-Q", "-fdump-tree-all", NULL,
};

/* Prefixes of single-token options dropped for the same reasons, plus the
 * optimization-record flags fmvgen itself may have added. */
static const char *const DROP_PREFIX[] = {
    "-W",                            /* warnings, -Wl, -Wa, -Wp: -w replaces them */
    "-fsave-optimization-record", "-foptimization-record-", "-fopt-info", "-fdump-",
    "-save-temps=", "-fprofile-use", "-fprofile-generate", "-fauto-profile", "-fplugin",
    "-fdiagnostics-", "-fcolor-diagnostics", "-fno-color-diagnostics", "-g", "-specs=",
    "--param=", "-fmessage-length", "-flto", NULL,
};

/* Standards GCC 12+ spells by their final name, which libclang 14 knows
 * only by the draft name (both spellings are accepted by later clangs). */
static const char *std_for_libclang(const char *arg)
{
    static const char *const MAP[][2] = {
        {"-std=c++23", "-std=c++2b"}, {"-std=gnu++23", "-std=gnu++2b"}, {"-std=c++26", "-std=c++2b"},
        {"-std=gnu++26", "-std=gnu++2b"}, {"-std=c23", "-std=c2x"}, {"-std=gnu23", "-std=gnu2x"},
    };
    for (size_t i = 0; i < sizeof MAP / sizeof MAP[0]; i++)
        if (!strcmp(arg, MAP[i][0])) return MAP[i][1];
    return NULL;
}

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s)) return 1;
    return 0;
}

static int has_prefix_in(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strncmp(s, *list, strlen(*list))) return 1;
    return 0;
}

/* The rule an argument starts with: exact ("-I" then value next) or joined
 * ("-Idir", "--sysroot=dir"). *joined_value points into arg when joined. */
static const struct opt_rule *find_rule(const char *arg, const char **joined_value)
{
    const struct opt_rule *best = NULL;
    size_t best_len = 0;
    *joined_value = NULL;
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++) {
        size_t n = strlen(RULES[i].name);
        if (strncmp(arg, RULES[i].name, n) != 0 || n <= best_len) continue;
        const char *rest = arg + n;
        /* A long option only matches itself or "name=value"; a one-letter
         * one also matches "-Ivalue" (but "-include" is not "-i" + "nclude"). */
        if (*rest && n > 2 && *rest != '=') continue;
        best = &RULES[i];
        best_len = n;
        *joined_value = *rest ? (*rest == '=' ? rest + 1 : rest) : NULL;
    }
    return best;
}

static void push_path_option(struct strvec *out, const char *name, const char *value, int is_path,
                             const char *directory)
{
    if (!is_path) {
        sv_push(out, name);
        sv_push(out, value);
        return;
    }
    /* "-I=dir" style sysroot-relative and absolute paths stay as written. */
    char *abs = (value[0] == '/' || value[0] == '=') ? xstrdup(value) : path_absolute(value, directory);
    if (!strncmp(name, "--", 2)) {
        sv_pushf(out, "%s=%s", name, abs);
    } else {
        sv_push(out, name);
        sv_push(out, abs);
    }
    free(abs);
}

void tuargs_build(char *const *argv, const char *directory, const char *language, const char *gcc_include,
                  struct strvec *out)
{
    if (language && (!strcmp(language, "c") || !strcmp(language, "c++"))) {
        sv_push(out, "-x");
        sv_push(out, language);
    }
    for (size_t i = 1; argv && argv[0] && argv[i]; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || !arg[1]) continue;   /* sources, objects, "-" */
        const char *joined = NULL;
        const struct opt_rule *rule = find_rule(arg, &joined);
        if (rule) {
            const char *value = joined;
            if (!value && rule->takes_value) {
                if (!argv[i + 1]) break;
                value = argv[++i];
            }
            if (rule->action == KEEP && value) push_path_option(out, rule->name, value, rule->value_is_path, directory);
            continue;
        }
        if (in_list(DROP_EXACT, arg) || has_prefix_in(DROP_PREFIX, arg)) continue;
        const char *std = std_for_libclang(arg);
        sv_push(out, std ? std : arg);
    }
    /* Only location-less driver errors may remain; warnings are noise, and
     * an error limit would stop the parse before the functions we need. */
    sv_push(out, "-w");
    sv_push(out, "-ferror-limit=0");
    if (gcc_include && *gcc_include) {
        sv_push(out, "-idirafter");
        sv_push(out, gcc_include);
    }
}
