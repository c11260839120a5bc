/* samecode.c - see samecode.h. Each side is reduced to a byte string: per
 * instruction its length, its bytes with the address fields zeroed, and
 * each address it holds, normalized (an offset from the start when inside
 * the code, else absolute); the two strings are then compared. */
#include "elf/samecode.h"

#include <stdlib.h>
#include <string.h>

#include "elf/disasm.h"
#include "elf/elffile.h"
#include "util/util.h"

struct normal {
    struct strbuf out;
    uint64_t start, end;
    uint8_t *decoded;   /* [byte]: inside an instruction that decoded */
    const struct elf_file *ef;   /* elf_code_same_moved: targets outside by name */
};

/* The function symbol of ef whose code holds addr, or NULL. */
static const struct elf_sym *func_holding(const struct elf_file *ef, uint64_t addr)
{
    size_t i = elf_file_addr_lower_bound(ef, addr + 1);
    while (i > 0) {
        const struct elf_sym *s = ef->by_addr[--i];
        if (s->value > addr) continue;
        if (addr < s->value + s->size) return s;
        if (s->size) return NULL;   /* the nearest sized one below ends before addr */
    }
    return NULL;
}

static void put_u64(struct strbuf *sb, char tag, uint64_t v)
{
    char b[9];
    b[0] = tag;
    memcpy(b + 1, &v, 8);
    sb_add(sb, b, sizeof b);
}

static void put_target(struct normal *n, uint64_t target)
{
    if (target >= n->start && target < n->end) {
        put_u64(&n->out, 'i', target - n->start);
    } else if (!n->ef) {
        put_u64(&n->out, 'a', target);
    } else {
        const struct elf_sym *s = func_holding(n->ef, target);
        if (!s) {
            put_u64(&n->out, 'o', 0);
            return;
        }
        put_u64(&n->out, 'f', target - s->value);
        sb_adds(&n->out, s->name);
        sb_addc(&n->out, 0);
    }
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
            uint64_t at = insn->address + insn->size + (uint64_t)op->mem.disp;
            if (n->ef && !(at >= n->start && at < n->end)) put_u64(&n->out, 'd', 0);
            else put_target(n, at);
            zero(bytes, size, x->encoding.disp_offset, x->encoding.disp_size);
        }
    }
    sb_add(&n->out, (const char *)bytes, size);
    if (insn->address >= n->start && insn->address + size <= n->end)
        memset(n->decoded + (insn->address - n->start), 1, size);
    return 0;
}

static int reduce(const uint8_t *code, size_t len, uint64_t addr, const struct elf_file *ef, struct normal *n)
{
    n->out = (struct strbuf)STRBUF_INIT;
    n->ef = ef;
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

static int same(const uint8_t *a, size_t a_len, uint64_t a_addr, const struct elf_file *ea, const uint8_t *b,
                size_t b_len, uint64_t b_addr, const struct elf_file *eb)
{
    if (!a || !b || a_len == 0 || a_len != b_len) return 0;
    struct normal na, nb;
    if (reduce(a, a_len, a_addr, ea, &na) != 0) {
        sb_free(&na.out);
        return -1;
    }
    if (reduce(b, b_len, b_addr, eb, &nb) != 0) {
        sb_free(&na.out);
        sb_free(&nb.out);
        return -1;
    }
    int same = na.out.len == nb.out.len && memcmp(na.out.buf, nb.out.buf, na.out.len) == 0;
    sb_free(&na.out);
    sb_free(&nb.out);
    return same;
}

int elf_code_same(const uint8_t *a, size_t a_len, uint64_t a_addr, const uint8_t *b, size_t b_len,
                  uint64_t b_addr)
{
    return same(a, a_len, a_addr, NULL, b, b_len, b_addr, NULL);
}

int elf_code_same_moved(const struct elf_file *a, const struct elf_sym *sym_a, const struct elf_file *b,
                        const struct elf_sym *sym_b)
{
    const uint8_t *ca = elf_file_bytes(a, sym_a->value, sym_a->size), *cb = elf_file_bytes(b, sym_b->value, sym_b->size);
    if (!ca || !cb || !sym_a->size) return -1;
    return same(ca, sym_a->size, sym_a->value, a, cb, sym_b->size, sym_b->value, b);
}
