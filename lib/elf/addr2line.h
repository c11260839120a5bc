/* addr2line.h - the inline frames of code addresses, as binutils'
 * `addr2line -a -i -f` prints them: for each address a "0x..." line, then
 * its frames innermost first, each a "NAME" line and a "FILE:LINE" line.
 * Only the parsing is here (no spawning: the callers run addr2line with
 * run/spawn.h, on a linked file or, with -j SECTION, on a relocatable
 * object, whose DWARF addr2line relocates itself). */
#ifndef FMVGEN_ELF_ADDR2LINE_H
#define FMVGEN_ELF_ADDR2LINE_H

#include <stddef.h>

/* For each "0x..." address line of text: fn(addr, names, files, lines, n,
 * ctx) with its frames, innermost first (files[i] "" when unknown: "??";
 * lines[i] 0 when unknown, kept for the first 64 frames). A frame named
 * "??", or an innermost frame with no file ("??:0", code built without
 * -g), makes the chain unknown: n = 0. */
typedef void (*addr2line_frames_fn)(unsigned long long addr, char *const *names, char *const *files,
                                    const int *lines, size_t n, void *ctx);
void addr2line_parse(const char *text, addr2line_frames_fn fn, void *ctx);

#endif
