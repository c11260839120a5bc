/* Unit tests of lib/capture/probe: records-only re-runs of the compiles of a
 * compile_commands.json for the probe-proj fixture (three C files, one C++
 * file, a path with spaces), with gcc and clang (and clang-19 when
 * installed): record files registered per variant, the user's tree left
 * exactly as it was (find snapshot) even with dependency-file flags,
 * only_O2 selection, and a deleted source giving a probe-failed note while
 * the other compiles still run (or, for the target probes, skipped with one
 * note line); ingested, the records show the loop that
 * vectorizes only at the target ISA. Also the argv rewrite itself, the key
 * of compiles that probe alike (libtool's PIC twins), and twins probed once
 * with the records (or the failure, or a corrupt file) counting for each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <jansson.h>
#include <zlib.h>

#include "capture/compdb.h"
#include "capture/probe.h"
#include "records/records.h"
#include "scan/ingest.h"
#include "test_probe_helpers.h"

/* ---- the argv rewrite ---- */

static void expect_argv(char **got, const char *const *want)
{
    size_t i = 0;
    for (; want[i] && got[i]; i++)
        if (strcmp(got[i], want[i]) != 0) fail_msg("argv[%zu] = [%s], expected [%s]", i, got[i], want[i]);
    if (want[i] || got[i]) fail_msg("argv length differs at %zu: got [%s], expected [%s]", i, got[i] ? got[i] : "END",
                                    want[i] ? want[i] : "END");
}

static void test_argv_drops_outputs_and_dependency_files(void **state)
{
    (void)state;
    char *argv[] = {"cc", "-O2", "-MD", "-MF", "d.d", "-MTfoo", "-MQ", "q", "-MP", "-Wp,-MD,x.d,-DFOO",
                    "-Wp,-MMD,y.d", "-c", "a.c", "b.c", "-o", "a.o", "-save-temps=obj", "-dumpdir", "z/",
                    "-fopt-info-vec=log.txt", "-fopt-info-vec", "-MJ", "cdb.json", "-I", "inc",
                    "--write-dependencies", "--output=o2.o", "--output", "o3.o", NULL};
    struct compile_row row = {.id = 1, .directory = "/p", .compiler = "/usr/bin/gcc", .source = "/p/a.c",
                              .argv = argv};
    char *extra[] = {"-march=x86-64-v4", NULL};
    char *rec[] = {"-fsave-optimization-record", "-dumpdir", "/r/", NULL};
    struct strvec out = STRVEC_INIT;
    probe_build_argv(&row, extra, rec, "/t/1/a.o", &out);
    expect_argv(out.v, (const char *[]){"/usr/bin/gcc", "-O2", "-Wp,-DFOO", "a.c", "-fopt-info-vec", "-I", "inc",
                                        "-S", "-Wno-error", "-g0", "-fno-lto", "-march=x86-64-v4", "-fsave-optimization-record", "-dumpdir",
                                        "/r/", "-o", "/t/1/a.o", NULL});
    sv_free(&out);

    /* Joined -o, no -c (a compile-and-link line), source in a spaced dir. */
    char *argv2[] = {"g++", "-O3", "sub dir/m.cpp", "-ofoo", NULL};
    struct compile_row row2 = {.id = 2, .directory = "/p", .compiler = "/usr/bin/g++", .source = "/p/sub dir/m.cpp",
                               .argv = argv2};
    probe_build_argv(&row2, NULL, rec, "/t/2/foo", &out);
    expect_argv(out.v, (const char *[]){"/usr/bin/g++", "-O3", "sub dir/m.cpp", "-S", "-Wno-error", "-g0", "-fno-lto",
                                        "-fsave-optimization-record", "-dumpdir", "/r/", "-o", "/t/2/foo", NULL});
    sv_free(&out);
}

/* ---- the key of compiles that probe alike ---- */

static char *key_of(const char *dir, const char *source, const char *hash, const char *compiler, char **argv)
{
    struct compile_row row = {.id = 1, .directory = (char *)dir, .source = (char *)source,
                              .source_hash = (char *)hash, .compiler = (char *)compiler, .argv = argv};
    return probe_dedupe_key(&row);
}

static int same_key(char **a, char **b)
{
    char *ka = key_of("/b", "/p/png.c", "h1", "/usr/bin/gcc", a);
    char *kb = key_of("/b", "/p/png.c", "h1", "/usr/bin/gcc", b);
    int same = !strcmp(ka, kb);
    free(ka);
    free(kb);
    return same;
}

