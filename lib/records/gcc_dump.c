/* gcc_dump.c - reads GCC's vectorizer dump files into loop records: the
 * format the wrapper asks GCC (12 and later) for in the user's own build,
 * because it is much cheaper than -fsave-optimization-record (which records
 * every pass) and, unlike that flag and -fopt-info=FILE, is not copied into
 * the object's debug info (DW_AT_producer), so a -g build keeps its objects
 * byte-identical without a second compile (all measured with GCC 12; see
 * bench/results/scan-overhead*.txt).
 *
 * There is no library for GCC dump files: they are GCC's own debugging
 * text, so this reader parses lines, carefully, and checks the shape it
 * relies on. One compile writes one dump per pass instance:
 *   -fdump-tree-vect-optimized=S.vect    loop vectorizer
 *   -fdump-tree-slp1-optimized=S.slp1    basic-block (SLP) vectorizer, in the loop pipeline
 *   -fdump-tree-slp2-optimized=S.slp2    the same pass's second instance, later in the pipeline
 * (two SLP dumps: GCC opens a dump file once per pass instance, truncating
 * it, so one file for both instances loses the first one's lines).
 * Each file is a sequence of function sections:
 *
 *   (blank line)
 *   ;; Function ns::V::add (_ZN2ns1V3addERKS0_, funcdef_no=0, decl_uid=2374, cgraph_uid=1, symbol_order=0)
 *   (blank line)
 *   t.cc:2:45: optimized: loop vectorized using 16 byte vectors
 *   Removing basic block 10                 <- other pass chatter
 *   void ns::V::add (struct V * const this, const struct V & o)
 *   {                                       <- the function's IR, indented
 *     ...
 *
 * The header's first name is the printable one; the one in parentheses
 * is the assembler name - the C name or the mangled C++ symbol, with a
 * clone suffix such as ".constprop.0" - which is the function compiled
 * after inlining, exactly what the JSON records' "function" holds. A
 * message line starts at column 0 with "FILE:LINE:COL: optimized: " (IR
 * lines are indented, and string constants in them are escaped, so a
 * string holding such text cannot start a line); a location GCC does not
 * know is left out ("optimized: ..."). */
#include "records/reader.h"
#include "records/records.h"
#include "util/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const records_gcc_dump_passes[] = {"vect", "slp1", "slp2", NULL};

char *records_gcc_dump_file(const char *record_path, const char *pass)
{
    size_t n = strlen(record_path);
    static const char suffix[] = ".vect";
    if (n >= sizeof suffix - 1 && !strcmp(record_path + n - (sizeof suffix - 1), suffix))
        n -= sizeof suffix - 1;
    return xasprintf("%.*s.%s", (int)n, record_path, pass);
}

/* ";; Function NAME (ASMNAME, funcdef_no=N, ...)..." -> ASMNAME (copy), or
 * NULL when the line does not have that shape. NAME may hold spaces and
 * parentheses ("main()::<lambda(int)>::operator()"), an assembler name
 * holds neither, so it is the text between the last '(' before
 * ", funcdef_no=" and that. */
static char *header_function(const char *line)
{
    static const char key[] = ", funcdef_no=";
    const char *end = NULL;
    for (const char *p = strstr(line, key); p; p = strstr(p + 1, key)) end = p;
    if (!end) return NULL;
    const char *open = end;
    while (open > line && open[-1] != '(') open--;
    if (open == line || open == end || open - 2 < line || open[-2] != ' ') return NULL;
    for (const char *p = open; p < end; p++)
        if (isspace((unsigned char)*p)) return NULL;
    return xstrndup(open, (size_t)(end - open));
}

/* Parses "FILE:LINE:COL: optimized: MESSAGE" or "optimized: MESSAGE" at
 * column 0. Returns the message (a pointer into line) and fills the
 * location (file: a copy, or NULL), or NULL when the line is no message. */
