/* samecode.c - see samecode.h. Each side is reduced to a byte string: per
 * instruction its length, its bytes with the address fields zeroed, and
 * each address it holds, normalized (an offset from the start when inside
 * the code, else absolute); the two strings are then compared. */
#include "elf/samecode.h"

#include <stdlib.h>
#include <string.h>

#include "elf/disasm.h"
#include "util/util.h"

struct normal {
    struct strbuf out;
    uint64_t start, end;
    uint8_t *decoded;   /* [byte]: inside an instruction that decoded */
};

static void put_u64(struct strbuf *sb, char tag, uint64_t v)
{
    char b[9];
    b[0] = tag;
    memcpy(b + 1, &v, 8);
    sb_add(sb, b, sizeof b);
}

static void put_target(struct normal *n, uint64_t target)
{
    if (target >= n->start && target < n->end) put_u64(&n->out, 'i', target - n->start);
    else put_u64(&n->out, 'a', target);
}

static void zero(uint8_t *bytes, size_t size, size_t off, size_t len)
{
    if (off && off < size && len <= size - off) memset(bytes + off, 0, len);
}

static int is_relative_branch(const cs_insn *insn)
{
    const cs_detail *d = insn->detail;
    for (uint8_t i = 0; i < d->groups_count; i++)
        if (d->groups[i] == X86_GRP_BRANCH_RELATIVE) return 1;
    return 0;
}

static int normalize(const cs_insn *insn, void *ctx)
{
    struct normal *n = ctx;
    uint8_t bytes[sizeof insn->bytes];
    size_t size = insn->size <= sizeof bytes ? insn->size : sizeof bytes;
    memcpy(bytes, insn->bytes, size);
    put_u64(&n->out, 's', size);
    if (insn->id != X86_INS_INVALID) {
        const cs_x86 *x = &insn->detail->x86;
        if (is_relative_branch(insn)) {
            for (uint8_t i = 0; i < x->op_count; i++)
                if (x->operands[i].type == X86_OP_IMM) put_target(n, (uint64_t)x->operands[i].imm);
            zero(bytes, size, x->encoding.imm_offset, x->encoding.imm_size);
        }
        for (uint8_t i = 0; i < x->op_count; i++) {
            const cs_x86_op *op = &x->operands[i];
            if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP) continue;
            put_target(n, insn->address + insn->size + (uint64_t)op->mem.disp);
            zero(bytes, size, x->encoding.disp_offset, x->encoding.disp_size);
        }
    }
    sb_add(&n->out, (const char *)bytes, size);
    if (insn->address >= n->start && insn->address + size <= n->end)
        memset(n->decoded + (insn->address - n->start), 1, size);
    return 0;
}

static int reduce(const uint8_t *code, size_t len, uint64_t addr, struct normal *n)
{
    n->out = (struct strbuf)STRBUF_INIT;
    n->start = addr;
    n->end = addr + len;
    n->decoded = xcalloc(len, 1);
    long rc = disasm_walk(code, len, addr, normalize, n, NULL);
    /* the bytes that did not decode, where they are */
    for (size_t i = 0; rc >= 0 && i < len; i++)
        if (!n->decoded[i]) {
            put_u64(&n->out, 'u', i);
            sb_addc(&n->out, (char)code[i]);
        }
    free(n->decoded);
    return rc < 0 ? -1 : 0;
}

int elf_code_same(const uint8_t *a, size_t a_len, uint64_t a_addr, const uint8_t *b, size_t b_len,
                  uint64_t b_addr)
{
    if (!a || !b || a_len == 0 || a_len != b_len) return 0;
    struct normal na, nb;
    if (reduce(a, a_len, a_addr, &na) != 0) {
        sb_free(&na.out);
        return -1;
    }
    if (reduce(b, b_len, b_addr, &nb) != 0) {
        sb_free(&na.out);
        sb_free(&nb.out);
        return -1;
    }
    int same = na.out.len == nb.out.len && memcmp(na.out.buf, nb.out.buf, na.out.len) == 0;
    sb_free(&na.out);
    sb_free(&nb.out);
    return same;
}
