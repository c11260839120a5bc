/* ltwrapper.h - a libtool wrapper script given where verify wants a program.
 *
 * In an uninstalled autotools/libtool build, a program linked against the
 * build's own shared library (`frontend/prog`) is a shell script libtool
 * wrote: it runs the real program (`frontend/.libs/prog`, or
 * `.libs/lt-prog`, which the script relinks at its first run) with
 * LD_LIBRARY_PATH naming the build's library directories. qemu-x86_64 runs
 * ELF files only, and a program and its --against program must each load
 * their own build's libraries (one LD_LIBRARY_PATH for both would run the
 * patched library under both names), so verify runs the real program
 * itself, with the library path its script would set.
 *
 * The script is read, never run. libtool 2.x's shell wrapper is recognized
 * by its header ("temporary wrapper script for", "libtool"), and three of
 * its lines are read: program='NAME' (or program=lt-'NAME'),
 * progdir="$thisdir/DIR" ($thisdir: the script's own directory, symlinks
 * resolved) and LD_LIBRARY_PATH="DIRS:$LD_LIBRARY_PATH" (absent when the
 * program needs no build library path). */
#ifndef FMVGEN_VERIFY_LTWRAPPER_H
#define FMVGEN_VERIFY_LTWRAPPER_H

struct ltwrapper {
    char *program;        /* the real program: the script's directory / DIR / NAME */
    char *library_path;   /* the directories the script puts before LD_LIBRARY_PATH ("" when none) */
};

/* 1: path is a libtool wrapper script, and w holds its program and library
 * path; 0: it is not one (w zeroed); -1 after one error line naming the
 * file: a wrapper whose lines cannot be read, or whose program is not there
 * (an lt- program is written by the script's first run: the line says to
 * run it once). */
int ltwrapper_read(const char *path, struct ltwrapper *w);
void ltwrapper_free(struct ltwrapper *w);

/* The LD_LIBRARY_PATH the script would run its program with: its
 * directories, then inherited (NULL or "" for none). Caller frees. */
char *ltwrapper_run_library_path(const struct ltwrapper *w, const char *inherited);

#endif
