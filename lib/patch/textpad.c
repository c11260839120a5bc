/* textpad.c - see textpad.h. */
#include "patch/textpad.h"

#include "patch/cpuid.h"
#include "patch/preamble.h"
#include "util/util.h"

#define SYM PATCH_TEXT_PAD_SYMBOL

char *patch_text_pad_block(unsigned bytes, const char *eol)
{
    struct strbuf sb = STRBUF_INIT;
    patch_text_line(&sb, eol, "#if defined(FMVGEN_CPU_ON) && !defined(FMVGEN_CPU_NO_SECTION) && "
                              "!defined(FMVGEN_NO_TEXT_PAD) && !defined(FMVGEN_TEXT_PAD_)");
    patch_text_line(&sb, eol, "# define FMVGEN_TEXT_PAD_ %u", bytes);
    patch_text_line(&sb, eol, "/* fmvgen_text_pad - %u bytes before the linked .text's functions, once per linked", bytes);
    patch_text_line(&sb, eol, " * file: the PLT entries of this selection's IFUNCs, before .text, would move every");
    patch_text_line(&sb, eol, " * function in it; this puts them back at their offsets mod 64 (measured by fmvgen");
    patch_text_line(&sb, eol, " * select; never run; -DFMVGEN_NO_TEXT_PAD drops it) */");
    patch_text_line(&sb, eol, "__asm__(\".ifndef " SYM "\\n\"");
    patch_text_line(&sb, eol, "  \".pushsection " PATCH_TEXT_PAD_SECTION ", \\\"axG\\\", @progbits, " SYM ", comdat\\n\"");
    patch_text_line(&sb, eol, "  \".weak " SYM "\\n.hidden " SYM "\\n.type " SYM ", @object\\n\"");
    patch_text_line(&sb, eol, "  \"" SYM ": .skip %u, 0xcc\\n.size " SYM ", %u\\n.popsection\\n\"", bytes, bytes);
    patch_text_line(&sb, eol, "  /* kept by --gc-sections with this file's copies */");
    patch_text_line(&sb, eol, "  \".pushsection " PATCH_CPUID_SECTION ", \\\"ax\\\", @progbits\\n.reloc ., R_X86_64_NONE, " SYM
                              "\\n.popsection\\n.endif\\n\");");
    patch_text_line(&sb, eol, "#endif");
    return sb_detach(&sb);
}
