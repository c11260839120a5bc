/* clones.c - see clones.h. Discovery works on names first (the compilers'
 * conventions are exact and cheap), then on code: the versions of a
 * hand-written ifunc, or of a stripped file whose clone names are gone, are
 * the function addresses its resolver loads. */
#include "elf/clones.h"
#include "elf/clones_build.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/disasm.h"
#include "elf/elffile.h"
#include "util/util.h"

/* Name components that GCC/Clang append to a function they split, clone for
 * constants, or rename in LTO: such a symbol is a piece of a version, not a
 * version. */
static const char *const piece_words[] = {
    "cold", "constprop", "isra", "part", "lto_priv", "localalias", "omp_fn", "_omp_cpyfn",
    "llvm", "specialized", "__uniq", "clone", "resolver", "ifunc", NULL,
};

static int is_digits(const char *s, size_t n)
{
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* GCC's LTO renames local symbols "x" to "x.lto_priv.N": the length of
 * that tail of name, or 0. */
static size_t lto_tail_len(const char *name)
{
    static const char tag[] = ".lto_priv.";
    const char *t = strstr(name, tag);
    while (t) {
        const char *digits = t + sizeof tag - 1;
        if (is_digits(digits, strlen(digits))) return strlen(t);
        t = strstr(t + 1, tag);
    }
    return 0;
}

static char *suffix_target_plain(const char *suffix, int *numbered)
{
    const char *p = suffix;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        for (int w = 0; piece_words[w]; w++)
            if (strlen(piece_words[w]) == n && !strncmp(piece_words[w], p, n)) return NULL;
        p = dot ? dot + 1 : p + n;
    }
    size_t len = strlen(suffix);
    const char *last = strrchr(suffix, '.');
    if (last && is_digits(last + 1, len - (size_t)(last + 1 - suffix))) {
        len = (size_t)(last - suffix);
        *numbered = 1;
    }
    if (!len || is_digits(suffix, len)) return NULL;
    return xstrndup(suffix, len);
}

/* The target a clone suffix names ("avx2.0" -> "avx2", "sse4.2.0" ->
 * "sse4.2", "arch_x86_64_v3" -> itself, "avx2.lto_priv.0" -> "avx2"), or
 * NULL when the suffix marks a compiler-made piece. *numbered is set when
 * Clang's ".N" was dropped. */
static char *suffix_target(const char *full_suffix, int *numbered)
{
    *numbered = 0;
    size_t keep = strlen(full_suffix) - lto_tail_len(full_suffix);
    char *owned = xstrndup(full_suffix, keep);
    char *target = suffix_target_plain(owned, numbered);
    free(owned);
    return target;
}

struct elf_mv_function *elf_mv_new_function(struct fn_builder *b, const char *name, enum elf_mv_origin origin)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->fns = xrealloc(b->fns, b->cap * sizeof *b->fns);
    }
    struct elf_mv_function *f = &b->fns[b->n++];
    memset(f, 0, sizeof *f);
    f->name = xstrdup(name);
    f->origin = origin;
    return f;
}

void elf_mv_add_clone(struct elf_mv_function *f, const char *symbol, const char *target, uint64_t addr,
                      uint64_t size, int is_default)
{
    for (size_t i = 0; i < f->n_clones; i++)
        if (f->clones[i].addr == addr && !strcmp(f->clones[i].symbol, symbol)) return;
    f->clones = xrealloc(f->clones, (f->n_clones + 1) * sizeof *f->clones);
    f->clones[f->n_clones++] = (struct elf_clone){xstrdup(symbol), xstrdup(target), addr, size, is_default};
}

