/* cmake_cache.h - reading a CMakeCache.txt. Two places need it: the scan
 * (which compiler a configured tree runs, and whether it is fmvgen's
 * wrapper) and select's build copies (which directory a copied cache was
 * written for). */
#ifndef FMVGEN_UTIL_CMAKE_CACHE_H
#define FMVGEN_UTIL_CMAKE_CACHE_H

/* The value of the entry "KEY:TYPE=value" in the text of a CMakeCache.txt
 * (CRLF tolerated), or NULL when there is none. Caller frees. */
char *cmake_cache_value(const char *text, const char *key);

#endif