static void test_dedupe_key(void **state)
{
    (void)state;
    /* libtool's two compiles of one source (libpng's png.lo). */
    char *pic[] = {"gcc", "-DHAVE_CONFIG_H", "-I.", "-I../png", "-g", "-O2", "-MT", "png.lo", "-MD", "-MP", "-MF",
                   ".deps/png.Tpo", "-c", "../png/png.c", "-fPIC", "-DPIC", "-o", ".libs/png.o", NULL};
    char *plain[] = {"gcc", "-DHAVE_CONFIG_H", "-I.", "-I../png", "-g", "-O2", "-MT", "png.lo", "-MD", "-MP",
                     "-MF", ".deps/png.Tpo", "-c", "../png/png.c", "-o", "png.o", NULL};
    assert_true(same_key(pic, plain));
    /* -fpic, "-D PIC", glued -o, other dependency files, -Wp,-MD. */
    char *pic2[] = {"gcc", "-DHAVE_CONFIG_H", "-I.", "-I../png", "-g", "-O2", "-MT", "x.lo", "-MMD", "-MF",
                    "other.d", "-Wp,-MD,dep.d", "-c", "../png/png.c", "-fpic", "-D", "PIC", "-o.libs/png.o", NULL};
    assert_true(same_key(pic2, plain));
    /* What changes the code keeps them apart. */
    char *o3[] = {"gcc", "-DHAVE_CONFIG_H", "-I.", "-I../png", "-g", "-O3", "-c", "../png/png.c", "-o", "png.o", NULL};
    char *o2[] = {"gcc", "-DHAVE_CONFIG_H", "-I.", "-I../png", "-g", "-O2", "-c", "../png/png.c", "-o", "png.o", NULL};
    char *foo[] = {"gcc", "-DHAVE_CONFIG_H", "-I.", "-I../png", "-g", "-O2", "-DFOO", "-c", "../png/png.c",
                   "-fPIC", "-DPIC", "-o", ".libs/png.o", NULL};
    char *inc[] = {"gcc", "-DHAVE_CONFIG_H", "-I.", "-I../other", "-g", "-O2", "-c", "../png/png.c", "-fPIC",
                   "-DPIC", "-o", ".libs/png.o", NULL};
    char *picval[] = {"gcc", "-DHAVE_CONFIG_H", "-I.", "-I../png", "-g", "-O2", "-c", "../png/png.c", "-DPIC=2",
                      "-o", "png.o", NULL};
    char *march[] = {"gcc", "-DHAVE_CONFIG_H", "-I.", "-I../png", "-g", "-O2", "-mavx2", "-c", "../png/png.c",
                     "-o", "png.o", NULL};
    assert_true(same_key(o2, plain));
    assert_false(same_key(o3, o2));
    assert_false(same_key(foo, o2));
    assert_false(same_key(foo, pic));
    assert_false(same_key(inc, pic));
    assert_false(same_key(picval, o2));
    assert_false(same_key(march, o2));
    /* Arguments cannot run into each other: "-I." "x" is not "-I.x". */
    char *split[] = {"gcc", "-I.", "x", "-c", "a.c", NULL};
    char *glued[] = {"gcc", "-I.x", "-c", "a.c", NULL};
    assert_false(same_key(split, glued));
    /* Another directory, source (of a multi-source command), source
     * version or compiler keeps them apart too. */
    char *k = key_of("/b", "/p/png.c", "h1", "/usr/bin/gcc", plain);
    char *others[4] = {key_of("/c", "/p/png.c", "h1", "/usr/bin/gcc", plain),
                       key_of("/b", "/p/pngget.c", "h1", "/usr/bin/gcc", plain),
                       key_of("/b", "/p/png.c", "h2", "/usr/bin/gcc", plain),
                       key_of("/b", "/p/png.c", "h1", "/usr/bin/clang", plain)};
    for (int i = 0; i < 4; i++) {
        if (!strcmp(k, others[i])) fail_msg("key %d matches", i);
        free(others[i]);
    }
    free(k);
    /* One source compiled and linked by several commands with other
     * sources (SciMark2: `cc -O2 -o bin/fft src/Random.c ... src/fft/kernel.c`)
     * or compiled alone with -c: the probe compiles it alike. */
    char *fft[] = {"gcc", "-O2", "-Isrc", "-o", "bin/fft", "png.c", "src/fft/kernel.c", "-lm", NULL};
    char *sor[] = {"gcc", "-O2", "-Isrc", "-o", "bin/sor", "png.c", "src/sor/kernel.c", "-lm", NULL};
    char *alone[] = {"gcc", "-O2", "-Isrc", "-c", "png.c", "-o", "png.o", "-lm", NULL};
    char *sorO3[] = {"gcc", "-O3", "-Isrc", "-o", "bin/sor", "png.c", "src/sor/kernel.c", "-lm", NULL};
    char *kf = key_of("/p", "/p/png.c", "h1", "/usr/bin/gcc", fft), *ks = key_of("/p", "/p/png.c", "h1", "/usr/bin/gcc", sor),
         *ka = key_of("/p", "/p/png.c", "h1", "/usr/bin/gcc", alone),
         *k3 = key_of("/p", "/p/png.c", "h1", "/usr/bin/gcc", sorO3);
    assert_string_equal(kf, ks);
    assert_string_equal(kf, ka);
    assert_string_not_equal(ks, k3);
    /* ... but not the other source of the same command. */
    char *kk = key_of("/p", "/p/src/fft/kernel.c", "h1", "/usr/bin/gcc", fft);
    assert_string_not_equal(kf, kk);
    free(kf);
    free(ks);
    free(ka);
    free(k3);
    free(kk);
}