/* Name-based: the FUNC symbols "X.<suffix>" of a resolver "X.resolver". */
static void collect_named_clones(const struct elf_file *ef, struct elf_mv_function *f, int *numbered_any)
{
    size_t plen = strlen(f->name);
    char *prefix = xasprintf("%s.", f->name);
    for (size_t i = elf_file_sym_lower_bound(ef, prefix); i < ef->n_syms; i++) {
        const struct elf_sym *s = &ef->syms[i];
        if (strncmp(s->name, prefix, plen + 1)) break;  /* past the names starting with "X." */
        if (s->type != STT_FUNC) continue;
        int numbered;
        char *target = suffix_target(s->name + plen + 1, &numbered);
        if (!target) continue;
        *numbered_any |= numbered;
        elf_mv_add_clone(f, s->name, target, s->value, s->size, !strcmp(target, "default"));
        free(target);
    }
    free(prefix);
    /* GCC's target("...") overloads: the default version keeps the plain
     * name (a FUNC, where target_clones makes it the IFUNC). */
    if (!elf_mv_default(f)) {
        const struct elf_sym *plain = elf_file_sym_named(ef, f->name);
        if (plain && plain->type == STT_FUNC) elf_mv_add_clone(f, plain->name, "default", plain->value, plain->size, 1);
    }
}

/* Code-based: the addresses of code a resolver loads (lea rip-relative,
 * or an immediate in a non-PIE file) on any path it can take; calls and
 * jumps are control flow, not candidates. */
struct scan_ctx {
    const struct elf_file *ef;
    uint64_t self;
    uint64_t *addrs;
    size_t n;
    uint64_t cold;   /* a jump into a ".cold" part GCC split off, or 0 */
};

static void note_target(struct scan_ctx *c, uint64_t a)
{
    if (a == c->self || !elf_file_addr_is_code(c->ef, a)) return;
    if (c->ef->has_symtab && !elf_file_func_at(c->ef, a)) return;
    for (size_t i = 0; i < c->n; i++)
        if (c->addrs[i] == a) return;
    c->addrs = xrealloc(c->addrs, (c->n + 1) * sizeof *c->addrs);
    c->addrs[c->n++] = a;
}

static int on_resolver_insn(const cs_insn *insn, void *ctx)
{
    struct scan_ctx *c = ctx;
    const cs_detail *d = insn->detail;
    if (!d) return 0;
    for (uint8_t g = 0; g < d->groups_count; g++) {
        if (d->groups[g] == X86_GRP_JUMP && d->x86.op_count == 1 && d->x86.operands[0].type == X86_OP_IMM) {
            const struct elf_sym *to = elf_file_func_at(c->ef, (uint64_t)d->x86.operands[0].imm);
            if (to && strstr(to->name, ".cold")) c->cold = to->value;
        }
        if (d->groups[g] == X86_GRP_CALL || d->groups[g] == X86_GRP_JUMP) return 0;
    }
    for (uint8_t i = 0; i < d->x86.op_count; i++) {
        const cs_x86_op *op = &d->x86.operands[i];
        if (op->type == X86_OP_IMM && op->imm > 0) note_target(c, (uint64_t)op->imm);
        else if (op->type == X86_OP_MEM && insn->id == X86_INS_LEA && op->mem.base == X86_REG_RIP &&
                 op->mem.index == X86_REG_INVALID)
            note_target(c, insn->address + insn->size + (uint64_t)op->mem.disp);
    }
    return 0;
}

/* How far past its start a resolver without a size is read: resolvers are
 * a few dozen instructions; the flow walk stops at their returns. */
#define RESOLVER_WINDOW 4096

static void walk_resolver_code(const struct elf_file *ef, uint64_t addr, uint64_t size, struct scan_ctx *c)
{
    uint64_t len = 0;
    const uint8_t *code = elf_file_window(ef, addr, size ? size : RESOLVER_WINDOW, &len);
    if (code) disasm_walk_flow(code, len, addr, on_resolver_insn, c, NULL);
}

/* The code addresses a resolver can return: its own code and the ".cold"
 * part GCC may split off (reached by a jump out of the resolver; its name
 * is no guide, two static resolvers may share it). */
size_t elf_mv_resolver_loads(const struct elf_file *ef, uint64_t addr, uint64_t size, uint64_t **addrs)
{
    struct scan_ctx c = {ef, addr, NULL, 0, 0};
    if (addr) walk_resolver_code(ef, addr, size, &c);
    if (c.cold) {
        const struct elf_sym *cs = elf_file_func_at(ef, c.cold);
        c.cold = 0;
        walk_resolver_code(ef, cs->value, cs->size, &c);
    }
    *addrs = c.addrs;
    return c.n;
}

