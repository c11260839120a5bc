/* compdb.c - compile_commands.json -> compiles rows (see compdb.h).
 *
 * The file is read in two passes: every entry is parsed, classified and its
 * compiler identified first, and only a file that is wholly valid is written
 * to the store. A broken entry in the middle therefore never leaves a store
 * holding half of a compilation database. */
#include "capture/compdb.h"
#include "capture/compiler.h"
#include "store/store.h"
#include "util/util.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* ---- the "command" splitter ---- */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int compdb_split_command(const char *command, struct strvec *out)
{
    const char *p = command;
    struct strbuf word = STRBUF_INIT;
    for (;;) {
        while (is_space(*p)) p++;
        if (!*p) break;
        /* One word: quoted and bare pieces glued together until whitespace
         * (so -DNAME="a b" is one argument, as the build tool meant). */
        sb_reset(&word);
        sb_add(&word, "", 0);   /* an empty quoted word ("") is still a word */
        while (*p && !is_space(*p)) {
            if (*p == '\'') {
                const char *end = strchr(p + 1, '\'');
                if (!end) goto bad;
                sb_add(&word, p + 1, (size_t)(end - p - 1));
                p = end + 1;
            } else if (*p == '"') {
                p++;
                while (*p != '"') {
                    if (*p == '\\') p++;
                    if (!*p) goto bad;
                    sb_addc(&word, *p++);
                }
                p++;
            } else {
                if (*p == '\\' && !*++p) goto bad;
                sb_addc(&word, *p++);
            }
        }
        sv_push(out, sb_str(&word));
    }
    sb_free(&word);
    return 0;
bad:
    sb_free(&word);
    return -1;
}

/* ---- import ---- */

void compdb_entry_free(struct compdb_entry *e)
{
    sv_free(&e->argv);
    free(e->directory);
    free(e->source);
    free(e->output);
    free(e->language);
    memset(e, 0, sizeof *e);
}

static const char *get_string(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* `ccache gcc -c x.c`: the compile is what follows the launcher; it is
 * what the wrapper would have seen and what the probe must re-run. */
static void drop_launcher(struct strvec *argv)
{
    static const char *const launchers[] = {"ccache", "sccache", "distcc", "icecc", "buildcache", NULL};
    if (argv->n < 2) return;
    for (size_t k = 0; launchers[k]; k++)
        if (!strcmp(path_basename(argv->v[0]), launchers[k])) {
            free(argv->v[0]);
            memmove(argv->v, argv->v + 1, argv->n * sizeof *argv->v);   /* moves the NULL too */
            argv->n--;
            return;
        }
}

static int expand_rec(char *const *argv, const char *dir, struct strvec *out, int depth)
{
    int unread = 0;
    for (size_t i = 0; argv[i]; i++) {
        const char *a = argv[i];
        char *text = NULL;
        if (i > 0 && a[0] == '@' && a[1] && depth < 8) {
            char *file = path_absolute(a + 1, dir);
            text = read_file(file, NULL);
            free(file);
        }
        if (!text) {
            unread += i > 0 && a[0] == '@' && a[1];
            sv_push(out, a);
            continue;
        }
        struct strvec words = STRVEC_INIT;
        sv_push(&words, "");   /* argv[0]'s place: the recursion expands from index 1 */
        if (compdb_split_command(text, &words) == 0) {
            struct strvec inner = STRVEC_INIT;
            unread += expand_rec(sv_argv(&words), dir, &inner, depth + 1);
            for (size_t k = 1; k < inner.n; k++) sv_push(out, inner.v[k]);
            sv_free(&inner);
        } else {
            unread++;
            sv_push(out, a);
        }
        sv_free(&words);
        free(text);
    }
    return unread;
}

int compdb_expand_response_files(char *const *argv, const char *dir, struct strvec *out)
{
    return expand_rec(argv, dir, out, 0);
}

/* Parses entry i into e. Returns 1 when it is a C/C++ compile, 0 when it is
 * to be skipped, -1 after an error line naming the file. */
static int read_entry(const char *path, const char *compdb_dir, int flags, size_t i, json_t *obj,
                      struct compdb_entry *e)
{
    e->index = i + 1;
    if (!json_is_object(obj))
        return fmv_error("%s: entry %zu: not a JSON object (expected directory, file, arguments or command)", path,
                         i + 1);
    const char *dir = get_string(obj, "directory");
    const char *file = get_string(obj, "file");
    const char *output = get_string(obj, "output");
    const char *command = get_string(obj, "command");
    json_t *arguments = json_object_get(obj, "arguments");
    if (!dir) return fmv_error("%s: entry %zu: missing string \"directory\"", path, i + 1);
    if (!file) return fmv_error("%s: entry %zu: missing string \"file\"", path, i + 1);
    if (json_object_get(obj, "output") && !output)
        return fmv_error("%s: entry %zu: \"output\" is not a string", path, i + 1);

    if (arguments) {
        if (!json_is_array(arguments))
            return fmv_error("%s: entry %zu: \"arguments\" is not an array of strings", path, i + 1);
        size_t k;
        json_t *a;
        json_array_foreach(arguments, k, a) {
            if (!json_is_string(a))
                return fmv_error("%s: entry %zu: \"arguments\" is not an array of strings", path, i + 1);
            sv_push(&e->argv, json_string_value(a));
        }
    } else if (command) {
        if (compdb_split_command(command, &e->argv) != 0)
            return fmv_error("%s: entry %zu: unterminated quote or trailing backslash in \"command\"", path, i + 1);
    } else {
        return fmv_error("%s: entry %zu: needs \"arguments\" or \"command\"", path, i + 1);
    }
    drop_launcher(&e->argv);
    if (e->argv.n == 0) return fmv_error("%s: entry %zu: empty command", path, i + 1);

    /* The compdb spec allows a relative "directory" in practice (some
     * generators write one); it is relative to the file's folder. */
    e->directory = path_absolute(dir, compdb_dir);
    if (!(flags & COMPDB_NO_RESPONSE_FILES)) {
        struct strvec expanded = STRVEC_INIT;
        if (compdb_expand_response_files(sv_argv(&e->argv), e->directory, &expanded) > 0)
            fmv_warn("%s: entry %zu (%s): a response file (@FILE) cannot be read from %s; kept as written", path,
                     i + 1, file, e->directory);
        sv_free(&e->argv);
        e->argv = expanded;
    }
    e->source = path_absolute(file, e->directory);
    struct compile_args args;
    compile_args_parse(sv_argv(&e->argv), &args);
    /* The entry's file among the command's sources (a `cc -c a.c b.c`
     * line is listed once per file). */
    size_t which = args.sources.n;
    for (size_t k = 0; k < args.sources.n && which == args.sources.n; k++) {
        char *abs = path_absolute(args.sources.v[k], e->directory);
        if (!strcmp(abs, e->source)) which = k;
        free(abs);
    }
    int wanted = args.is_compile && which < args.sources.n;
    if (wanted) {
        e->output = output ? path_absolute(output, e->directory) : compile_args_output_of(&args, which, e->directory);
        e->language = xstrdup(args.languages.v[which]);
    }
    compile_args_free(&args);
    return wanted;
}

int compdb_parse_buffer(const char *name, const char *text, size_t len, const char *compdb_dir, int flags,
                        compdb_entry_fn fn, void *ctx)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root) return fmv_error("%s: not valid JSON: %s (line %d)", name, jerr.text, jerr.line);
    if (!json_is_array(root)) {
        json_decref(root);
        return fmv_error("%s: not a compilation database (expected a JSON array of entries)", name);
    }
    int rc = 0;
    for (size_t i = 0; i < json_array_size(root) && rc == 0; i++) {
        struct compdb_entry e = {0};
        int r = read_entry(name, compdb_dir, flags, i, json_array_get(root, i), &e);
        if (r < 0 || (r > 0 && fn(&e, ctx) != 0)) rc = -1;
        compdb_entry_free(&e);
    }
    json_decref(root);
    return rc;
}

