/* cpuid.c - see cpuid.h. The preamble text of cpuid dispatch (the CPU
 * detection, the target macros, the trampoline shared with pointer
 * dispatch) and the lines each function gets. */
#include "patch/cpuid.h"
#include "patch/plan_internal.h"
#include "store/notes.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define V2 "sse3,ssse3,sse4.1,sse4.2,popcnt,cx16,sahf"
#define V3_NOFMA V2 ",avx,avx2,bmi,bmi2,f16c,lzcnt,movbe,xsave"
#define V3 V3_NOFMA ",fma"
#define V4 V3 ",avx512f,avx512bw,avx512cd,avx512dq,avx512vl"

/* The targets a copy can be made for: the --targets name, the copy's slug
 * (fmvgen_cp_<ident>_<slug>) and macro suffix, the level bit of
 * fmvgen_cpu_levels it needs, and its target("...") features. */
static const struct cpu_target {
    const char *name, *slug, *macro;
    unsigned level;
    const char *features;
} TARGETS[] = {
    {"arch=x86-64-v4", "x86_64_v4", "X86_64_V4", 4, V4},
    {"arch=x86-64-v3", "x86_64_v3", "X86_64_V3", 2, V3},
    {"avx2", "avx2", "AVX2", 2, V3_NOFMA},
    {"arch=x86-64-v2", "x86_64_v2", "X86_64_V2", 1, V2},
};
#define NTARGETS (sizeof TARGETS / sizeof TARGETS[0])

static const struct cpu_target *target_of(const char *name)
{
    for (size_t i = 0; i < NTARGETS; i++)
        if (!strcmp(TARGETS[i].name, name)) return &TARGETS[i];
    return NULL;
}

const char *patch_cpuid_unknown_target(const struct strvec *targets)
{
    for (size_t i = 0; i < targets->n; i++)
        if (!target_of(targets->v[i])) return targets->v[i];
    return NULL;
}

/* 1 when some set of sets[0..n) has target t. */
static int used(const struct patch_target_set *sets, size_t n, const struct cpu_target *t)
{
    for (size_t s = 0; s < n; s++)
        for (size_t i = 0; i < sets[s].targets.n; i++)
            if (!strcmp(sets[s].targets.v[i], t->name)) return 1;
    return 0;
}

/* ---- the preamble ---- */

/* fmvgen_cpu_levels: CPUID leaves 0, 7.0, 0x80000001, 1 and XCR0, as GCC's
 * and glibc's x86-64-vN levels define them; the answer kept after the
 * first call. One per linked file, as it is a fixed part of every
 * selection's code growth (select/budget.h): C has no COMDAT, so it is
 * assembly in a COMDAT group (its code and its known byte) with a weak
 * hidden symbol, PATCH_CPUID_LEVELS_SYMBOL, which every object file of a
 * link defines and the linker keeps once; the C name is a hidden
 * declaration of that symbol, so resolvers call it directly (no PLT or GOT,
 * no relocation at run time: IFUNC resolvers run before relocation ends).
 * .ifndef keeps it once per assembly file (GCC and clang's LTO join the
 * files' top-level asm), each __asm__ string stays within C89's 509
 * characters, and in a TU its text comes once (the preamble's guard).
 * Placed with the copies (FMVGEN_CPU_LV_SEC_: a COMDAT section named
 * PATCH_CPUID_SECTION, after the linked .text, so it moves no unchanged
 * function; .text.unlikely.<sym> under -DFMVGEN_CPU_NO_SECTION). GNU ld,
 * gold and lld keep sections of one name in different groups apart and
 * place the kept one in the orphan output section with the copies.
 * Small code: cold, rbx kept in r8 rather than on the
 * stack (no CFA change), the bits of EBX.7, ECX.80000001 (<< 9) and XCR0
 * (<< 18) gathered in one word, esi (no two overlap), so that each level
 * is two mask tests on missing bits (not), and known holds the answer + 1
 * (0: not asked yet). It changes only eax, ecx, edx, esi, edi and r8,
 * all call-clobbered. Its instructions are written as bytes (.byte, jumps
 * as label differences, the known byte as a PC-relative .long), so that
 * the assembler's syntax does not matter: a -masm=intel build assembles
 * it as well. In AT&T syntax:
 *       movzbl known(%rip), %eax; sub $1, %eax; js 1f; ret
 *   1:  mov %rbx, %r8; xor %eax, %eax; cpuid; xor %esi, %esi; cmp $7, %eax; jb 2f
 *       mov $7, %eax; xor %ecx, %ecx; cpuid; mov %ebx, %esi
 *   2:  and $0xd0030128, %esi; mov $0x80000001, %eax; cpuid; and $0x21, %ecx
 *       shl $9, %ecx; or %ecx, %esi; mov $1, %eax; cpuid; mov %ecx, %edi
 *       bt $27, %ecx; jnc 3f; xor %ecx, %ecx; xgetbv; and $0xe6, %eax
 *       shl $18, %eax; or %eax, %esi
 *   3:  mov %r8, %rbx; not %edi; not %esi; xor %eax, %eax
 *       test $0x982201, %edi; jnz 4f; test $0x200, %esi; jnz 4f; mov $1, %al
 *       test $0x3cd83201, %edi; jnz 4f; test $0x184328, %esi; jnz 4f; mov $3, %al
 *       test $0xd39b4328, %esi; jnz 4f; mov $7, %al
 *   4:  lea 1(%rax), %ecx; mov %cl, known(%rip); ret */