static size_t resolver_targets(const struct elf_file *ef, const struct elf_mv_function *f, uint64_t **addrs)
{
    return elf_mv_resolver_loads(ef, f->resolver_addr, f->resolver_size, addrs);
}

/* Versions found from the resolver's code alone, named by their symbol or
 * address, with an unknown target. */
static void collect_resolver_targets(const struct elf_file *ef, struct elf_mv_function *f)
{
    uint64_t *addrs;
    size_t n = resolver_targets(ef, f, &addrs);
    for (size_t i = 0; i < n; i++) {
        const struct elf_sym *s = elf_file_func_at(ef, addrs[i]);
        if (s) {
            elf_mv_add_clone(f, s->name, "", s->value, s->size, 0);
        } else {
            char *name = xasprintf("0x%llx", (unsigned long long)addrs[i]);
            elf_mv_add_clone(f, name, "", addrs[i], 0, 0);
            free(name);
        }
    }
    free(addrs);
}

/* Two dispatchers share a name (static functions of two files, each with
 * its own "helper.resolver" and "helper.avx2"): keep the named clones this
 * resolver can return. */
static void keep_clones_of_resolver(const struct elf_file *ef, struct elf_mv_function *f)
{
    uint64_t *addrs;
    size_t n = resolver_targets(ef, f, &addrs), kept = 0;
    for (size_t i = 0; i < f->n_clones; i++) {
        int mine = 0;
        for (size_t a = 0; a < n && !mine; a++) mine = addrs[a] == f->clones[i].addr;
        if (mine) {
            f->clones[kept++] = f->clones[i];
        } else {
            free(f->clones[i].symbol);
            free(f->clones[i].target);
        }
    }
    f->n_clones = kept;
    free(addrs);
}

/* For "X.resolver" or "X.resolver.lto_priv.N", the length of X; else 0. */
static size_t resolver_base_len(const char *name)
{
    static const char tag[] = ".resolver";
    size_t len = strlen(name) - lto_tail_len(name), tlen = sizeof tag - 1;
    if (len <= tlen || strncmp(name + len - tlen, tag, tlen)) return 0;
    return len - tlen;
}

/* 1 when another resolver than self dispatches a function named base. */
static int resolver_name_shared(const struct elf_file *ef, const char *base, const struct elf_sym *self)
{
    size_t blen = strlen(base);
    char *key = xasprintf("%s.resolver", base);
    int shared = 0;
    for (size_t i = elf_file_sym_lower_bound(ef, key); i < ef->n_syms && !shared; i++) {
        const struct elf_sym *s = &ef->syms[i];
        if (strncmp(s->name, key, blen + 9)) break;
        shared = s != self && s->type == STT_FUNC && resolver_base_len(s->name) == blen;
    }
    free(key);
    return shared;
}

static int claimed(const struct fn_builder *b, uint64_t addr)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->fns[i].resolver_addr == addr || b->fns[i].ifunc_addr == addr) return 1;
    return 0;
}

/* Among aliases of one IFUNC (memcmp, bcmp, __memcmp, ...), the name a
 * person would call: fewest leading underscores, then global before weak
 * (bcmp and index are glibc's weak legacy aliases), shortest, first. */
static int better_sym(const struct elf_sym *x, const struct elf_sym *y)
{
    const char *a = x->name, *b = y->name;
    size_t ua = strspn(a, "_"), ub = strspn(b, "_");
    if (ua != ub) return ua < ub;
    if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL)) return x->bind == STB_GLOBAL;
    if (strlen(a) != strlen(b)) return strlen(a) < strlen(b);
    return strcmp(a, b) < 0;
}

static int cmp_clone(const void *a, const void *b)
{
    const struct elf_clone *x = a, *y = b;
    if (x->is_default != y->is_default) return y->is_default - x->is_default;
    int c = strcmp(x->symbol, y->symbol);
    return c ? c : (x->addr < y->addr ? -1 : x->addr > y->addr);
}

static int cmp_function(const void *a, const void *b)
{
    return strcmp(((const struct elf_mv_function *)a)->name, ((const struct elf_mv_function *)b)->name);
}

