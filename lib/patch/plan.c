/* plan.c - see plan.h. Reads the candidates from the store, checks each
 * file against its scan-time hash and offsets, decides the insertions and
 * renders the header comment and the diff (diff.c). Nothing is written
 * here: the CLI prints the text or hands the new contents to apply.c. */
#include "patch/plan_internal.h"
#include "patch/threshold.h"
#include "patch/marker.h"
#include "patch/diff.h"
#include "patch/redecl.h"
#include "store/store.h"
#include "targets/targets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_CONTEXT 3
#define INLINE_MACRO PATCH_INLINE_MACRO


int patch_resolve_targets(struct store *st, const char *spec, int exact, struct strvec *out)
{
    char *stored = NULL;
    const char *use = spec;
    if (!use && exact) use = TARGETS_EXACT;
    if (!use) use = stored = store_meta_get(st, "targets");
    if (!use || !*use) use = TARGETS_DEFAULT;
    int rc = targets_parse(use, out);
    free(stored);
    if (rc != 0) return -1;
    if (exact) {
        for (size_t i = 0; i < out->n; i++)
            if (target_enables_fma(out->v[i]))
                return fmv_error("%s: enables FMA, which changes floating-point results; --exact needs "
                                 "FMA-free targets such as %s", out->v[i], TARGETS_EXACT);
    }
    return 0;
}

/* ---- target validation with the project's compilers ---- */

int patch_validate_targets(struct store *st, const struct strvec *targets, const char *compiler,
                           const char *compiler_kind, int major)
{
    if (compiler) return targets_validate(targets, compiler, compiler_kind, major);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT DISTINCT c.compiler, c.compiler_kind, c.compiler_version FROM compiles c "
                           "JOIN functions f ON f.compile_id = c.id WHERE f.status = 'candidate' ORDER BY 1",
                           -1, &q, NULL) != SQLITE_OK)
        return fmv_error("%s: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    int rc = 0;
    while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
        const char *cc = (const char *)sqlite3_column_text(q, 0);
        const char *kind = (const char *)sqlite3_column_text(q, 1);
        const char *version = (const char *)sqlite3_column_text(q, 2);
        if (!cc) continue;
        if (!kind || (strcmp(kind, "gcc") != 0 && strcmp(kind, "clang") != 0)) {
            rc = fmv_error("%s: not GCC or Clang; target_clones needs one of them", cc);
            break;
        }
        rc = targets_validate(targets, cc, kind, version ? atoi(version) : 0);
    }
    sqlite3_finalize(q);
    return rc;
}

/* ---- reading the candidates ---- */

static char *col_dup(sqlite3_stmt *q, int i)
{
    const unsigned char *s = sqlite3_column_text(q, i);
    return s ? xstrdup((const char *)s) : NULL;
}

/* Fills the build/probe loop counts of f from the loops table. */
static void load_loops(struct store *st, int64_t compile_id, struct patch_function *f)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT variant, COUNT(*), MAX(COALESCE(vector_bytes, 0)) FROM loops "
                           "WHERE compile_id = ? AND function = ? GROUP BY variant ORDER BY variant",
                           -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(q, 1, compile_id);
    sqlite3_bind_text(q, 2, f->name, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *variant = (const char *)sqlite3_column_text(q, 0);
        int count = sqlite3_column_int(q, 1), bytes = sqlite3_column_int(q, 2);
        if (!variant) continue;
        if (!strcmp(variant, "build")) {
            f->build_loops = count;
            f->build_bytes = bytes;
        } else if (!strncmp(variant, "probe:", 6) && strcmp(variant, "probe:O3") != 0 && !f->probe_target) {
            f->probe_target = xstrdup(variant + 6);
            f->probe_loops = count;
            f->probe_bytes = bytes;
        }
    }
    sqlite3_finalize(q);
}

