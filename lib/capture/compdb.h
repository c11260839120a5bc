/* compdb.h - reading a compile_commands.json (jansson): each entry's
 * directory, argv ("arguments", or "command" split by the compilation
 * database's shell-like quoting rules), source and output become compiles
 * rows of the store, exactly as the wrapper would have recorded them. */
#ifndef FMVGEN_COMPDB_H
#define FMVGEN_COMPDB_H

struct store;

/* Imports every C/C++ compile entry. Entries of a compiler that is neither
 * GCC nor Clang are an error naming the file and entry. Returns the number
 * of compiles imported, or -1 after a one-line error. */
int compdb_import(struct store *st, const char *path);

#endif
