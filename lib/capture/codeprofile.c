/* codeprofile.c - see codeprofile.h. */
#include "capture/codeprofile.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/funcisa.h"
#include "run/spawn.h"
#include "store/store.h"
#include "util/util.h"

/* addresses per addr2line command (argv size) */
#define CODEPROFILE_BATCH 2000

/* funcisa_frames_fn: `addr2line -a -i -f -j SECTION -e OBJECT ADDR...`. */
static char *object_frames(const char *path, const char *section, const uint64_t *addrs, size_t n, void *ctx)
{
    (void)ctx;
    struct strbuf out = STRBUF_INIT;
    for (size_t at = 0; at < n; at += CODEPROFILE_BATCH) {
        struct strvec argv = STRVEC_INIT;
        sv_push_all(&argv, (char *const[]){"addr2line", "-a", "-i", "-f", "-j", (char *)section, "-e", (char *)path,
                                           NULL});
        for (size_t i = at; i < n && i < at + CODEPROFILE_BATCH; i++)
            sv_pushf(&argv, "0x%llx", (unsigned long long)addrs[i]);
        struct run_opts opts = {.capture_stdout = 1, .null_stderr = 1};
        struct run_result res;
        if (run_argv(sv_argv(&argv), &opts, &res) == 0 && res.out) sb_adds(&out, res.out);
        run_result_free(&res);
        sv_free(&argv);
    }
    return sb_detach(&out);
}

int codeprofile_read(const char *object, struct func_isa_list *out, char **why)
{
    return funcisa_read_object_shares(object, object_frames, NULL, out, why);
}

/* The entry of cache for object, read now when it holds none (the oldest
 * entry makes room). */
static struct codeprofile_entry *profiles_of(struct codeprofile_cache *cache, const char *object)
{
    for (size_t i = 0; i < cache->n; i++)
        if (!strcmp(cache->v[i].object, object)) return &cache->v[i];
    if (cache->n == CODEPROFILE_CACHE) {
        codeprofile_entry_free(&cache->v[0]);
        memmove(&cache->v[0], &cache->v[1], (cache->n - 1) * sizeof *cache->v);
        cache->n--;
    }
    struct codeprofile_entry *e = &cache->v[cache->n++];
    memset(e, 0, sizeof *e);
    e->object = xstrdup(object);
    cache->reads++;
    struct func_isa_list l = {0};
    e->ok = codeprofile_read(object, &l, &e->why) == 0;
    for (size_t i = 0; e->ok && i < l.n; i++) {
        json_t *j = funcisa_to_json(&l.v[i]);
        char *text = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        sv_push(&e->names, l.v[i].name);
        sv_push(&e->profiles, text ? text : "{}");
        free(text);
    }
    funcisa_list_free(&l);
    return e;
}

void codeprofile_entry_free(struct codeprofile_entry *e)
{
    free(e->object);
    free(e->why);
    sv_free(&e->names);
    sv_free(&e->profiles);
    memset(e, 0, sizeof *e);
}

void codeprofile_cache_free(struct codeprofile_cache *cache)
{
    for (size_t i = 0; i < cache->n; i++) codeprofile_entry_free(&cache->v[i]);
    cache->n = 0;
}

int codeprofile_store(struct store *st, const struct compile_row *row, const char *variant, const char *object,
                      void *ctx)
{
    struct codeprofile_cache own = {0}, *cache = ctx ? ctx : &own;
    const struct codeprofile_entry *e = profiles_of(cache, object);
    int rc = 0;
    if (!e->ok) {
        char *detail = xasprintf("%s: %s", variant, e->why ? e->why : "cannot read the object");
        rc = store_add_tu_note(st, row->id, TU_NOTE_ISA_UNMATCHED, detail);
        free(detail);
    } else {
        rc = store_set_function_profiles(st, row->id, variant, &e->names, &e->profiles);
    }
    if (rc == 0 && !strcmp(variant, "build")) {
        struct strvec names = STRVEC_INIT;
        if (elf_object_functions(object, &names) == 0) rc = store_set_object_functions(st, row->id, &names);
        sv_free(&names);
    }
    codeprofile_cache_free(&own);
    return rc;
}
