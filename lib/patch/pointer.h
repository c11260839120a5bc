/* pointer.h - `fmvgen patch --dispatch pointer`: the same target_clones
 * clones, reached through a function pointer instead of an IFUNC, so that
 * C libraries without IFUNC (musl, dynamic and static) run them too.
 *
 * What a function f (symbol SYM, set macro M) gets, whole lines only:
 *
 *   #ifdef FMVGEN_PTR_ON                  (FMVGEN_PTR_STATIC_ON: static f)
 *   # define f fmvgen_mv_f                the definition below is renamed
 *   #endif
 *   M_PTR                                 static target_clones (M_PTR_STATIC)
 *   long f(const int *a, int n)           the definition, untouched
 *   { ... }
 *   #ifdef FMVGEN_PTR_ON
 *   # undef f
 *   FMVGEN_PTR_DEF long f(const int *a, int n) FMVGEN_PTR_BODY(SYM, fmvgen_mv_f)
 *   #endif
 *
 * A static C function's renamed definition is declared first, after the
 * #define, with an assembler name of its file's
 * (patch_pointer_static_asm_name), and its trampoline is
 * FMVGEN_PTR_STATIC_BODY(f, fmvgen_mv_f), whose labels are named by f's
 * compiler symbol: both so that two files' statics of one name build with
 * -flto (docs/DESIGN.md).
 *
 * The last line copies the definition's head (decl-specifiers and
 * declarator, comments dropped, on one line) into a naked definition of f
 * whose body jumps through the pointer SYM.fmvgen_ptr. That pointer starts
 * at SYM.fmvgen_init, which saves the argument registers, calls the clones'
 * own resolver (fmvgen_mv_f.resolver: __builtin_cpu_init and
 * __builtin_cpu_supports, the choice an IFUNC would make), stores its
 * answer (one aligned 8-byte store: threads racing there store the same
 * value) and jumps to it. An .init_array.00101 entry, SYM.fmvgen_ctor,
 * stores the same answer before the program's constructors run, so that
 * the trampoline's jump only ever sees one target (AMD Zen runs an indirect
 * jump that has seen two targets about a cycle slower per call for a long
 * while: docs/FINDINGS.md); a call that comes earlier (.preinit_array,
 * another library's constructor) still finds the init stub, so no
 * constructor order matters for correctness. No IFUNC symbol is
 * referenced, so no IRELATIVE relocation exists. f keeps its own linkage and visibility: it is a plain
 * C definition, so -fvisibility and visibility attributes apply as written.
 * Where the preamble turns the pointer off (see patch_preamble_pointer) the
 * lines are empty or excluded and f is the plain function it was.
 *
 * A function whose shape the rename cannot take is dispatched by IFUNC
 * instead (FMVGEN_CLONES(sym), glibc only), with the reason:
 * patch_pointer_plan. */
#ifndef FMVGEN_PATCH_POINTER_H
#define FMVGEN_PATCH_POINTER_H

#include <stddef.h>

#include "patch/preamble.h"
#include "util/util.h"

struct patch_function;

enum patch_dispatch {
    PATCH_DISPATCH_IFUNC = 0,   /* target_clones' IFUNC (auto) */
    PATCH_DISPATCH_POINTER,     /* the clones through a pointer set on first call */
    PATCH_DISPATCH_CPUID,       /* own copies and resolver: IFUNC (glibc) or the same pointer (patch/cpuid.h) */
};

/* "auto" and "ifunc" -> IFUNC, "pointer" -> POINTER, "cpuid" -> CPUID. 0, or -1 (unknown
 * word; nothing printed). */
int patch_dispatch_parse(const char *word, enum patch_dispatch *out);
const char *patch_dispatch_name(enum patch_dispatch d);

/* The preamble blocks of pointer dispatch for sets[0..n): the shared block
 * (FMVGEN_PTR_ON, FMVGEN_PTR_STATIC_ON, FMVGEN_PTR_DEF, FMVGEN_PTR_BODY),
 * guarded, then per set M_PTR / M_PTR_STATIC (guard "#ifndef M_PTR_STATIC").
 * Lines end in eol. */
char *patch_preamble_pointer(const struct patch_target_set *sets, size_t n, const char *eol);

/* The macro name of a set's pointer pair: "<macro>_PTR". Caller frees. */
char *patch_pointer_macro(const char *set_macro);

/* Where f's pointer lines go in its file's text and what they say, or why
 * f cannot be renamed (NULL reason: it can). Reasons: a C++ member or
 * qualified name, an operator, a name a macro gives (included-source
 * spellings), a K&R definition, a preprocessor line or `extern` in its
 * head, its own name inside its body (recursion, a member or variable of
 * that name would be renamed too), code after its closing brace on the
 * same line. */
