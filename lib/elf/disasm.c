/* disasm.c - see disasm.h. */
#include "elf/disasm.h"

#include <stdlib.h>

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

static int is_group(const cs_insn *insn, uint8_t group)
{
    for (uint8_t i = 0; insn->detail && i < insn->detail->groups_count; i++)
        if (insn->detail->groups[i] == group) return 1;
    return 0;
}

long disasm_walk_flow(const uint8_t *code, size_t len, uint64_t addr, disasm_fn fn, void *ctx, uint64_t *extent)
{
    csh handle;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) {
        fmv_error("capstone: cannot open the x86-64 disassembler");
        return -1;
    }
    cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
    cs_insn *insn = cs_malloc(handle);
    unsigned char *seen = xcalloc(len ? len : 1, 1);
    size_t *todo = xmalloc(sizeof *todo), ntodo = 0, captodo = 1;
    todo[ntodo++] = 0;
    long count = 0;
    uint64_t far = 0;
    int stopped = 0;
    while (ntodo && !stopped) {
        size_t off = todo[--ntodo];
        while (off < len && !seen[off]) {
            const uint8_t *p = code + off;
            size_t left = len - off;
            uint64_t pc = addr + off;
            if (!cs_disasm_iter(handle, &p, &left, &pc, insn)) break;
            seen[off] = 1;
            count++;
            if (off + insn->size > far) far = off + insn->size;
            if (fn && fn(insn, ctx)) {
                stopped = 1;
                break;
            }
            if (is_group(insn, X86_GRP_RET) || insn->id == X86_INS_UD2 || insn->id == X86_INS_HLT) break;
            if (is_group(insn, X86_GRP_JUMP)) {
                const cs_x86 *x = &insn->detail->x86;
                if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
                    uint64_t target = (uint64_t)x->operands[0].imm;
                    if (target >= addr && target - addr < len) {
                        if (ntodo == captodo) todo = xrealloc(todo, (captodo *= 2) * sizeof *todo);
                        todo[ntodo++] = (size_t)(target - addr);
                    }
                }
                if (insn->id == X86_INS_JMP) break;  /* unconditional: no fall-through */
            }
            off += insn->size;
        }
    }
    free(todo);
    free(seen);
    cs_free(insn, 1);
    cs_close(&handle);
    if (extent) *extent = far;
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
