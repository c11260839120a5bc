/* textpad.h - the pad before .text's functions (--dispatch cpuid; its
 * size comes from fmvgen select, select/textpad.h): K bytes that the
 * linker puts before the patched objects' .text input sections, once per
 * linked file, so that .text's functions are back at the offsets mod 64
 * they had before the patch's IFUNCs added K (mod 64) bytes of PLT entries
 * in front of .text (or the placement pins' alignment moved it).
 *
 * The patched file's preamble gets, after cpuid dispatch's block:
 *
 *   #if defined(FMVGEN_CPU_ON) && !defined(FMVGEN_CPU_NO_SECTION) && !defined(FMVGEN_NO_TEXT_PAD) && !defined(FMVGEN_TEXT_PAD_)
 *   # define FMVGEN_TEXT_PAD_ K
 *   __asm__(".ifndef fmvgen_text_pad.v1\n"
 *     ".pushsection .text.unlikely.fmvgen_text_pad, \"axG\", @progbits, fmvgen_text_pad.v1, comdat\n"
 *     ".weak fmvgen_text_pad.v1\n.hidden fmvgen_text_pad.v1\n.type fmvgen_text_pad.v1, @object\n"
 *     "fmvgen_text_pad.v1: .skip K, 0xcc\n.size fmvgen_text_pad.v1, K\n.popsection\n"
 *     ".pushsection fmvgen_text, \"ax\", @progbits\n.reloc ., R_X86_64_NONE, fmvgen_text_pad.v1\n"
 *     ".popsection\n.endif\n");
 *   #endif
 *
 * - Where: GNU ld's default script (and gold's layout) puts the
 *   .text.unlikely inputs of every object first in .text, before
 *   .text.exit, .text.startup (GCC's main), .text.hot and .text (crt1's
 *   _start, the functions), so the pad comes before every function of the
 *   link except the cold parts (.text.unlikely) of the objects linked before
 *   the first patched one; within that object, before its own cold parts
 *   (its top-level asm comes first). -ffunction-sections does not change
 *   that (.text.unlikely.* is matched first). lld does not sort: the pad
 *   stays where its object is (select never sets one there: its PLT follows
 *   .text).
 * - Once per linked file: a COMDAT group (C has none: assembly, as
 *   fmvgen_cpu_levels, patch/cpuid.h), which every patched object carries
 *   and the link keeps once (the first, in link order); a weak hidden
 *   symbol, never exported; .ifndef keeps one per assembly file (LTO).
 *   Alignment 1: it adds no padding of its own.
 * - --gc-sections: the R_X86_64_NONE reference from the file's copies'
 *   section (fmvgen_text, which its IFUNCs' resolvers keep) keeps it.
 * - Where cpuid dispatch is on (FMVGEN_CPU_ON), with the copies in
 *   fmvgen_text (not -DFMVGEN_CPU_NO_SECTION: then the copies move .text
 *   anyway): also without IFUNCs (musl's trampolines), where what moves
 *   .text is the 64-byte alignment of the placement pins in it, which the
 *   pad select measured covers too. A build may drop it with
 *   -DFMVGEN_NO_TEXT_PAD.
 * - The bytes are int3 (0xcc) and never run. */
#ifndef FMVGEN_PATCH_TEXTPAD_H
#define FMVGEN_PATCH_TEXTPAD_H

/* The symbol and COMDAT group of the pad. */
#define PATCH_TEXT_PAD_SYMBOL "fmvgen_text_pad.v1"
/* Its input section. */
#define PATCH_TEXT_PAD_SECTION ".text.unlikely.fmvgen_text_pad"

/* The lines above for a pad of bytes (1..63), each ending in eol. */
char *patch_text_pad_block(unsigned bytes, const char *eol);

#endif