static void test_variant_dirname(void **state)
{
    (void)state;
    char *s = probe_variant_dirname("probe:arch=x86-64-v4");
    assert_string_equal(s, "probe_arch=x86-64-v4");
    free(s);
    s = probe_variant_dirname("../x/y");
    assert_null(strchr(s, '/'));
    assert_true(s[0] != '.');
    free(s);
}

/* ---- end to end on the fixture ---- */

struct toolchain {
    const char *cc, *cxx, *kind;
};
static const struct toolchain TOOLCHAINS[] = {
    {"gcc", "g++", "gcc"},
    {"clang", "clang++", "clang"},
    {"clang-19", "clang++-19", "clang"},
};

struct env {
    char *tmp, *proj, *storedir, *tmpdir;
    struct store *st;
    const struct toolchain *tc;
};

static int setup(void **state)
{
    struct env *e = xcalloc(1, sizeof *e);
    e->tmp = make_temp_dir("test-probe");
    e->proj = copy_fixture_to("probe-proj", e->tmp);
    e->storedir = path_join(e->tmp, "store");
    /* The probe's private temp dir goes here, so the test can see it is
     * removed afterwards. */
    e->tmpdir = path_join(e->tmp, "tmpdir");
    mkdir_p(e->tmpdir, 0755);
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    struct env *e = *state;
    remove_tree(e->tmp);
    free(e->tmp);
    free(e->proj);
    free(e->storedir);
    free(e->tmpdir);
    free(e);
    return 0;
}

/* A fresh store for one toolchain. */
static void open_store(struct env *e, const struct toolchain *tc)
{
    remove_tree(e->storedir);
    assert_int_equal(store_open(e->storedir, 1, &e->st), 0);
    e->tc = tc;
}

static void close_store(struct env *e)
{
    store_close(e->st);
    e->st = NULL;
}

/* One translation unit of the fixture and the flags it is compiled with. */
struct tu {
    const char *file;
    const char *flags[8];
};
static const struct tu DEFAULT_TUS[] = {
    {"sum.c", {"-O3"}},
    {"dot.c", {"-O3"}},
    {"sub dir/scale kernel.c", {"-O3"}},
    {"mix.cpp", {"-O3"}},
};

/* Writes compile_commands.json (arguments form) for tus and imports it;
 * outputs[i] (when outputs is given) is TU i's object, else obj/<base>.o. */
static void import_tus_into(struct env *e, const struct tu *tus, const char *const *outputs, size_t n)
{
    json_t *db = json_array();
    for (size_t i = 0; i < n; i++) {
        int cxx = strstr(tus[i].file, ".cpp") != NULL;
        json_t *args = json_array();
        json_array_append_new(args, json_string(cxx ? e->tc->cxx : e->tc->cc));
        for (size_t k = 0; k < 8 && tus[i].flags[k]; k++) json_array_append_new(args, json_string(tus[i].flags[k]));
        /* obj/ does not exist: the user's real build would create it, the
         * probe must not. */
        const char *base = path_basename(tus[i].file);
        char *obj = outputs ? xstrdup(outputs[i]) : xasprintf("obj/%.*s.o", (int)(strrchr(base, '.') - base), base);
        json_array_append_new(args, json_string("-c"));
        json_array_append_new(args, json_string(tus[i].file));
        json_array_append_new(args, json_string("-o"));
        json_array_append_new(args, json_string(obj));
        json_array_append_new(db, json_pack("{s:s, s:s, s:o}", "directory", e->proj, "file", tus[i].file,
                                            "arguments", args));
        free(obj);
    }
    char *path = path_join(e->tmp, "compile_commands.json");
    assert_int_equal(json_dump_file(db, path, JSON_INDENT(2)), 0);
    json_decref(db);
    assert_int_equal(compdb_import(e->st, path), (int)n);
    free(path);
}

static void import_tus(struct env *e, const struct tu *tus, size_t n)
{
    import_tus_into(e, tus, NULL, n);
}

static int run_probe_req(struct env *e, const struct probe_request *req);
static int run_probe(struct env *e, const char *variant, char *const *extra, int only_O2)
{
    struct probe_request req = {.variant = variant, .extra_flags = extra, .only_O2 = only_O2};
    return run_probe_req(e, &req);
}

