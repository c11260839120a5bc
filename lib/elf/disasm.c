/* disasm.c - see disasm.h. */
#include "elf/disasm.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Opcodes of VEX map 1 that work on mask registers (kand, kor, kmov,
 * kortest, ...): AVX-512 instructions despite their VEX encoding. */
static int is_mask_opcode(uint8_t op)
{
    return (op >= 0x41 && op <= 0x4b) || (op >= 0x90 && op <= 0x93) || op == 0x98 || op == 0x99;
}

/* Measures the VEX (C4/C5) or EVEX (62) instruction at p; 0 when p does
 * not start one or it is truncated. */
static size_t vex_length(const uint8_t *p, size_t left, int *bits, int *evex, int *mask)
{
    size_t i;
    int map;
    *evex = *mask = 0;
    if (left >= 6 && p[0] == 0x62) {
        map = p[1] & 0x7;
        int ll = (p[3] >> 5) & 3;
        *bits = ll == 0 ? 128 : ll == 1 ? 256 : 512;
        *evex = 1;
        i = 4;
    } else if (left >= 3 && p[0] == 0xc5) {
        map = 1;
        *bits = (p[1] & 4) ? 256 : 128;
        i = 2;
    } else if (left >= 4 && p[0] == 0xc4) {
        map = p[1] & 0x1f;
        *bits = (p[2] & 4) ? 256 : 128;
        i = 3;
    } else {
        return 0;
    }
    uint8_t op = p[i++];
    if (map == 1 && op == 0x77) return i;  /* vzeroupper/vzeroall: no ModRM */
    if (i >= left) return 0;
    uint8_t modrm = p[i++];
    int mod = modrm >> 6, rm = modrm & 7;
    if (mod != 3 && rm == 4) {
        if (i >= left) return 0;
        uint8_t sib = p[i++];
        if (mod == 0 && (sib & 7) == 5) i += 4;
    }
    if (mod == 1) i += 1;
    else if (mod == 2 || (mod == 0 && rm == 5)) i += 4;
    if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || (op >= 0xc2 && op <= 0xc6)))) i += 1;
    if (!*evex && map == 1 && is_mask_opcode(op)) *mask = 1;
    return i <= left ? i : 0;
}

/* What the walkers hand on for an instruction capstone 4 cannot decode. */
struct length_only {
    cs_insn insn;
    cs_detail detail;
};

static int decode_length_only(const uint8_t *p, size_t left, uint64_t pc, struct length_only *out)
{
    int bits, evex, mask;
    size_t len = vex_length(p, left, &bits, &evex, &mask);
    if (!len || len > sizeof out->insn.bytes) return 0;
    memset(out, 0, sizeof *out);
    out->insn.id = X86_INS_INVALID;
    out->insn.address = pc;
    out->insn.size = (uint16_t)len;
    memcpy(out->insn.bytes, p, len);
    strcpy(out->insn.mnemonic, evex ? "(evex)" : "(vex)");
    out->insn.detail = &out->detail;
    out->detail.groups[0] = evex || mask ? X86_GRP_AVX512 : X86_GRP_AVX;
    out->detail.groups_count = 1;
    if (!mask) {
        out->detail.x86.op_count = 1;
        out->detail.x86.operands[0].type = X86_OP_REG;
        out->detail.x86.operands[0].reg = bits == 512 ? X86_REG_ZMM0 : bits == 256 ? X86_REG_YMM0 : X86_REG_XMM0;
    }
    return 1;
}

int disasm_is_length_only(const cs_insn *insn)
{
    return insn->id == X86_INS_INVALID && insn->mnemonic[0] == '(';
}

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
        const cs_insn *seen = insn;
        struct length_only lo;
        if (!cs_disasm_iter(handle, &p, &left, &pc, insn)) {
            if (!decode_length_only(p, left, pc, &lo)) {
                /* Not an instruction: step over one byte and resynchronise. */
                p++, left--, pc++, undecoded++;
                continue;
            }
            p += lo.insn.size, left -= lo.insn.size, pc += lo.insn.size;
            seen = &lo.insn;
        }
        count++;
        if (fn && fn(seen, ctx)) break;
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
            const cs_insn *cur = insn;
            struct length_only lo;
            if (!cs_disasm_iter(handle, &p, &left, &pc, insn)) {
                if (!decode_length_only(code + off, len - off, addr + off, &lo)) break;
                cur = &lo.insn;
            }
            seen[off] = 1;
            count++;
            if (off + cur->size > far) far = off + cur->size;
            if (fn && fn(cur, ctx)) {
                stopped = 1;
                break;
            }
            if (is_group(cur, X86_GRP_RET) || cur->id == X86_INS_UD2 || cur->id == X86_INS_HLT) break;
            if (is_group(cur, X86_GRP_JUMP)) {
                const cs_x86 *x = &cur->detail->x86;
                if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
                    uint64_t target = (uint64_t)x->operands[0].imm;
                    if (target >= addr && target - addr < len) {
                        if (ntodo == captodo) todo = xrealloc(todo, (captodo *= 2) * sizeof *todo);
                        todo[ntodo++] = (size_t)(target - addr);
                    }
                }
                if (cur->id == X86_INS_JMP) break;  /* unconditional: no fall-through */
            }
            off += cur->size;
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