int patch_function_cmp(const void *a, const void *b)
{
    const struct patch_function *x = a, *y = b;
    int c = strcmp(x->rel, y->rel);
    if (c) return c;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void patch_function_free(struct patch_function *f)
{
    free(f->file);
    free(f->rel);
    free(f->name);
    free(f->display_name);
    free(f->source_hash);
    free(f->probe_target);
    free(f->kind);
    free(f->evidence);
    free(f->clones_arg);
    free(f->helper_of);
    sv_free(&f->symbols);
    json_decref(f->notes);
}

/* What the "included-source" note (candidates/included.h) says: the
 * symbols of every including TU, the spelling FMVGEN_CLONES gets; and the
 * linkage libclang saw, from it or from a "static-macro" note (a static
 * hidden behind METHODDEF(void)). */
static void read_included_note(struct patch_function *f)
{
    size_t j;
    json_t *note;
    json_array_foreach(f->notes, j, note)
    {
        const char *kind = json_string_value(json_object_get(note, "kind"));
        json_t *st = json_object_get(note, "static");
        if (json_is_boolean(st)) f->linkage = json_is_true(st) ? PATCH_LINKAGE_STATIC : PATCH_LINKAGE_EXTERNAL;
        if (!kind || strcmp(kind, "included-source") != 0) continue;
        size_t k;
        json_t *sym;
        json_array_foreach(json_object_get(note, "symbols"), k, sym)
        {
            const char *v = json_string_value(sym);
            if (v && !sv_contains(&f->symbols, v)) sv_push(&f->symbols, v);
        }
        const char *spelling = json_string_value(json_object_get(note, "spelling"));
        if (spelling) f->clones_arg = xstrdup(spelling);
    }
}

/* A C identifier or a mangled C++ name: what FMVGEN_CLONES(sym) can
 * stringize into an assembler symbol. */
static int is_symbol(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

static int load_functions(struct store *st, const char *root, struct patch_plan *p)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(store_db(st),
                           "SELECT compile_id, name, display_name, file, line, insert_offset, insert_line, "
                           "source_hash, notes, kind, score, evidence, fma_score FROM functions WHERE status = 'candidate' "
                           "ORDER BY file, insert_offset, id",
                           -1, &q, NULL) != SQLITE_OK)
        return fmv_error("%s: %s", store_path(st), sqlite3_errmsg(store_db(st)));
    size_t cap = 16;
    p->functions = xcalloc(cap, sizeof *p->functions);
    int rc = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *file = (const char *)sqlite3_column_text(q, 3);
        const char *name = (const char *)sqlite3_column_text(q, 1);
        if (!file || !name || sqlite3_column_type(q, 5) == SQLITE_NULL || sqlite3_column_int64(q, 5) < 0) {
            rc = fmv_error("%s: candidate %s has no located definition; run 'fmvgen scan' again",
                           file ? file : store_path(st), name ? name : "?");
            break;
        }
        size_t offset = (size_t)sqlite3_column_int64(q, 5);
        /* One TU compiled twice (static and shared library): one function. */
        if (p->nfunctions && !strcmp(p->functions[p->nfunctions - 1].file, file) &&
            p->functions[p->nfunctions - 1].offset == offset)
            continue;
        char *rel = path_relative_to(file, root);
        if (!rel) {
            rc = fmv_error("%s: outside the project root %s; a patch cannot name it", file, root);
            break;
        }
        if (p->nfunctions == cap) p->functions = xrealloc(p->functions, (cap *= 2) * sizeof *p->functions);
        struct patch_function *f = &p->functions[p->nfunctions++];
        memset(f, 0, sizeof *f);
        f->file = xstrdup(file);
        f->rel = rel;
        f->name = xstrdup(name);
        f->display_name = col_dup(q, 2);
        if (!f->display_name) f->display_name = xstrdup(name);
        f->offset = offset;
        f->start = offset;
        f->insert_line = sqlite3_column_int(q, 6);
        f->line = f->insert_line;
        if (sqlite3_column_int(q, 4) > 0) f->line = sqlite3_column_int(q, 4);
        f->source_hash = col_dup(q, 7);
        f->kind = col_dup(q, 9);
        f->score = sqlite3_column_int(q, 10);
        f->evidence = col_dup(q, 11);
        f->fma_score = sqlite3_column_int(q, 12);
        const char *notes = (const char *)sqlite3_column_text(q, 8);
        json_error_t e;
        f->notes = notes ? json_loads(notes, 0, &e) : NULL;
        if (!json_is_array(f->notes)) {
            json_decref(f->notes);
            f->notes = json_array();
        }
        read_included_note(f);
        load_loops(st, sqlite3_column_int64(q, 0), f);
        /* Other code before the definition on its first line: a line above
         * it would give that code the attribute too. Left out, said why. */
        const char *shared = NULL;
        size_t j;
        json_t *note;
        json_array_foreach(f->notes, j, note)
        {
            const char *kind = json_string_value(json_object_get(note, "kind"));
            if (kind && !strcmp(kind, "shared-line")) shared = json_string_value(json_object_get(note, "detail"));
        }
        if (!shared && !is_symbol(f->clones_arg ? f->clones_arg : f->name))
            shared = "its symbol is not a plain identifier the preamble can name";
        if (shared) {
            sv_pushf(&p->skipped, "%s:%d %s: %s", f->rel, f->line, f->display_name, shared);
            fmv_warn("%s:%d: %s not patched: %s", f->file, f->line, f->display_name, shared);
            patch_function_free(f);
            p->nfunctions--;
        }
    }
    sqlite3_finalize(q);
    if (rc == 0) qsort(p->functions, p->nfunctions, sizeof *p->functions, patch_function_cmp);
    return rc;
}

