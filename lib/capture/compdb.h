/* compdb.h - reading a compile_commands.json (jansson): each entry's
 * directory, argv ("arguments", or "command" split by the compilation
 * database's shell-like quoting rules), source and output become compiles
 * rows of the store, exactly as the wrapper would have recorded them.
 * `scan --compdb` then re-runs them with probe_run (variant "build"), since
 * nobody ran them with the record flags. */
#ifndef FMVGEN_COMPDB_H
#define FMVGEN_COMPDB_H

struct store;
struct strvec;

/* Imports every C/C++ compile entry; other entries (assembler, Fortran,
 * link-only lines) are skipped. A leading compiler launcher (ccache,
 * sccache, distcc, icecc) is dropped from the stored argv: the compile is the
 * command after it, as a wrapper would have seen it. Relative paths are taken from the entry's
 * "directory" (itself taken from the file's folder when relative). The whole
 * file is checked before anything is stored, so a bad entry stores nothing:
 * bad JSON, a wrong shape, or a compiler that is neither GCC nor Clang is one
 * error line naming the file, and -1. Returns the number of compiles stored. */
int compdb_import(struct store *st, const char *path);

/* Splits a "command" string the way compilation databases quote it (as
 * clang's JSONCompilationDatabase does): arguments separated by whitespace;
 * '...' is literal; "..." and bare text honour backslash escapes (a
 * backslash takes the next character literally). Words are appended to out.
 * Returns 0, or -1 on an unterminated quote or a trailing backslash. */
int compdb_split_command(const char *command, struct strvec *out);

#endif
