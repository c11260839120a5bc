/* disasm.c - see disasm.h. */
#include "elf/disasm.h"

#include "util/util.h"

long disasm_walk(const uint8_t *code, size_t len, uint64_t addr, disasm_fn fn, void *ctx, size_t *n_undecoded)
{
    csh handle;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) {
        fmv_error("capstone: cannot open the x86-64 disassembler");
        return -1;
    }
    cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
    cs_insn *insn = cs_malloc(handle);
    long count = 0;
    size_t undecoded = 0;
    const uint8_t *p = code;
    size_t left = len;
    uint64_t pc = addr;
    while (left > 0) {
        if (!cs_disasm_iter(handle, &p, &left, &pc, insn)) {
            /* Not an instruction: step over one byte and resynchronise. */
            p++, left--, pc++, undecoded++;
            continue;
        }
        count++;
        if (fn && fn(insn, ctx)) break;
    }
    cs_free(insn, 1);
    cs_close(&handle);
    if (n_undecoded) *n_undecoded = undecoded;
    return count;
}

/* The opcode's first byte, after the prefixes that may precede VEX/EVEX
 * (segment overrides and the address-size prefix). */
static int first_encoding_byte(const cs_insn *insn)
{
    for (uint16_t i = 0; i < insn->size; i++) {
        uint8_t b = insn->bytes[i];
        if (b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 || b == 0x67) continue;
        return b;
    }
    return -1;
}

int disasm_is_evex(const cs_insn *insn)
{
    return insn->size >= 4 && first_encoding_byte(insn) == 0x62;
}

int disasm_is_vex(const cs_insn *insn)
{
    int b = first_encoding_byte(insn);
    return insn->size >= 2 && (b == 0xc4 || b == 0xc5);
}
