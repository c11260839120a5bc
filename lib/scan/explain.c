/* explain.c - see explain.h. */
#include "scan/explain.h"

#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/cmake_cache.h"
#include "util/util.h"

/* The directory build names as a CMake or make tree: `cmake --build DIR`,
 * `cmake ... -B DIR`, `make|gmake|ninja -C DIR`; the last one counts.
 * NULL when none. */
static const char *named_tree(char *const *words, size_t n)
{
    const char *dir = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *tool = path_basename(words[i]);
        if (!strcmp(tool, "cmake")) {
            for (size_t j = i + 1; j + 1 < n; j++) {
                if (!strcmp(words[j], "--build") || !strcmp(words[j], "-B")) dir = words[j + 1];
                if (!strcmp(words[j], "&&") || !strcmp(words[j], ";")) break;
            }
        }
        if ((!strcmp(tool, "make") || !strcmp(tool, "gmake") || !strcmp(tool, "ninja")) && i + 2 < n &&
            !strcmp(words[i + 1], "-C"))
            dir = words[i + 2];
    }
    return dir;
}

/* The words of a shell command line, split at blanks and at ; & | ( ),
 * which are words of their own ("&&" one word), quotes dropped from each:
 * enough to find a build directory in `sh -c "cmake -B b && cmake --build
 * b"`, not a shell parser (a quoted path with blanks is split). */
static void shell_words(const char *line, struct strvec *out)
{
    struct strbuf w = STRBUF_INIT;
    for (const char *p = line;; p++) {
        int sep = !*p || strchr(" \t\n;&|()", *p);
        if (sep && w.len) {
            sv_push(out, w.buf);
            sb_reset(&w);
        }
        if (!*p) break;
        if (sep && strchr(";&|()", *p)) {
            char op[3] = {*p, 0, 0};
            if ((*p == '&' || *p == '|') && p[1] == *p) op[1] = *++p;
            sv_push(out, op);
        } else if (!sep && *p != '\'' && *p != '"') {
            sb_addc(&w, *p);
        }
    }
    sb_free(&w);
}

/* The CMake build tree the build command works in - the tree named on its
 * command line (inside `sh -c LINE` too), else the scan's directory - when
 * it holds a CMakeCache.txt. */
static char *cmake_cache_of(const char *builddir, char *const *build)
{
    size_t n = 0;
    while (build[n]) n++;
    const char *dir = named_tree(build, n);
    struct strvec words = STRVEC_INIT;
    for (size_t i = 0; i + 1 < n; i++) {
        const char *tool = path_basename(build[i]);
        if ((!strcmp(tool, "sh") || !strcmp(tool, "bash") || !strcmp(tool, "dash")) && !strcmp(build[i + 1], "-c") &&
            i + 2 < n) {
            shell_words(build[i + 2], &words);
            const char *in_line = named_tree(words.v, words.n);
            if (in_line) dir = in_line;
            break;
        }
    }
    char *abs = path_absolute(dir ? dir : builddir, NULL);   /* the build runs in the current directory */
    sv_free(&words);
    char *cache = path_join(abs, "CMakeCache.txt");
    free(abs);
    if (file_exists(cache)) return cache;
    free(cache);
    return NULL;
}

/* path as the user at dir would type it: "." for dir itself, relative
 * when inside it, else absolute. */
static char *shown_from(const char *path, const char *dir)
{
    if (!strcmp(path, dir)) return xstrdup(".");
    char *rel = path_relative_to(path, dir);
    return rel ? rel : xstrdup(path);
}

/* CMake (and configure) cache the compiler's absolute path when the tree
 * is configured, and an absolute path bypasses PATH and the CC/CXX the
 * scan sets. The remedies name the tree and its source as seen from where
 * the scan ran, so that they can be run there as written. */
/* How the build command rebuilds everything: `cmake --build DIR`'s
 * --clean-first, ninja's clean tool, make's -B; for other commands (a
 * shell line) the two most common. Caller frees. */
static char *rebuild_hint(char *const *build)
{
    for (size_t i = 0; build[i]; i++) {
        const char *tool = path_basename(build[i]);
        if (!strcmp(tool, "cmake") && build[i + 1] && !strcmp(build[i + 1], "--build") && build[i + 2])
            return xasprintf("'cmake --build %s --clean-first' rebuilds everything", build[i + 2]);
        if (!strcmp(tool, "ninja") || !strcmp(tool, "samu")) return xstrdup("'ninja -t clean' first rebuilds everything");
        if (!strcmp(tool, "make") || !strcmp(tool, "gmake")) return xstrdup("'make -B' rebuilds everything");
        if (!strcmp(tool, "meson")) return xstrdup("'meson compile --clean' first rebuilds everything");
    }
    return xstrdup("a clean build rebuilds everything: 'make -B', 'cmake --build DIR --clean-first'");
}