/* ---- placing the insertions ---- */

/* The line ending of the line at offset ("\r\n" or "\n"); a last line
 * without newline takes the file's first line ending. */
static const char *eol_at(const char *text, size_t len, size_t offset)
{
    const char *nl = offset < len ? memchr(text + offset, '\n', len - offset) : NULL;
    if (!nl) nl = memchr(text, '\n', len);
    return nl && nl > text && nl[-1] == '\r' ? "\r\n" : "\n";
}

static char *indent_at(const char *text, size_t len, size_t offset)
{
    size_t n = 0;
    while (offset + n < len && (text[offset + n] == ' ' || text[offset + n] == '\t')) n++;
    return xstrndup(text + offset, n);
}

/* Where the preamble goes: before the first candidate, unless that line is
 * inside an #if/#ifdef block (the macro would be undefined outside it),
 * then before the outermost open #if. Block comments are skipped so that a
 * commented-out "#if" does not count. */
static size_t preamble_offset(const char *text, size_t first)
{
    size_t pos = 0, open_at = 0;
    int depth = 0, in_comment = 0;
    while (pos < first) {
        const char *nl = memchr(text + pos, '\n', first - pos);
        size_t end = nl ? (size_t)(nl - text) + 1 : first;
        const char *s = text + pos, *e = text + end;
        if (!in_comment) {
            const char *c = s;
            while (c < e && (*c == ' ' || *c == '\t')) c++;
            if (c < e && *c == '#') {
                c++;
                while (c < e && (*c == ' ' || *c == '\t')) c++;
                size_t w = 0;
                while (c + w < e && ((c[w] >= 'a' && c[w] <= 'z'))) w++;
                if ((w == 2 && !strncmp(c, "if", 2)) || (w == 5 && !strncmp(c, "ifdef", 5)) ||
                    (w == 6 && !strncmp(c, "ifndef", 6))) {
                    if (depth == 0) open_at = pos;
                    depth++;
                } else if (w == 5 && !strncmp(c, "endif", 5) && depth > 0) {
                    depth--;
                }
            }
        }
        for (const char *c = s; c + 1 < e; c++) {
            if (!in_comment && c[0] == '/' && c[1] == '/') break;
            if (!in_comment && c[0] == '/' && c[1] == '*') in_comment = 1, c++;
            else if (in_comment && c[0] == '*' && c[1] == '/') in_comment = 0, c++;
        }
        pos = end;
    }
    return depth == 0 ? first : open_at;
}