#define LV PATCH_CPUID_LEVELS_SYMBOL
static const char *const LEVELS_LINES[] = {
    "/* fmvgen_cpu_levels - bit 0: x86-64-v2, bit 1: x86-64-v3, bit 2: x86-64-v4 (CPUID and XCR0) - is",
    " * one per linked file: a weak hidden definition in a COMDAT group (assembly: C has none) */",
    "__attribute__((visibility(\"hidden\"), cold)) unsigned fmvgen_cpu_levels(void) __asm__(\"" LV "\");",
    "__asm__(\".ifndef " LV "\\n\" /* once per assembly file (LTO joins files) */",
    "  \".pushsection \" FMVGEN_CPU_LV_SEC_ \", \\\"axG\\\", @progbits, " LV ", comdat\\n\"",
    "  \".weak " LV "\\n.hidden " LV "\\n.type " LV ", @function\\n\"",
    "  /* the code as bytes: it assembles whatever the syntax (-masm=intel too) */",
    "  \"" LV ":\\n.cfi_startproc\\n.byte 15,182,5\\n.long .Lfmvgen_cpu_known-.-4\\n.byte 131,232,1,120,1f-.-1,195\\n\"",
    "  \"1:\\n.byte 73,137,216,49,192,15,162,49,246,131,248,7,114,2f-.-1,184,7,0,0,0,49,201,15,162,137,222\\n\");",
    "/* esi: EBX.7 (bmi1 avx2 bmi2, avx512f dq cd bw vl), ECX.80000001 (lahf lzcnt) << 9, XCR0 << 18 */",
    "__asm__(\"2:\\n.byte 129,230,40,1,3,208,184,1,0,0,128,15,162,131,225,33,193,225,9,9,206,184,1,0,0,0,15,162\\n\"",
    "  \".byte 137,207,15,186,225,27,115,3f-.-1,49,201,15,1,208,37,230,0,0,0,193,224,18,9,198\\n\" /* xgetbv */",
    "  /* ECX.1: sse3 ssse3 cx16 sse4.1 sse4.2 popcnt; + fma movbe xsave osxsave avx f16c (missing bits: not) */",
    "  \"3:\\n.byte 76,137,195,247,215,247,214,49,192,247,199,1,34,152,0,117,4f-.-1,247,198,0,2,0,0,117,4f-.-1\\n\"",
    "  \".byte 176,1,247,199,1,50,216,60,117,4f-.-1,247,198,40,67,24,0,117,4f-.-1,176,3,247,198,40,67,155,211\\n\"",
    "  \".byte 117,4f-.-1,176,7\\n\");",
    "/* known: the answer + 1 (0: not asked yet) */",
    "__asm__(\"4:\\n.byte 141,72,1,136,13\\n.long .Lfmvgen_cpu_known-.-4\\n.byte 195\\n.cfi_endproc\\n\"",
    "  \".size " LV ", .-" LV "\\n.popsection\\n\"",
    "  \".pushsection .bss." LV ", \\\"awG\\\", @nobits, " LV ", comdat\\n\"",
    "  \".Lfmvgen_cpu_known: .zero 1\\n.popsection\\n.endif\\n\");",
    NULL,
};
#undef LV