/* An entry checked and ready to store: the parsed entry and its compiler. */
struct entry {
    struct compdb_entry e;
    char *source_hash;
    struct compiler_id id;
};

struct import {
    const char *path;
    struct entry *v;
    size_t n, cap;
};

/* A compiler given by a relative path is relative to the entry's
 * directory, where the build ran it; a bare name is looked up in PATH.
 * Its own error line is folded into ours, which names the database. */
static int import_entry(struct compdb_entry *ce, void *ctx)
{
    struct import *im = ctx;
    const char *cc = ce->argv.v[0];
    char *compiler = strchr(cc, '/') ? path_absolute(cc, ce->directory) : xstrdup(cc);
    struct compiler_id id = {0};
    struct strbuf why = STRBUF_INIT;
    fmv_error_capture(&why);
    int rc = compiler_identify(compiler, &id);
    fmv_error_capture(NULL);
    if (rc != 0)
        fmv_error("%s: entry %zu (%s): compiler %s is not usable: %s", im->path, ce->index, ce->source, compiler,
                  why.len ? sb_str(&why) : "not GCC or Clang");
    sb_free(&why);
    free(compiler);
    if (rc != 0) {
        compiler_id_free(&id);
        return -1;
    }
    if (im->n == im->cap) im->v = xrealloc(im->v, (im->cap = im->cap ? 2 * im->cap : 16) * sizeof *im->v);
    struct entry *e = &im->v[im->n++];
    e->e = *ce;   /* taken: the caller frees what is left, i.e. nothing */
    memset(ce, 0, sizeof *ce);
    e->id = id;
    e->source_hash = hash_file_hex(e->e.source);
    return 0;
}

int compdb_import(struct store *st, const char *path)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text) return fmv_error("%s: cannot read: %s", path, strerror(errno));
    char *abs = path_absolute(path, NULL);
    char *compdb_dir = path_dirname(abs);
    free(abs);
    struct import im = {.path = path};
    int rc = compdb_parse_buffer(path, text, len, compdb_dir, 0, import_entry, &im);
    free(text);
    free(compdb_dir);

    int stored = 0;
    for (size_t i = 0; i < im.n && rc == 0; i++) {
        struct entry *e = &im.v[i];
        struct compile_info ci = {
            .directory = e->e.directory,
            .argv = sv_argv(&e->e.argv),
            .compiler = e->id.path,
            .compiler_kind = compiler_kind_name(e->id.kind),
            .compiler_version = e->id.version,
            .source = e->e.source,
            .output = e->e.output,
            .language = e->e.language,
            .exit_status = 0,   /* the database lists compiles the build runs; probe_run re-checks */
            .source_hash = e->source_hash,
        };
        if (store_add_compile(st, &ci) < 0) rc = -1;
        else stored++;
    }
    for (size_t i = 0; i < im.n; i++) {
        compdb_entry_free(&im.v[i].e);
        free(im.v[i].source_hash);
        compiler_id_free(&im.v[i].id);
    }
    free(im.v);
    return rc == 0 ? stored : -1;
}
