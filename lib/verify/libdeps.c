/* libdeps.c - see libdeps.h. The dynamic section is read with libelf. */
#include "verify/libdeps.h"
#include "util/util.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the loader needs from one object. */
struct dyninfo {
    struct strvec needed;
    char *rpath, *runpath;   /* colon lists, NULL when absent */
};

static void dyninfo_free(struct dyninfo *d)
{
    sv_free(&d->needed);
    free(d->rpath);
    free(d->runpath);
}

/* Reads DT_NEEDED/DT_RPATH/DT_RUNPATH. Returns -1 when the file is not a
 * 64-bit x86-64 ELF (the loader would skip it). */
static int read_dynamic(const char *path, struct dyninfo *out)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    int rc = -1;
    GElf_Ehdr eh;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_machine != EM_X86_64)
        goto done;
    rc = 0;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC) continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; data && i < count; i++) {
            GElf_Dyn dyn;
            if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL) break;
            if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH) continue;
            const char *s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
            if (!s) continue;
            if (dyn.d_tag == DT_NEEDED) sv_push(&out->needed, s);
            else if (dyn.d_tag == DT_RPATH && !out->rpath) out->rpath = xstrdup(s);
            else if (dyn.d_tag == DT_RUNPATH && !out->runpath) out->runpath = xstrdup(s);
        }
    }
done:
    if (e) elf_end(e);
    close(fd);
    return rc;
}

/* $ORIGIN / ${ORIGIN}: the directory of the object holding the path. Other
 * dynamic string tokens ($LIB, $PLATFORM) depend on the loader's build and
 * the CPU; entries using them are skipped rather than guessed. */
static char *expand_origin(const char *dir, const char *origin)
{
    struct strbuf sb = STRBUF_INIT;
    for (const char *p = dir; *p;) {
        if (!strncmp(p, "$ORIGIN", 7) || !strncmp(p, "${ORIGIN}", 9)) {
            sb_adds(&sb, origin);
            p += p[1] == '{' ? 9 : 7;
        } else if (*p == '$') {
            sb_free(&sb);
            return NULL;
        } else {
            sb_addc(&sb, *p++);
        }
    }
    return sb_detach(&sb);
}

/* Looks for name in each directory of a colon list; empty entries mean the
 * current directory, as for ld.so. */
static char *search_dirs(const char *list, const char *name, const char *origin)
{
    if (!list) return NULL;
    char *copy = xstrdup(list);
    char *found = NULL;
    char *rest = copy;
    for (char *dir; !found && (dir = strsep(&rest, ":"));) {
        char *expanded = expand_origin(*dir ? dir : ".", origin);
        if (!expanded) continue;
        char *cand = path_join(expanded, name);
        struct dyninfo probe;
        /* The loader skips files of another class/architecture. */
        if (file_exists(cand) && read_dynamic(cand, &probe) == 0) {
            found = path_absolute(cand, NULL);
            dyninfo_free(&probe);
        }
        free(cand);
        free(expanded);
    }
    free(copy);
    return found;
}

/* The directories ld.so and Debian's ld.so.conf search after the
 * program's own: only used to tell a system library from a missing one. */
static int in_system_dirs(const char *name)
{
    static const char *const dirs[] = {
        "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
        "/usr/local/lib", "/usr/local/lib/x86_64-linux-gnu", NULL,
    };
    for (size_t i = 0; dirs[i]; i++) {
        char *cand = path_join(dirs[i], name);
        int found = file_exists(cand);
        free(cand);
        if (found) return 1;
    }
    return 0;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int libdeps_resolve(const char *program, const char *ld_library_path, struct lib_dep **deps, size_t *n)
{
    *deps = NULL;
    *n = 0;
    struct dyninfo exe;
    if (read_dynamic(program, &exe) != 0) return fmv_error("%s: not an x86-64 ELF file", program);

    size_t cap = 0;
    struct lib_dep *list = NULL;
    size_t count = 0;
    /* Breadth-first queue of objects to read: index -1 is the program. */
    for (ssize_t at = -1; at < (ssize_t)count; at++) {
        const char *obj = at < 0 ? program : list[at].path;
        if (!obj) continue;
        struct dyninfo self;
        if (at < 0) self = exe;
        else if (read_dynamic(obj, &self) != 0) continue;
        char *origin_abs = path_absolute(obj, NULL);
        char *origin = path_dirname(origin_abs);
        for (size_t i = 0; i < self.needed.n; i++) {
            const char *name = self.needed.v[i];
            int seen = 0;
            for (size_t k = 0; k < count && !seen; k++) seen = !strcmp(list[k].name, name);
            if (seen) continue;
            char *path = NULL;
            if (strchr(name, '/')) {
                path = file_exists(name) ? path_absolute(name, NULL) : NULL;
            } else {
                if (!self.runpath) {
                    path = search_dirs(self.rpath, name, origin);
                    if (!path && at >= 0 && !exe.runpath) {
                        char *exe_abs = path_absolute(program, NULL);
                        char *exe_dir = path_dirname(exe_abs);
                        path = search_dirs(exe.rpath, name, exe_dir);
                        free(exe_dir);
                        free(exe_abs);
                    }
                }
                if (!path) path = search_dirs(ld_library_path, name, origin);
                if (!path) path = search_dirs(self.runpath, name, origin);
            }
            /* The same file under two names (a symlinked soname) once. */
            for (size_t k = 0; path && k < count; k++)
                if (list[k].path && same_file(list[k].path, path)) {
                    free(path);
                    path = NULL;
                    seen = 1;
                }
            if (seen) continue;
            int missing = !path && !strchr(name, '/') && !in_system_dirs(name);
            if (count == cap) list = xrealloc(list, (cap = cap ? 2 * cap : 8) * sizeof *list);
            list[count].name = xstrdup(name);
            list[count].path = path;
            list[count].missing = missing;
            list[count].needed_by = xstrdup(obj);
            count++;
        }
        free(origin);
        free(origin_abs);
        if (at >= 0) dyninfo_free(&self);
    }
    dyninfo_free(&exe);
    *deps = list;
    *n = count;
    return 0;
}

void libdeps_free(struct lib_dep *deps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(deps[i].name);
        free(deps[i].path);
        free(deps[i].needed_by);
    }
    free(deps);
}