/* pointer when fmvgen's init code calls its resolver (marked by
 * pointer_dispatch); cpuid for fmvgen's copies (elf_mv_cpuid_scan) unless
 * reached by an IFUNC nothing resolves; ifunc when an IFUNC symbol names f
 * or an IRELATIVE relocation's addend is its resolver (what a loader
 * calls); else none. */
static enum elf_mv_dispatch dispatch_of(const struct elf_file *ef, const struct elf_mv_list *list,
                                        const struct elf_mv_function *f)
{
    if (f->dispatch == ELF_MV_DISPATCH_POINTER) return f->dispatch;
    if (f->dispatch == ELF_MV_DISPATCH_CPUID)
        return f->ifunc && list->ifunc_unresolved ? ELF_MV_DISPATCH_NONE : ELF_MV_DISPATCH_CPUID;
    if (list->ifunc_unresolved) return ELF_MV_DISPATCH_NONE;
    if (f->ifunc) return ELF_MV_DISPATCH_IFUNC;
    for (size_t i = 0; i < ef->n_irelative && f->resolver_addr; i++)
        if (ef->irelative_resolvers[i] == f->resolver_addr) return ELF_MV_DISPATCH_IFUNC;
    return ELF_MV_DISPATCH_NONE;
}

/* ---- fmvgen's pointer dispatch (patch/pointer.h) ---- */

struct call_ctx {
    uint64_t target;
};

static int on_init_insn(const cs_insn *insn, void *ctx)
{
    struct call_ctx *c = ctx;
    const cs_detail *d = insn->detail;
    if (!d) return 0;
    for (uint8_t g = 0; g < d->groups_count; g++)
        if (d->groups[g] == X86_GRP_CALL && d->x86.op_count == 1 && d->x86.operands[0].type == X86_OP_IMM) {
            c->target = (uint64_t)d->x86.operands[0].imm;
            return 1;
        }
    return 0;
}

size_t elf_mv_init_sym_len(const struct elf_sym *s)
{
    size_t n = strlen(s->name), slen = sizeof ELF_MV_INIT_SUFFIX - 1;
    return s->type == STT_FUNC && n > slen && !strcmp(s->name + n - slen, ELF_MV_INIT_SUFFIX) ? n - slen : 0;
}

uint64_t elf_mv_init_call(const struct elf_file *ef, const struct elf_sym *init)
{
    uint64_t len = 0;
    const uint8_t *code = elf_file_window(ef, init->value, init->size ? init->size : 256, &len);
    struct call_ctx c = {0};
    if (code) disasm_walk(code, len, init->value, on_init_insn, &c, NULL);
    return c.target;
}

/* The FUNC symbol named name nearest to addr, or NULL. */
static const struct elf_sym *nearest_named(const struct elf_file *ef, const char *name, uint64_t addr)
{
    const struct elf_sym *best = NULL;
    for (size_t i = elf_file_sym_lower_bound(ef, name); i < ef->n_syms && !strcmp(ef->syms[i].name, name); i++) {
        const struct elf_sym *s = &ef->syms[i];
        uint64_t d = s->value > addr ? s->value - addr : addr - s->value;
        if (s->type == STT_FUNC && (!best || d < (best->value > addr ? best->value - addr : addr - best->value)))
            best = s;
    }
    return best;
}

