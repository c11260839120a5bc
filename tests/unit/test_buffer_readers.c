/* Unit tests of the readers' buffer entry points (records_read_*_buf,
 * compdb_parse_buffer, elf_file_open_buffer), on the fuzz seeds of
 * tests/fuzz: each seed is a real compiler output that yields records (or
 * entries, or symbols), and a path reader on the same bytes, written to a
 * file, gives the same answer - the path readers are wrappers. Also the
 * gzip rules of the GCC JSON reader (several members, trailing bytes, a
 * plain file) and the buffer readers' error lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "capture/compdb.h"
#include "elf/elffile.h"
#include "test_records_util.h"

#define SEEDS FIXTURES_DIR "/../fuzz"
#define PART_SEPARATOR "\n----8<----\n"   /* as in tests/fuzz/fuzz_gcc_dump.c */

static char *seed(const char *reader, const char *name, size_t *len)
{
    char *path = xasprintf("%s/%s/%s", SEEDS, reader, name);
    char *text = read_file(path, len);
    if (!text) fail_msg("cannot read seed %s", path);
    free(path);
    return text;
}

/* Same records, in the same order. */
static void assert_same_records(const struct record_list *a, const struct record_list *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const struct loop_record *x = &a->v[i], *y = &b->v[i];
        assert_true((x->function == NULL) == (y->function == NULL));
        if (x->function) assert_string_equal(x->function, y->function);
        assert_true((x->file == NULL) == (y->file == NULL));
        if (x->file) assert_string_equal(x->file, y->file);
        assert_int_equal(x->line, y->line);
        assert_int_equal(x->column, y->column);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->vector_bytes, y->vector_bytes);
        assert_int_equal(x->vector_lanes, y->vector_lanes);
        assert_string_equal(x->message, y->message);
    }
}

typedef int (*path_reader)(const char *, record_fn, void *);
typedef int (*buf_reader)(const struct records_buf *, record_fn, void *);

/* Reads a seed both ways; returns how many records it holds. */
static size_t same_both_ways(const char *tmp, const char *reader, const char *name, path_reader rp, buf_reader rb)
{
    size_t len;
    char *text = seed(reader, name, &len);
    char *path = path_join(tmp, name);
    assert_int_equal(write_file_atomic(path, text, len), 0);
    struct record_list a = RECORD_LIST_INIT, b = RECORD_LIST_INIT;
    assert_int_equal(rp(path, record_list_add, &a), 0);
    assert_int_equal(rb(&(struct records_buf){name, text, len}, record_list_add, &b), 0);
    assert_same_records(&a, &b);
    size_t n = a.n;
    record_list_free(&a);
    record_list_free(&b);
    free(path);
    free(text);
    return n;
}

static void test_record_seeds_read_alike_from_path_and_buffer(void **state)
{
    const char *tmp = *state;
    static const char *const json[] = {"tiny_c.json", "tiny_c.json.gz", "two_members.json.gz", "tiny_cpp.json",
                                       "tiny_cpp.json.gz"};
    for (size_t i = 0; i < 5; i++)
        assert_true(same_both_ways(tmp, "gcc_json", json[i], records_read_gcc_json, records_read_gcc_json_buf) > 0);
    assert_int_equal(same_both_ways(tmp, "gcc_json", "empty_records.json", records_read_gcc_json,
                                    records_read_gcc_json_buf), 0);
    static const char *const yaml[] = {"clang14_c.yaml", "clang19_c.yaml", "clang14_cpp.yaml", "clang19_cpp.yaml"};
    for (size_t i = 0; i < 4; i++)
        assert_true(same_both_ways(tmp, "clang_yaml", yaml[i], records_read_clang_yaml, records_read_clang_yaml_buf) >
                    0);
    static const char *const logs[] = {"gcc12_c.log", "gcc12_cpp.log", "clang14_c.log", "clang19_cpp.log",
                                       "make_recursive_color.log"};
    for (size_t i = 0; i < 5; i++)
        assert_true(same_both_ways(tmp, "optinfo_log", logs[i], records_read_optinfo_log,
                                   records_read_optinfo_log_buf) > 0);
}

/* A gzip'd file and its plain text give the same records; so do two
 * gzip members one after the other (`cat a.gz b.gz`), and bytes after the
 * last member that start no other are ignored, as gzread does. */