/* 1 when the definition starting at pos has internal linkage: the word
 * "static" comes before the function's name (the identifier followed by
 * '('), skipping comments, __attribute__((...)) and [[...]]. */
static int is_static_at(const char *text, size_t len, size_t pos)
{
    size_t end = len - pos > 4096 ? pos + 4096 : len;
    size_t i = pos;
    while (i < end) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '*' || c == '&') {
            i++;
        } else if (c == '/' && i + 1 < end && text[i + 1] == '*') {
            const char *close = memmem(text + i + 2, end - i - 2, "*/", 2);
            if (!close) return 0;
            i = (size_t)(close - text) + 2;
        } else if (c == '/' && i + 1 < end && text[i + 1] == '/') {
            while (i < end && text[i] != '\n') i++;
        } else if (c == '[' && i + 1 < end && text[i + 1] == '[') {
            const char *close = memmem(text + i + 2, end - i - 2, "]]", 2);
            if (!close) return 0;
            i = (size_t)(close - text) + 2;
        } else if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            size_t w = i;
            while (w < end && (text[w] == '_' || (text[w] >= 'a' && text[w] <= 'z') ||
                               (text[w] >= 'A' && text[w] <= 'Z') || (text[w] >= '0' && text[w] <= '9')))
                w++;
            size_t n = w - i;
            if (n == 6 && !strncmp(text + i, "static", 6)) return 1;
            int attribute = (n == 13 && !strncmp(text + i, "__attribute__", 13)) ||
                            (n == 10 && !strncmp(text + i, "__declspec", 10));
            size_t k = w;
            while (k < end && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) k++;
            if (k < end && text[k] == '(') {
                if (!attribute) return 0;   /* the function's name: no "static" before it */
                int depth = 0;
                for (; k < end; k++) {
                    if (text[k] == '(') depth++;
                    else if (text[k] == ')' && --depth == 0) break;
                }
                w = k + 1;
            }
            i = w;
        } else {
            return 0;   /* "::", "<", ... : C++ shapes; external is the safe answer */
        }
    }
    return 0;
}

static size_t line_of_offset(const char *text, size_t offset)
{
    size_t line = 1;
    for (size_t i = 0; i < offset; i++)
        if (text[i] == '\n') line++;
    return line;
}

/* 1 when text before offset already holds the guard "#ifndef MACRO_STATIC"
 * of a preamble (the whole word: FMVGEN_CLONES_STATIC is not
 * FMVGEN_CLONES_AVX2_STATIC). */
static int preamble_defined(const char *text, size_t offset, const char *macro)
{
    char *guard = xasprintf("#ifndef %s_STATIC", macro);
    size_t glen = strlen(guard);
    int found = 0;
    for (const char *at = text; !found && (at = memmem(at, offset - (size_t)(at - text), guard, glen)); at++) {
        char after = (size_t)(at - text) + glen < offset ? at[glen] : '\n';
        found = after == '\n' || after == '\r' || after == ' ' || after == '\t';
    }
    free(guard);
    return found;
}

/* Reads one file, checks it is the scanned version, and computes its new
 * content and diff for functions fs[0..n). */