/* FMVGEN_CPU_SEC_: the target copies and the resolvers go to section
 * PATCH_CPUID_SECTION, a name not starting with ".text", which GNU ld,
 * gold and lld place after the linked .text output section (an orphan
 * section, after every file's own functions): what a selection adds then
 * moves none of the project's unchanged functions. */
static void section_lines(struct strbuf *sb, const char *eol)
{
    patch_text_line(sb, eol, "#  ifndef FMVGEN_CPU_NO_SECTION");
    patch_text_line(sb, eol, "   /* copies and resolvers after the linked .text: unchanged functions keep their offsets */");
    patch_text_line(sb, eol, "#   define FMVGEN_CPU_SEC_ , section(\"%s\")", PATCH_CPUID_SECTION);
    patch_text_line(sb, eol, "#   define FMVGEN_CPU_LV_SEC_ \"%s\"", PATCH_CPUID_SECTION);
    patch_text_line(sb, eol, "#  else");
    patch_text_line(sb, eol, "#   define FMVGEN_CPU_SEC_");
    patch_text_line(sb, eol, "#   define FMVGEN_CPU_LV_SEC_ \".text.unlikely.%s\"", PATCH_CPUID_LEVELS_SYMBOL);
    patch_text_line(sb, eol, "#  endif");
}

static void shared_block(struct strbuf *sb, const char *eol)
{
    patch_text_line(sb, eol, "#ifndef %s_STATIC", PATCH_CPUID_MACRO);
    patch_text_line(sb, eol, "# if !defined(FMVGEN_NO_CLONES) && defined(__has_attribute) && defined(__x86_64__) && defined(__ELF__) && !defined(__cplusplus)");
    patch_text_line(sb, eol, "#  if __has_attribute(target) && __has_attribute(naked) && __has_attribute(always_inline) && __has_attribute(noinline)");
    patch_text_line(sb, eol, "#   define FMVGEN_CPU_ON");
    patch_libc_probe(sb, eol, "#   ");
    patch_text_line(sb, eol, "#   if %s && __has_attribute(ifunc) && !defined(FMVGEN_CPU_NO_IFUNC)", PATCH_IFUNC_LIBC);
    patch_text_line(sb, eol, "#    define FMVGEN_CPU_IFUNC");
    patch_text_line(sb, eol, "     /* clang makes a static function's IFUNC a global symbol */");
    patch_text_line(sb, eol, "#    ifndef __clang__");
    patch_text_line(sb, eol, "#     define FMVGEN_CPU_IFUNC_STATIC");
    patch_text_line(sb, eol, "#    endif");
    patch_text_line(sb, eol, "#   endif");
    patch_text_line(sb, eol, "#  endif");
    patch_text_line(sb, eol, "# endif");
    patch_text_line(sb, eol, "# ifdef FMVGEN_CPU_ON");
    patch_text_line(sb, eol, "#  define %s static __inline__ __attribute__((always_inline))", PATCH_CPUID_MACRO);
    patch_text_line(sb, eol, "#  define %s_STATIC __inline__ __attribute__((always_inline))", PATCH_CPUID_MACRO);
    section_lines(sb, eol);
    patch_text_line(sb, eol, "# else");
    patch_text_line(sb, eol, "#  define %s", PATCH_CPUID_MACRO);
    patch_text_line(sb, eol, "#  define %s_STATIC", PATCH_CPUID_MACRO);
    patch_text_line(sb, eol, "# endif");
    patch_text_line(sb, eol, "#endif");
    patch_text_line(sb, eol, "#if defined(FMVGEN_CPU_ON) && !defined(FMVGEN_CPU_BODY)");
    /* pointer dispatch's (patch/pointer.c), which may come first */
    patch_text_line(sb, eol, "# ifndef FMVGEN_PTR_DEF");
    patch_pointer_entry_macros(sb, eol);
    patch_text_line(sb, eol, "# endif");
    patch_pointer_body_macro(sb, eol, 1);
    for (size_t i = 0; LEVELS_LINES[i]; i++) patch_text_line(sb, eol, "%s", LEVELS_LINES[i]);
    patch_text_line(sb, eol, "#endif");
}