static void test_gcc_json_gzip_rules(void **state)
{
    (void)state;
    size_t len, zlen;
    char *plain = seed("gcc_json", "tiny_c.json", &len);
    char *two = seed("gcc_json", "two_members.json.gz", &zlen);
    struct record_list a = RECORD_LIST_INIT, b = RECORD_LIST_INIT, c = RECORD_LIST_INIT;
    assert_int_equal(records_read_gcc_json_buf(&(struct records_buf){"a.json", plain, len}, record_list_add, &a), 0);
    assert_int_equal(records_read_gcc_json_buf(&(struct records_buf){"b.json.gz", two, zlen}, record_list_add, &b), 0);
    assert_same_records(&a, &b);
    char *tail = xmalloc(zlen + 5);
    memcpy(tail, two, zlen);
    memcpy(tail + zlen, "junk\n", 5);
    assert_int_equal(records_read_gcc_json_buf(&(struct records_buf){"c.json.gz", tail, zlen + 5}, record_list_add, &c),
                     0);
    assert_same_records(&a, &c);
    /* Cut inside the first member: truncated, nothing delivered. */
    fmv_set_quiet(1);
    struct record_list d = RECORD_LIST_INIT;
    assert_int_equal(records_read_gcc_json_buf(&(struct records_buf){"d.json.gz", two, zlen / 3}, record_list_add, &d),
                     -1);
    assert_int_equal(d.n, 0);
    assert_non_null(strstr(records_error(), "d.json.gz: truncated gzip stream"));
    assert_int_equal(records_read_gcc_json_buf(&(struct records_buf){"e.json", "", 0}, record_list_add, &d), -1);
    assert_string_equal(records_error(), "e.json: empty file");
    fmv_set_quiet(0);
    record_list_free(&a);
    record_list_free(&b);
    record_list_free(&c);
    free(tail);
    free(two);
    free(plain);
}

/* A GCC dump seed is the vect, slp1 and slp2 dumps of one compile: written
 * as those three files, the path reader finds what the buffer reader
 * finds in the parts. */
static void test_gcc_dump_parts_read_alike(void **state)
{
    const char *tmp = *state;
    static const char *const seeds[] = {"tiny_c.dump", "tiny_c.o2.dump", "tiny_cpp.dump", "tiny_cpp.o2.dump"};
    for (size_t s = 0; s < 4; s++) {
        size_t len;
        char *text = seed("gcc_dump", seeds[s], &len);
        struct records_buf parts[3];
        const char *p = text, *end = text + len;
        char *record = xasprintf("%s/%zu.vect", tmp, s);
        for (int i = 0; i < 3; i++) {
            const char *cut = i < 2 ? memmem(p, (size_t)(end - p), PART_SEPARATOR, strlen(PART_SEPARATOR)) : NULL;
            assert_true(i == 2 || cut != NULL);
            const char *stop = cut ? cut + 1 : end;
            parts[i] = (struct records_buf){records_gcc_dump_passes[i], p, (size_t)(stop - p)};
            char *file = records_gcc_dump_file(record, records_gcc_dump_passes[i]);
            assert_int_equal(write_file_atomic(file, p, (size_t)(stop - p)), 0);
            free(file);
            p = cut ? cut + strlen(PART_SEPARATOR) : end;
        }
        struct record_list a = RECORD_LIST_INIT, b = RECORD_LIST_INIT;
        assert_int_equal(records_read_gcc_dump(record, record_list_add, &a), 0);
        assert_int_equal(records_read_gcc_dump_buf(parts, 3, record_list_add, &b), 0);
        assert_true(a.n > 0);
        assert_same_records(&a, &b);
        /* A part cut off mid-line is an error naming that part. */
        fmv_set_quiet(1);
        struct records_buf cut[2] = {parts[0], {"x.slp1", ";; Function f (f, funcdef_no=0)\nno end", 38}};
        assert_int_equal(records_read_gcc_dump_buf(cut, 2, record_list_add, &b), -1);
        assert_string_equal(records_error(), "x.slp1: truncated GCC dump (line 2 is cut off)");
        fmv_set_quiet(0);
        record_list_free(&a);
        record_list_free(&b);
        free(record);
        free(text);
    }
}

