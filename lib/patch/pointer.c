/* pointer.c - see pointer.h. The preamble text of pointer dispatch, and
 * the lines each function gets: where its definition's head and body are
 * in the file (comments, strings and parentheses skipped), whether the
 * rename can take it, and the copied head. */
#include "patch/pointer.h"
#include "patch/plan.h"
#include "patch/preamble.h"
#include "targets/targets.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int patch_dispatch_parse(const char *word, enum patch_dispatch *out)
{
    if (!strcmp(word, "auto") || !strcmp(word, "ifunc")) *out = PATCH_DISPATCH_IFUNC;
    else if (!strcmp(word, "pointer")) *out = PATCH_DISPATCH_POINTER;
    else if (!strcmp(word, "cpuid")) *out = PATCH_DISPATCH_CPUID;
    else return -1;
    return 0;
}

const char *patch_dispatch_name(enum patch_dispatch d)
{
    return d == PATCH_DISPATCH_POINTER ? "pointer" : d == PATCH_DISPATCH_CPUID ? "cpuid" : "ifunc";
}

char *patch_pointer_macro(const char *set_macro)
{
    return xasprintf("%s_PTR", set_macro);
}

/* ---- the preamble ---- */

/* The trampoline's body, as lines of the FMVGEN_PTR_BODY_ macro (each but
 * the last ending in a backslash). Three asm statements, so that no string
 * literal exceeds the 509 characters C89 promises (clang's
 * -Woverlength-strings under -pedantic). The init code keeps every
 * argument register (rdi rsi rdx rcx r8 r9, rax for varargs, r10 the
 * static chain, xmm0-7) around the resolver call; the stack is 16-byte
 * aligned at that call (8 pushes + 136 bytes after the caller's call).
 * The fourth statement is SYM.fmvgen_ctor and its .init_array.00101 entry:
 * the same resolver call and store before the program's constructors.
 * label is the SYM of the labels, a string literal: "sym" (FMVGEN_PTR_BODY)
 * or "%c1", operand 1 (fn) printed as the compiler names that function
 * (FMVGEN_PTR_STATIC_BODY: see patch_pointer_body_macro). The instructions are bytes
 * (.byte; a PC-relative operand, the pointer or the resolver, as
 * `.long target-.-4`, the field being the instruction's last), so that
 * the assembler's syntax does not matter: a -masm=intel build assembles
 * them as well (the directives are the same in both syntaxes). The
 * resolver call's relocation is R_X86_64_PC32 where `call` would give
 * R_X86_64_PLT32: the same address, as the resolver is local or hidden.
 * In AT&T syntax:
 *   SYM:              jmp *SYM.fmvgen_ptr(%rip)
 *   SYM.fmvgen_init:  push %rdi; push %rsi; push %rdx; push %rcx; push %r8; push %r9; push %rax
 *                     push %r10; sub $136, %rsp; movdqu %xmm0, (%rsp) ... movdqu %xmm7, 112(%rsp)
 *                     call RESOLVER; mov %rax, SYM.fmvgen_ptr(%rip); mov %rax, %r11
 *                     movdqu (%rsp), %xmm0 ... movdqu 112(%rsp), %xmm7; add $136, %rsp
 *                     pop %r10; pop %rax; pop %r9; pop %r8; pop %rcx; pop %rdx; pop %rsi; pop %rdi
 *                     jmp *%r11
 *   SYM.fmvgen_ctor:  sub $8, %rsp; call RESOLVER; mov %rax, SYM.fmvgen_ptr(%rip); add $8, %rsp; ret
 * (each entry starting with FMVGEN_PTR_ENDBR_). */
