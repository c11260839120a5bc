/* cpus.h - the CPUs `fmvgen verify` runs a program on: this machine (the
 * reference run) and qemu-user CPU models, one per x86-64 level by default:
 *   qemu64       the x86-64 baseline (SSE2)
 *   Nehalem      x86-64-v2 (SSE4.2, POPCNT)
 *   SandyBridge  v2 + AVX, without AVX2/FMA: catches AVX2 code in an AVX clone
 *   Haswell      x86-64-v3 (AVX2, FMA, BMI)
 * x86-64-v4 (AVX-512) is only tested natively, where this CPU has it: qemu
 * 7.2 does not emulate AVX-512. What each model really provides is read at
 * run time from CPUID by the dispatch helper, not from this list. */
#ifndef FMVGEN_VERIFY_CPUS_H
#define FMVGEN_VERIFY_CPUS_H

#include "util/util.h"

#define VERIFY_DEFAULT_CPUS "qemu64,Nehalem,SandyBridge,Haswell"
/* The Debian package that provides qemu-x86_64. */
#define VERIFY_QEMU_PACKAGE "qemu-user"

/* Splits a --cpu list ("Nehalem,Haswell") into models; "native" is accepted
 * and dropped (the native run always happens, it is the reference), so
 * "--cpu native" runs natively only. Returns -1 after an error line for a
 * list naming nothing, or a feature switch without a model. */
int cpus_parse(const char *list, struct strvec *models);

/* The qemu-x86_64 to use: $FMVGEN_QEMU when set, else qemu-x86_64 or
 * qemu-x86_64-static from PATH. NULL when there is none. */
char *cpus_find_qemu(void);

/* Checks that qemu knows every model ("Haswell", also "Haswell,-avx2"
 * style: the part before the first ',' is checked) by asking `qemu -cpu
 * help`. Returns -1 after an error line naming the first unknown model. */
int cpus_check_models(const char *qemu, const struct strvec *models);

/* This machine's x86-64 level ("x86-64-v4", ...), from the compiler's CPU
 * detection (__builtin_cpu_supports). */
const char *cpus_native_level(void);

/* Starts an argv for running a program under qemu: QEMU -cpu MODEL, then
 * "-E VAR=VALUE" for each entry of guest_env (may be NULL): variables only the
 * guest may see - a preloaded library set in qemu's own environment would
 * also be loaded into qemu itself. The caller appends PROG ARGS. */
void cpus_qemu_argv(struct strvec *out, const char *qemu, const char *model, char *const *guest_env);

/* qemu's own lines on stderr: its warnings ("TCG doesn't support requested
 * feature") and its report of a guest's fatal signal ("qemu: uncaught
 * target signal 4 (Illegal instruction) - core dumped"; qemu 7.2 then kills
 * itself with the same signal, so the wait status names the guest's
 * signal). */
int cpus_is_qemu_line(const char *line);
/* The last line of a run's stderr that is the program's (qemu's lines
 * skipped), at most 160 bytes; NULL when there is none. */
char *cpus_stderr_tail(const char *err);

#endif
