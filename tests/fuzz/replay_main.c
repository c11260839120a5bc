/* replay_main.c - runs a fuzz target's LLVMFuzzerTestOneInput on files, so
 * that the seed corpora and the crashes found (tests/fuzz/<reader>/ and
 * tests/fuzz/regressions/<reader>/) are regression tests of the normal
 * and sanitizer builds, which have no libFuzzer.
 *
 * Usage: replay_<reader> DIR|FILE...  Each file of a directory (sorted by
 * name; a missing directory is skipped) is handed over in a buffer of
 * exactly its size, so that a sanitizer sees any read past its end.
 * Exits 0 after replaying at least one input, 1 when there was none or
 * an input could not be read; a crash is the target's own. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) abort();
    memcpy(exact, text, len);
    free(text);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    size_t replayed = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) continue;   /* e.g. no regressions yet */
        if (!S_ISDIR(sb.st_mode)) {
            failed |= replay_file(argv[i]) != 0;
            replayed++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        struct strvec names = STRVEC_INIT;
        struct dirent *de;
        while ((de = readdir(d)))
            if (de->d_name[0] != '.') sv_push(&names, de->d_name);
        closedir(d);
        if (names.n) qsort(names.v, names.n, sizeof *names.v, cmp_names);
        for (size_t k = 0; k < names.n; k++) {
            char *path = path_join(argv[i], names.v[k]);
            if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
                failed |= replay_file(path) != 0;
                replayed++;
            }
            free(path);
        }
        sv_free(&names);
    }
    printf("replayed %zu inputs\n", replayed);
    return failed || replayed == 0;
}