static const char *const BODY_LINES[] = {
    "# define FMVGEN_PTR_BODY_(label, mv, fn) { \\",
    "  __asm__ volatile(FMVGEN_PTR_ENDBR_ \".byte 255,37\\n\\t.long \" label \".fmvgen_ptr-.-4\\n\\t\" FMVGEN_PTR_HIDE_(mv) \\",
    "    \".pushsection .data\\n\\t.balign 8\\n\" label \".fmvgen_ptr:\\n\\t.quad \" label \".fmvgen_init\\n\\t.popsection\\n\\t\" \\",
    "    \".pushsection .text\\n\\t.type \" label \".fmvgen_init, @function\\n\" label \".fmvgen_init:\\n\\t\" FMVGEN_PTR_ENDBR_ \\",
    "    \".byte 87,86,82,81,65,80,65,81,80,65,82,72,129,236,136,0,0,0\\n\\t\" : : \"i\"(mv), \"i\"(fn) : \"memory\"); \\",
    "  __asm__ volatile(\".byte 243,15,127,4,36,243,15,127,76,36,16,243,15,127,84,36,32,243,15,127,92,36,48\\n\\t\" \\",
    "    \".byte 243,15,127,100,36,64,243,15,127,108,36,80,243,15,127,116,36,96,243,15,127,124,36,112,232\\n\\t\" \\",
    "    \".long \" FMVGEN_PTR_RESOLVER_(mv) \"-.-4\\n\\t.byte 72,137,5\\n\\t.long \" label \".fmvgen_ptr-.-4\\n\\t\" \\",
    "    \".byte 73,137,195\\n\\t\" : : \"i\"(mv), \"i\"(fn) : \"memory\"); \\",
    "  __asm__ volatile(\".byte 243,15,111,4,36,243,15,111,76,36,16,243,15,111,84,36,32,243,15,111,92,36,48\\n\\t\" \\",
    "    \".byte 243,15,111,100,36,64,243,15,111,108,36,80,243,15,111,116,36,96,243,15,111,124,36,112\\n\\t\" \\",
    "    \".byte 72,129,196,136,0,0,0,65,90,88,65,89,65,88,89,90,94,95,65,255,227\\n\\t\" \\",
    "    \".size \" label \".fmvgen_init, .-\" label \".fmvgen_init\\n\\t\" : : \"i\"(mv), \"i\"(fn) : \"memory\"); \\",
    "  __asm__ volatile(\".type \" label \".fmvgen_ctor, @function\\n\" label \".fmvgen_ctor:\\n\\t\" FMVGEN_PTR_ENDBR_ \\",
    "    \".byte 72,131,236,8,232\\n\\t.long \" FMVGEN_PTR_RESOLVER_(mv) \"-.-4\\n\\t.byte 72,137,5\\n\\t\" \\",
    "    \".long \" label \".fmvgen_ptr-.-4\\n\\t.byte 72,131,196,8,195\\n\\t\" \\",
    "    \".size \" label \".fmvgen_ctor, .-\" label \".fmvgen_ctor\\n\\t.popsection\\n\\t\" \\",
    "    \".pushsection .init_array.00101, \\\"aw\\\", @init_array\\n\\t.balign 8\\n\\t.quad \" label \".fmvgen_ctor\\n\\t.popsection\" : : \"i\"(mv), \"i\"(fn) : \"memory\"); \\",
    "  } _Pragma(\"GCC diagnostic pop\")",
    NULL,
};

/* s with every from replaced by to. Caller frees. */
static char *replace_all(const char *s, const char *from, const char *to)
{
    struct strbuf sb = STRBUF_INIT;
    size_t n = strlen(from);
    for (const char *at; (at = strstr(s, from)); s = at + n) {
        sb_add(&sb, s, (size_t)(at - s));
        sb_adds(&sb, to);
    }
    sb_adds(&sb, s);
    return sb_detach(&sb);
}

void patch_pointer_body_macro(struct strbuf *sb, const char *eol, int cpuid)
{
    for (size_t i = 0; BODY_LINES[i]; i++) {
        if (!cpuid) {
            patch_text_line(sb, eol, "%s", BODY_LINES[i]);
            continue;
        }
        /* the resolver function itself: a local symbol, called by its name */
        static const char *const SUBST[][2] = {
            {"FMVGEN_PTR_BODY_(label, mv, fn)", "FMVGEN_CPU_BODY_(label, resolve, fn)"},
            {"FMVGEN_PTR_RESOLVER_(mv)", "\"%c0\""},
            {" FMVGEN_PTR_HIDE_(mv)", ""},
            {"\"i\"(mv)", "\"i\"(resolve)"},
        };
        char *line = xstrdup(BODY_LINES[i]);
        for (size_t k = 0; k < sizeof SUBST / sizeof SUBST[0]; k++) {
            char *next = replace_all(line, SUBST[k][0], SUBST[k][1]);
            free(line);
            line = next;
        }
        patch_text_line(sb, eol, "%s", line);
        free(line);
    }
    /* The labels: an external function's SYM is its symbol, as written
     * (C++: mangled). A static function's is whatever symbol the compiler
     * gives it, "%c1" of "i"(f): its name, or with LTO, where two files'
     * statics of one name meet in one assembler file, the name made unique
     * (gcc: f.lto_priv.0, clang: f.1) - the C name would be defined twice.
     * Not for external functions: -fPIC takes no preemptible symbol as
     * "i". */
    const char *body = cpuid ? "FMVGEN_CPU_BODY" : "FMVGEN_PTR_BODY", *arg = cpuid ? "resolve" : "mv";
    patch_text_line(sb, eol, "# define %s(sym, %s) %s_(#sym, %s, %s)", body, arg, body, arg, arg);
    patch_text_line(sb, eol, "# define %s(sym, %s) %s_(\"%%c1\", %s, sym)", cpuid ? "FMVGEN_CPU_STATIC_BODY" :
                    "FMVGEN_PTR_STATIC_BODY", arg, body, arg);
}

