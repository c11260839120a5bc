/* build.c - see build.h. The copy is made by cp -a (through run_argv, as all
 * spawning is): it keeps links, modes and times exactly, and a project tree
 * can be large, which a hand-written recursive copy would handle no better.
 *
 * A CMake build directory is not relocatable: its Makefiles (or build.ninja)
 * name every source and object by absolute path, so `make` in a plain copy
 * compiles the ORIGINAL sources into the ORIGINAL build directory - every
 * variant silently becomes the user's own build, and the user's tree gets
 * built in. Measured on libjpeg-turbo configured in-tree (cmake -S . -B .):
 * CMakeFiles/Makefile2 names the source root 140 times. So each
 * CMakeCache.txt of the copy (its top directory and the directories just
 * below, where build/ usually is) that was written for another place is
 * moved: the old root in the cache becomes the copy, and `cmake .` there
 * regenerates the build system (0.3 s for libjpeg-turbo) before the user's
 * build command runs. */
#include "measure/build.h"
#include "run/spawn.h"
#include "util/cmake_cache.h"
#include "util/util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

int measure_copy_tree(const char *src, const char *dst)
{
    if (!is_directory(src))
        return fmv_error("%s: not a directory", src);
    if (file_exists(dst))
        return fmv_error("%s: already exists; will not copy a project over it", dst);
    /* "SRC/." copies the contents, so dst becomes the copy itself. */
    char *from = path_join(src, ".");
    char *const argv[] = {"cp", "-a", "--", from, (char *)dst, NULL};
    struct run_opts opts = {.capture_stderr = 1, .null_stdout = 1};
    struct run_result res;
    int rc = run_argv(argv, &opts, &res);
    if (rc != 0) {
        char *why = run_describe(&res);
        const char *msg = res.err && *res.err ? res.err : why;
        size_t n = strcspn(msg, "\n");
        fmv_error("%s: cannot copy to %s: %.*s", src, dst, (int)n, msg);
        free(why);
    }
    run_result_free(&res);
    free(from);
    return rc;
}

/* line with every occurrence of the path `from` (as a whole path or a
 * prefix ending at '/') replaced by `to`, appended to sb. */
static void replace_path_in_line(struct strbuf *sb, const char *line, size_t len, const char *from, const char *to)
{
    size_t n = strlen(from);
    const char *s = line, *end = line + len;
    for (const char *hit; (hit = memmem(s, (size_t)(end - s), from, n)); s = hit + n) {
        char after = hit + n < end ? hit[n] : 0;
        int whole = after == 0 || after == '/' || after == '\n' || after == '\r' || after == ';' ||
                    after == '"' || after == ' ';
        sb_add(sb, s, (size_t)(hit - s));
        sb_adds(sb, whole ? to : from);
    }
    sb_add(sb, s, (size_t)(end - s));
}

/* A CMAKE_<LANG>_COMPILER entry: CMake deletes the whole cache when it sees
 * one change ("You have changed variables that require your cache to be
 * deleted"), and re-configures with the defaults - no build type, no -D
 * options: -O3 lost. A cache configured under `fmvgen scan` names scan's
 * wrapper inside the old tree (BUILD/.fmvgen/wrap/cc); the original stays
 * where it is, and outside a scan the wrapper only runs the compiler it
 * wraps, so the entry is kept as it is. */
static int is_compiler_entry(const char *line, size_t len)
{
    const char *colon = memchr(line, ':', len);
    if (!colon || !str_starts_with(line, "CMAKE_")) return 0;
    size_t key = (size_t)(colon - line);
    return key > 9 && !memcmp(colon - 9, "_COMPILER", 9);
}

/* A CMAKE_C_FLAGS or CMAKE_CXX_FLAGS entry ("CMAKE_C_FLAGS:STRING=-O2"). */
static int is_flags_entry(const char *line)
{
    return str_starts_with(line, "CMAKE_C_FLAGS:") || str_starts_with(line, "CMAKE_CXX_FLAGS:");
}

/* Which CMAKE_<LANG>_COMPILER_LAUNCHER entry line is (0: C, 1: CXX), or -1. */
static int launcher_entry(const char *line)
{
    if (str_starts_with(line, "CMAKE_C_COMPILER_LAUNCHER:")) return 0;
    if (str_starts_with(line, "CMAKE_CXX_COMPILER_LAUNCHER:")) return 1;
    return -1;
}