static int run_probe_req(struct env *e, const struct probe_request *reqp)
{
    const struct probe_request req = *reqp;
    setenv("TMPDIR", e->tmpdir, 1);
    int rc = probe_run(e->st, &req, 2);
    unsetenv("TMPDIR");
    /* The private temp dir with the throw-away objects is gone. */
    DIR *d = opendir(e->tmpdir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)))
        if (strstr(de->d_name, "fmvgen-probe")) fail_msg("probe temp dir left behind: %s", de->d_name);
    closedir(d);
    return rc;
}

/* The whole record file as text (gzip or plain: gzread handles both);
 * for GCC's dumps, the three dump files one after the other. */
static char *read_records(const char *path)
{
    size_t len = strlen(path);
    if (len > 5 && !strcmp(path + len - 5, ".vect")) {
        struct strbuf all = STRBUF_INIT;
        for (int i = 0; records_gcc_dump_passes[i]; i++) {
            char *file = records_gcc_dump_file(path, records_gcc_dump_passes[i]);
            char *text = read_file(file, NULL);
            assert_non_null(text);
            sb_adds(&all, text);
            free(text);
            free(file);
        }
        return sb_detach(&all);
    }
    gzFile f = gzopen(path, "rb");
    assert_non_null(f);
    struct strbuf sb = STRBUF_INIT;
    char buf[8192];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) sb_add(&sb, buf, (size_t)n);
    gzclose(f);
    return sb_detach(&sb);
}

/* Checks that each successful compile of the store has exactly one record
 * file of variant, non-empty, of the compiler's format, under the variant's
 * records dir, naming the fixture function compiled in that TU. Returns how
 * many there are. */
static int check_record_files(struct env *e, const char *variant)
{
    char *safe = probe_variant_dirname(variant);
    char *root = path_join(store_records_dir(e->st), safe);
    const char *want_format = !strcmp(e->tc->kind, "gcc") ? "gcc-dump" : "clang-yaml";
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(e->st),
                                        "SELECT r.format, r.path, r.status, c.source FROM record_files r "
                                        "JOIN compiles c ON c.id = r.compile_id WHERE r.variant = ?",
                                        -1, &q, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(q, 1, variant, -1, SQLITE_STATIC);
    int n = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *format = (const char *)sqlite3_column_text(q, 0);
        const char *path = (const char *)sqlite3_column_text(q, 1);
        const char *source = (const char *)sqlite3_column_text(q, 3);
        assert_string_equal(format, want_format);
        assert_string_equal((const char *)sqlite3_column_text(q, 2), "pending");
        char *rel = path_relative_to(path, root);
        if (!rel) fail_msg("record file %s is not under %s", path, root);
        free(rel);
        char *text = read_records(path);
        assert_true(strlen(text) > 0);
        const char *fn = strstr(source, "sum.c") ? "add_arrays" : strstr(source, "dot.c") ? "dot_widen"
                         : strstr(source, "scale kernel.c") ? "scale" : "saxpy";
        if (!strstr(text, fn)) fail_msg("%s: records of %s do not mention %s", path, source, fn);
        free(text);
        n++;
    }
    sqlite3_finalize(q);
    free(root);
    free(safe);
    return n;
}

static long long notes_of_kind(struct env *e, const char *kind)
{
    return query_int(e->st, "SELECT COUNT(*) FROM tu_notes WHERE kind = ?", kind);
}

/* Runs body for every installed toolchain (gcc and clang are required). */
#define FOR_EACH_TOOLCHAIN(e, body)                                                  \
    for (size_t t_ = 0; t_ < sizeof TOOLCHAINS / sizeof *TOOLCHAINS; t_++) {         \
        if (t_ >= 2 && !have_program(TOOLCHAINS[t_].cc)) continue;                   \
        open_store(e, &TOOLCHAINS[t_]);                                              \
        body;                                                                        \
        close_store(e);                                                              \
    }

static void build_then_target_probe(struct env *e)
{
    import_tus(e, DEFAULT_TUS, 4);
    char *before = tree_snapshot(e->proj);
    assert_int_equal(run_probe(e, "build", NULL, 0), 0);
    assert_int_equal(check_record_files(e, "build"), 4);

    char *v4[] = {"-march=x86-64-v4", NULL};
    assert_int_equal(run_probe(e, "probe:arch=x86-64-v4", v4, 0), 0);
    assert_int_equal(check_record_files(e, "probe:arch=x86-64-v4"), 4);
    /* The build's records are still there, in their own files. */
    assert_int_equal(check_record_files(e, "build"), 4);
    assert_int_equal(query_int(e->st, "SELECT COUNT(DISTINCT path) FROM record_files", NULL), 8);
    assert_int_equal(notes_of_kind(e, "probe-failed"), 0);

    /* The records say what the probe is for: int32 products summed into
     * int64 vectorize only at the wider ISA, the float loop everywhere. */
    struct ingest_stats stats = {0};
    assert_int_equal(records_ingest_pending(e->st, &stats), 0);
    assert_int_equal(stats.files_read, 8);
    const char *count = "SELECT COUNT(*) FROM loops WHERE variant = ? AND function = ";
    char *q_dot = xasprintf("%s'dot_widen'", count), *q_add = xasprintf("%s'add_arrays'", count);
    assert_int_equal(query_int(e->st, q_dot, "build"), 0);
    assert_true(query_int(e->st, q_dot, "probe:arch=x86-64-v4") > 0);
    assert_true(query_int(e->st, q_add, "build") > 0);
    assert_true(query_int(e->st, q_add, "probe:arch=x86-64-v4") > 0);
    free(q_dot);
    free(q_add);

    char *after = tree_snapshot(e->proj);
    assert_string_equal(after, before);
    free(before);
    free(after);
}