void patch_pointer_entry_macros(struct strbuf *sb, const char *eol)
{
    patch_text_line(sb, eol, "# ifdef __CET__");
    patch_text_line(sb, eol, "#  define FMVGEN_PTR_ENDBR_ \".byte 0xf3, 0x0f, 0x1e, 0xfa\\n\\t\"");
    patch_text_line(sb, eol, "# else");
    patch_text_line(sb, eol, "#  define FMVGEN_PTR_ENDBR_ \"\"");
    patch_text_line(sb, eol, "# endif");
    patch_text_line(sb, eol, "# define FMVGEN_PTR_DEF _Pragma(\"GCC diagnostic push\") \\");
    patch_text_line(sb, eol, "  _Pragma(\"GCC diagnostic ignored \\\"-Wunused-parameter\\\"\") __attribute__((naked, noinline))");
}

/* The shared block: when the pointer is on, and the two macros every
 * function's trampoline line uses. */
static void shared_block(struct strbuf *sb, const char *eol)
{
    patch_text_line(sb, eol, "#ifndef FMVGEN_PTR_BODY");
    patch_text_line(sb, eol, "# if !defined(FMVGEN_NO_CLONES) && defined(__has_attribute) && defined(__x86_64__) && defined(__ELF__)");
    patch_text_line(sb, eol, "#  if __has_attribute(target_clones) && __has_attribute(naked)");
    patch_text_line(sb, eol, "#   if !defined(__clang__) || __clang_major__ >= 18");
    patch_text_line(sb, eol, "#    define FMVGEN_PTR_ON");
    patch_text_line(sb, eol, "#    define FMVGEN_PTR_STATIC_ON");
    patch_text_line(sb, eol, "#    define FMVGEN_PTR_RESOLVER_(mv) \"%%c0.resolver\"");
    patch_text_line(sb, eol, "#    define FMVGEN_PTR_HIDE_(mv) \"\"");
    patch_text_line(sb, eol, "#   elif !defined(__cplusplus)");
    patch_text_line(sb, eol, "     /* clang < 18 names the IFUNC mv.ifunc, so %%c0 cannot name the resolver: the C");
    patch_text_line(sb, eol, "      * name does (not a C++ one, mangled); its static functions' resolvers are");
    patch_text_line(sb, eol, "      * global symbols, which two files' statics of one name would share. Its");
    patch_text_line(sb, eol, "      * resolvers are global even for a static function: hidden here, so a");
    patch_text_line(sb, eol, "      * shared library neither exports nor calls it through the PLT. */");
    patch_text_line(sb, eol, "#    define FMVGEN_PTR_ON");
    patch_text_line(sb, eol, "#    define FMVGEN_PTR_RESOLVER_(mv) #mv \".resolver\"");
    patch_text_line(sb, eol, "#    define FMVGEN_PTR_HIDE_(mv) \".hidden \" #mv \".resolver\\n\\t\"");
    patch_text_line(sb, eol, "#   endif");
    patch_text_line(sb, eol, "#  endif");
    patch_text_line(sb, eol, "# endif");
    patch_pointer_entry_macros(sb, eol);
    patch_pointer_body_macro(sb, eol, 0);
    patch_text_line(sb, eol, "#endif");
}

/* One set's M_PTR (static: the renamed definition of an external function
 * has internal linkage, so no clone, resolver or IFUNC of it is exported)
 * and M_PTR_STATIC, or both empty. */
