/* tu_internal.h - the parsed TU's representation, shared by the files that
 * implement tu.h and locate.h (tu.c, locate.c, uses.c, laterdecl.c) and by nothing else.
 * defs is the index locate.c builds on demand; tu.c frees it, and the use
 * indexes uses.c builds (through uses_index_free) and laterdecl.c's
 * declaration index (through laterdecl_index_free). */
#ifndef FMVGEN_TU_INTERNAL_H
#define FMVGEN_TU_INTERNAL_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "util/util.h"

struct use_index;
struct later_index;

struct def_entry {
    CXCursor cursor;
    CXFile file;
    unsigned offset, end_offset, line, end_line;
    int is_template;        /* function template, or member of a class template */
    struct strvec names;    /* manglings (C: also the plain name) */
    char *qualified;        /* "ns::S::m", template arguments left out */
};

/* An error libclang reports in the project's code of a TU the compiler
 * built: the definition holding it is left out, not the whole TU. */
struct code_error {
    CXFile file;
    unsigned offset;
    char *message;
};

/* A file the TU includes, and where the main file includes it (the main
 * file's #include that leads to it, directly or through headers). */
struct inclusion {
    CXFile file;
    unsigned main_offset;
};

struct parsed_tu {
    struct code_error *errors;
    size_t nerrors;
    CXTranslationUnit tu;
    CXFile main_file;
    char *source, *directory;
    int cxx;
    int isa_baseline;       /* enum base_isa of the compile's flags (intrinsics.h) */
    struct def_entry *defs;
    size_t ndefs, cap;
    int indexed_main;       /* first pass done */
    int indexed_includes;   /* second pass done */
    struct inclusion *inclusions;   /* files the TU includes (read once, on demand) */
    size_t ninclusions;
    int read_inclusions;
    struct strvec tag_names;        /* file-scope tag names, sorted (read once, on demand) */
    int read_tag_names;
    struct use_index *use_indexes;  /* per file, the references locate_uses reads (uses.c) */
    size_t nuse_indexes;
    struct later_index *later_decls; /* the function declarations laterdecl.c reads (built on demand) */
};

/* Frees the use indexes of t (uses.c; tu_free calls it). */
void uses_index_free(struct parsed_tu *t);
/* Frees the declaration index of t (laterdecl.c; tu_free calls it). */
void laterdecl_index_free(struct parsed_tu *t);

/* The absolute path of a file of the TU, as a definition's file is stored
 * (tu.c). name is libclang's name of file. Caller frees. */
char *tu_file_path(struct parsed_tu *t, CXFile file, const char *name);

#endif
