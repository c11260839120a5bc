/* linkedfile.h - which candidate a profile entry belongs to when several
 * candidates share one EXTERNAL name, each in its own program or shared
 * object (SciMark2's five programs each define their own kernel_measure):
 * their global symbols carry no source file (elf/symsource.h), and the
 * clones' local symbols name only the basename ("kernel.c" in every
 * program), so the file the sample came from - the linked file, perf's DSO -
 * is what tells them apart.
 *
 * Each such candidate's compiles come from the store (compiles whose source
 * is its file). Which candidate's definition a linked file holds:
 *   - a compile-and-link command (`cc -o bin/fft src/<all>.c src/fft/kernel.c`)
 *     puts its source's code into its own output: that file is its;
 *   - otherwise (objects linked later) the baseline build's function of that
 *     name in the file is compared with each candidate's object (the
 *     wrapper's kept copy, capture/wrapper.h) - elf/linkedcode.h: the same
 *     bytes but where the linker writes. Exactly one candidate must match
 *     while every other one was read and does not.
 * Every variant's files run at the project's path (select/isolation.h), so
 * one answer per (name, path), found on the baseline's file, serves every
 * variant, clones included. A file that cannot be told (no candidate's, or
 * several match, or an object is gone) answers "unknown", and the caller
 * counts that name by name, as before, with the reason kept for a note:
 * never a silent guess. */
#ifndef FMVGEN_SELECT_LINKEDFILE_H
#define FMVGEN_SELECT_LINKEDFILE_H

#include <stddef.h>

#include "patch/plan.h"
#include "util/util.h"

struct store;
struct linked_files;

/* The candidates fs (n of them) of the store st (its dir: store_dir) that
 * share an external name with another candidate and whose compiles are all
 * known (in the store, each with an output): ids 1, 2, ...; a name of which
 * any candidate is static or has no such compile gets none. */
struct linked_files *linked_files_new(struct store *st, const char *store_dir, const struct patch_function *fs,
                                      size_t n);
void linked_files_free(struct linked_files *lf);

/* Candidate f's id (> 0), or 0 when it is not told by linked file. */
long linked_files_id(const struct linked_files *lf, size_t f);
/* 1 when name is a name whose candidates have ids. */
int linked_files_name(const struct linked_files *lf, const char *name);

#define LINKED_FILES_UNKNOWN 0
#define LINKED_FILES_NONE (-1)

/* The id of the candidate named name whose definition the linked file at
 * project_path (the path the project's processes see; NULL: a file outside
 * the project) holds, reading the baseline's copy of it at baseline_path
 * when the compiles do not say; LINKED_FILES_NONE when it is none of
 * theirs (outside the project, or no candidate's compile or object went
 * into it), LINKED_FILES_UNKNOWN when it cannot be told (the reason is
 * kept: linked_files_notes). Answers are kept per (name, path). */
long linked_files_owner(struct linked_files *lf, const char *name, const char *project_path, const char *baseline_path);

/* path (a file of the variant whose source copy is copy and build dir
 * dir) at the project's path: dir/X -> builddir/X, copy/X -> root/X; NULL
 * when path lies in neither. Caller frees. */
char *linked_files_project_path(const char *path, const char *copy, const char *dir, const char *root,
                                const char *builddir);
/* The reverse for the baseline: root/X or builddir/X as the copy's path;
 * NULL when in neither. Caller frees. */
char *linked_files_copy_path(const char *project_path, const char *copy, const char *dir, const char *root,
                             const char *builddir);

/* One line per file that could not be told, into notes. */
void linked_files_notes(const struct linked_files *lf, struct strvec *notes);

#endif
