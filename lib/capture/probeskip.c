/* probeskip.c - see probeskip.h. */
#include "capture/probeskip.h"
#include "capture/compiler.h"
#include "elf/elffile.h"
#include "run/spawn.h"
#include "store/store.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sv_sort(struct strvec *sv)
{
    if (sv->n > 1) qsort(sv->v, sv->n, sizeof *sv->v, cmp_str);
}

/* 1 when s is in the sorted sv. */
static int sv_bsearch(const struct strvec *sv, const char *s)
{
    return sv->n && bsearch(&s, sv->v, sv->n, sizeof *sv->v, cmp_str) != NULL;
}

void probeskip_cache_free(struct probeskip_cache *c)
{
    sv_free(&c->keys);
    sv_free(&c->values);
}

char *probeskip_note(const char *variant)
{
    return xasprintf("%s: not compiled: the build's object defines no function and no file of the TU mentions a "
                     "macro the target predefines differently, so its code cannot differ there",
                     variant);
}

/* Options after which the compiler's own headers or search dirs are not
 * the ones an empty compile with the kept flags lists. */
static int moves_system_headers(const char *a)
{
    static const char *const prefixes[] = {"--sysroot", "-isysroot", "-iprefix", "-iwithprefix", "-B", "-target",
                                           "--target", "--gcc-toolchain", "-nostdinc++", "-stdlib", "-specs",
                                           "--specs", "-isystem-after", "-cxx-isystem", "--driver-mode", "-I=",
                                           "-isystem=", "-idirafter=", "-iquote=", "--include", "-F",
                                           "-imultilib", "-nostdinc", "-I-", NULL};
    for (int i = 0; prefixes[i]; i++)
        if (str_starts_with(a, prefixes[i])) return 1;
    return 0;
}

/* The options that can change predefined macros or the compiler's own
 * include dirs: -m*, -f* (not the ones writing files), -O*, -std, -ansi,
 * the PIC options aside (they define the same in both). */
static int macro_flag(const char *a)
{
    if (!strcmp(a, "-fPIC") || !strcmp(a, "-fpic") || !strcmp(a, "-fPIE") || !strcmp(a, "-fpie")) return 0;
    if (str_starts_with(a, "-fdump-") || str_starts_with(a, "-fsave-") || str_starts_with(a, "-fopt-info") ||
        str_starts_with(a, "-foptimization-record") || str_starts_with(a, "-fprofile") ||
        str_starts_with(a, "-fstack-usage") || str_starts_with(a, "-fcallgraph-info") || str_starts_with(a, "-ftime-trace"))
        return 0;
    return str_starts_with(a, "-m") || str_starts_with(a, "-f") || str_starts_with(a, "-O") ||
           str_starts_with(a, "-std") || str_starts_with(a, "--std") || !strcmp(a, "-ansi");
}

/* "#define NAME ..." lines of `-E -dM`, sorted. */
static void macro_lines(const char *out, struct strvec *lines)
{
    for (const char *l = out; l && *l;) {
        size_t n = strcspn(l, "\n");
        if (n > 8 && !strncmp(l, "#define ", 8)) sv_pushf(lines, "%.*s", (int)n, l);
        l += n + (l[n] == '\n');
    }
    sv_sort(lines);
}

static char *macro_name(const char *line)
{
    const char *s = line + 8;
    size_t n = 0;
    while (s[n] && (isalnum((unsigned char)s[n]) || s[n] == '_')) n++;
    return xstrndup(s, n);
}

/* Runs argv (an -E -dM of /dev/null) in dir: stdout (and stderr), or -1. */
static int run_cpp(char *const *argv, const char *dir, char **out, char **err)
{
    /* stdin from /dev/null: with a timeout the child runs in a process
     * group of its own, which must not touch a terminal. */
    struct run_opts opts = {.cwd = dir, .stdin_path = "/dev/null", .capture_stdout = 1,
                            .capture_stderr = err != NULL, .timeout_s = 60};
    if (!err) opts.null_stderr = 1;
    struct run_result r;
    int ok = run_argv(argv, &opts, &r) == 0 && r.spawned && r.exited && r.status == 0 && r.out;
    if (ok) {
        *out = r.out;
        r.out = NULL;
        if (err) {
            *err = r.err ? r.err : xstrdup("");
            r.err = NULL;
        }
    }
    run_result_free(&r);
    return ok ? 0 : -1;
}

/* The include dirs `-E -v` lists between "search starts here:" and "End of
 * search list.", appended. */
