/* compiler.h - what a compiler is and what a compile command does:
 *   - identify a compiler as GCC or Clang and its version (anything else is
 *     a clear error: fmvgen reads only these two compilers' records)
 *   - classify an argv: is it a compile of C/C++ sources to objects, which
 *     sources, which output, which language, which -O level
 *   - the flags that make the compiler write optimization records to a
 *     chosen place without changing the code it generates
 *   - the flags that switch vectorization off (reported by `list`). */
#ifndef FMVGEN_COMPILER_H
#define FMVGEN_COMPILER_H

#include "util/util.h"

enum compiler_kind { COMPILER_UNKNOWN = 0, COMPILER_GCC, COMPILER_CLANG };

struct compiler_id {
    enum compiler_kind kind;
    char *path;        /* absolute path of the real compiler */
    char *version;     /* "12.2.0", "14.0.6" */
    int major;
};

/* Runs `COMPILER --version` (cached per path within the process). Returns 0,
 * or -1 after "fmvgen: PATH: not GCC or Clang (...)". */
int compiler_identify(const char *compiler, struct compiler_id *out);
void compiler_id_free(struct compiler_id *id);
const char *compiler_kind_name(enum compiler_kind k);   /* "gcc" / "clang" */

/* The flags that write records for one compile to record_path (GCC: the
 * directory given by -dumpdir, file named after the output; Clang: the
 * exact file). Sets *format to "gcc-json" or "clang-yaml". *record_path
 * receives the path the records will be found at. */
void compiler_record_flags(const struct compiler_id *id, const char *records_dir, const char *output,
                           struct strvec *flags, char **record_path, const char **format);

struct compile_args {
    int is_compile;          /* -c with at least one C/C++ source, no -E/-S/-M-only */
    struct strvec sources;   /* as written in argv */
    char *output;            /* -o value, or NULL */
    char *language;          /* "c" or "c++" (from -x or the extension) */
    char opt_level;          /* '0'..'3', 's', 'z', 'g', 'f' (fast); '0' if none */
};
void compile_args_parse(char *const *argv, struct compile_args *out);
void compile_args_free(struct compile_args *a);

/* Appends to notes human lines for flags that defeat vectorization
 * ("-fno-tree-vectorize", "-O1: the vectorizer does not run below -O2", ...).
 * Each entry is "KIND\tDETAIL" with KIND one of the tu_notes kinds. */
void compile_args_vectorization_notes(char *const *argv, struct strvec *notes);

#endif