/* The cache text with the path `from` replaced by `to` on every line but
 * the compiler entries, append_flags (may be NULL) appended to the flags
 * entries, and launcher (may be NULL) put first in the C and C++ compiler
 * launchers (a launcher the cache names, such as ccache, runs after it).
 * Caller frees. */
static char *relocate_cache_text(const char *text, const char *from, const char *to, const char *append_flags,
                                 const char *launcher)
{
    struct strbuf sb = STRBUF_INIT;
    int have_launcher[2] = {0, 0};
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        int newline = line[len] == '\n';
        int which = launcher ? launcher_entry(line) : -1;
        if (which >= 0) {
            const char *eq = memchr(line, '=', len);
            size_t head = eq ? (size_t)(eq - line) + 1 : len;
            sb_add(&sb, line, head);
            sb_adds(&sb, launcher);
            if (head < len) {
                sb_addc(&sb, ';');
                sb_add(&sb, line + head, len - head);
            }
            have_launcher[which] = 1;
        } else if (is_compiler_entry(line, len)) {
            sb_add(&sb, line, len);
        } else {
            replace_path_in_line(&sb, line, len, from, to);
            if (append_flags && is_flags_entry(line)) {
                if (line[len - 1] != '=') sb_adds(&sb, " ");
                sb_adds(&sb, append_flags);
            }
        }
        if (newline) sb_adds(&sb, "\n");
        line += len + (size_t)newline;
    }
    static const char *const names[2] = {"CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER"};
    for (int i = 0; launcher && i < 2; i++) {
        if (have_launcher[i]) continue;
        if (sb.len && sb.buf[sb.len - 1] != '\n') sb_addc(&sb, '\n');
        sb_addf(&sb, "%s:STRING=%s\n", names[i], launcher);
    }
    return sb_detach(&sb);
}

/* CMake's words when it has thrown the copied cache away. */
#define CMAKE_CACHE_DELETED "require your cache to be deleted"

int measure_relocate_cmake(const char *copy_root, const char *sub, char **log)
{
    return measure_relocate_cmake_with_flags(copy_root, sub, NULL, log);
}

int measure_relocate_cmake_with_flags(const char *copy_root, const char *sub, const char *append_flags, char **log)
{
    return measure_relocate_cmake_ex(copy_root, sub, append_flags, NULL, log);
}

int measure_relocate_cmake_ex(const char *copy_root, const char *sub, const char *append_flags, const char *launcher,
                              char **log)
{
    char *dir = *sub ? path_join(copy_root, sub) : xstrdup(copy_root);
    char *cache = path_join(dir, "CMakeCache.txt");
    char *text = file_exists(cache) ? read_file(cache, NULL) : NULL;
    char *old_dir = text ? cmake_cache_value(text, "CMAKE_CACHEFILE_DIR") : NULL;
    char *real_dir = path_absolute(dir, NULL);
    int rc = 0;
    if (!old_dir || !strcmp(old_dir, real_dir)) goto out;   /* not CMake, or already here */

    /* The old root: the cache's old directory less sub, when it ends so (a
     * build/ below the source root moves with the root); else the build
     * directory alone moves. Paths outside the old root stay as they are. */
    size_t lo = strlen(old_dir), ls = strlen(sub);
    int below = ls && lo > ls + 1 && !strcmp(old_dir + lo - ls, sub) && old_dir[lo - ls - 1] == '/';
    char *old_root = below ? xstrndup(old_dir, lo - ls - 1) : xstrdup(old_dir);
    char *new_root = below ? path_absolute(copy_root, NULL) : xstrdup(real_dir);
    if (!*old_root || !*new_root) {
        rc = fmv_error("%s: CMakeCache.txt was written for %s and cannot be moved here", cache, old_dir);
    } else {
        char *moved = relocate_cache_text(text, old_root, new_root, append_flags, launcher);
        if (write_file_atomic(cache, moved, strlen(moved)) != 0)
            rc = fmv_error("%s: cannot rewrite the moved CMake cache", cache);
        free(moved);
    }
    if (rc == 0) {
        char *cmake = cmake_cache_value(text, "CMAKE_COMMAND");
        char *const argv[] = {cmake && *cmake ? cmake : "cmake", ".", NULL};
        struct run_opts opts = {.cwd = dir, .capture_stdout = 1, .capture_stderr = 1};
        struct run_result res;
        if (run_argv(argv, &opts, &res) != 0) {
            char *why = run_describe(&res);
            rc = fmv_error("%s: regenerating the copied CMake build with '%s .' failed (%s)", dir, argv[0], why);
            free(why);
        } else if ((res.out && strstr(res.out, CMAKE_CACHE_DELETED)) || (res.err && strstr(res.err, CMAKE_CACHE_DELETED))) {
            rc = fmv_error("%s: '%s .' deleted the copied CMake cache (a changed variable it requires to stay): the "
                           "copy would build without the project's configuration (build type, -D options)",
                           dir, argv[0]);
        }
        if (log) {
            struct strbuf sb = STRBUF_INIT;
            if (*log) sb_adds(&sb, *log);
            if (res.out) sb_add(&sb, res.out, res.out_len);
            if (res.err) sb_add(&sb, res.err, res.err_len);
            free(*log);
            *log = sb_detach(&sb);
        }
        run_result_free(&res);
        free(cmake);
    }
    free(old_root);
    free(new_root);
out:
    free(dir);
    free(real_dir);
    free(old_dir);
    free(text);
    free(cache);
    return rc;
}