static void search_dirs(const char *err, struct strvec *dirs)
{
    int in = 0;
    for (const char *l = err; l && *l;) {
        size_t n = strcspn(l, "\n");
        if (!strncmp(l, "End of search list.", 19)) in = 0;
        else if (strstr(l, "search starts here:") && (size_t)(strstr(l, "search starts here:") - l) < n) in = 1;
        else if (in && n > 1 && l[0] == ' ') {
            char *d = xstrndup(l + 1, n - 1);
            char *paren = strstr(d, " (framework directory)");
            if (paren) *paren = 0;
            if (!sv_contains(dirs, d)) sv_push(dirs, d);
            free(d);
        }
        l += n + (l[n] == '\n');
    }
}

/* The cache value for compiler+lang+flags: the differing macro names, "\t",
 * the compiler's include dirs; "" when they cannot be known. */
static const char *compiler_facts(const struct compile_row *c, const char *lang, const struct strvec *flags,
                                  char *const *extra_flags, struct probeskip_cache *cache)
{
    struct strbuf key = STRBUF_INIT;
    sb_addf(&key, "%s\n%s", c->compiler, lang);
    for (size_t i = 0; i < flags->n; i++) sb_addf(&key, "\n%s", flags->v[i]);
    for (size_t i = 0; i < cache->keys.n; i++)
        if (!strcmp(cache->keys.v[i], sb_str(&key))) {
            sb_free(&key);
            return cache->values.v[i];
        }
    struct strvec base = STRVEC_INIT, target = STRVEC_INIT;
    sv_push(&base, c->compiler);
    sv_push_all(&base, sv_argv((struct strvec *)flags));
    sv_push(&target, c->compiler);
    sv_push_all(&target, sv_argv((struct strvec *)flags));
    sv_push_all(&target, extra_flags);
    char *const tail[] = {"-E", "-dM", "-x", (char *)lang, "/dev/null", NULL};
    sv_push_all(&base, tail);
    sv_push(&base, "-v");
    sv_push_all(&target, tail);
    char *bout = NULL, *berr = NULL, *tout = NULL;
    struct strbuf value = STRBUF_INIT;
    if (run_cpp(sv_argv(&base), c->directory, &bout, &berr) == 0 &&
        run_cpp(sv_argv(&target), c->directory, &tout, NULL) == 0) {
        struct strvec bl = STRVEC_INIT, tl = STRVEC_INIT, names = STRVEC_INIT, dirs = STRVEC_INIT;
        macro_lines(bout, &bl);
        macro_lines(tout, &tl);
        /* A line in one list only: its macro is missing or valued otherwise
         * in the other. */
        for (int side = 0; side < 2; side++) {
            const struct strvec *a = side ? &tl : &bl, *b = side ? &bl : &tl;
            for (size_t i = 0; i < a->n; i++)
                if (!sv_bsearch(b, a->v[i])) {
                    char *name = macro_name(a->v[i]);
                    if (*name && !sv_contains(&names, name)) sv_push(&names, name);
                    free(name);
                }
        }
        search_dirs(berr, &dirs);
        if (dirs.n) {   /* no differing macro at all: nothing to mention */
            sv_sort(&names);
            for (size_t i = 0; i < names.n; i++) sb_addf(&value, "%s%s", i ? "\n" : "", names.v[i]);
            sb_addc(&value, '\t');
            for (size_t i = 0; i < dirs.n; i++) sb_addf(&value, "%s%s", i ? "\n" : "", dirs.v[i]);
        }
        sv_free(&bl);
        sv_free(&tl);
        sv_free(&names);
        sv_free(&dirs);
    }
    free(bout);
    free(berr);
    free(tout);
    sv_free(&base);
    sv_free(&target);
    sv_push(&cache->keys, sb_str(&key));
    sv_push(&cache->values, sb_str(&value));
    sb_free(&key);
    sb_free(&value);
    return cache->values.v[cache->values.n - 1];
}

static void split_lines(const char *s, size_t n, struct strvec *out)
{
    while (n) {
        size_t k = 0;
        while (k < n && s[k] != '\n') k++;
        if (k) sv_pushf(out, "%.*s", (int)k, s);
        s += k + (k < n);
        n -= k + (k < n);
    }
}

/* Every existing file name could name from a file in dir_of_includer: the
 * includer's dir and every search dir (a superset of the one the
 * preprocessor picks) go to files; for a quoted name found in the
 * includer's dir, that file alone (the preprocessor looks there first).
 * 0 when at least one exists, else -1. */