static const char *message_line(const char *line, char **file, int *lineno, int *col)
{
    static const char tag[] = "optimized: ";
    *file = NULL;
    *lineno = *col = 0;
    if (!strncmp(line, tag, sizeof tag - 1)) return line + sizeof tag - 1;
    if (!*line || isspace((unsigned char)*line)) return NULL;
    const char *at = strstr(line, ": optimized: ");
    if (!at) return NULL;
    /* Back over ":LINE:COL" (GCC always prints both; a file name may hold
     * colons of its own, so the position is taken from the right). */
    const char *p = at;
    const char *col_start = p;
    while (col_start > line && isdigit((unsigned char)col_start[-1])) col_start--;
    if (col_start == p || col_start == line || col_start[-1] != ':') return NULL;
    const char *line_end = col_start - 1;
    const char *line_start = line_end;
    while (line_start > line && isdigit((unsigned char)line_start[-1])) line_start--;
    if (line_start == line_end || line_start == line || line_start[-1] != ':' || line_start - 1 == line)
        return NULL;
    *lineno = atoi(line_start);
    *col = atoi(col_start);
    *file = xstrndup(line, (size_t)(line_start - 1 - line));
    return at + strlen(": optimized: ");
}

/* One dump's bytes into found. Returns 0, or rec_fail's -1. */
static int read_one(const struct records_buf *in, struct record_list *found)
{
    const char *path = in->name;
    struct rec_lines it = REC_LINES_INIT((const char *)in->data, in->len);
    char *line, *function = NULL;
    size_t lineno = 0;
    long len;
    int rc = 0, last_complete = 1, any = 0, any_header = 0;
    while ((len = rec_next_line(&it, &line)) >= 0) {
        lineno++;
        any = 1;
        last_complete = len > 0 && line[len - 1] == '\n';
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if ((size_t)len != strlen(line)) continue;   /* a NUL inside: IR text, never a header or message */
        if (!any_header && *line && strncmp(line, ";; Function ", 12)) {
            /* GCC starts each function's section with its header. */
            rc = rec_fail(path, "not a GCC dump: line %zu comes before any ';; Function' header", lineno);
            break;
        }
        if (!strncmp(line, ";; Function ", 12)) {
            any_header = 1;
            free(function);
            function = header_function(line);
            if (!function) {
                rc = rec_fail(path, "not a GCC dump: line %zu: a ';; Function' header without its assembler name",
                              lineno);
                break;
            }
            continue;
        }
        struct loop_record rec = {0};
        char *file = NULL;
        const char *msg = message_line(line, &file, &rec.line, &rec.column);
        if (!msg || !rec_classify_gcc(msg, &rec.kind, &rec.vector_bytes)) {
            free(file);
            continue;
        }
        rec.function = rec_function_name(function);
        rec.file = file;
        rec.message = (char *)msg;
        record_list_add(&rec, found);
        free(rec.function);
        free(file);
    }
    /* GCC ends every line, so a last line without its newline means the
     * file was cut short (a killed compile, a full disk). */
    if (rc == 0 && any && !last_complete)
        rc = rec_fail(path, "truncated GCC dump (line %zu is cut off)", lineno);
    rec_lines_free(&it);
    free(function);
    return rc;
}

int records_read_gcc_dump_buf(const struct records_buf *parts, size_t n, record_fn fn, void *ctx)
{
    rec_begin();
    struct record_list found = RECORD_LIST_INIT;
    for (size_t i = 0; i < n; i++)
        if (read_one(&parts[i], &found) != 0) {
            record_list_free(&found);
            return -1;
        }
    return rec_deliver(&found, fn, ctx);
}

int records_read_gcc_dump(const char *path, record_fn fn, void *ctx)
{
    struct record_list found = RECORD_LIST_INIT;
    for (int i = 0; records_gcc_dump_passes[i]; i++) {
        char *file = records_gcc_dump_file(path, records_gcc_dump_passes[i]);
        struct rec_file f;
        int rc = rec_file_load(file, 1, "cannot read GCC dump", &f);
        if (rc == 0) rc = read_one(&(struct records_buf){file, f.data, f.len}, &found);
        rec_file_release(&f);
        free(file);
        if (rc != 0) {
            record_list_free(&found);
            return -1;
        }
    }
    return rec_deliver(&found, fn, ctx);
}