static void set_block(struct strbuf *sb, const struct patch_target_set *set, const char *eol)
{
    struct strbuf m = STRBUF_INIT, f = STRBUF_INIT;
    patch_clones_spellings(set, &m, &f);
    char *n = patch_pointer_macro(set->macro);
    int differ = strcmp(sb_str(&m), sb_str(&f)) != 0;
    patch_text_line(sb, eol, "#ifndef %s_STATIC", n);
    static const char *const kinds[2][3] = {{"", "FMVGEN_PTR_ON", "static "}, {"_STATIC", "FMVGEN_PTR_STATIC_ON", ""}};
    for (int k = 0; k < 2; k++) {
        patch_text_line(sb, eol, "# ifdef %s", kinds[k][1]);
        if (differ) {
            patch_text_line(sb, eol, "#  if %s", TARGETS_FEATURE_SPELLING_CONDITION);
            patch_text_line(sb, eol, "#   define %s%s %s__attribute__((target_clones(%s) FMVGEN_NO_IPA_RA_))", n, kinds[k][0], kinds[k][2], sb_str(&f));
            patch_text_line(sb, eol, "#  else");
            patch_text_line(sb, eol, "#   define %s%s %s__attribute__((target_clones(%s) FMVGEN_NO_IPA_RA_))", n, kinds[k][0], kinds[k][2], sb_str(&m));
            patch_text_line(sb, eol, "#  endif");
        } else {
            patch_text_line(sb, eol, "#  define %s%s %s__attribute__((target_clones(%s) FMVGEN_NO_IPA_RA_))", n, kinds[k][0], kinds[k][2], sb_str(&m));
        }
        patch_text_line(sb, eol, "# else");
        patch_text_line(sb, eol, "#  define %s%s", n, kinds[k][0]);
        patch_text_line(sb, eol, "# endif");
    }
    patch_text_line(sb, eol, "#endif");
    free(n);
    sb_free(&m);
    sb_free(&f);
}

char *patch_preamble_pointer(const struct patch_target_set *sets, size_t n, const char *eol)
{
    struct strbuf sb = STRBUF_INIT;
    patch_text_line(&sb, eol, "/* fmvgen (--dispatch pointer): <SET>_PTR before a function - <SET>_PTR_STATIC for");
    patch_text_line(&sb, eol, " * a static one - compiles it as target_clones under the name fmvgen_mv_<name>");
    patch_text_line(&sb, eol, " * (renamed by the #define above it); <name> itself is then defined below it as");
    patch_text_line(&sb, eol, " * a jump through a pointer that its first call sets, once, to the clone the");
    patch_text_line(&sb, eol, " * clones' own resolver picks for this CPU (__builtin_cpu_init and");
    patch_text_line(&sb, eol, " * __builtin_cpu_supports). No IFUNC: it runs with glibc, musl, dynamic and");
    patch_text_line(&sb, eol, " * static. Compilers without target_clones or naked functions, non-x86-64 or");
    patch_text_line(&sb, eol, " * non-ELF builds, -DFMVGEN_NO_CLONES, and with clang < 18 C++ and static");
    patch_text_line(&sb, eol, " * functions get the plain functions. */");
    shared_block(&sb, eol);
    patch_no_ipa_ra_macro(&sb, eol);
    for (size_t i = 0; i < n; i++) set_block(&sb, &sets[i], eol);
    patch_text_line(&sb, eol, "%s", "");
    return sb_detach(&sb);
}

/* ---- one function's lines ---- */

static int is_ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

char *patch_pointer_ident(const struct patch_function *f)
{
    const char *d = f->display_name ? f->display_name : f->name;
    const char *paren = strchr(d, '(');
    size_t end = paren ? (size_t)(paren - d) : strlen(d);
    size_t start = end;
    while (start > 0 && is_ident_char(d[start - 1])) start--;
    if (start == end || (d[start] >= '0' && d[start] <= '9')) return NULL;
    if (end - start == 8 && !strncmp(d + start, "operator", 8)) return NULL;
    for (size_t i = end; i < strlen(d) && d[i] != '('; i++)
        if (d[i] != ' ') return NULL;   /* "operator+" and the like */
    return xstrndup(d + start, end - start);
}

/* A cursor over C/C++ text that skips comments, string and character
 * literals. */
struct scan {
    const char *t;
    size_t len, i;
};

