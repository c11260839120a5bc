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

int codeprofile_store(struct store *st, const struct compile_row *row, const char *variant, const char *object,
                      void *ctx)
{
    (void)ctx;
    struct func_isa_list l = {0};
    char *why = NULL;
    int rc = 0;
    if (codeprofile_read(object, &l, &why) != 0) {
        char *detail = xasprintf("%s: %s", variant, why ? why : "cannot read the object");
        rc = store_add_tu_note(st, row->id, TU_NOTE_ISA_UNMATCHED, detail);
        free(detail);
    } else {
        struct strvec names = STRVEC_INIT, profiles = STRVEC_INIT;
        for (size_t i = 0; i < l.n; i++) {
            json_t *j = funcisa_to_json(&l.v[i]);
            char *text = json_dumps(j, JSON_COMPACT);
            json_decref(j);
            sv_push(&names, l.v[i].name);
            sv_push(&profiles, text ? text : "{}");
            free(text);
        }
        rc = store_set_function_profiles(st, row->id, variant, &names, &profiles);
        sv_free(&names);
        sv_free(&profiles);
    }
    if (rc == 0 && !strcmp(variant, "build")) {
        struct strvec names = STRVEC_INIT;
        if (elf_object_functions(object, &names) == 0) rc = store_set_object_functions(st, row->id, &names);
        sv_free(&names);
    }
    free(why);
    funcisa_list_free(&l);
    return rc;
}
