/* marker.h - the line `fmvgen patch` writes above a function
 * ("FMVGEN_CLONES(sym)", "FMVGEN_CLONES_STATIC", "FMVGEN_CLONES_AVX2(sym)"):
 * how a patched definition is recognized in its text. It lives in
 * candidates/, below patch/, because both read it: patch/place.c leaves a
 * patched function alone (no second line); the scan's eligibility rules
 * exclude it - they cannot rely on the attribute alone, since libclang 14
 * parses as clang < 18, for which the preamble makes FMVGEN_CLONES_STATIC
 * empty: a patched static function shows no attribute there. */
#ifndef FMVGEN_CANDIDATES_MARKER_H
#define FMVGEN_CANDIDATES_MARKER_H

#include <stddef.h>

/* The length of the marker word ("FMVGEN_CLONES" and what follows up to a
 * '(' or blank) that starts the line at offset (a definition's insert
 * offset, the start of its line) or the line above it, once blanks are
 * skipped, alone on its line but for its "(sym)" (a redeclaration line,
 * patch/redecl.h, is none), or the line above an "#endif" just above
 * offset (a header function's switched line, patch/plan.h:
 * "#ifdef TAG" / marker / "#endif"); 0 when none holds one. *at gets its
 * offset when not NULL. */
size_t patch_marker_at(const char *text, size_t len, size_t offset, size_t *at);

#endif
