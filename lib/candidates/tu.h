/* tu.h - one translation unit parsed with libclang using the compile's own
 * flags (tuargs.h), as the locator (locate.h) and the rules read it: its
 * errors, its files' text, the source files it includes; and the small
 * libclang helpers they share.
 *
 * Positions: line/col are 1-based, offsets are bytes into the file as
 * libclang read it (CRLF counts two bytes). */
#ifndef FMVGEN_TU_H
#define FMVGEN_TU_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "candidates/intrinsics.h"

#include "store/store.h"
#include "util/util.h"

struct parsed_tu;

/* Parses the compile's source with libclang. index is shared by all TUs.
 * gcc_include: see tuargs_build (NULL for none). Returns NULL and sets
 * *error (caller frees) to one line saying why the TU does not parse: the
 * file cannot be read, or clang reports an error in a source that changed
 * since the compile (compiles.source_hash). Driver complaints about flags
 * only GCC knows are not errors here. Errors in a source the compiler built
 * as it is now are libclang's shortcoming (GCC extensions, libstdc++ newer
 * than libclang): the TU is returned, and tu_error_within() names the
 * definitions they fall in.
 * A compile read from a build log has no flags (its includes may not be
 * found): with tolerate_errors, clang's recovered AST is used anyway (the
 * definitions' positions stay exact). Errors only inside system headers
 * (a libstdc++ newer than libclang) do not stop the parse either. When a
 * TU is returned, *error, if set, is a warning to print. */
struct parsed_tu *tu_parse(CXIndex index, const struct compile_row *compile, const char *gcc_include,
                           int tolerate_errors, char **error);
void tu_free(struct parsed_tu *tu);

CXTranslationUnit tu_handle(const struct parsed_tu *tu);
/* The message of an error libclang reported in [start, end] of file, or NULL. */
const char *tu_error_within(const struct parsed_tu *tu, CXFile file, unsigned start, unsigned end);
/* The language the TU was parsed as: 1 for C++, 0 for C. */
int tu_is_cxx(const struct parsed_tu *tu);
/* The ISA every clone of the compile can assume (intrinsics.h), from its
 * flags. */
enum base_isa tu_isa_baseline(const struct parsed_tu *tu);
/* Text of a file of the TU, as libclang parsed it. */
const char *tu_file_text(const struct parsed_tu *tu, CXFile file, size_t *len);
/* The TU's main source file. */
CXFile tu_main_file(const struct parsed_tu *tu);
/* 1 when file is the TU's main source file. */
int tu_is_main_file(const struct parsed_tu *tu, CXFile file);

/* Appends the absolute paths of the C/C++ source files and headers (by
 * extension, not system files) the TU includes, each once: a wrapper TU's
 * #include "kernel.c", a template header's static functions (header.h). */
void tu_included_sources(struct parsed_tu *tu, struct strvec *out);
/* 1 when the text of any file of the TU (its source and every file it
 * includes, system headers too; comments and skipped lines count) holds
 * one of words (NULL-terminated). */
int tu_files_mention(struct parsed_tu *tu, const char *const *words);
/* The offset in the main file of the #include that brings file in
 * (directly or through headers): 1, or 0 when the TU does not include it. */
int tu_include_offset(struct parsed_tu *tu, CXFile file, unsigned *offset);
/* The files the TU includes, each once (system headers too): how many, and
 * the i-th (i < tu_inclusion_count) with the offset in the main file of the
 * #include that brings it in, as tu_include_offset. */
size_t tu_inclusion_count(struct parsed_tu *tu);
CXFile tu_inclusion_at(struct parsed_tu *tu, size_t i, unsigned *main_offset);
/* 1 when a struct, union, enum or class tag declared at file scope (also
 * inside extern "C" and other unexposed file-scope groups), or the tag a
 * file-scope typedef names, is spelled name; 0 otherwise. The tags are
 * read from the AST once per TU. */
int tu_file_scope_tag_named(struct parsed_tu *tu, const char *name);

/* ---- helpers the locator and the eligibility rules share ---- */

/* Start offset in file of a location, after macro expansion (where the
 * text stands in the file); sets *file. */
unsigned loc_offset(CXSourceLocation loc, CXFile *file, unsigned *line, unsigned *col);
/* The identifier starting at off of text (a file's text as libclang read
 * it), or NULL when none starts there. Caller frees. */
char *text_identifier_at(const char *text, size_t len, unsigned off);
/* Owned copy of a CXString (NULL stays NULL). */
char *cx_take(CXString s);

#endif