void scan_explain_no_compiles(const char *builddir, char *const *build)
{
    char *cache = cmake_cache_of(builddir, build);
    char *text = cache ? read_file(cache, NULL) : NULL;
    char *cc = text ? cmake_cache_value(text, "CMAKE_C_COMPILER") : NULL;
    char *cxx = text && !(cc && *cc) ? cmake_cache_value(text, "CMAKE_CXX_COMPILER") : NULL;
    char *home = text ? cmake_cache_value(text, "CMAKE_HOME_DIRECTORY") : NULL;
    char *type = text ? cmake_cache_value(text, "CMAKE_BUILD_TYPE") : NULL;
    free(text);
    const char *compiler = cc && *cc ? cc : cxx && *cxx ? cxx : "its compiler";
    /* A tree configured under an earlier scan caches the wrapper itself:
     * then nothing needed compiling, which the generic line says. */
    int bypassed = cache && !strstr(compiler, "/" STORE_DIRNAME "/wrap/");
    if (bypassed) {
        char *tree = path_dirname(cache);
        char *t = shown_from(tree, builddir);
        char *src = home && *home ? shown_from(home, builddir) : xstrdup("SRCDIR");
        /* The fresh tree beside the configured one (inside it when the
         * scan ran there: its source then named absolutely). */
        char *fresh = strcmp(t, ".") ? xasprintf("%s-fmvgen", t) : xstrdup("fmvgen-build");
        char *compdb = strcmp(t, ".") ? path_join(t, "compile_commands.json") : xstrdup("compile_commands.json");
        if (!strcmp(t, ".") && home && *home) {
            free(src);
            src = xstrdup(home);
        }
        fmv_error("%s: the build succeeded, but no compile went through fmvgen's wrapper: this CMake tree was "
                  "configured before the scan and runs %s directly; run 'cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON %s "
                  "&& fmvgen scan --compdb %s', or configure a fresh build dir under the scan: "
                  "'fmvgen scan -- sh -c \"cmake -S %s -B %s%s%s && cmake --build %s\"' (with the other -D "
                  "options it was configured with)",
                  cache, compiler, t, compdb, src, fresh, type && *type ? " -DCMAKE_BUILD_TYPE=" : "",
                  type && *type ? type : "", fresh);
        free(tree);
        free(t);
        free(src);
        free(fresh);
        free(compdb);
    }
    free(home);
    free(type);
    free(cc);
    free(cxx);
    free(cache);
    if (bypassed) return;
    char *hint = rebuild_hint(build);
    fmv_error("%s: the build succeeded, but no C/C++ compile went through fmvgen's wrapper, so nothing was scanned: "
              "either nothing needed compiling (%s), or the build runs its compiler by "
              "an absolute path (a configured CMake or autotools tree, CC=/usr/bin/cc in a Makefile), which "
              "bypasses the wrapper; reconfigure under the scan ('fmvgen scan -- sh -c \"./configure && make\"'), "
              "pass 'CC=cc' on the make command line, or scan a compile_commands.json with --compdb",
              build[0], hint);
    free(hint);
}

/* Every later build of such a tree goes through the wrapper (and fails
 * once .fmvgen/ is gone): the user's build directory must not change
 * behind their back unsaid. */
void scan_warn_cached_wrapper(const char *builddir, char *const *build)
{
    char *cache = cmake_cache_of(builddir, build);
    char *text = cache ? read_file(cache, NULL) : NULL;
    const char *vars[] = {"CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER"};
    for (size_t i = 0; text && i < sizeof vars / sizeof *vars; i++) {
        char *value = cmake_cache_value(text, vars[i]);
        int wrapped = value && strstr(value, "/" STORE_DIRNAME "/wrap/");
        if (wrapped)
            fmv_warn("%s: CMake cached fmvgen's wrapper %s as %s, because the tree was configured during the scan: "
                     "later builds of this tree go through the wrapper, and fail once %s/ is removed; for builds "
                     "without fmvgen configure a fresh directory, or scan a compile_commands.json with --compdb",
                     cache, value, vars[i], STORE_DIRNAME);
        free(value);
        if (wrapped) break;
    }
    free(text);
    free(cache);
}
