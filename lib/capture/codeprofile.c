/* codeprofile.c - see codeprofile.h. */
#include "capture/codeprofile.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elffile.h"
#include "elf/funcisa.h"
#include "store/store.h"
#include "util/util.h"

int codeprofile_store(struct store *st, const struct compile_row *row, const char *variant, const char *object,
                      void *ctx)
{
    (void)ctx;
    struct func_isa_list l = {0};
    char *why = NULL;
    int rc = 0;
    if (funcisa_read_object(object, &l, &why) != 0) {
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