struct seen {
    size_t n;
    char *first_source, *first_language;
};

static int keep_entry(struct compdb_entry *e, void *ctx)
{
    struct seen *s = ctx;
    if (s->n++ == 0) {
        s->first_source = e->source;   /* taken */
        s->first_language = e->language;
        e->source = e->language = NULL;
    }
    return 0;
}

static int stop_at_first(struct compdb_entry *e, void *ctx)
{
    (void)e;
    (void)ctx;
    return -1;
}

static void test_compdb_parse_buffer(void **state)
{
    (void)state;
    size_t len;
    char *text = seed("compdb", "arguments.json", &len);
    struct seen s = {0};
    /* a.c (launcher dropped), b.inc as C++, z.c; not the assembler or the
     * link line. */
    assert_int_equal(compdb_parse_buffer("cc.json", text, len, "/p", COMPDB_NO_RESPONSE_FILES, keep_entry, &s), 0);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.first_source, "/p/src/a.c");
    assert_string_equal(s.first_language, "c");
    free(s.first_source);
    free(s.first_language);
    assert_int_equal(compdb_parse_buffer("cc.json", text, len, "/p", COMPDB_NO_RESPONSE_FILES, stop_at_first, NULL),
                     -1);
    fmv_set_quiet(1);
    struct strbuf err = STRBUF_INIT;
    fmv_error_capture(&err);
    assert_int_equal(compdb_parse_buffer("bad.json", "[{\"file\": \"a.c\"}]", 17, "/p", 0, keep_entry, &s), -1);
    fmv_error_capture(NULL);
    fmv_set_quiet(0);
    assert_string_equal(sb_str(&err), "bad.json: entry 1: missing string \"directory\"");
    sb_free(&err);
    free(text);
}

static void test_elf_open_buffer_matches_path(void **state)
{
    (void)state;
    static const char *const seeds[] = {"tc_gcc12", "tc_clang19", "tc_clang14.so", "tc_gcc12_stripped"};
    for (size_t i = 0; i < 4; i++) {
        char *path = xasprintf("%s/elf/%s", SEEDS, seeds[i]);
        size_t len;
        char *data = read_file(path, &len);
        assert_non_null(data);
        struct elf_file a, b;
        assert_int_equal(elf_file_open(path, &a), 0);
        assert_int_equal(elf_file_open_buffer(seeds[i], data, len, &b), 0);
        free(data);   /* the buffer reader keeps a copy */
        assert_int_equal(a.n_syms, b.n_syms);
        if (strstr(seeds[i], "stripped")) assert_int_equal(a.has_symtab, 0);
        else assert_true(a.n_syms > 0);
        for (size_t k = 0; k < a.n_syms; k++) {
            assert_string_equal(a.syms[k].name, b.syms[k].name);
            assert_int_equal(a.syms[k].value, b.syms[k].value);
        }
        assert_int_equal(a.is_pie, b.is_pie);
        assert_int_equal(a.is_static, b.is_static);
        assert_int_equal(a.has_symtab, b.has_symtab);
        assert_int_equal(a.text_size, b.text_size);
        assert_int_equal(a.n_irelative, b.n_irelative);
        elf_file_close(&a);
        elf_file_close(&b);
        free(path);
    }
    /* Not ELF, and empty: one line naming the buffer. */
    struct elf_file e;
    struct strbuf err = STRBUF_INIT;
    fmv_error_capture(&err);
    assert_int_equal(elf_file_open_buffer("notelf", "hello", 5, &e), -1);
    assert_int_equal(elf_file_open_buffer("empty", "", 0, &e), -1);
    fmv_error_capture(NULL);
    assert_string_equal(sb_str(&err), "notelf: not an ELF file; empty: not an ELF file");
    sb_free(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_seeds_read_alike_from_path_and_buffer),
        cmocka_unit_test(test_gcc_json_gzip_rules),
        cmocka_unit_test(test_gcc_dump_parts_read_alike),
        cmocka_unit_test(test_compdb_parse_buffer),
        cmocka_unit_test(test_elf_open_buffer_matches_path),
    };
    return cmocka_run_group_tests(tests, records_tmp_setup, records_tmp_teardown);
}