static void target_macro(struct strbuf *sb, const char *eol, const char *macro, const char *features)
{
    patch_text_line(sb, eol, "#ifndef FMVGEN_CPU_T_%s", macro);
    if (features)
        patch_text_line(sb, eol, "# define FMVGEN_CPU_T_%s __attribute__((target(\"%s\"), noinline FMVGEN_NO_IPA_RA_ FMVGEN_CPU_SEC_))", macro,
                        features);
    else
        patch_text_line(sb, eol, "# define FMVGEN_CPU_T_%s __attribute__((noinline))", macro);
    patch_text_line(sb, eol, "#endif");
}

char *patch_preamble_cpuid(const struct patch_target_set *sets, size_t n, const char *eol)
{
    struct strbuf sb = STRBUF_INIT;
    patch_text_line(&sb, eol, "/* fmvgen (--dispatch cpuid): %s before a function - %s_STATIC for", PATCH_CPUID_MACRO,
                    PATCH_CPUID_MACRO);
    patch_text_line(&sb, eol, " * a static one - makes it an always_inline body named fmvgen_mv_<name> (renamed");
    patch_text_line(&sb, eol, " * by the #define above it); below it come one copy per target, compiled with");
    patch_text_line(&sb, eol, " * FMVGEN_CPU_T_<TARGET> (fmvgen_cp_<name>_<target>), a resolver choosing one by");
    patch_text_line(&sb, eol, " * fmvgen_cpu_levels (CPUID, below; no libgcc CPU detection), and <name> itself.");
    patch_text_line(&sb, eol, " * Where the C library runs IFUNC resolvers - glibc, recognized by __GLIBC__ (not");
    patch_text_line(&sb, eol, " * uClibc; where no C library header came before, <limits.h> is included to");
    patch_text_line(&sb, eol, " * tell), dynamic, -static and -static-pie - <name> is an IFUNC whose resolver is");
    patch_text_line(&sb, eol, " * that one (FMVGEN_CPU_IFUNC; a static function only with gcc: clang makes its");
    patch_text_line(&sb, eol, " * IFUNC a global symbol). Elsewhere (musl, other C libraries, clang's static");
    patch_text_line(&sb, eol, " * functions, -DFMVGEN_CPU_NO_IFUNC) <name> is a jump through a pointer set, once,");
    patch_text_line(&sb, eol, " * to that copy. Compilers without the target, naked or always_inline attributes,");
    patch_text_line(&sb, eol, " * non-x86-64 or non-ELF builds, C++ and -DFMVGEN_NO_CLONES get the plain");
    patch_text_line(&sb, eol, " * functions. */");
    shared_block(&sb, eol);
    patch_no_ipa_ra_macro(&sb, eol);
    for (size_t i = NTARGETS; i-- > 0;)
        if (used(sets, n, &TARGETS[i])) target_macro(&sb, eol, TARGETS[i].macro, TARGETS[i].features);
    target_macro(&sb, eol, "DEFAULT", NULL);
    patch_text_line(&sb, eol, "%s", "");
    return sb_detach(&sb);
}

int patch_cpuid_preamble_defined(const char *text, size_t offset, const struct patch_target_set *sets, size_t n)
{
    if (!patch_guard_defined(text, offset, PATCH_CPUID_MACRO "_STATIC") || !patch_guard_defined(text, offset, "FMVGEN_CPU_T_DEFAULT"))
        return 0;
    for (size_t i = 0; i < NTARGETS; i++) {
        if (!used(sets, n, &TARGETS[i])) continue;
        char *m = xasprintf("FMVGEN_CPU_T_%s", TARGETS[i].macro);
        int there = patch_guard_defined(text, offset, m);
        free(m);
        if (!there) return 0;
    }
    return 1;
}

