/* optinfo_log.c - reads vectorization remarks out of a plain build log, for
 * users who only have a log (the old tool's input). Two dialects, mixed
 * with any other build output, which is ignored:
 *   GCC -fopt-info-vec:   a.c:3:23: optimized: loop vectorized using 32 byte vectors
 *                         a.c:13:10: optimized: basic block part vectorized using 16 byte vectors
 *                         (GCC 8 and older: "note:" instead of "optimized:")
 *   Clang -Rpass=...:     a.c:3:5: remark: vectorized loop (vectorization width: 8, interleaved count: 4) [-Rpass=loop-vectorize]
 *                         a.c:13:10: remark: Stores SLP vectorized with cost -12 and with tree size 5 [-Rpass=slp-vectorizer]
 * (Clang follows each remark with the source line and a caret; they do not
 * have the "FILE:LINE:COL: remark:" shape and are skipped like any line.)
 * Relative names under a recursive make's "Entering directory" line are
 * taken from that directory. A log names no function - see records.h. */
#include "records/reader.h"
#include "records/records.h"
#include "util/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Drops terminal colour sequences (ESC [ ... letter), which builds forced
 * to -fdiagnostics-color=always leave in logs, and the line end. */
static void strip_line(char *s)
{
    char *out = s;
    for (char *in = s; *in; in++) {
        if (*in == '\033' && in[1] == '[') {
            in += 2;
            while (*in && !isalpha((unsigned char)*in)) in++;
            if (!*in) break;
            continue;
        }
        *out++ = *in;
    }
    *out = '\0';
    while (out > s && (out[-1] == '\n' || out[-1] == '\r')) *--out = '\0';
}

/* Reads ":LINE:COL: " (or ":LINE: ") at p; returns what follows, or NULL. */
static const char *parse_position(const char *p, int *line, int *col)
{
    char *end;
    if (*p != ':' || !isdigit((unsigned char)p[1])) return NULL;
    *line = (int)strtol(p + 1, &end, 10);
    *col = 0;
    if (end[0] == ':' && isdigit((unsigned char)end[1])) *col = (int)strtol(end + 1, &end, 10);
    if (end[0] != ':' || end[1] != ' ') return NULL;
    return end + 2;
}


/* Clang's message, without its " [-Rpass=PASS]" tail (pass gets PASS, or
 * "" when the build turned option names off). */
static int classify_clang(char *msg, enum loop_kind *kind, int *lanes)
{
    const char *pass = "";
    char *tail = strstr(msg, " [-Rpass=");
    if (tail && tail[strlen(tail) - 1] == ']') {
        tail[strlen(tail) - 1] = '\0';
        pass = tail + strlen(" [-Rpass=");
        *tail = '\0';
    }
    *lanes = 0;
    if ((!*pass || !strcmp(pass, "loop-vectorize")) && str_starts_with(msg, "vectorized loop")) {
        const char *w = strstr(msg, "vectorization width: ");
        if (w) {
            /* "8"; anything but a plain positive count (a sign, "vscale x
             * 4") leaves the width unknown, as in the YAML reader. */
            const char *digits = w + strlen("vectorization width: ");
            char *end;
            long v = isdigit((unsigned char)*digits) ? strtol(digits, &end, 10) : 0;
            *lanes = v > 0 && v < 1 << 16 ? (int)v : 0;
        }
        *kind = LOOP_VECTORIZED;
        return 1;
    }
    if ((!*pass || !strcmp(pass, "slp-vectorizer")) &&
        (strstr(msg, "SLP vectorized with cost") || str_starts_with(msg, "Vectorized horizontal reduction"))) {
        *kind = LOOP_SLP;
        return 1;
    }
    return 0;
}

/* Recursive make prints where each sub-make runs:
 *   make[2]: Entering directory '/home/u/p/src'      (GNU make 4; 3.x: `...')
 *   make[2]: Leaving directory '/home/u/p/src'
 * and the compiler names files relative to that directory. A stack of
 * them resolves a relative name the way the compiler saw it. */
static int track_make_directory(const char *line, struct strvec *dirs)
{
    static const char enter[] = ": Entering directory ", leave[] = ": Leaving directory ";
    const char *at = strstr(line, enter);
    if (at && (at[strlen(enter)] == '\'' || at[strlen(enter)] == '`')) {
        const char *start = at + strlen(enter) + 1;
        size_t n = strlen(start);
        if (n > 1 && start[n - 1] == '\'' && start[0] == '/') {
            char *dir = xstrndup(start, n - 1);
            sv_push(dirs, dir);
            free(dir);
        }
        return 1;
    }
    if (strstr(line, leave) && dirs->n > 0) {
        free(dirs->v[--dirs->n]);
        dirs->v[dirs->n] = NULL;
        return 1;
    }
    return 0;
}

/* One log line: adds a record when it is a vectorization remark. */
static void read_line(char *line, struct strvec *dirs, struct record_list *found)
{
    strip_line(line);
    if (track_make_directory(line, dirs)) return;
    /* The file name ends at the first ":LINE:COL: KIND: " (it may itself
     * hold colons, or spaces). */
    for (char *p = strchr(line, ':'); p; p = strchr(p + 1, ':')) {
        struct loop_record rec = {0};
        const char *rest = parse_position(p, &rec.line, &rec.column);
        if (!rest || p == line) continue;
        int ok = 0;
        char *msg = NULL;
        if (str_starts_with(rest, "optimized: ") || str_starts_with(rest, "note: ")) {
            msg = xstrdup(strchr(rest, ' ') + 1);
            ok = rec_classify_gcc(msg, &rec.kind, &rec.vector_bytes);
        } else if (str_starts_with(rest, "remark: ")) {
            msg = xstrdup(rest + strlen("remark: "));
            ok = classify_clang(msg, &rec.kind, &rec.vector_lanes);
        }
        if (ok) {
            rec.file = xstrndup(line, (size_t)(p - line));
            if (rec.file[0] != '/' && dirs->n > 0) {
                char *abs = path_absolute(rec.file, dirs->v[dirs->n - 1]);
                free(rec.file);
                rec.file = abs;
            }
            rec.message = msg;
            record_list_add(&rec, found);
            free(rec.file);
        }
        free(msg);
        if (msg) return;   /* this was the line's position, matched or not */
    }
}

int records_read_optinfo_log_buf(const struct records_buf *in, record_fn fn, void *ctx)
{
    rec_begin();
    if (in->len == 0) return rec_fail(in->name, "empty file");
    struct record_list found = RECORD_LIST_INIT;
    struct strvec dirs = STRVEC_INIT;
    struct rec_lines it = REC_LINES_INIT((const char *)in->data, in->len);
    char *line;
    while (rec_next_line(&it, &line) >= 0) read_line(line, &dirs, &found);
    rec_lines_free(&it);
    sv_free(&dirs);
    return rec_deliver(&found, fn, ctx);
}

int records_read_optinfo_log(const char *path, record_fn fn, void *ctx)
{
    struct rec_file f;
    int rc = rec_file_load(path, 0, "cannot read build log", &f);
    if (rc == 0) rc = records_read_optinfo_log_buf(&(struct records_buf){path, f.data, f.len}, fn, ctx);
    rec_file_release(&f);
    return rc;
}
