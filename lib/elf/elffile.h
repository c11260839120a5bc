/* elffile.h - an x86-64 ELF file opened with libelf, reduced to what the
 * rest of lib/elf needs: its function symbols, the bytes of code at an
 * address, its executable sections, and its relocation counts.
 *
 * Opening checks everything a user could hand us by mistake (missing file,
 * not ELF, another architecture, an object file, a corrupt header) and says
 * so in one line naming the file. */
#ifndef FMVGEN_ELF_ELFFILE_H
#define FMVGEN_ELF_ELFFILE_H

#include <stddef.h>
#include <stdint.h>

struct elf_sym {
    const char *name;    /* points into the file's string table */
    uint64_t value, size;
    int type;            /* STT_FUNC or STT_GNU_IFUNC (others are not kept) */
    int bind;            /* STB_LOCAL / STB_GLOBAL / STB_WEAK */
};

struct elf_file {
    char *path;
    int fd;              /* -1 once open: the image holds the file */
    void *image;         /* the file's bytes: mapped (image_mapped) or our own copy */
    size_t image_len;
    int image_mapped;
    void *elf;           /* Elf *, kept opaque so users need not include libelf.h */
    int elf_type;        /* ET_EXEC / ET_DYN */
    int is_static;       /* no PT_INTERP and no PT_DYNAMIC, or a static PIE (DF_1_PIE, no PT_INTERP) */
    int is_pie;          /* ET_DYN with DF_1_PIE, or with an interpreter
                          * and no DT_SONAME: an executable, not a library */
    int has_symtab;      /* 0: stripped; syms come from .dynsym */
    char *interp;        /* PT_INTERP's path ("/lib64/ld-linux-x86-64.so.2"), or NULL */
    struct elf_sym *syms;   /* defined FUNC and IFUNC symbols, sorted by name */
    size_t n_syms;
    const struct elf_sym **by_addr;  /* the same, sorted by address then name */
    uint64_t text_size;  /* bytes of all allocated executable sections */
    size_t n_irelative;  /* R_X86_64_IRELATIVE relocations */
    uint64_t *irelative_resolvers;  /* their addends: the resolvers' addresses */
};

/* Returns 0, or -1 after one line "fmvgen: PATH: what is wrong". */
int elf_file_open(const char *path, struct elf_file *ef);
/* The same on an image in memory (copied: data need not outlive the call),
 * name standing for the file in the error line; for the fuzz target. */
int elf_file_open_buffer(const char *name, const void *data, size_t len, struct elf_file *ef);
void elf_file_close(struct elf_file *ef);

/* The names of the functions a relocatable object file (a compiler's .o)
 * defines, into names: what the compile kept as code of its own - a static
 * function missing there was inlined everywhere (candidates/helpers.h).
 * Returns 0, or -1 when path is no readable x86-64 object file (nothing
 * printed: the caller then does without). */
struct strvec;
int elf_object_functions(const char *path, struct strvec *names);

/* The code of each function a relocatable object (a compiler's .o)
 * defines: fn gets every defined STT_FUNC symbol with its bytes (addr is
 * its offset in its section) and the relocations inside its code that name
 * a symbol (calls to other functions: R_X86_64_PLT32 / PC32 against it),
 * sorted by offset. fn returns nonzero to fail the read. Returns 0, or -1
 * with *why (caller frees) saying what the file is instead: missing, not
 * ELF (Clang's LTO bitcode), not an x86-64 object, a GCC LTO object with
 * no code. Nothing is printed. */
struct elf_object_func {
    const char *name;
    const uint8_t *code;
    uint64_t addr, size;
    const char *section;    /* its section's name (".text", ".text.startup") */
    int debug_lines;        /* the object has line information (.debug_line: -g) */
    int global;             /* STB_GLOBAL or STB_WEAK */
};
struct elf_object_reloc {
    uint64_t offset;        /* in the function's section */
    const char *symbol;
    int type;               /* R_X86_64_* */
};
typedef int (*elf_object_code_fn)(const struct elf_object_func *f, const struct elf_object_reloc *relocs,
                                  size_t nrelocs, void *ctx);
int elf_object_code(const char *path, elf_object_code_fn fn, void *ctx, char **why);
/* The same with every relocation inside the code, also those against a
 * section symbol (the object's own code and data: symbol ""): where the
 * linker writes into the code (elf/linkedcode.h). */
int elf_object_code_all_relocs(const char *path, elf_object_code_fn fn, void *ctx, char **why);

/* The size bytes of file contents mapped at addr, when they all lie in one
 * allocated section with contents; NULL otherwise. Valid until close. */
const uint8_t *elf_file_bytes(const struct elf_file *ef, uint64_t addr, uint64_t size);
/* The bytes from addr to the end of its section, at most max of them
 * (*len gets how many); NULL when addr is not in a section with contents.
 * For code whose size no symbol tells. */
const uint8_t *elf_file_window(const struct elf_file *ef, uint64_t addr, uint64_t max, uint64_t *len);
/* 1 when addr lies inside an allocated executable section. */
int elf_file_addr_is_code(const struct elf_file *ef, uint64_t addr);
/* 1 when addr lies inside the allocated section named name. */
int elf_file_addr_in_section(const struct elf_file *ef, uint64_t addr, const char *name);

/* Symbols by name (first match; names are sorted) and by start address
 * (the first in name order among aliases). NULL when none. */
const struct elf_sym *elf_file_sym_named(const struct elf_file *ef, const char *name);
/* How many symbols are named name; *first the first of them (NULL: none). */
size_t elf_file_syms_named(const struct elf_file *ef, const char *name, const struct elf_sym **first);
/* Index of the first symbol whose name is >= key (n_syms when none): the
 * names starting with a prefix are contiguous from there. */
size_t elf_file_sym_lower_bound(const struct elf_file *ef, const char *key);
const struct elf_sym *elf_file_func_at(const struct elf_file *ef, uint64_t addr);
/* Index of the first symbol at addr or above in by_addr (n_syms when none). */
size_t elf_file_addr_lower_bound(const struct elf_file *ef, uint64_t addr);
/* The same for an IFUNC symbol, preferring the one named name (NULL: any). */
const struct elf_sym *elf_file_ifunc_at(const struct elf_file *ef, uint64_t addr, const char *name);

#endif
