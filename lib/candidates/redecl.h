/* redecl.h - a function used in its file before its definition (called, or
 * its address taken, by code above it) can still be multi-versioned: clang
 * (14 and 19 alike) rejects target_clones on a definition whose function
 * was used before ("function declaration cannot become a multiversioned
 * function after first usage"), but accepts it when a declaration carrying
 * the same attribute comes before the first use (GCC accepts both). The
 * patch then inserts that declaration as a whole line at file scope, just
 * before the top-level declaration holding the first use:
 *
 *     FMVGEN_CLONES_STATIC static void add_static(int *a, const int *b, int n);
 *
 * This module finds the first use, the line, and the declaration's text -
 * written from libclang's view of the definition: storage class (static
 * for internal linkage), the definition's own visibility attribute
 * (EXPORT in a -fvisibility=hidden file: clang 19 gives the dispatcher
 * the visibility of the first multi-versioned declaration), return type, name, parameters with their types as
 * written (C; typedef names kept, macros expanded) or canonical (C++,
 * where a written name may depend on a using-directive; no parameter
 * names), "()" for a K&R definition (a prototype would not be compatible
 * with its promoted parameters), "(void)" for a definition with an empty
 * list, "f()" (clang multi-versions only a prototyped function) - and checks that it can stand there: every type, typedef,
 * template or constant the signature names is declared above that line
 * (in the file, or in a header #included above it). In a source file that
 * TUs #include (included.h), where each TU may give its macros other
 * meanings, the text is instead that of a declaration the file itself
 * writes above the line (a forward prototype), token for token: it reads
 * alike in every TU (included.c checks that the TUs agree).
 *
 * When no redeclaration can work the function stays excluded
 * (used-before-definition) and *why says which of these holds:
 *   - the first use is in the TU's own file before the #include of the
 *     source file that defines it (the line would go into another file);
 *   - the first use is in a project header the file #includes above the
 *     definition (a static inline function calling it): the line would
 *     have to go into that header, above its own prototype (clang takes a
 *     plain declaration after a multi-versioned one for another function);
 *   - the definition is in a source file TUs #include, and that file
 *     declares it nowhere above the line (libclang's types may be spelled
 *     differently by each including TU), or only in a declaration of
 *     several functions ("static void a(void), b(void);");
 *   - a C++ member function (it can only be redeclared inside its class),
 *     or a function in a namespace or an extern "C" block (the line goes
 *     at file scope);
 *   - the line where the top-level declaration holding the first use
 *     starts begins inside an earlier declaration ("} void g(void) {"), a
 *     comment or a macro definition (a declaration a macro writes at file
 *     scope, REGISTER(f), is fine: the line goes above the macro's name);
 *   - the signature names something declared only after that line;
 *   - a signature fmvgen does not write (a function-pointer return type
 *     without a typedef, a calling convention, an exception specification
 *     other than noexcept, an unnamed type). */
#ifndef FMVGEN_REDECL_H
#define FMVGEN_REDECL_H

#include <jansson.h>

#include "candidates/locate.h"

struct redecl {
    unsigned use_line;       /* the first use (1-based) */
    unsigned offset, line;   /* where the line goes: a line start of def's file, before the first use */
    char *text;              /* "static void f(int *a, int n);" (no attribute, no newline) */
};

/* 0: def is not used before its definition (nothing to do). 1: it is, and
 * out says where the redeclaration goes and what it reads. -1: it is, and
 * no redeclaration can work: *why (caller frees) is the whole exclusion
 * detail, naming the use's line and the reason. */
int redecl_plan(struct parsed_tu *tu, const struct fn_def *def, struct redecl *out, char **why);
void redecl_free(struct redecl *r);

/* A function whose definition is its first declaration and carries an
 * attribute clang refuses beside target_clones there (no_sanitize, hot,
 * cold, visibility, ...: eligibility.h) can still be multi-versioned: clang
 * accepts both on a definition that follows a declaration carrying
 * target_clones alone (gcc, clang 14 and 19 all build it). The line goes
 * at the definition's own insert line, just above it. 1 with out set
 * (use_line 0), or -1 with *why (caller frees): the definition is in a
 * source file TUs #include, or its declaration cannot be written. */
int redecl_plan_above_definition(struct parsed_tu *tu, const struct fn_def *def, struct redecl *out, char **why);

/* The note of such a candidate: the "redeclared" note, its detail saying
 * which attribute (attr: "carries __attribute__((no_sanitize)), which
 * clang cannot combine with target_clones"), "use_line": 0, "attribute":
 * attr_name ("no_sanitize"; patch/redecl.h reads it). */
json_t *redecl_attribute_note(const struct redecl *r, const char *attr, const char *attr_name);

/* The note of a C definition with an empty parameter list, "void f() { }"
 * (no prototype: clang 14 emits no clones of it, clang 19 refuses it), that
 * no use above it redeclares: the "redeclared" note, "use_line": 0,
 * "noproto": true, the text "void f(void);" (redecl_text), to go above its
 * definition. A redeclaration above a use of such a function gets
 * "noproto" too (candidates/eligibility.c); patch/redecl.h reads it. */
json_t *redecl_noproto_note(const struct redecl *r);

/* The note of a candidate that gets a redeclaration: {"kind": "redeclared",
 * "detail": sentence, "use_line", "insert_offset", "insert_line", "text"}.
 * patch/redecl.h reads it. */
json_t *redecl_note(const struct redecl *r, const struct fn_def *def);

/* The text of def's declaration without its body (no attribute, ending in
 * ';'), or NULL with *why (caller frees) when fmvgen cannot write it. The
 * part of redecl_plan the unit tests check on their own. */
char *redecl_text(struct parsed_tu *tu, const struct fn_def *def, char **why);

/* 1 when def (C) is a K&R definition: parameter declarations between its
 * ')' and its body. */
int redecl_is_knr(struct parsed_tu *tu, const struct fn_def *def);

#endif