static int build_file(struct patch_file *pf, struct patch_function **fs, size_t n, const struct patch_plan *p,
                      struct strbuf *diff)
{
    pf->path = xstrdup(fs[0]->file);
    pf->rel = xstrdup(fs[0]->rel);
    pf->nfunctions = n;
    pf->old = read_file(pf->path, &pf->old_len);
    if (!pf->old) return fmv_error("%s: cannot read: %s", pf->path, strerror(errno));
    pf->hash = hash_bytes_hex(pf->old, pf->old_len);
    for (size_t i = 0; i < n; i++) {
        if (fs[i]->source_hash && strcmp(fs[i]->source_hash, pf->hash) != 0)
            return fmv_error("%s: changed since the scan; run 'fmvgen scan' again (nothing was written)", pf->path);
        /* Offsets come from the scan: a line start, on the line it says. */
        if (fs[i]->offset >= pf->old_len || !diff_is_line_start(pf->old, pf->old_len, fs[i]->offset) ||
            (fs[i]->insert_line > 0 && line_of_offset(pf->old, fs[i]->offset) != (size_t)fs[i]->insert_line))
            return fmv_error("%s: the stored position of %s (offset %zu, line %d) is not the start of its line; "
                             "run 'fmvgen scan' again", pf->path, fs[i]->display_name, fs[i]->offset,
                             fs[i]->insert_line);
    }
    if (patch_redecl_check(fs, n, pf->path, pf->old, pf->old_len) != 0) return -1;
    /* the preamble, a line per function, a redeclaration per function */
    struct insertion *ins = xcalloc(2 * n + 1, sizeof *ins);
    char **texts = xcalloc(2 * n + 1, sizeof *texts);
    size_t k = 0;
    /* The sets this file's functions use whose macros are not defined above
     * their first use yet (a file patched before has its preamble: once is
     * enough). Their blocks go together above the first function needing
     * one. */
    struct patch_target_set *missing = xcalloc(p->nsets, sizeof *missing);
    size_t nmissing = 0, first_missing = SIZE_MAX;
    for (size_t s = 0; s < p->nsets; s++) {
        size_t first = SIZE_MAX;
        for (size_t i = 0; i < n; i++)   /* a redeclaration may come first (patch/redecl.h) */
            if (fs[i]->set == s && !fs[i]->helper_of && patch_redecl_first_start(fs[i]) < first)
                first = patch_redecl_first_start(fs[i]);
        if (first == SIZE_MAX || preamble_defined(pf->old, first, p->sets[s].macro)) continue;
        if (first < first_missing) first_missing = first;
        missing[nmissing++] = p->sets[s];
    }
    /* the helpers' macro, the same way */
    size_t first_helper = SIZE_MAX;
    for (size_t i = 0; i < n && first_helper == SIZE_MAX; i++)
        if (fs[i]->helper_of) first_helper = fs[i]->start;
    int inline_missing = first_helper != SIZE_MAX && !preamble_defined(pf->old, first_helper, INLINE_MACRO);
    if (nmissing || inline_missing) {
        size_t pre = preamble_offset(pf->old, inline_missing && first_helper < first_missing ? first_helper : first_missing);
        const char *eol = eol_at(pf->old, pf->old_len, pre);
        struct strbuf text = STRBUF_INIT;
        char *part = nmissing ? patch_preamble_sets(missing, nmissing, eol) : NULL;
        if (part) sb_adds(&text, part);
        free(part);
        part = inline_missing ? patch_preamble_inline(eol) : NULL;
        if (part) sb_adds(&text, part);
        free(part);
        texts[k] = sb_detach(&text);
        ins[k].offset = pre;
        ins[k].text = texts[k];
        k++;
    }
    free(missing);
    size_t npre = k;
    for (size_t i = 0; i < n; i++) {
        char *indent = indent_at(pf->old, pf->old_len, fs[i]->offset);
        if (fs[i]->helper_of) {
            texts[k] = xasprintf("%s%s%s", indent, INLINE_MACRO, eol_at(pf->old, pf->old_len, fs[i]->offset));
            free(indent);
            ins[k].offset = fs[i]->offset;
            ins[k].text = texts[k];
            k++;
            continue;
        }
        /* Internal linkage: "static", or a C++ anonymous namespace (its
         * mangled names hold _GLOBAL__N_): no global alias may be made. Or
         * libclang's linkage, when the scan stored it (a source file TUs
         * include: libjpeg-turbo's "METHODDEF(void)" hides its "static"). */
        fs[i]->is_static = fs[i]->linkage ? fs[i]->linkage == PATCH_LINKAGE_STATIC
                                        : is_static_at(pf->old, pf->old_len, fs[i]->offset + strlen(indent)) ||
                                              strstr(fs[i]->name, "_GLOBAL__N_");
        if (fs[i]->is_static)
            texts[k] = xasprintf("%s%s_STATIC%s", indent, p->sets[fs[i]->set].macro,
                                 eol_at(pf->old, pf->old_len, fs[i]->offset));
        else   /* the preamble macro-expands the argument: each TU's own symbol */
            texts[k] = xasprintf("%s%s(%s)%s", indent, p->sets[fs[i]->set].macro,
                                 fs[i]->clones_arg ? fs[i]->clones_arg : fs[i]->name,
                                 eol_at(pf->old, pf->old_len, fs[i]->offset));
        free(indent);
        ins[k].offset = fs[i]->offset;
        ins[k].text = texts[k];
        k++;
    }
    patch_redecl_insert(fs, n, p->sets, pf->old, pf->old_len, ins, &k, npre, texts);
    pf->new_data = diff_apply_insertions(pf->old, pf->old_len, ins, k, &pf->new_len);
    diff_write_insertions(diff, pf->rel, pf->old, pf->old_len, ins, k, DIFF_CONTEXT);
    for (size_t i = 0; i < k; i++) free(texts[i]);
    free(texts);
    free(ins);
    return 0;
}