/* Moves past a comment or literal at s->i; 1 when it did. */
static int skip_trivia(struct scan *s)
{
    const char *t = s->t;
    size_t i = s->i;
    if (t[i] == '/' && i + 1 < s->len && t[i + 1] == '*') {
        const char *close = memmem(t + i + 2, s->len - i - 2, "*/", 2);
        s->i = close ? (size_t)(close - t) + 2 : s->len;
        return 1;
    }
    if (t[i] == '/' && i + 1 < s->len && t[i + 1] == '/') {
        while (s->i < s->len && t[s->i] != '\n') s->i++;
        return 1;
    }
    if (t[i] == '"' || t[i] == '\'') {
        char q = t[i];
        for (i++; i < s->len && t[i] != q && t[i] != '\n'; i++)
            if (t[i] == '\\') i++;
        s->i = i < s->len ? i + 1 : s->len;
        return 1;
    }
    return 0;
}

/* The identifier token at s->i (moving past it), or 0 when none is there. */
static size_t ident_at(struct scan *s)
{
    size_t i = s->i;
    if (!is_ident_char(s->t[i]) || (i > 0 && is_ident_char(s->t[i - 1]))) return 0;
    while (s->i < s->len && is_ident_char(s->t[s->i])) s->i++;
    return s->i - i;
}

/* The offset of the body's '{' of the definition starting at start (the
 * first '{' outside parentheses), or (size_t)-1. Sets *why for heads the
 * copy cannot take. */
static size_t body_brace(const char *t, size_t start, size_t end, const char **why)
{
    struct scan s = {t, end, start};
    int depth = 0, line_start = 1;
    while (s.i < end) {
        char c = t[s.i];
        if (line_start && c == '#') {
            *why = "a preprocessor line inside its head";
            return (size_t)-1;
        }
        if (c != ' ' && c != '\t' && c != '\r') line_start = c == '\n';
        if (skip_trivia(&s)) continue;
        if (c == '(' || c == '[') depth++;
        else if ((c == ')' || c == ']') && depth > 0) depth--;
        else if (c == ';' && depth == 0) {
            *why = "a K&R definition (parameter declarations after its head)";
            return (size_t)-1;
        } else if (c == '{' && depth == 0) {
            return s.i;
        }
        s.i++;
    }
    *why = "its body could not be found";
    return (size_t)-1;
}

/* The head t[start, brace) on one line: comments as one space, runs of
 * blanks and newlines as one space, literals kept. */
