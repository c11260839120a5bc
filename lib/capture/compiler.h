/* compiler.h - what a compiler is and what a compile command does:
 *   - identify a compiler as GCC or Clang and its version (anything else is
 *     a clear error: fmvgen reads only these two compilers' records)
 *   - classify an argv: is it a compile of C/C++ sources to objects, which
 *     sources, which output, which language, which -O level
 *   - the flags that make the compiler write optimization records to a
 *     chosen place without changing the code it generates
 *   - the flags that switch vectorization off (reported by `list`). */
#ifndef FMVGEN_COMPILER_H
#define FMVGEN_COMPILER_H

#include "util/util.h"

enum compiler_kind { COMPILER_UNKNOWN = 0, COMPILER_GCC, COMPILER_CLANG };

struct compiler_id {
    enum compiler_kind kind;
    char *path;        /* absolute path of the real compiler */
    char *version;     /* "12.2.0", "14.0.6" */
    int major;
};

/* Runs `COMPILER --version` (cached per path within the process). Returns 0,
 * or -1 after "fmvgen: PATH: not GCC or Clang (...)". */
int compiler_identify(const char *compiler, struct compiler_id *out);
/* The same, remembered across processes in cache_dir (one small file per
 * compiler, keyed by the resolved file's identity and mtime): the wrapper
 * identifies the compiler of every compile, and a `--version` run is a
 * process per compile (docs/FINDINGS.md, "Capture"). cache_dir NULL: no
 * cross-process cache. */
int compiler_identify_cached(const char *compiler, const char *cache_dir, struct compiler_id *out);
void compiler_id_free(struct compiler_id *id);
/* 1 when a program basename names a C/C++ compiler driver the scan wraps:
 * cc, c++, gcc, g++, clang, clang++, optionally with a target prefix
 * ("x86_64-linux-gnu-gcc") and/or a version suffix ("gcc-12", "clang++-19"). */
int compiler_name_is_driver(const char *basename);
const char *compiler_kind_name(enum compiler_kind k);   /* "gcc" / "clang" */

/* The flags that write records for one compile (one source) into
 * records_dir, named after output's stem:
 *   - GCC 12+ (compiler_records_use_dumps): the vectorizer dumps
 *     "-fdump-tree-vect-optimized=DIR/STEM.vect", "-fdump-tree-slp1-
 *     optimized=DIR/STEM.slp1", "-fdump-tree-slp2-optimized=DIR/STEM.slp2"
 *     (records.h, format "gcc-dump"); the three files are created empty
 *     here, as the reader needs them all and GCC writes one only for
 *     functions its pass ran on. The same records as the JSON, and the
 *     objects stay byte-identical also with -g and -frecord-gcc-switches.
 *   - older GCC: "-fsave-optimization-record -dumpdir DIR/ -dumpbase STEM"
 *     -> DIR/STEM.opt-record.json.gz (an explicit dump base, because GCC
 *     would otherwise append the source's suffix), format "gcc-json";
 *   - Clang "-Xclang -opt-record-file -Xclang DIR/STEM.opt.yaml" and
 *     "-Xclang -opt-record-passes -Xclang loop-vectorize|slp-vectorizer" (the
 *     driver's -fsave-optimization-record would add debug-line sections to
 *     the object), format "clang-yaml".
 * Sets *format; *record_path (caller frees) receives the path the records
 * will be found at (for "gcc-dump", the vect dump). */
void compiler_record_flags(const struct compiler_id *id, const char *records_dir, const char *output,
                           struct strvec *flags, char **record_path, const char **format);
/* Where the records of a finished compile are: record_path from
 * compiler_record_flags when it exists, else (format "gcc-json") the one
 * *.opt-record.json.gz file in its directory. GCC names the JSON file after
 * more than the -dumpbase given when a command has other inputs besides its
 * source (`cc x.o prog.c -o prog` writes "prog-prog.c.opt-record.json.gz";
 * docs/FINDINGS.md, "Capture"), and GCC versions differ in it; the records
 * dir is private to one compile, so the one file in it is this compile's.
 * Returns a path (caller frees) or NULL when the compiler wrote none. */
char *compiler_record_file_found(const char *record_path, const char *format);
/* 1 when compiler_record_flags gives this compiler GCC's dump flags. */
int compiler_records_use_dumps(const struct compiler_id *id);

struct compile_args {
    int is_compile;          /* compiles C/C++ sources to code: -c with at least one
                              * C/C++ source, or a compile-and-link line (no -c);
                              * never -E/-S/-M/-fsyntax-only */
    int links;               /* 1: no -c, the sources are compiled and linked in one step */
    struct strvec sources;   /* the C/C++ sources, as written in argv */
    struct strvec languages; /* "c" or "c++" for each source */
    char *output;            /* -o value, or NULL */
    char *language;          /* language of the first source: "c" or "c++" (from -x or the extension) */
    char opt_level;          /* '0'..'3', 's', 'z', 'g', 'f' (fast); '0' if none */
};
void compile_args_parse(char *const *argv, struct compile_args *out);
void compile_args_free(struct compile_args *a);
/* "c" / "c++" for a source name by its extension (.c; .cc .cpp .cxx .C .c++
 * .cp .CPP), NULL for anything else. */
const char *compile_language_of(const char *path);
/* The output file of source i of a parsed command run in directory dir,
 * absolute: the -o value, else (-c) dir/<stem>.o, else (linking) dir/a.out. */
char *compile_args_output_of(const struct compile_args *a, size_t i, const char *dir);

/* NULL when the record flags can be added to this compile without changing
 * any file the build writes; else why not (a short phrase). Such compiles
 * get their records from a second, records-only compile instead. The flags
 * that do so:
 *   - GCC 12+ (dumps): only -flto (the options are recorded, and only the
 *     link vectorizes), the build's own -fdump-* and -fcompare-debug;
 *     -g, -frecord-gcc-switches, -MD, -fstack-usage, ... are fine;
 *   - older GCC (JSON): -g (DW_AT_producer), -frecord-gcc-switches, -flto,
 *     and -dumpdir/-dumpbase moving auxiliary outputs named after the dump
 *     base (-MD without -o, .su, .gcno, .dwo, -save-temps files);
 *   - Clang: -grecord-command-line and -flto objects.
 * (Commands with several sources are the wrapper's own case: the dump
 * files would be shared.) */
const char *compiler_records_change_outputs(const struct compiler_id *id, char *const *argv);
/* 1 when the command compiles with -flto (its last -flto/-fno-lto option). */
int compiler_args_lto(char *const *argv);

/* Appends to notes human lines for flags that defeat vectorization
 * ("-fno-tree-vectorize", "-O1: the vectorizer does not run below -O2", ...).
 * Each entry is "KIND\tDETAIL" with KIND one of the tu_notes kinds. */
void compile_args_vectorization_notes(char *const *argv, struct strvec *notes);

#endif
