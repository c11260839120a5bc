/* clang_yaml.c - reads Clang's optimization records (YAML, one document
 * per remark, as written by -opt-record-file / -fsave-optimization-record)
 * into loop records, with libyaml's document API: one remark document is
 * loaded at a time, so memory stays flat on the large files of big TUs.
 *
 * A remark looks like
 *   --- !Passed
 *   Pass:     loop-vectorize
 *   Name:     Vectorized
 *   DebugLoc: { File: a.c, Line: 3, Column: 5 }
 *   Function: foo
 *   Args:
 *     - String: 'vectorized loop (vectorization width: '
 *     - VectorizationFactor: '4'
 *     ...
 *   ...
 * Successful vectorizations are !Passed remarks of loop-vectorize named
 * "Vectorized" (not "Interleaved": interleaving alone is no vector code) and
 * every !Passed remark of slp-vectorizer (StoresVectorized, VectorizedList,
 * VectorizedHorizontalReduction). Clang ends every document with "...":
 * a last document without it means the file was cut short. */
#include "records/reader.h"
#include "records/records.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
            return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

static const char *scalar(yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static const char *map_scalar(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
    return scalar(map_get(doc, map, key));
}

/* Args is a list of one-key mappings; the message is their values in
 * order (as Clang prints the remark), the width the VectorizationFactor. */
static char *render_args(yaml_document_t *doc, yaml_node_t *args, int *lanes)
{
    struct strbuf sb = STRBUF_INIT;
    if (args && args->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = args->data.sequence.items.start; it < args->data.sequence.items.top; it++) {
            yaml_node_t *arg = yaml_document_get_node(doc, *it);
            if (!arg || arg->type != YAML_MAPPING_NODE || arg->data.mapping.pairs.start == arg->data.mapping.pairs.top)
                continue;
            yaml_node_pair_t *first = arg->data.mapping.pairs.start;
            const char *key = scalar(yaml_document_get_node(doc, first->key));
            const char *value = scalar(yaml_document_get_node(doc, first->value));
            if (!key || !value) continue;
            sb_adds(&sb, value);
            if (!strcmp(key, "VectorizationFactor")) {
                /* "8"; scalable vectors ("vscale x 4") have no fixed width */
                char *end;
                long v = strtol(value, &end, 10);
                *lanes = (*end == '\0' && v > 0 && v < 1 << 16) ? (int)v : 0;
            }
        }
    }
    return sb_detach(&sb);
}

static int to_int(const char *s) { return s ? atoi(s) : 0; }

/* One remark document. Returns 0, or -1 (printed) when it is no remark. */
static int read_remark(const char *path, yaml_document_t *doc, size_t index, struct record_list *found)
{
    yaml_node_t *root = yaml_document_get_root_node(doc);
    const char *pass = map_scalar(doc, root, "Pass");
    const char *name = map_scalar(doc, root, "Name");
    const char *function = map_scalar(doc, root, "Function");
    if (!root || root->type != YAML_MAPPING_NODE || !root->tag || root->tag[0] != '!')
        return rec_fail(path, "not a Clang optimization record: document %zu (line %zu) is no tagged remark "
                              "(--- !Passed, !Missed, ...)", index + 1, root ? root->start_mark.line + 1 : 0);
    /* Shape first, then the end marker: a cut-off remark may lack its keys. */
    if (doc->end_implicit)
        return rec_fail(path, "truncated: remark %zu (line %zu) does not end with '...'", index + 1,
                        doc->start_mark.line + 1);
    if (!pass || !name || !function)
        return rec_fail(path, "not a Clang optimization record: document %zu (line %zu) lacks Pass, Name or "
                              "Function", index + 1, root ? root->start_mark.line + 1 : 0);
    if (strcmp((const char *)root->tag, "!Passed")) return 0;
    enum loop_kind kind;
    if (!strcmp(pass, "loop-vectorize") && !strcmp(name, "Vectorized")) kind = LOOP_VECTORIZED;
    else if (!strcmp(pass, "slp-vectorizer")) kind = LOOP_SLP;
    else return 0;

    struct loop_record rec = {.kind = kind};
    yaml_node_t *loc = map_get(doc, root, "DebugLoc");
    rec.file = (char *)map_scalar(doc, loc, "File");
    rec.line = to_int(map_scalar(doc, loc, "Line"));
    rec.column = to_int(map_scalar(doc, loc, "Column"));
    rec.function = rec_function_name(function);
    rec.message = render_args(doc, map_get(doc, root, "Args"), &rec.vector_lanes);
    record_list_add(&rec, found);
    free(rec.function);
    free(rec.message);
    return 0;
}

static int parse_failed(const char *path, yaml_parser_t *p)
{
    if (p->error == YAML_READER_ERROR)
        return rec_fail(path, "unreadable YAML: %s", p->problem ? p->problem : strerror(errno));
    if (p->problem && strstr(p->problem, "end of stream"))
        return rec_fail(path, "truncated YAML at line %zu: %s", p->problem_mark.line + 1, p->problem);
    return rec_fail(path, "invalid YAML at line %zu: %s%s%s", p->problem_mark.line + 1,
                    p->problem ? p->problem : "syntax error", p->context ? " " : "", p->context ? p->context : "");
}

int records_read_clang_yaml_buf(const struct records_buf *in, record_fn fn, void *ctx)
{
    rec_begin();
    const char *path = in->name;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return rec_fail(path, "cannot start the YAML parser");
    yaml_parser_set_input_string(&parser, in->data, in->len);
    struct record_list found = RECORD_LIST_INIT;
    int rc = 0;
    for (size_t index = 0;; index++) {
        yaml_document_t doc;
        if (!yaml_parser_load(&parser, &doc)) {
            rc = parse_failed(path, &parser);
            break;
        }
        if (!yaml_document_get_root_node(&doc)) {   /* end of the stream */
            yaml_document_delete(&doc);
            break;
        }
        rc = read_remark(path, &doc, index, &found);
        yaml_document_delete(&doc);
        if (rc != 0) break;
    }
    yaml_parser_delete(&parser);
    if (rc != 0) {
        record_list_free(&found);
        return -1;
    }
    return rec_deliver(&found, fn, ctx);
}

int records_read_clang_yaml(const char *path, record_fn fn, void *ctx)
{
    struct rec_file f;
    int rc = rec_file_load(path, 1, "cannot read record file", &f);
    if (rc == 0) rc = records_read_clang_yaml_buf(&(struct records_buf){path, f.data, f.len}, fn, ctx);
    rec_file_release(&f);
    return rc;
}