static void test_build_and_target_probe(void **state)
{
    struct env *e = *state;
    FOR_EACH_TOOLCHAIN(e, build_then_target_probe(e));
}

static void dependency_flags_leave_tree_alone(struct env *e)
{
    static const struct tu tus[] = {
        {"sum.c", {"-O3", "-MD", "-MF", "dep.d", "-MT", "obj/sum.o"}},
        {"dot.c", {"-O3", "-Wp,-MMD,wp.d"}},
        {"sub dir/scale kernel.c", {"-O3", "-save-temps", "-MMD"}},
        {"mix.cpp", {"-O3", "-MMD", "-MP", "-MQ", "x", "-gsplit-dwarf"}},
    };
    const char *sentinel = "sentinel: not to be rewritten\n";
    char *dep = path_join(e->proj, "dep.d");
    assert_int_equal(write_file_atomic(dep, sentinel, strlen(sentinel)), 0);
    import_tus(e, tus, 4);
    char *before = tree_snapshot(e->proj);
    /* GCC and Clang also write a dependency file named by the environment. */
    setenv("DEPENDENCIES_OUTPUT", "env-dep.d", 1);
    int rc = run_probe(e, "build", NULL, 0);
    unsetenv("DEPENDENCIES_OUTPUT");
    assert_int_equal(rc, 0);
    assert_int_equal(check_record_files(e, "build"), 4);
    char *after = tree_snapshot(e->proj);
    assert_string_equal(after, before);
    char *text = read_file(dep, NULL);
    assert_string_equal(text, sentinel);
    remove(dep);
    free(text);
    free(dep);
    free(before);
    free(after);
}

static void test_dependency_flags_leave_tree_alone(void **state)
{
    struct env *e = *state;
    FOR_EACH_TOOLCHAIN(e, dependency_flags_leave_tree_alone(e));
}

static void only_O2_filters(struct env *e)
{
    static const struct tu tus[] = {
        {"sum.c", {"-O2"}},
        {"dot.c", {"-O3", "-O2"}},
        {"sub dir/scale kernel.c", {"-O2", "-O3"}},
        {"mix.cpp", {"-Os"}},
    };
    import_tus(e, tus, 4);
    char *o3[] = {"-O3", NULL};
    assert_int_equal(run_probe(e, "probe:O3", o3, 1), 0);
    assert_int_equal(check_record_files(e, "probe:O3"), 2);
    assert_int_equal(query_int(e->st,
                               "SELECT COUNT(*) FROM record_files r JOIN compiles c ON c.id = r.compile_id "
                               "WHERE c.source LIKE '%/sum.c' OR c.source LIKE '%/dot.c'",
                               NULL),
                     2);
}

static void test_only_O2_filters(void **state)
{
    struct env *e = *state;
    FOR_EACH_TOOLCHAIN(e, only_O2_filters(e));
}

static void deleted_source_is_noted(struct env *e)
{
    import_tus(e, DEFAULT_TUS, 4);
    char *dot = path_join(e->proj, "dot.c");
    char *saved = read_file(dot, NULL);
    assert_int_equal(remove(dot), 0);
    struct stderr_capture cap;
    stderr_capture_begin(&cap);
    int rc = run_probe(e, "build", NULL, 0);
    char *err = stderr_capture_end(&cap);
    assert_int_equal(rc, 1);
    /* One warning line, naming the source. */
    assert_int_equal(count_lines(err), 1);
    assert_non_null(strstr(err, dot));
    assert_int_equal(check_record_files(e, "build"), 3);
    assert_int_equal(notes_of_kind(e, "probe-failed"), 1);
    long long noted = query_int(e->st,
                                "SELECT COUNT(*) FROM tu_notes n JOIN compiles c ON c.id = n.compile_id "
                                "WHERE n.kind = 'probe-failed' AND c.source LIKE '%/dot.c' "
                                "AND n.detail LIKE 'build: %dot.c%'",
                                NULL);
    if (noted != 1) fail_msg("no probe-failed note naming dot.c; stderr was [%s]", err);
    assert_int_equal(write_file_atomic(dot, saved, strlen(saved)), 0);
    free(err);
    free(saved);
    free(dot);
}