static int resolve(const char *name, int quoted, const char *dir_of_includer, const struct strvec *dirs,
                   struct strvec *files)
{
    if (quoted && name[0] != '/') {
        char *p = path_join(dir_of_includer, name);
        int here = file_exists(p) && !is_directory(p);
        if (here && !sv_contains(files, p)) sv_push(files, p);
        free(p);
        if (here) return 0;
    }
    if (name[0] == '/') {
        if (!file_exists(name)) return -1;
        if (!sv_contains(files, name)) sv_push(files, name);
        return 0;
    }
    int found = 0;
    for (size_t i = 0; i <= dirs->n; i++) {
        char *p = path_join(i < dirs->n ? dirs->v[i] : dir_of_includer, name);
        if (file_exists(p) && !is_directory(p)) {
            found = 1;
            if (!sv_contains(files, p)) sv_push(files, p);
        }
        free(p);
    }
    return found ? 0 : -1;
}

/* Past a comment starting at text[i] ("/" "*" or "//"; a "//" comment
 * goes on after a backslash-newline): the index after it. */
static size_t skip_comment(const char *text, size_t len, size_t i)
{
    if (text[i + 1] == '*') {
        const char *end = i + 2 < len ? strstr(text + i + 2, "*/") : NULL;
        return end ? (size_t)(end - text) + 2 : len;
    }
    while (i < len && !(text[i] == '\n' && (i == 0 || text[i - 1] != '\\'))) i++;
    return i;
}

static size_t skip_blanks(const char *text, size_t len, size_t i)
{
    for (;;) {
        while (i < len && (text[i] == ' ' || text[i] == '\t')) i++;
        if (i + 1 < len && text[i] == '/' && (text[i + 1] == '*' || text[i + 1] == '/')) i = skip_comment(text, len, i);
        else return i;
    }
}

/* The directive at text[i] ('#' first on its line): for an include, the
 * files its name can be added to files; -1 for an include it cannot
 * follow (the name is a macro, the line goes on after a backslash). */
static int directive(const char *text, size_t len, size_t i, const char *dir, const struct strvec *dirs,
                     struct strvec *files)
{
    size_t j = skip_blanks(text, len, i + (text[i] == '#' ? 1 : 2));
    size_t w = j;
    while (w < len && (isalnum((unsigned char)text[w]) || text[w] == '_')) w++;
    int inc = (w - j == 7 && !strncmp(text + j, "include", 7)) || (w - j == 12 && !strncmp(text + j, "include_next", 12)) ||
              (w - j == 6 && !strncmp(text + j, "import", 6));
    if (j < len && text[j] == '\\') return -1;   /* "#\" + newline + "include": cannot tell */
    if (!inc) return 0;
    w = skip_blanks(text, len, w);
    char close = w < len && text[w] == '"' ? '"' : w < len && text[w] == '<' ? '>' : 0;
    size_t e = w + 1;
    while (close && e < len && text[e] != close && text[e] != '\n') e++;
    if (!close || e >= len || text[e] != close) return -1;
    char *name = xstrndup(text + w + 1, e - w - 1);
    /* None anywhere: the build's preprocessor, which succeeded, did not
     * read it (another platform's header under #if), nor will the
     * target's unless an #if changes - which takes a mention. */
    resolve(name, close == '"', dir, dirs, files);
    free(name);
    return 0;
}

/* Reads one file: -1 when it mentions a name of macros (sorted) outside
 * comments or has an include it cannot follow; else 0 with the files its
 * includes can name added to files. Names inside string literals count
 * (where a literal ends is not worth the risk); a comment does not start
 * inside one. */
static int scan_file(const char *path, const struct strvec *macros, const struct strvec *dirs, struct strvec *files)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text) return -1;
    char *dir = path_dirname(path);
    int rc = 0, line_start = 1;
    char quote = 0;   /* inside a "..." or '...' literal */
    for (size_t i = 0; i < len && rc == 0;) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') {
            if (!(i > 0 && text[i - 1] == '\\')) line_start = 1, quote = 0;
            i++;
            continue;
        }
        if (!quote && i + 1 < len && ch == '/' && (text[i + 1] == '*' || text[i + 1] == '/')) {
            i = skip_comment(text, len, i);
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            i++;
            continue;
        }
        if (line_start && !quote && (ch == '#' || (ch == '%' && i + 1 < len && text[i + 1] == ':'))) {
            rc = directive(text, len, i, dir, dirs, files);
            line_start = 0;
            i++;
            continue;
        }
        line_start = 0;
        if (isalpha(ch) || ch == '_') {
            size_t j = i;
            while (j < len && (isalnum((unsigned char)text[j]) || text[j] == '_')) j++;
            char *word = xstrndup(text + i, j - i);
            /* __has_builtin(__builtin_ia32_pdep_si): GCC and clang 19
             * answer by the enabled ISA, like a predefined macro; the
             * x86 builtins are the ones whose answer differs, and their
             * names show wherever the question is asked, also through a
             * macro (glibc's __glibc_has_builtin (name) asks for others). */
            if (sv_bsearch(macros, word) || str_starts_with(word, "__builtin_ia32_")) rc = -1;
            free(word);
            i = j;
            continue;
        }
        if (!quote && isdigit(ch)) {   /* 0x1e5f and the like: not names */
            while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '_' || text[i] == '.')) i++;
            continue;
        }
        if (quote && ch == '\\' && i + 1 < len && text[i + 1] != '\n') i++;   /* an escaped character */
        else if (ch == '"' || ch == '\'') quote = !quote ? (char)ch : quote == (char)ch ? 0 : quote;
        i++;
    }
    free(dir);
    free(text);
    return rc;
}

