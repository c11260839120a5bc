/* compdb.h - reading a compile_commands.json (jansson): each entry's
 * directory, argv ("arguments", or "command" split by the compilation
 * database's shell-like quoting rules), source and output become compiles
 * rows of the store, exactly as the wrapper would have recorded them.
 * `scan --compdb` then re-runs them with probe_run (variant "build"), since
 * nobody ran them with the record flags. */
#ifndef FMVGEN_COMPDB_H
#define FMVGEN_COMPDB_H

#include <stddef.h>

#include "util/util.h"

struct store;

/* Imports every C/C++ compile entry (its @FILE response files expanded
 * from the entry's directory; one that cannot be read is warned about and
 * kept as written); other entries (assembler, Fortran,
 * link-only lines) are skipped. A leading compiler launcher (ccache,
 * sccache, distcc, icecc) is dropped from the stored argv: the compile is the
 * command after it, as a wrapper would have seen it. Relative paths are taken from the entry's
 * "directory" (itself taken from the file's folder when relative). The whole
 * file is checked before anything is stored, so a bad entry stores nothing:
 * bad JSON, a wrong shape, or a compiler that is neither GCC nor Clang is one
 * error line naming the file, and -1. Returns the number of compiles stored. */
int compdb_import(struct store *st, const char *path);

/* The parsing half of compdb_import, on bytes in memory (what the fuzz
 * target calls): text[0..len) is a compilation database named `name` in
 * error lines, relative directories taken from compdb_dir. Every C/C++
 * compile entry is handed to fn in order, with its argv (launcher dropped,
 * @FILEs expanded unless flags has COMPDB_NO_RESPONSE_FILES), absolute
 * directory, source and output, and language; other entries are skipped.
 * fn may take the entry's contents (zeroing what it took); the rest is
 * freed when it returns. fn returns 0 to go on, or -1 to stop after
 * printing its own error line. Returns 0, or -1 after one error line
 * (bad JSON, a wrong shape: as compdb_import) or when fn stopped. Reads no
 * file but response files; runs nothing. */
struct compdb_entry {
    size_t index;                 /* 1-based position in the array */
    struct strvec argv;
    char *directory, *source, *output, *language;
};
typedef int (*compdb_entry_fn)(struct compdb_entry *e, void *ctx);
#define COMPDB_NO_RESPONSE_FILES 1
int compdb_parse_buffer(const char *name, const char *text, size_t len, const char *compdb_dir, int flags,
                        compdb_entry_fn fn, void *ctx);
void compdb_entry_free(struct compdb_entry *e);

/* Splits a "command" string the way compilation databases quote it (as
 * clang's JSONCompilationDatabase does): arguments separated by whitespace;
 * '...' is literal; "..." and bare text honour backslash escapes (a
 * backslash takes the next character literally). Words are appended to out.
 * Returns 0, or -1 on an unterminated quote or a trailing backslash. */
int compdb_split_command(const char *command, struct strvec *out);

/* argv with its @FILE arguments (after argv[0]) replaced by the words of
 * FILE, as GCC and Clang read them: FILE relative to dir (NULL: the cwd),
 * split by compdb_split_command's rules, nested @FILEs expanded too (up to
 * 8 deep), appended to out. Used by the wrapper (the build may delete a
 * temporary response file, and the classification must see every option)
 * and by compdb_import (CMake, Ninja and MSBuild-style generators write
 * @file.rsp into commands). An @FILE that cannot be read or split stays as
 * written - the compiler will say what is wrong with it - and is counted:
 * returns how many were left so. */
int compdb_expand_response_files(char *const *argv, const char *dir, struct strvec *out);

#endif
