/* demangle.c - see demangle.h. __cxa_demangle is the C-callable entry of the
 * C++ ABI runtime (libstdc++, linked into fmvgen_lib for this). */
#include "util/demangle.h"

#include <stdlib.h>
#include <string.h>

/* Declared by <cxxabi.h>, which is C++-only; the ABI fixes this signature. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

int symbol_is_mangled(const char *name)
{
    return name && name[0] == '_' && name[1] == 'Z';
}

char *symbol_demangle(const char *symbol)
{
    if (!symbol_is_mangled(symbol)) return NULL;
    int status = 0;
    char *out = __cxa_demangle(symbol, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

size_t symbol_base_length(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? (size_t)(dot - name) : strlen(name);
}