static void test_deleted_source_is_noted(void **state)
{
    struct env *e = *state;
    FOR_EACH_TOOLCHAIN(e, deleted_source_is_noted(e));
}

/* A source the build deleted again (lz4's have_pthread.c): the target
 * probe skips it with one note line, no warning and no probe-failed note;
 * a second request that skips silently prints nothing. */
static void vanished_source_is_skipped(struct env *e)
{
    import_tus(e, DEFAULT_TUS, 4);
    char *dot = path_join(e->proj, "dot.c");
    char *saved = read_file(dot, NULL);
    assert_int_equal(remove(dot), 0);
    char *v4[] = {"-march=x86-64-v4", NULL};
    struct probe_request req = {.variant = "probe:arch=x86-64-v4", .extra_flags = v4, .skip_vanished = 2};
    struct stderr_capture cap;
    stderr_capture_begin(&cap);
    int rc = probe_run(e->st, &req, 2);
    char *err = stderr_capture_end(&cap);
    assert_int_equal(rc, 0);
    assert_int_equal(count_lines(err), 1);
    if (!strstr(err, "fmvgen: note: 1 compile not probed: its source no longer exists (") || !strstr(err, dot))
        fail_msg("unexpected note [%s]", err);
    assert_int_equal(check_record_files(e, "probe:arch=x86-64-v4"), 3);
    assert_int_equal(notes_of_kind(e, "probe-failed"), 0);
    free(err);
    char *o3[] = {"-O3", NULL};
    struct probe_request quiet = {.variant = "probe:O3", .extra_flags = o3, .skip_vanished = 1};
    stderr_capture_begin(&cap);
    assert_int_equal(probe_run(e->st, &quiet, 2), 0);
    err = stderr_capture_end(&cap);
    assert_string_equal(err, "");
    assert_int_equal(write_file_atomic(dot, saved, strlen(saved)), 0);
    free(err);
    free(saved);
    free(dot);
}

static void test_vanished_source_is_skipped(void **state)
{
    struct env *e = *state;
    FOR_EACH_TOOLCHAIN(e, vanished_source_is_skipped(e));
}

/* lz4's `cc -O3 helper.o prog.c -o prog` probed on GCC's JSON path (the
 * path GCC < 12 takes, chosen here by the stored version; the real gcc 12
 * writes the same JSON): GCC names the record after output and source, and
 * the probe still finds it (it said "the compiler wrote no record file"). */
static void test_json_probe_of_link_with_object_inputs(void **state)
{
    struct env *e = *state;
    char *proj = copy_fixture_to("scan-link-objects", e->tmp);
    struct run_opts o = {.cwd = proj, .null_stdout = 1};
    char *obj_argv[] = {"gcc", "-O3", "-c", "helper.c", "-o", "helper.o", NULL};
    assert_int_equal(run_argv(obj_argv, &o, NULL), 0);
    remove_tree(e->storedir);
    assert_int_equal(store_open(e->storedir, 1, &e->st), 0);
    char *argv[] = {"gcc", "-O3", "helper.o", "prog.c", "-o", "prog", NULL};
    char *source = path_join(proj, "prog.c"), *output = path_join(proj, "prog");
    char *compiler = find_in_path("gcc");
    struct compile_info ci = {.directory = proj, .argv = argv, .compiler = compiler, .compiler_kind = "gcc",
                              .compiler_version = "11.4.0", .source = source, .output = output, .language = "c"};
    assert_true(store_add_compile(e->st, &ci) > 0);
    char *v4[] = {"-march=x86-64-v4", NULL};
    assert_int_equal(run_probe(e, "probe:arch=x86-64-v4", v4, 0), 0);
    assert_int_equal(notes_of_kind(e, "probe-failed"), 0);
    assert_int_equal(query_int(e->st, "SELECT COUNT(*) FROM record_files WHERE format = ?", "gcc-json"), 1);
    struct ingest_stats stats = {0};
    assert_int_equal(records_ingest_pending(e->st, &stats), 0);
    assert_true(query_int(e->st, "SELECT COUNT(*) FROM loops WHERE function = ?", "add_scaled") > 0);
    close_store(e);
    free(compiler);
    free(source);
    free(output);
    free(proj);
}

/* An -flto -c compile stops before the vectorizer; the probe's records
 * still show the loops. */
static void lto_build_still_yields_loops(struct env *e)
{
    static const struct tu tus[] = {{"sum.c", {"-O3", "-flto", "-g"}}};
    import_tus(e, tus, 1);
    assert_int_equal(run_probe(e, "build", NULL, 0), 0);
    struct ingest_stats stats = {0};
    assert_int_equal(records_ingest_pending(e->st, &stats), 0);
    assert_true(query_int(e->st, "SELECT COUNT(*) FROM loops WHERE function = ?", "add_arrays") > 0);
}

