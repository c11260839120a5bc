/* demangle.h - C++ symbol names made readable ("_ZN2ns3addEPfPKfi" ->
 * "ns::add(float*, float const*, int)"), through the C++ runtime's own
 * demangler (libstdc++'s __cxa_demangle, the one c++filt and gdb agree
 * with), so no module hand-parses the Itanium mangling grammar.
 *
 * Compilers name the functions they compile by their symbol: Clang always,
 * GCC 12 for C++ in its optimization records. */
#ifndef FMVGEN_DEMANGLE_H
#define FMVGEN_DEMANGLE_H

#include <stddef.h>

/* 1 when name looks like an Itanium C++ symbol ("_Z..."). */
int symbol_is_mangled(const char *name);

/* The demangled form of symbol, or NULL when it is not a valid C++ symbol
 * (plain C names included). Caller frees. */
char *symbol_demangle(const char *symbol);

/* Length of the part of a compiled function's name before a compiler clone
 * suffix: GCC writes "foo.constprop.0", "foo.isra.0", "foo.part.0",
 * "foo.cold", coroutine "foo.actor"; Clang "foo.llvm.123". Identifiers never
 * contain '.', so everything from the first '.' on is the suffix. */
size_t symbol_base_length(const char *name);

#endif