static int cmp_range(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

uint64_t elf_mv_trampoline_size(const struct elf_file *ef, const struct elf_sym *init)
{
    char *sym = xstrndup(init->name, elf_mv_init_sym_len(init)), *ctor = xasprintf("%s.fmvgen_ctor", sym);
    const struct elf_sym *parts[3] = {nearest_named(ef, sym, init->value), init, nearest_named(ef, ctor, init->value)};
    uint64_t r[3][2], bytes = 0, end = 0;
    size_t k = 0;
    for (int i = 0; i < 3; i++)
        if (parts[i] && parts[i]->size) {
            r[k][0] = parts[i]->value;
            r[k++][1] = parts[i]->value + parts[i]->size;
        }
    qsort(r, k, sizeof *r, cmp_range);
    for (size_t i = 0; i < k; i++) {
        uint64_t from = r[i][0] > end ? r[i][0] : end;
        if (r[i][1] > from) bytes += r[i][1] - from;
        if (r[i][1] > end) end = r[i][1];
    }
    free(sym);
    free(ctor);
    return bytes;
}

/* For each FUNC symbol SYM.fmvgen_init: the resolver its code calls. The
 * function of b with that resolver is SYM's, reached through the pointer:
 * it takes the name SYM (its own, fmvgen_mv_NAME, is the renamed
 * definition's) and dispatch pointer. */
static void pointer_dispatch(const struct elf_file *ef, struct fn_builder *b)
{
    for (size_t i = 0; i < ef->n_syms; i++) {
        const struct elf_sym *s = &ef->syms[i];
        size_t n = elf_mv_init_sym_len(s);
        uint64_t target = n ? elf_mv_init_call(ef, s) : 0;
        for (size_t k = 0; target && k < b->n; k++) {
            struct elf_mv_function *f = &b->fns[k];
            if (f->resolver_addr != target || f->dispatch == ELF_MV_DISPATCH_POINTER ||
                f->dispatch == ELF_MV_DISPATCH_CPUID)
                continue;
            free(f->name);
            f->name = xstrndup(s->name, n);
            f->dispatch = ELF_MV_DISPATCH_POINTER;
            f->trampoline_size = elf_mv_trampoline_size(ef, s);
            break;
        }
    }
}

/* 1 when an IFUNC symbol at addr belongs to a pointer-dispatched function
 * (its unreferenced dispatcher). */
static int pointer_ifunc(const struct fn_builder *b, uint64_t addr)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->fns[i].dispatch == ELF_MV_DISPATCH_POINTER && (b->fns[i].ifunc_addr == addr || b->fns[i].resolver_addr == addr))
            return 1;
    return 0;
}

/* A program whose C library never resolves IFUNCs, told positively: musl
 * (no IFUNC support by design). Its dynamic loader is ld-musl-*.so.1 and
 * refuses the program ("unsupported relocation type 37"); a static one has
 * musl's __init_libc and startup code that applies no IRELATIVE
 * relocation, so a call lands in the unresolved PLT slot. NULL otherwise. */
static char *ifunc_unresolved(const struct elf_file *ef, const struct fn_builder *b)
{
    if (!ef->n_irelative && !ef->n_syms) return NULL;
    int has_ifunc = ef->n_irelative > 0;
    for (size_t i = 0; i < ef->n_syms && !has_ifunc; i++)
        has_ifunc = ef->syms[i].type == STT_GNU_IFUNC && !pointer_ifunc(b, ef->syms[i].value);
    if (!has_ifunc) return NULL;
    if (ef->interp && !strncmp(path_basename(ef->interp), "ld-musl", 7))
        return xasprintf("its interpreter %s is musl's, which does not resolve IFUNCs: the program does not "
                         "load", ef->interp);
    if (ef->is_static && elf_file_sym_named(ef, "__init_libc"))
        return xstrdup("a static program linked with musl (__init_libc), whose startup code applies no "
                       "IRELATIVE relocation: its ifunc calls land in unresolved slots");
    return NULL;
}