static char *flatten(const char *t, size_t start, size_t brace)
{
    struct strbuf sb = STRBUF_INIT;
    struct scan s = {t, brace, start};
    int space = 0;
    while (s.i < brace) {
        char c = t[s.i];
        size_t from = s.i;
        if (skip_trivia(&s)) {
            if (c == '"' || c == '\'') {
                if (space && sb.len) sb_addc(&sb, ' ');
                space = 0;
                sb_add(&sb, t + from, s.i - from);
            } else {
                space = 1;
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            space = 1;
        } else {
            if (space && sb.len) sb_addc(&sb, ' ');
            space = 0;
            sb_addc(&sb, c);
        }
        s.i++;
    }
    return sb_detach(&sb);
}

/* The offset just past the definition's closing brace, from the stored
 * end line and column (libclang's extent end: just after the '}'; the '}'
 * itself is accepted too), or (size_t)-1. */
static size_t closing_end(const char *t, size_t len, int end_line, int end_col)
{
    if (end_line <= 0 || end_col <= 0) return (size_t)-1;
    size_t pos = 0;
    for (int l = 1; l < end_line; l++) {
        const char *nl = memchr(t + pos, '\n', len - pos);
        if (!nl) return (size_t)-1;
        pos = (size_t)(nl - t) + 1;
    }
    size_t at = pos + (size_t)end_col - 1;
    if (at > len) return (size_t)-1;
    if (at > pos && t[at - 1] == '}') return at;
    if (at < len && t[at] == '}') return at + 1;
    return (size_t)-1;
}

/* The identifiers whose value is the enclosing function's name (and
 * assert, which expands to one): the rename would change them. */
static const char *const SELF_NAMES[] = {"__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"};

static int self_name_token(const char *t, size_t n)
{
    if (n == 6 && !strncmp(t, "assert", 6)) return 1;
    for (size_t i = 0; i < sizeof SELF_NAMES / sizeof *SELF_NAMES; i++)
        if (strlen(SELF_NAMES[i]) == n && !strncmp(t, SELF_NAMES[i], n)) return 1;
    return 0;
}

void patch_pointer_self_name(struct strbuf *sb, const struct patch_pointer_shape *s, int cxx, int push)
{
    if (!s->names_itself) return;
    size_t n = sizeof SELF_NAMES / sizeof *SELF_NAMES - (cxx ? 1 : 0);
    for (size_t i = 0; i < n; i++) {
        if (push)
            sb_addf(sb, "# pragma push_macro(\"%s\")%s# undef %s%s# define %s \"%s\"%s", SELF_NAMES[i], s->eol,
                    SELF_NAMES[i], s->eol, SELF_NAMES[i], s->ident, s->eol);
        else
            sb_addf(sb, "# pragma pop_macro(\"%s\")%s", SELF_NAMES[i], s->eol);
    }
}

const char *patch_pointer_shape(const struct patch_function *f, const char *text, size_t len,
                                struct patch_pointer_shape *out)
{
    memset(out, 0, sizeof *out);
    if (f->clones_arg || f->symbols.n > 1) return "its name is given by a macro in some TU (a source file TUs include)";
    char *ident = patch_pointer_ident(f);
    if (!ident) return "an operator has no name a #define can rename";
    size_t end = closing_end(text, len, f->end_line, f->end_col);
    const char *why = NULL;
    size_t start = f->offset;
    while (start < len && (text[start] == ' ' || text[start] == '\t')) start++;
    size_t brace = end == (size_t)-1 ? (size_t)-1 : body_brace(text, start, end, &why);
    if (end == (size_t)-1 && !why) why = "its stored end does not close its body; run 'fmvgen scan' again";
    /* the rest of the closing brace's line: blanks and comments (a line
     * comment, or block comments such as the function's name); a block
     * comment that goes on over lines: the lines after it start after the
     * line it closes on */
    size_t after = end;
    if (!why) {
        for (;;) {
            while (after < len && (text[after] == ' ' || text[after] == '\t' || text[after] == '\r')) after++;
            if (after + 1 < len && text[after] == '/' && text[after + 1] == '/') {
                while (after < len && text[after] != '\n') after++;
            } else if (after + 1 < len && text[after] == '/' && text[after + 1] == '*') {
                size_t c = after + 2;
                while (c + 1 < len && !(text[c] == '*' && text[c + 1] == '/')) c++;
                if (c + 1 >= len) {
                    why = "an unterminated comment follows its closing brace";
                    break;
                }
                after = c + 2;
                continue;
            }
            break;
        }
        /* the file ends there without a newline: the lines after it start
         * with one (after_eol) */
        if (!why && after >= len) out->after_eol = 1;
        else if (!why && text[after] != '\n') why = "code follows its closing brace on the same line";
        else if (!why) after++;
    }
    /* the name: once in the head, unqualified, never again in the body */
    size_t ilen = strlen(ident), named = 0;
    int qualified = 0, externed = 0;
    if (!why) {
        struct scan s = {text, end, start};
        while (s.i < end) {
            if (skip_trivia(&s)) continue;
            size_t at = s.i, n = ident_at(&s);
            if (!n) {
                s.i++;
                continue;
            }
            if (at < brace && n == 6 && !strncmp(text + at, "extern", 6)) externed = 1;
            if (at > brace && self_name_token(text + at, n)) out->names_itself = 1;
            if (n != ilen || strncmp(text + at, ident, ilen)) continue;
            named++;
            size_t b = at;
            while (b > start && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\n' || text[b - 1] == '\r')) b--;
            if (at < brace && b >= start + 2 && text[b - 1] == ':' && text[b - 2] == ':') qualified = 1;
            if (at > brace) {
                why = "its body names it too (a recursive call, or a member or variable of that name), which the "
                      "rename would reach";
                break;
            }
        }
        if (!why && qualified) why = "a qualified name (a C++ member or a namespace member defined outside it)";
        else if (!why && externed) why = "its head says extern, which the renamed static definition cannot take";
        else if (!why && named != 1) why = "its name is not written once in its head";
    }
    if (why) {
        free(ident);
        return why;
    }
    char *head = flatten(text, start, brace);
    size_t hl = strlen(head);
    if (hl >= 3 && !strcmp(head + hl - 3, "try") && (hl == 3 || !is_ident_char(head[hl - 4]))) {
        free(head);
        free(ident);
        return "a function-try-block";
    }
    /* the name's place in the flattened head (its one token there) */
    struct scan h = {head, hl, 0};
    out->name_at = (size_t)-1;
    while (h.i < hl && out->name_at == (size_t)-1) {
        if (skip_trivia(&h)) continue;
        size_t at = h.i, n = ident_at(&h);
        if (!n) h.i++;
        else if (n == ilen && !strncmp(head + at, ident, ilen)) out->name_at = at;
    }
    const char *eol = memchr(text + f->offset, '\n', len - f->offset);
    out->eol = eol && eol > text && eol[-1] == '\r' ? "\r\n" : "\n";
    out->ident = ident;
    out->head = head;
    out->indent = start - f->offset;
    out->after_offset = after;
    return NULL;
}

void patch_pointer_shape_free(struct patch_pointer_shape *s)
{
    free(s->ident);
    free(s->head);
    memset(s, 0, sizeof *s);
}

char *patch_pointer_static_asm_name(const struct patch_function *f, const char *ident)
{
    /* FNV-1a of the file's path: two files' statics of one name differ */
    const char *path = f->rel ? f->rel : f->file ? f->file : "";
    uint32_t h = 2166136261u;
    for (const char *c = path; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
    return xasprintf("fmvgen_mv_%s.tu%08x", ident, (unsigned)h);
}

const char *patch_pointer_lines(const struct patch_function *f, const char *text, size_t len, const char *set_macro,
                                struct patch_pointer_lines *out)
{
    memset(out, 0, sizeof *out);
    struct patch_pointer_shape sh;
    const char *why = patch_pointer_shape(f, text, len, &sh);
    if (why) return why;
    const char *eol = sh.eol, *ident = sh.ident;
    const char *on = f->is_static ? "FMVGEN_PTR_STATIC_ON" : "FMVGEN_PTR_ON";
    char *macro = patch_pointer_macro(set_macro);
    out->before_offset = f->offset;
    int cxx = !strncmp(f->name, "_Z", 2);
    struct strbuf push = STRBUF_INIT, pop = STRBUF_INIT;
    patch_pointer_self_name(&push, &sh, cxx, 1);
    patch_pointer_self_name(&pop, &sh, cxx, 0);
    /* a static C function's labels are named by its compiler symbol
     * (patch_pointer_body_macro), and its renamed definition gets a name
     * of its file's (patch_pointer_static_asm_name) in a declaration; C++
     * keeps its mangled names: the one identifier cannot name an
     * overloaded function */
    int by_symbol = f->is_static && !strcmp(f->name, ident);
    char *decl = NULL;
    if (by_symbol) {
        char *asm_name = patch_pointer_static_asm_name(f, ident);
        /* static from an earlier declaration: the head does not say it, the
         * renamed declaration must (else fmvgen_mv_NAME is a global symbol) */
        decl = xasprintf("%.*s%s%s __asm__(\"%s\");%s", (int)sh.indent, text + f->offset,
                         f->static_earlier ? "static " : "", sh.head, asm_name, eol);
        free(asm_name);
    }
    out->before = xasprintf("#ifdef %s%s# define %s fmvgen_mv_%s%s%s%s#endif%s%.*s%s%s%s", on, eol, ident, ident, eol,
                            decl ? decl : "", sb_str(&push), eol, (int)sh.indent, text + f->offset, macro,
                            f->is_static ? "_STATIC" : "", eol);
    free(decl);
    out->after_offset = sh.after_offset;
    out->after = xasprintf("%s#ifdef %s%s%s# undef %s%s%.*sFMVGEN_PTR_DEF %s FMVGEN_PTR_%sBODY(%s, fmvgen_mv_%s)%s#endif%s",
                           sh.after_eol ? eol : "", on, eol, sb_str(&pop), ident, eol, (int)sh.indent, text + f->offset, sh.head,
                           by_symbol ? "STATIC_" : "", f->name, ident, eol, eol);
    sb_free(&push);
    sb_free(&pop);
    free(macro);
    patch_pointer_shape_free(&sh);
    return NULL;
}

void patch_pointer_lines_free(struct patch_pointer_lines *l)
{
    free(l->before);
    free(l->after);
    memset(l, 0, sizeof *l);
}
