/* inlname.h - the definition an inline frame's function name means.
 *
 * The shares of inlined callees (elf/funcisa.h) are named as addr2line
 * names their inline frames: DWARF's linkage (mangled) name where it has
 * one, else its plain name. So a callee may be named by its C name, its
 * mangled symbol (GCC: most C++ functions), or a short C++ name: "quant"
 * (GCC, a function of an anonymous namespace), "snap<double>" (a template
 * instance), "count" (a method: clang's -g1, line tables only, keeps no
 * linkage names).
 *
 * inline_name_locate: locate_by_name first (C names, symbols); else the
 * definitions of the TU's file source spelled as name without its
 * template arguments: exactly one is the callee (DEF_FOUND, or
 * DEF_TEMPLATE for a template); several (overloads, the same name in two
 * namespaces) cannot be told apart: DEF_NOT_FOUND with *nsame their
 * count, so the caller says so. *out is filled only when found (caller
 * frees it with fn_def_free). */
#ifndef FMVGEN_CANDIDATES_INLNAME_H
#define FMVGEN_CANDIDATES_INLNAME_H

#include <stddef.h>

#include "candidates/locate.h"

enum def_match inline_name_locate(struct parsed_tu *tu, const char *source, const char *name, struct fn_def *out,
                                  size_t *nsame);

#endif