int elf_mv_scan(const struct elf_file *ef, struct elf_mv_list *out)
{
    memset(out, 0, sizeof *out);
    out->path = xstrdup(ef->path);
    out->elf_type = ef->elf_type;
    out->is_static = ef->is_static;
    out->has_symtab = ef->has_symtab;
    out->n_irelative = ef->n_irelative;
    struct fn_builder b = {NULL, 0, 0};

    /* 1. Compiler-made dispatchers: "X.resolver" (LTO: "X.resolver.lto_priv.N"). */
    for (size_t i = 0; i < ef->n_syms; i++) {
        const struct elf_sym *s = &ef->syms[i];
        if (s->type == STT_GNU_IFUNC) out->n_ifunc_symbols++;
        size_t base_len = resolver_base_len(s->name);
        if (!base_len) continue;
        char *base = xstrndup(s->name, base_len);
        /* GCC's target() overloads name the IFUNC oddly (_Z7_Z3fooii for
         * _Z3fooi), LTO appends .lto_priv.N: the IFUNC is the one at the
         * resolver's address, by its plain name when it has one. */
        char *clang_ifunc = xasprintf("%s.ifunc", base);
        const struct elf_sym *ifunc = elf_file_ifunc_at(ef, s->value, base);
        const struct elf_sym *cifunc = elf_file_ifunc_at(ef, s->value, clang_ifunc);
        const struct elf_sym *any = ifunc ? ifunc : cifunc ? cifunc : elf_file_ifunc_at(ef, s->value, NULL);
        struct elf_mv_function *f = elf_mv_new_function(&b, base, cifunc ? ELF_MV_CLANG : ELF_MV_GCC);
        f->resolver = xstrdup(s->name);
        f->resolver_addr = s->value;
        f->resolver_size = s->size;
        if (any) {
            f->ifunc = xstrdup(any->name);
            f->ifunc_addr = any->value;
        }
        int numbered = 0;
        collect_named_clones(ef, f, &numbered);
        /* Clang numbers every clone, "default.N" included; GCC at most
         * numbered the others (older "foo.avx2.0"). */
        const struct elf_clone *def = elf_mv_default(f);
        if (numbered && def && strcmp(def->symbol + strlen(base), ".default") &&
            strncmp(def->symbol + strlen(base), ".default.lto_priv.", 18))
            f->origin = ELF_MV_CLANG;
        if (resolver_name_shared(ef, base, s)) keep_clones_of_resolver(ef, f);
        if (!f->n_clones) collect_resolver_targets(ef, f);
        free(clang_ifunc);
        free(base);
    }

    /* 2. fmvgen's cpuid copies (cpuiddisp.c), whose IFUNC, if any, step 3
     * must not take for a hand-written one. */
    elf_mv_cpuid_scan(ef, &b);

    /* 3. Every other IFUNC: a dispatcher written by hand (or one whose
     * resolver symbol is gone). Aliases share an address. */
    for (size_t i = 0; i < ef->n_syms; i++) {
        const struct elf_sym *s = &ef->syms[i];
        if (s->type != STT_GNU_IFUNC || claimed(&b, s->value)) continue;
        const struct elf_sym *best = s;
        for (size_t j = i + 1; j < ef->n_syms; j++)
            if (ef->syms[j].type == STT_GNU_IFUNC && ef->syms[j].value == s->value &&
                better_sym(&ef->syms[j], best))
                best = &ef->syms[j];
        struct elf_mv_function *f = elf_mv_new_function(&b, best->name, ELF_MV_IFUNC);
        f->ifunc = xstrdup(best->name);
        f->ifunc_addr = best->value;
        f->resolver_addr = best->value;
        f->resolver_size = best->size;
        const struct elf_sym *rs = elf_file_func_at(ef, best->value);
        if (rs) {
            f->resolver = xstrdup(rs->name);
            if (rs->size) f->resolver_size = rs->size;
        }
        collect_resolver_targets(ef, f);
    }

    /* 4. IRELATIVE relocations no symbol explains (a stripped file): the
     * addend is the resolver, so its versions can still be found. */
    for (size_t i = 0; i < ef->n_irelative; i++) {
        uint64_t addr = ef->irelative_resolvers[i];
        if (claimed(&b, addr)) continue;
        const struct elf_sym *rs = elf_file_func_at(ef, addr);
        char *name = rs ? xstrdup(rs->name) : xasprintf("ifunc@0x%llx", (unsigned long long)addr);
        struct elf_mv_function *f = elf_mv_new_function(&b, name, ELF_MV_IFUNC);
        free(name);
        f->resolver = rs ? xstrdup(rs->name) : NULL;
        f->resolver_addr = addr;
        f->resolver_size = rs ? rs->size : 0;
        collect_resolver_targets(ef, f);
        if (!f->n_clones) {
            /* No version: not a multiversioned function (glibc's
             * __x86_cacheinfo ifunc only runs init code). Not invented. */
            free(f->name);
            free(f->resolver);
            b.n--;
            out->n_irelative_unlisted++;
        }
    }

    /* 5. Clones with no dispatcher at all: "X.default" (and its siblings)
     * where no function X was found above. */
    for (size_t i = 0; i < ef->n_syms; i++) {
        const struct elf_sym *s = &ef->syms[i];
        const char *dot = s->type == STT_FUNC ? strchr(s->name, '.') : NULL;
        if (!dot || dot == s->name) continue;
        int numbered;
        char *target = suffix_target(dot + 1, &numbered);
        int is_default = target && !strcmp(target, "default");
        free(target);
        if (!is_default) continue;
        char *base = xstrndup(s->name, (size_t)(dot - s->name));
        int known = 0;
        for (size_t k = 0; k < b.n && !known; k++) known = !strcmp(b.fns[k].name, base);
        if (!known) {
            struct elf_mv_function *f = elf_mv_new_function(&b, base, numbered ? ELF_MV_CLANG : ELF_MV_GCC);
            int numbered_any = 0;
            collect_named_clones(ef, f, &numbered_any);
        }
        free(base);
    }

    pointer_dispatch(ef, &b);
    out->ifunc_unresolved = ifunc_unresolved(ef, &b);
    for (size_t i = 0; i < b.n; i++) b.fns[i].dispatch = dispatch_of(ef, out, &b.fns[i]);
    for (size_t i = 0; i < b.n; i++)
        if (b.fns[i].n_clones) qsort(b.fns[i].clones, b.fns[i].n_clones, sizeof *b.fns[i].clones, cmp_clone);
    if (b.n) qsort(b.fns, b.n, sizeof *b.fns, cmp_function);
    out->functions = b.fns;
    out->n_functions = b.n;
    return 0;
}