static void test_lto_build_still_yields_loops(void **state)
{
    struct env *e = *state;
    FOR_EACH_TOOLCHAIN(e, lto_build_still_yields_loops(e));
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A rescan replaces the compile rows (new ids): the old rows' record dirs
 * go, the new ones stay, nothing piles up. */
static void test_rescan_leaves_no_orphan_records(void **state)
{
    struct env *e = *state;
    open_store(e, &TOOLCHAINS[0]);
    import_tus(e, DEFAULT_TUS, 4);
    assert_int_equal(run_probe(e, "build", NULL, 0), 0);
    char *root = path_join(store_records_dir(e->st), "build");
    assert_int_equal(count_entries(root), 4);
    import_tus(e, DEFAULT_TUS, 4);
    assert_int_equal(run_probe(e, "build", NULL, 0), 0);
    assert_int_equal(count_entries(root), 4);
    assert_int_equal(check_record_files(e, "build"), 4);
    free(root);
    close_store(e);
}

/* Non-ASCII directory and file names, given in the "command" form. */
static void non_ascii_paths(struct env *e)
{
    char *dir = path_join(e->proj, "d\xc3\xa9j\xc3\xa0 vu");
    assert_int_equal(mkdir_p(dir, 0755), 0);
    char *src = path_join(dir, "na\xc3\xafve k.c");
    const char *code = "void twice(int *restrict a, int n)\r\n{\r\n    for (int i = 0; i < n; i++)\r\n"
                       "        a[i] *= 2;\r\n}\r\n";
    assert_int_equal(write_file_atomic(src, code, strlen(code)), 0);
    char *cmd = xasprintf("%s -O3 -c \"d\xc3\xa9j\xc3\xa0 vu/na\xc3\xafve k.c\" -o 'obj/na\xc3\xafve k.o'", e->tc->cc);
    json_t *db = json_pack("[{s:s, s:s, s:s}]", "directory", e->proj, "file", src, "command", cmd);
    char *path = path_join(e->tmp, "compile_commands.json");
    assert_int_equal(json_dump_file(db, path, 0), 0);
    json_decref(db);
    assert_int_equal(compdb_import(e->st, path), 1);
    char *before = tree_snapshot(e->proj);
    assert_int_equal(run_probe(e, "build", NULL, 0), 0);
    struct ingest_stats stats = {0};
    assert_int_equal(records_ingest_pending(e->st, &stats), 0);
    assert_int_equal(stats.files_read, 1);
    assert_true(query_int(e->st, "SELECT COUNT(*) FROM loops WHERE function = ?", "twice") > 0);
    char *after = tree_snapshot(e->proj);
    assert_string_equal(after, before);
    remove_tree(dir);
    free(before);
    free(after);
    free(path);
    free(cmd);
    free(src);
    free(dir);
}

static void test_non_ascii_paths(void **state)
{
    struct env *e = *state;
    FOR_EACH_TOOLCHAIN(e, non_ascii_paths(e));
}

/* ---- twins: probed once, counted for each ---- */

/* sum.c twice the way libtool compiles it, dot.c twice with another -D. */
static const struct tu TWIN_TUS[] = {
    {"sum.c", {"-O3", "-fPIC", "-DPIC"}},
    {"sum.c", {"-O3"}},
    {"dot.c", {"-O3"}},
    {"dot.c", {"-O3", "-DDOT_TOOL"}},
};
static const char *const TWIN_OUTPUTS[] = {"obj/.libs/sum.o", "obj/sum.o", "obj/dot.o", "obj/dot-tool.o"};

static long long count_sql(struct env *e, const char *sql)
{
    return query_int(e->st, sql, NULL);
}

static void twins_probed_once(struct env *e)
{
    import_tus_into(e, TWIN_TUS, TWIN_OUTPUTS, 4);
    char *v4[] = {"-march=x86-64-v4", NULL};
    const char *variant = "probe:arch=x86-64-v4";
    char *safe = probe_variant_dirname(variant);
    char *root = path_join(store_records_dir(e->st), safe);
    /* Without sharing: four probes, four record dirs. */
    struct probe_request each = {.variant = variant, .extra_flags = v4};
    assert_int_equal(run_probe_req(e, &each), 0);
    assert_int_equal(count_entries(root), 4);
    /* Shared: three probes; the twin's own dir of the run before is gone,
     * and its record_files row names the PIC compile's file. */
    struct probe_request shared = {.variant = variant, .extra_flags = v4, .share_twins = 1};
    assert_int_equal(run_probe_req(e, &shared), 0);
    assert_int_equal(count_entries(root), 3);
    assert_int_equal(check_record_files(e, variant), 4);
    assert_int_equal(count_sql(e, "SELECT COUNT(DISTINCT path) FROM record_files"), 3);
    assert_int_equal(count_sql(e, "SELECT COUNT(DISTINCT r.path) FROM record_files r JOIN compiles c "
                                  "ON c.id = r.compile_id WHERE c.source LIKE '%/sum.c'"),
                     1);
    assert_int_equal(count_sql(e, "SELECT COUNT(DISTINCT r.path) FROM record_files r JOIN compiles c "
                                  "ON c.id = r.compile_id WHERE c.source LIKE '%/dot.c'"),
                     2);
    /* The shared file is read once and its loops go to both compiles. */
    struct ingest_stats stats = {0};
    assert_int_equal(records_ingest_pending(e->st, &stats), 0);
    assert_int_equal(stats.files_read, 4);
    long long pic = count_sql(e, "SELECT COUNT(*) FROM loops l JOIN compiles c ON c.id = l.compile_id "
                                 "WHERE c.output LIKE '%/obj/.libs/sum.o' AND l.function = 'add_arrays'");
    long long plain = count_sql(e, "SELECT COUNT(*) FROM loops l JOIN compiles c ON c.id = l.compile_id "
                                   "WHERE c.output LIKE '%/obj/sum.o' AND l.function = 'add_arrays'");
    assert_true(pic > 0);
    assert_int_equal(plain, pic);
    free(root);
    free(safe);
}

static void test_twins_probed_once(void **state)
{
    struct env *e = *state;
    FOR_EACH_TOOLCHAIN(e, twins_probed_once(e));
}

/* A twin fares as its probe: a failure is noted for both compiles and
 * warned about once; an unreadable shared file is corrupt for both, said once. */
static void twins_share_failures(struct env *e)
{
    import_tus_into(e, TWIN_TUS, TWIN_OUTPUTS, 4);
    char *sum = path_join(e->proj, "sum.c");
    char *saved = read_file(sum, NULL);
    assert_int_equal(write_file_atomic(sum, "int broken(;\n", 13), 0);
    char *v4[] = {"-march=x86-64-v4", NULL};
    struct probe_request req = {.variant = "probe:arch=x86-64-v4", .extra_flags = v4, .share_twins = 1};
    struct stderr_capture cap;
    stderr_capture_begin(&cap);
    int rc = run_probe_req(e, &req);
    char *err = stderr_capture_end(&cap);
    assert_int_equal(rc, 2);
    if (count_lines(err) != 1 || !strstr(err, sum)) fail_msg("expected one warning naming sum.c: [%s]", err);
    assert_int_equal(count_sql(e, "SELECT COUNT(*) FROM tu_notes n JOIN compiles c ON c.id = n.compile_id "
                                  "WHERE n.kind = 'probe-failed' AND c.source LIKE '%/sum.c'"),
                     2);
    free(err);
    assert_int_equal(write_file_atomic(sum, saved, strlen(saved)), 0);

    assert_int_equal(run_probe_req(e, &req), 0);
    char *path = NULL;
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(store_db(e->st),
                                        "SELECT r.path FROM record_files r JOIN compiles c ON c.id = r.compile_id "
                                        "WHERE c.source LIKE '%/sum.c' LIMIT 1",
                                        -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    path = xstrdup((const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    /* Gone (a cleaned-up records dir): unreadable for every reader. */
    assert_int_equal(remove(path), 0);
    struct ingest_stats stats = {0};
    stderr_capture_begin(&cap);
    int ing = records_ingest_pending(e->st, &stats);
    err = stderr_capture_end(&cap);
    assert_int_equal(ing, 1);
    assert_int_equal(stats.files_corrupt, 2);
    assert_int_equal(stats.files_read, 2);
    if (count_lines(err) != 1 || !strstr(err, path)) fail_msg("expected one error line naming %s: [%s]", path, err);
    assert_int_equal(count_sql(e, "SELECT COUNT(*) FROM record_files r JOIN compiles c ON c.id = r.compile_id "
                                  "WHERE c.source LIKE '%/sum.c' AND r.status = 'corrupt'"),
                     2);
    free(err);
    free(path);
    free(saved);
    free(sum);
}

static void test_twins_share_failures(void **state)
{
    struct env *e = *state;
    FOR_EACH_TOOLCHAIN(e, twins_share_failures(e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argv_drops_outputs_and_dependency_files),
        cmocka_unit_test(test_variant_dirname),
        cmocka_unit_test(test_dedupe_key),
        cmocka_unit_test_setup_teardown(test_twins_probed_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_twins_share_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_and_target_probe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dependency_flags_leave_tree_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_only_O2_filters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deleted_source_is_noted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vanished_source_is_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_probe_of_link_with_object_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_non_ascii_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lto_build_still_yields_loops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rescan_leaves_no_orphan_records, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