struct patch_pointer_lines {
    size_t before_offset;   /* f's insert offset */
    char *before;           /* the #ifdef/#define/#endif lines and the attribute line */
    size_t after_offset;    /* start of the line after the closing brace */
    char *after;            /* the #ifdef/#undef/trampoline/#endif lines */
};
const char *patch_pointer_lines(const struct patch_function *f, const char *text, size_t len, const char *set_macro,
                                struct patch_pointer_lines *out);
void patch_pointer_lines_free(struct patch_pointer_lines *l);

/* What patch_pointer_lines reads from f's definition (and patch/cpuid.h's
 * lines too), or why f cannot be renamed (the reasons above; NULL: it
 * can). */
struct patch_pointer_shape {
    char *ident;            /* the identifier f is written with */
    char *head;             /* decl-specifiers and declarator on one line, comments dropped */
    size_t name_at;         /* where ident is in head */
    size_t indent;          /* blanks before the head on its first line (at f->offset) */
    size_t after_offset;    /* start of the line after the closing brace (the
                             * file's end when it ends on the brace's line) */
    int after_eol;          /* 1: the file ends on the closing brace's line without
                             * a newline: text inserted after it starts with eol */
    const char *eol;        /* the line ending of f's first line */
    /* its body writes __func__, __FUNCTION__, __PRETTY_FUNCTION__ or
     * assert (which expands to one): the renamed definition keeps the
     * function's own name in them (patch_pointer_self_name) */
    int names_itself;
};
const char *patch_pointer_shape(const struct patch_function *f, const char *text, size_t len,
                                struct patch_pointer_shape *out);
void patch_pointer_shape_free(struct patch_pointer_shape *s);

/* The lines that keep a renamed definition's __func__, __FUNCTION__ and
 * (C only: C++'s holds the signature) __PRETTY_FUNCTION__ the function's
 * own name: push (before the definition) saves each as a macro
 * (#pragma push_macro: a program's own macro of that name comes back) and
 * defines it as the string "ident"; pop (after it) restores them. Nothing
 * unless s->names_itself. Appended to sb, each line ending in s->eol. */
void patch_pointer_self_name(struct strbuf *sb, const struct patch_pointer_shape *s, int cxx, int push);

/* Appends (eol-terminated) the definitions of FMVGEN_PTR_ENDBR_ (endbr64
 * under -fcf-protection) and FMVGEN_PTR_DEF (naked, noinline, and a
 * diagnostic push ignoring -Wunused-parameter) the trampolines use. */
void patch_pointer_entry_macros(struct strbuf *sb, const char *eol);

/* Appends the trampoline body's macro lines (eol-terminated) to sb:
 * FMVGEN_PTR_BODY(sym, mv), whose init stub and constructor call mv's
 * target_clones resolver (FMVGEN_PTR_RESOLVER_), or with cpuid
 * FMVGEN_CPU_BODY(sym, resolve), which call the function resolve itself
 * (`call %c0`). Both use FMVGEN_PTR_ENDBR_ and end the diagnostic push of
 * FMVGEN_PTR_DEF. Their labels are "sym.fmvgen_ptr" ...; the STATIC_BODY
 * variants (FMVGEN_PTR_STATIC_BODY, FMVGEN_CPU_STATIC_BODY: same
 * arguments, sym a static C function's identifier) name them by that
 * function's compiler symbol instead ("%c1" of "i"(sym)), which LTO makes
 * unique. All are wrappers of FMVGEN_PTR_BODY_ / FMVGEN_CPU_BODY_(label,
 * mv, fn). */
void patch_pointer_body_macro(struct strbuf *sb, const char *eol, int cpuid);

/* The assembler name a static C function's renamed definition gets under
 * pointer dispatch, "fmvgen_mv_<ident>.tuXXXXXXXX" (8 hex digits of a hash
 * of f's file path), declared before it (`static ... __asm__("...")`):
 * the clones' resolver is "<that>.resolver" in every build. Under LTO two
 * files' fmvgen_mv_scale would meet in one assembler file and the
 * compiler would rename them (gcc fmvgen_mv_scale.lto_priv.0 with
 * fmvgen_mv_scale.resolver.lto_priv.0; clang fmvgen_mv_scale.2 with
 * fmvgen_mv_scale.resolver.3), so that no name written in the trampoline
 * could reach the resolver. Caller frees. */
char *patch_pointer_static_asm_name(const struct patch_function *f, const char *ident);

/* The identifier f is written with (C: its name; C++: the last component
 * of its display name before '('), or NULL when that is no plain
 * identifier (an operator). Caller frees. */
char *patch_pointer_ident(const struct patch_function *f);

#endif