/* measure_relocate_cmake on the copy and on its direct subdirectories. */
static int relocate_cmake_builds(const char *copy, char **log)
{
    if (measure_relocate_cmake(copy, "", log) != 0) return -1;
    DIR *d = opendir(copy);
    if (!d) return 0;
    struct strvec subdirs = STRVEC_INIT;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;   /* ., .., .git, .fmvgen */
        char *sub = path_join(copy, e->d_name);
        char *cache = path_join(sub, "CMakeCache.txt");
        if (file_exists(cache)) sv_push(&subdirs, e->d_name);
        free(cache);
        free(sub);
    }
    closedir(d);
    int rc = 0;
    for (size_t i = 0; i < subdirs.n && rc == 0; i++) rc = measure_relocate_cmake(copy, subdirs.v[i], log);
    sv_free(&subdirs);
    return rc;
}

/* environ with the NAME=... entries of overrides replaced (or added). */
static void env_with(struct strvec *env, char *const *overrides)
{
    for (char **e = environ; *e; e++) {
        int replaced = 0;
        for (char *const *o = overrides; *o && !replaced; o++) {
            size_t name_len = strcspn(*o, "=") + 1;
            replaced = !strncmp(*e, *o, name_len);
        }
        if (!replaced) sv_push(env, *e);
    }
    for (char *const *o = overrides; *o; o++) sv_push(env, *o);
}

int measure_build_variant(const struct variant_spec *spec, struct variant_build *out)
{
    memset(out, 0, sizeof *out);
    out->dir = path_join(spec->work_dir, spec->name);
    if (measure_copy_tree(spec->source_dir, out->dir) != 0) {
        out->failure = xstrdup("could not copy the project");
        return -1;
    }
    if (relocate_cmake_builds(out->dir, &out->log) != 0) {
        out->failure = xstrdup("could not move the copied CMake build directory");
        return -1;
    }

    struct strvec vars = STRVEC_INIT, argv = STRVEC_INIT, env = STRVEC_INIT;
    if (spec->cc) sv_pushf(&vars, "CC=%s", spec->cc);
    if (spec->cflags) sv_pushf(&vars, "CFLAGS=%s", spec->cflags);
    sv_push_all(&argv, spec->build_argv);
    if (spec->make_vars) sv_push_all(&argv, sv_argv(&vars));
    env_with(&env, sv_argv(&vars));

    struct run_opts opts = {
        .cwd = out->dir,
        .env = sv_argv(&env),
        .capture_stdout = 1,
        .capture_stderr = 1,
        .timeout_s = spec->timeout_s,
    };
    struct run_result res;
    int rc = run_argv(sv_argv(&argv), &opts, &res);
    struct strbuf log = STRBUF_INIT;
    if (out->log) sb_adds(&log, out->log);
    free(out->log);
    if (res.out) sb_add(&log, res.out, res.out_len);
    if (res.err) sb_add(&log, res.err, res.err_len);
    out->log = sb_detach(&log);
    if (rc != 0) {
        out->failure = run_describe(&res);
        fmv_error("%s: build of variant '%s' failed (%s)", out->dir, spec->name, out->failure);
    }
    run_result_free(&res);
    sv_free(&vars);
    sv_free(&argv);
    sv_free(&env);
    return rc;
}

void variant_build_free(struct variant_build *b)
{
    free(b->dir);
    free(b->log);
    free(b->failure);
    memset(b, 0, sizeof *b);
}