/* An option naming a directory or file in its value: its value (joined or
 * the next argument; *skip 1 then), else NULL. */
static const char *value_of(char *const *argv, size_t i, const char *opt, size_t *skip)
{
    size_t n = strlen(opt);
    if (strncmp(argv[i], opt, n) != 0) return NULL;
    if (argv[i][n]) return argv[i] + n;
    if (!argv[i + 1]) return NULL;
    *skip = 1;
    return argv[i + 1];
}

/* 1 when the object defines no function (and is a readable x86-64
 * relocatable object). */
int probeskip_object_codeless(const char *object)
{
    struct strvec names = STRVEC_INIT;
    int ok = object && elf_object_functions(object, &names) == 0 && names.n == 0;
    sv_free(&names);
    return ok;
}

int probeskip_codeless(const struct compile_row *c, const char *object, char *const *extra_flags,
                       struct probeskip_cache *cache)
{
    if (!c->argv || !c->argv[0] || !c->compiler || !probeskip_object_codeless(object)) return 0;
    struct compile_args args;
    compile_args_parse(c->argv, &args);
    const char *lang = args.language ? args.language : "c";
    struct strvec flags = STRVEC_INIT, dirs = STRVEC_INIT, files = STRVEC_INIT;
    int ok = args.is_compile && !args.links && args.sources.n == 1;
    int lto = 0;
    for (size_t i = 1; ok && c->argv[i]; i++) {
        const char *a = c->argv[i];
        size_t skip = 0;
        const char *v;
        if (moves_system_headers(a)) ok = 0;
        else if (str_starts_with(a, "-flto") || !strcmp(a, "-fno-lto")) lto = strcmp(a, "-fno-lto") != 0;
        if (!ok) break;
        if (macro_flag(a)) sv_push(&flags, a);
        if ((v = value_of(c->argv, i, "-iquote", &skip)) || (v = value_of(c->argv, i, "-isystem", &skip)) ||
            (v = value_of(c->argv, i, "-idirafter", &skip)) || (v = value_of(c->argv, i, "-I", &skip))) {
            char *d = path_absolute(v, c->directory);
            sv_push(&dirs, d);
            free(d);
        } else if ((v = value_of(c->argv, i, "-include", &skip)) || (v = value_of(c->argv, i, "-imacros", &skip))) {
            char *f = path_absolute(v, c->directory);
            /* found relative to the directory, or along the search dirs below */
            if (file_exists(f)) sv_push(&files, f);
            else sv_pushf(&files, "?%s", v);
            free(f);
        }
        i += skip;
    }
    const char *facts = ok && !lto ? compiler_facts(c, lang, &flags, extra_flags, cache) : "";
    const char *tab = strchr(facts, '\t');
    struct strvec macros = STRVEC_INIT;
    ok = ok && !lto && tab;
    if (ok) {
        split_lines(facts, (size_t)(tab - facts), &macros);
        split_lines(tab + 1, strlen(tab + 1), &dirs);
        /* GCC's implicit -include of stdc-predef.h, wherever it lies */
        resolve("stdc-predef.h", 0, "/", &dirs, &files);
        /* -include names not found from the directory */
        for (size_t i = 0; ok && i < files.n; i++)
            if (files.v[i][0] == '?') {
                char *name = xstrdup(files.v[i] + 1);
                files.v[i][0] = '\0';
                ok = resolve(name, 1, c->directory, &dirs, &files) == 0;
                free(name);
            }
        char *source = path_absolute(c->source, c->directory);
        sv_push(&files, source);
        free(source);
    }
    for (size_t i = 0; ok && i < files.n; i++)
        if (files.v[i][0] && scan_file(files.v[i], &macros, &dirs, &files) != 0) ok = 0;
    sv_free(&macros);
    sv_free(&files);
    sv_free(&dirs);
    sv_free(&flags);
    compile_args_free(&args);
    return ok;
}
