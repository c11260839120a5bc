#!/bin/bash
# dispatch-overhead.sh - the per-call cost of `fmvgen patch --dispatch
# pointer` against the IFUNC dispatch, on a hot short kernel: a 16-element
# sum of squares in its own file (so every call is a real call), called
# CALLS times. A throwaway project is scanned and patched both ways by the
# fmvgen given (default build/src/fmvgen), built with each compiler (gcc,
# clang-19 where installed) as a PIE, and the builds are run interleaved,
# RUNS rounds, each round in a fresh random order. Prints each build's
# median CPU time and the ratios pointer/ifunc (goal: <= 1.02) and, for scale,
# ifunc/direct (the unpatched build, which calls the default code with no
# dispatch at all). The musl builds (pointer only: IFUNC does not run
# there) are timed too, against the glibc pointer build. Then, where
# valgrind is installed, the instructions per call of each build (callgrind:
# deterministic, whatever the machine's load).
#
# usage: bench/dispatch-overhead.sh [FMVGEN] [RUNS] [CALLS]
# Writes nothing outside a temp dir; redirect the output to bench/results/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${1:-$here/build/src/fmvgen}
RUNS=${2:-11}
CALLS=${3:-200000000}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

mkdir -p "$W/src"
cat >"$W/src/kern.c" <<'EOF'
long kern(const int *a)
{
    long s = 0;
    int i;
    for (i = 0; i < 16; i++) s += (long)a[i] * a[i];
    return s;
}
EOF
cat >"$W/src/main.c" <<EOF
#include <stdio.h>
#include <stdlib.h>
long kern(const int *a);
int main(int argc, char **argv)
{
    static int a[64];
    long n = argc > 1 ? atol(argv[1]) : $CALLS, i, h = 0;
    for (i = 0; i < 64; i++) a[i] = (int)(i * 7 - 100);
    for (i = 0; i < n; i++) h += kern(a + (i & 31));
    printf("%ld\n", h);
    return 0;
}
EOF
cat >"$W/src/Makefile" <<'EOF'
CC ?= cc
CFLAGS ?= -O2
prog: kern.o main.o
	$(CC) $(CFLAGS) -o $@ kern.o main.o
%.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@
clean:
	rm -f *.o prog
EOF
(cd "$W/src" && "$FMVGEN" scan --root "$W/src" -- make -s CC=gcc >/dev/null 2>&1 && make -s clean)
(cd "$W/src" && "$FMVGEN" patch -o "$W/ifunc.patch" 2>/dev/null && "$FMVGEN" patch --dispatch pointer -o "$W/pointer.patch" 2>/dev/null)

builds=()
build() {   # NAME CC CFLAGS PATCH
  local d="$W/b-$1"
  cp -a "$W/src" "$d"
  if [ -n "$4" ]; then (cd "$d" && patch -s -p1 <"$W/$4.patch"); fi
  (cd "$d" && make -s clean && make -s CC="$2" CFLAGS="$3" >/dev/null 2>&1) || { echo "build $1 failed" >&2; return; }
  builds+=("$1")
}
for cc in gcc clang-19; do
  command -v "$cc" >/dev/null || continue
  build "$cc-direct" "$cc" "-O2 -fPIE -pie" ""
  build "$cc-ifunc" "$cc" "-O2 -fPIE -pie" ifunc
  build "$cc-pointer" "$cc" "-O2 -fPIE -pie" pointer
done
if command -v musl-gcc >/dev/null; then
  build musl-pointer musl-gcc "-O2" pointer
  build musl-static-pointer musl-gcc "-O2 -static" pointer
fi