int elf_mv_read(const char *path, struct elf_mv_list *out)
{
    struct elf_file ef;
    memset(out, 0, sizeof *out);
    if (elf_file_open(path, &ef) != 0) return -1;
    int rc = elf_mv_scan(&ef, out);
    elf_file_close(&ef);
    return rc;
}

void elf_mv_list_free(struct elf_mv_list *list)
{
    for (size_t i = 0; i < list->n_functions; i++) {
        struct elf_mv_function *f = &list->functions[i];
        for (size_t c = 0; c < f->n_clones; c++) {
            free(f->clones[c].symbol);
            free(f->clones[c].target);
        }
        free(f->clones);
        free(f->name);
        free(f->resolver);
        free(f->ifunc);
    }
    free(list->functions);
    free(list->path);
    free(list->ifunc_unresolved);
    memset(list, 0, sizeof *list);
}

const struct elf_clone *elf_mv_clone_at(const struct elf_mv_function *f, uint64_t addr)
{
    for (size_t i = 0; i < f->n_clones; i++)
        if (f->clones[i].addr == addr) return &f->clones[i];
    return NULL;
}

const struct elf_clone *elf_mv_default(const struct elf_mv_function *f)
{
    for (size_t i = 0; i < f->n_clones; i++)
        if (f->clones[i].is_default) return &f->clones[i];
    return NULL;
}

const char *elf_mv_origin_name(enum elf_mv_origin origin)
{
    switch (origin) {
    case ELF_MV_GCC: return "gcc";
    case ELF_MV_CLANG: return "clang";
    case ELF_MV_FMVGEN: return "fmvgen";
    default: return "ifunc";
    }
}

const char *elf_mv_reach_name(const struct elf_mv_function *f)
{
    switch (f->dispatch) {
    case ELF_MV_DISPATCH_IFUNC: return "ifunc";
    case ELF_MV_DISPATCH_POINTER: return "pointer";
    case ELF_MV_DISPATCH_CPUID: return f->ifunc ? "ifunc" : "pointer";
    default: return NULL;
    }
}

const char *elf_mv_dispatch_name(enum elf_mv_dispatch dispatch)
{
    switch (dispatch) {
    case ELF_MV_DISPATCH_IFUNC: return "ifunc";
    case ELF_MV_DISPATCH_POINTER: return "pointer";
    case ELF_MV_DISPATCH_CPUID: return "cpuid";
    default: return "none";
    }
}
