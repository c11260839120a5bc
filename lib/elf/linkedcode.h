/* linkedcode.h - whether a function of a linked file (a program or shared
 * object) is the code of a function of a relocatable object once linked:
 * for telling which of several objects that define one external name
 * (two programs' `run`, each from its own a.c) a program's symbol came from,
 * where the linked file's global symbols carry no source file.
 *
 * The same code once linked means: the same length, and the same bytes
 * except where the linker writes - each relocation's field (4 bytes, 8 for
 * the 64-bit types) and the 3 bytes before it, which the linker's
 * relaxations rewrite (GOTPCRELX: `mov foo@GOTPCREL(%rip)` becomes `lea`,
 * `call *foo@GOTPCREL(%rip)` becomes `addr32 call`; same lengths). The
 * relocations are all of them, those against the object's own sections
 * included (elf_object_code_all_relocs). Setting bytes aside only widens
 * what matches: two objects whose code differs only there both match, and
 * the caller, which wants exactly one, learns nothing. Relaxations that
 * rewrite more (TLS general dynamic to local exec) make no match. */
#ifndef FMVGEN_ELF_LINKEDCODE_H
#define FMVGEN_ELF_LINKEDCODE_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elffile.h"

/* 1 when code (len bytes of a linked file) is f's code once linked, as
 * above; relocs: f's relocations (all of them), sorted by offset. */
int elf_linked_code_matches(const uint8_t *code, size_t len, const struct elf_object_func *f,
                            const struct elf_object_reloc *relocs, size_t nrelocs);

/* Whether the global function symbol name of linked file ef is the global
 * (or weak) function of that name of object file object: 1 yes, 0 no (also
 * when the object defines no such global function, or ef none of that
 * name), -1 when the object or the linked file's bytes cannot be read, or
 * ef defines name twice (*why: what, caller frees). */
int elf_linked_from_object(const struct elf_file *ef, const char *name, const char *object, char **why);

#endif