/* ---- one function's lines ---- */

/* The names f's copies forward, "a, n", and whether f returns void; or
 * why they cannot be written. */
static const char *forwarding(const struct patch_function *f, struct strbuf *args, int *is_void)
{
    json_t *note = notes_find(f->notes, NOTE_PARAMS);
    if (!note) return "scanned before fmvgen recorded parameter names: run fmvgen scan again";
    const char *refused = json_string_value(json_object_get(note, "refused"));
    if (refused) return refused;
    json_t *names = json_object_get(note, "names");
    if (!json_is_array(names)) return "its params note lists no names: run fmvgen scan again";
    size_t i;
    json_t *v;
    json_array_foreach(names, i, v)
    {
        if (!json_is_string(v)) return "its params note lists no names: run fmvgen scan again";
        sb_addf(args, "%s%s", i ? ", " : "", json_string_value(v));
    }
    *is_void = json_is_true(json_object_get(note, "void"));
    return NULL;
}

/* 1 when f's head has an attribute its IFUNC cannot take, so f keeps the
 * trampoline: weak (GCC: "indirect function cannot be declared weak") or
 * section (GCC: "section of alias must match section of its target";
 * clang ignores it), with or without underscores. A macro that expands to
 * one is not seen. */
static int head_refuses_ifunc(const char *head)
{
    static const char *const WORDS[] = {"weak", "__weak__", "section", "__section__"};
    for (const char *p = head; *p;) {
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q) p += p[0] == '\\' && p[1] ? 2 : 1;
            if (*p) p++;
            continue;
        }
        size_t n = 0;
        while (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9')) n++;
        if (!n) {
            p++;
            continue;
        }
        for (size_t i = 0; i < sizeof WORDS / sizeof *WORDS; i++)
            if (strlen(WORDS[i]) == n && !strncmp(p, WORDS[i], n)) return 1;
        p += n;
    }
    return 0;
}

