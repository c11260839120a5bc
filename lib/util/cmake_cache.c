/* cmake_cache.c - see cmake_cache.h. */
#include "util/cmake_cache.h"

#include <string.h>

#include "util/util.h"

char *cmake_cache_value(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, klen) != 0 || line[klen] != ':') continue;
        const char *eq = strchr(line, '=');
        size_t n = strcspn(line, "\n");
        if (!eq || eq > line + n) continue;
        size_t vlen = (size_t)(line + n - eq - 1);
        if (vlen && eq[vlen] == '\r') vlen--;
        return xstrndup(eq + 1, vlen);
    }
    return NULL;
}