/* pos moved past spaces and tabs. */
static size_t skip_blanks(const char *text, size_t len, size_t pos)
{
    while (pos < len && (text[pos] == ' ' || text[pos] == '\t')) pos++;
    return pos;
}

/* The end of the C++11 attribute list "[[...]]" starting at pos (just after
 * its "]]"), or 0 when text at pos is not a complete list. Brackets nest;
 * string literals are skipped. */
static size_t cxx_attribute_list_end(const char *text, size_t len, size_t pos)
{
    if (len - pos < 4 || text[pos] != '[' || text[pos + 1] != '[') return 0;
    int depth = 0;
    for (size_t i = pos; i < len; i++) {
        char c = text[i];
        if (c == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\') i++;
        } else if (c == '[') {
            depth++;
        } else if (c == ']' && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* clang refuses a GNU __attribute__ before a C++11 attribute list ("an
 * attribute list cannot appear here"), so the attribute line may not go
 * above a definition led by "[[...]]" lists. A static function whose lists
 * fill their own lines gets its line below them, just above the
 * decl-specifiers (where g++, clang++ 14 and 19 all clone it). Left out,
 * said why: a list sharing the declaration's line (the line would need
 * splitting), and an external function (its line starts, for clang < 18,
 * with the alias's asm declaration, which may not follow a list either).
 * Moves f's line, or returns why f is left out (NULL: kept). */
static const char *place_after_cxx_attribute_lists(struct patch_function *f, const char *text, size_t len)
{
    size_t at = f->offset, moved = f->offset;
    int same_line = 0;
    while (text && at < len && !same_line) {
        at = skip_blanks(text, len, at);
        size_t end = cxx_attribute_list_end(text, len, at);
        if (!end) break;
        while (end < len && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r')) end++;
        if (end < len && text[end] == '\n') {
            at = moved = end + 1;   /* the lists fill the line: the next line may hold more */
        } else if (end + 1 < len && text[end] == '[' && text[end + 1] == '[') {
            at = end;   /* another list on the same line */
        } else {
            same_line = 1;
        }
    }
    /* An external function's line starts, for clang < 18, with the
     * alias's asm declaration, which may not follow a list either. */
    if (same_line)
        return "a C++11 attribute list [[...]] precedes the declaration on its line, and "
               "clang refuses the attribute before it: move the list to its own line";
    if (moved != f->offset && !strstr(f->name, "_GLOBAL__N_") && !is_static_at(text, len, skip_blanks(text, len, moved)))
        return "it starts with a C++11 attribute list [[...]]: clang refuses the attribute before it, and "
               "the alias clang < 18 needs cannot follow it (static functions are patched below the list)";
    if (moved != f->offset) {
        if (f->insert_line > 0) f->insert_line += (int)(line_of_offset(text, moved) - line_of_offset(text, f->offset));
        f->offset = moved;
    }
    return NULL;
}

/* Settles fs[0..*n) against their files' text, each file read once: each
 * line placed after [[...]] lists (or skipped, said why), then dropped when
 * it already carries the attribute line - after the placement, so a patched
 * file's line below the lists counts as patched - and counted in *already
 * (NULL: not counted). */
void patch_settle_in_files(struct patch_plan *p, struct patch_function *fs, size_t *n, size_t *already)
{
    size_t out = 0, len = 0;
    char *path = NULL, *text = NULL;
    for (size_t i = 0; i < *n; i++) {
        struct patch_function *f = &fs[i];
        if (!path || strcmp(path, f->file) != 0) {
            free(text);
            free(path);
            path = xstrdup(f->file);
            text = read_file(path, &len);   /* unreadable: build_file says so */
        }
        const char *why = place_after_cxx_attribute_lists(f, text, len);
        if (why) {
            sv_pushf(&p->skipped, "%s:%d %s: %s", f->rel, f->line, f->display_name, why);
            fmv_warn("%s:%d: %s not patched: %s", f->file, f->line, f->display_name, why);
            patch_function_free(f);
            continue;
        }
        if (text && f->offset <= len && patch_marker_at(text, len, f->offset, NULL)) {
            if (already) (*already)++;
            patch_function_free(f);
            continue;
        }
        fs[out++] = *f;
    }
    free(text);
    free(path);
    *n = out;
}

/* Keeps only the candidates named in only (patch_plan_build_only). */
static void keep_only(struct patch_plan *p, const struct strvec *only)
{
    size_t out = 0;
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct patch_function *f = &p->functions[i];
        if (!sv_contains(only, f->name)) {
            patch_function_free(f);
            continue;
        }
        p->functions[out++] = *f;
    }
    p->nfunctions = out;
}

/* Drops the candidates patch_below_threshold leaves out, said why. */
static void keep_scored(struct patch_plan *p, int min_score)
{
    size_t out = 0;
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct patch_function *f = &p->functions[i];
        char *why = patch_below_threshold(f, min_score, p->exact);
        if (why) {
            sv_pushf(&p->skipped, "%s:%d %s: %s", f->rel, f->line, f->display_name, why);
            fmv_note("%s:%d: %s not patched: %s", f->rel, f->line, f->display_name, why);
            free(why);
            patch_function_free(f);
            continue;
        }
        p->functions[out++] = *f;
    }
    p->nfunctions = out;
}

/* Functions and helpers together, by file then offset: what build_file
 * edits. Caller frees the array (not the functions). */
static struct patch_function **edits_in_order(struct patch_plan *p, size_t *n)
{
    *n = p->nfunctions + p->nhelpers;
    struct patch_function **v = xcalloc(*n ? *n : 1, sizeof *v);
    size_t a = 0, b = 0, k = 0;
    while (a < p->nfunctions || b < p->nhelpers) {
        int take_function = b == p->nhelpers ||
                            (a < p->nfunctions && patch_function_cmp(&p->functions[a], &p->helpers[b]) <= 0);
        v[k++] = take_function ? &p->functions[a++] : &p->helpers[b++];
    }
    return v;
}

/* The common part of the builders: functions loaded, already patched ones
 * and those not in only (when given) dropped, each function's set given by
 * assigned (by name, and file when it gives one) or else set 0; then the
 * files and the text. */
static int build_plan(struct store *st, const struct strvec *targets, int exact, const struct strvec *only,
                      const struct patch_assignments *assigned, int min_score, struct patch_plan *p)
{
    memset(p, 0, sizeof *p);
    p->exact = exact;
    if (targets) patch_plan_set(p, targets);
    p->root = store_meta_get(st, "root");
    if (!p->root) return fmv_error("%s: no project root recorded; run 'fmvgen scan' first", store_path(st));
    if (load_functions(st, p->root, p) != 0) return -1;
    patch_settle_in_files(p, p->functions, &p->nfunctions, &p->already);
    if (only) keep_only(p, only);
    if (min_score > 0) keep_scored(p, min_score);
    if (assigned) patch_keep_assigned(p, assigned);
    patch_name_sets(p);
    if (assigned) p->exact = !p->fma;
    if (p->nfunctions == 0) {
        p->text = xstrdup("");
        return 0;
    }
    patch_add_helpers(p);
    size_t n;
    struct patch_function **edits = edits_in_order(p, &n);
    p->files = xcalloc(n, sizeof *p->files);
    struct strbuf diff = STRBUF_INIT;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && !strcmp(edits[j]->file, edits[i]->file)) j++;
        struct patch_file *pf = &p->files[p->nfiles++];
        if (build_file(pf, &edits[i], j - i, p, &diff) != 0) {
            sb_free(&diff);
            free(edits);
            return -1;
        }
        for (size_t k = i; k < j; k++)
            if (edits[k]->line <= 0) edits[k]->line = (int)line_of_offset(pf->old, edits[k]->offset);
        i = j;
    }
    free(edits);
    char *header = patch_render_header(p);
    struct strbuf text = STRBUF_INIT;
    sb_adds(&text, header);
    sb_add(&text, diff.buf ? diff.buf : "", diff.len);
    free(header);
    sb_free(&diff);
    p->text = sb_detach(&text);
    return 0;
}

int patch_plan_build(struct store *st, const struct strvec *targets, int exact, struct patch_plan *p)
{
    return build_plan(st, targets, exact, NULL, NULL, 0, p);
}

int patch_plan_build_scored(struct store *st, const struct strvec *targets, int exact, int min_score,
                            struct patch_plan *p)
{
    return build_plan(st, targets, exact, NULL, NULL, min_score, p);
}

int patch_plan_build_only(struct store *st, const struct strvec *targets, int exact, const struct strvec *only,
                          struct patch_plan *p)
{
    return build_plan(st, targets, exact, only, NULL, 0, p);
}

int patch_plan_build_assigned(struct store *st, const struct patch_assignments *a, struct patch_plan *p)
{
    for (size_t i = 0; i < a->n; i++) {
        if (!a->v[i].targets.n) {
            memset(p, 0, sizeof *p);
            return fmv_error("%s: no targets given for it", a->v[i].name);
        }
    }
    return build_plan(st, NULL, 0, NULL, a, 0, p);
}

void patch_plan_free(struct patch_plan *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->nfunctions; i++) patch_function_free(&p->functions[i]);
    free(p->functions);
    for (size_t i = 0; i < p->nhelpers; i++) patch_function_free(&p->helpers[i]);
    free(p->helpers);
    for (size_t i = 0; i < p->nfiles; i++) {
        free(p->files[i].path);
        free(p->files[i].rel);
        free(p->files[i].hash);
        free(p->files[i].old);
        free(p->files[i].new_data);
    }
    free(p->files);
    for (size_t s = 0; s < p->nsets; s++) {
        sv_free(&p->sets[s].targets);
        free(p->sets[s].macro);
    }
    free(p->sets);
    free(p->root);
    free(p->text);
    sv_free(&p->targets);
    sv_free(&p->skipped);
    memset(p, 0, sizeof *p);
}