const char *patch_cpuid_lines(const struct patch_function *f, const char *text, size_t len,
                              const struct patch_target_set *set, struct patch_pointer_lines *out)
{
    memset(out, 0, sizeof *out);
    struct strbuf args = STRBUF_INIT;
    int is_void = 0;
    const char *why = forwarding(f, &args, &is_void);
    struct patch_pointer_shape sh;
    memset(&sh, 0, sizeof sh);
    if (!why) why = patch_pointer_shape(f, text, len, &sh);
    if (!why && sh.name_at == (size_t)-1) why = "its name is not written once in its head";
    if (!why) {
        for (size_t i = 0; i < set->targets.n && !why; i++)
            if (!target_of(set->targets.v[i])) why = "a target --dispatch cpuid has no copy for";
    }
    if (why) {
        sb_free(&args);
        patch_pointer_shape_free(&sh);
        return why;
    }
    const char *eol = sh.eol, *id = sh.ident;
    int indent = (int)sh.indent;
    const char *lead = text + f->offset;
    out->before_offset = f->offset;
    struct strbuf push = STRBUF_INIT;
    patch_pointer_self_name(&push, &sh, 0, 1);
    /* the body is static, said once: _STATIC where the head says it; a head
     * whose static is an earlier declaration's gets the macro that says it
     * (else the renamed body would be an external inline definition, which
     * may not use the file's static functions, C99 6.7.4p3) */
    out->before = xasprintf("#ifdef FMVGEN_CPU_ON%s# define %s fmvgen_mv_%s%s%s# pragma GCC diagnostic push%s"
                            "# pragma GCC diagnostic ignored \"-Wattributes\"%s#endif%s%.*s%s%s%s",
                            eol, id, id, eol, sb_str(&push), eol, eol, eol, indent, lead, PATCH_CPUID_MACRO,
                            f->is_static && !f->static_earlier ? "_STATIC" : "", eol);
    sb_free(&push);
    struct strbuf sb = STRBUF_INIT;
    if (sh.after_eol) sb_adds(&sb, eol);
    sb_addf(&sb, "#ifdef FMVGEN_CPU_ON%s", eol);
    patch_pointer_self_name(&sb, &sh, 0, 0);
    sb_addf(&sb, "# undef %s%s", id, eol);
    const char *head = sh.head, *rest = sh.head + sh.name_at + strlen(id);
    /* the copies: the set's targets, the highest level first, then default */
    const struct cpu_target *order[NTARGETS];
    size_t norder = 0;
    for (size_t t = 0; t < NTARGETS; t++)
        for (size_t i = 0; i < set->targets.n; i++)
            if (!strcmp(set->targets.v[i], TARGETS[t].name)) {
                order[norder++] = &TARGETS[t];
                break;
            }
    /* the copies are the file's own: static, said once - a static head
     * says it (or its macro does); a head whose static is an earlier
     * declaration's does not, and without it the copies would be global
     * symbols that two files' copies of one name collide on */
    int copy_static = !f->is_static || f->static_earlier;
    for (size_t k = 0; k <= norder; k++) {
        const char *slug = k < norder ? order[k]->slug : "default";
        const char *macro = k < norder ? order[k]->macro : "DEFAULT";
        int pin = patch_copy_pin_of(f, slug);
        char *pinattr = pin >= 0 ? patch_pin_attribute(pin) : NULL;
        sb_addf(&sb, "%.*s%s%s%sFMVGEN_CPU_T_%s %.*sfmvgen_cp_%s_%s%s { %sfmvgen_mv_%s(%s); }%s", indent, lead,
                pinattr ? pinattr : "", pinattr ? " " : "", copy_static ? "static " : "", macro, (int)sh.name_at, head, id, slug, rest, is_void ? "" : "return ",
                id, sb_str(&args), eol);
        free(pinattr);
    }
    /* its type is f's, so an IFUNC's resolver needs no cast (GCC's
     * -Wattribute-alias checks it). used: clang 14 walks its call graph from
     * the functions other files or data can reach, and an IFUNC's resolver is
     * none of them, so it inlined nothing into the copies (measured: the
     * always_inline body stayed a call); used puts the resolver in
     * llvm.used, data, and keeps clang from warning -Wunused-function of a
     * resolver only an ifunc attribute names. */
    sb_addf(&sb, "%.*sstatic __attribute__((used FMVGEN_CPU_SEC_)) __typeof__(&fmvgen_mv_%s) fmvgen_resolve_%s(void) "
                 "{ unsigned l = fmvgen_cpu_levels(); return ", indent, lead, id, id);
    for (size_t k = 0; k < norder; k++) sb_addf(&sb, "l & %uu ? fmvgen_cp_%s_%s : ", order[k]->level, id, order[k]->slug);
    sb_addf(&sb, "fmvgen_cp_%s_default; }%s", id, eol);
    int ifunc = !head_refuses_ifunc(head) && !f->plain_symbol;   /* plain_symbol: patch/ltexports.h */
    if (ifunc) {
        sb_addf(&sb, "# ifdef FMVGEN_CPU_IFUNC%s%s", f->is_static ? "_STATIC" : "", eol);
        sb_addf(&sb, "%.*s%s __attribute__((ifunc(\"fmvgen_resolve_%s\")));%s# else%s", indent, lead, head, id, eol, eol);
    }
    sb_addf(&sb, "%.*sFMVGEN_PTR_DEF %s FMVGEN_CPU_%sBODY(%s, fmvgen_resolve_%s)%s", indent, lead, head,
            f->is_static ? "STATIC_" : "", f->name, id, eol); /* STATIC_: LTO-proof labels (pointer.h) */
    if (ifunc) sb_addf(&sb, "# endif%s", eol);
    sb_addf(&sb, "# pragma GCC diagnostic pop%s#endif%s", eol, eol);
    out->after_offset = sh.after_offset;
    out->after = sb_detach(&sb);
    sb_free(&args);
    patch_pointer_shape_free(&sh);
    return NULL;
}