declare -A times round
for ((r = 0; r < RUNS; r++)); do
  for b in $(printf '%s\n' "${builds[@]}" | shuf); do
    # CPU time (user + sys, microseconds): a busy machine delays a run's
    # wall time, not the instructions it runs
    t=$( { TIMEFORMAT='%3U %3S'; time "$W/b-$b/prog" >/dev/null; } 2>&1 )
    round[$b]=$(echo "$t" | awk '{printf "%d", ($1 + $2) * 1000000}')
    times[$b]+="${round[$b]} "
  done
  # the same round's runs, paired: what the load of that moment did to
  # one it did to the other
  for cc in gcc clang-19; do
    [ -n "${round[$cc-pointer]:-}" ] && [ -n "${round[$cc-ifunc]:-}" ] &&
      times[$cc-paired]+="$(echo "${round[$cc-pointer]} / ${round[$cc-ifunc]}" | bc -l) "
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
declare -A med
echo "dispatch overhead: $CALLS calls of a 16-element sum of squares, $RUNS interleaved runs each (CPU time, user + sys)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for b in "${builds[@]}"; do
  med[$b]=$(printf '%s' "${times[$b]}" | median)
  printf '  %-22s median %8.3f s   ns/call %.3f\n' "$b" "$(echo "${med[$b]} / 1000000" | bc -l)" \
    "$(echo "${med[$b]} * 1000 / $CALLS" | bc -l)"
done
ratio() { [ -n "${med[$1]:-}" ] && [ -n "${med[$2]:-}" ] && printf '  %-40s %.3f\n' "$1 / $2" "$(echo "${med[$1]} / ${med[$2]}" | bc -l)"; }
echo "ratios (median times):"
for cc in gcc clang-19; do
  ratio "$cc-pointer" "$cc-ifunc" || true
  ratio "$cc-ifunc" "$cc-direct" || true
done
ratio musl-pointer gcc-pointer || true
ratio musl-static-pointer gcc-pointer || true
# The median of the rounds' paired ratios, with its distribution-free 95%
# interval (order statistics k and n-k+1 of the sorted ratios, k from the
# binomial(n, 1/2) tail <= 2.5%).
median_interval() {
  tr ' ' '\n' | grep . | sort -g | awk '
    {v[NR] = $1}
    END {
      n = NR; if (n < 6) { printf "%.3f (too few rounds for an interval)", v[int((n + 1) / 2)]; exit }
      p = 0.5 ^ n; c = p; k = 0
      while (c <= 0.025) { k++; p = p * (n - k + 1) / k; c += p }
      med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "%.3f [%.3f, %.3f]", med, v[k], v[n - k + 1]
    }'
}
echo "paired per round (pointer / ifunc CPU time of the same round: median [95% interval]):"
for cc in gcc clang-19; do
  [ -n "${times[$cc-paired]:-}" ] && printf '  %-40s %s\n' "$cc-pointer / $cc-ifunc" "$(printf '%s' "${times[$cc-paired]}" | median_interval)"
done

# Instructions per call, which no load on the machine changes: valgrind's
# callgrind counts every instruction of a run with N and with 2N calls; the
# difference over N is the cost of one call and its kernel (the first call's
# resolver runs in both). valgrind's CPU has no AVX-512, so the clones it
# runs are the x86-64-v3 ones.
if command -v valgrind >/dev/null; then
  n=1000000
  ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" "$2" 2>&1 | awk '/Collected/ {print $NF}'; }
  declare -A per
  echo "instructions per call (valgrind callgrind, runs of $n and $((2 * n)) calls):"
  for b in "${builds[@]}"; do
    a=$(ir "$W/b-$b/prog" $n)
    c=$(ir "$W/b-$b/prog" $((2 * n)))
    [ -n "$a" ] && [ -n "$c" ] || continue
    per[$b]=$(echo "($c - $a) / $n" | bc -l)
    printf '  %-22s %.3f\n' "$b" "${per[$b]}"
  done
  for cc in gcc clang-19; do
    [ -n "${per[$cc-pointer]:-}" ] && [ -n "${per[$cc-ifunc]:-}" ] &&
      printf '  %-40s %.3f\n' "$cc-pointer / $cc-ifunc" "$(echo "${per[$cc-pointer]} / ${per[$cc-ifunc]}" | bc -l)"
  done
fi
