#!/bin/bash
# dispatch-overhead.sh - the per-call cost of `fmvgen patch --dispatch
# pointer` against the IFUNC dispatch, on a hot short kernel (a 16-element
# sum of squares in its own file, so every call is a real call), measured
# inside ONE process: the kernel's file is patched both ways by the fmvgen
# given, each patched file is compiled twice, and the four objects' symbols
# renamed (kern_a ifunc, kern_b pointer, kern_c ifunc, kern_d pointer), so
# one harness calls all four directly. Each round runs one block of BLOCK
# calls of each copy, in a fresh random order, each block timed with rdtsc;
# a round's ratios (b/a: the same round's pointer block over its ifunc
# block) cancel the machine's frequency and load drift, which made
# ratios of separately run programs useless here. Ratios printed:
#   pointer/ifunc  b/a and d/c (and the crossed b/c, d/a)
#   A/A            c/a (ifunc vs ifunc) and d/b (pointer vs pointer): the
#                  same code in another place - what code placement alone
#                  does, i.e. the method's resolution for this binary
# each as the median of all rounds with its distribution-free 95% interval,
# the share of rounds whose ratio is above 1.1 (a slow mode of one copy),
# then the per-process medians (the state of a process - e.g. what the
# branch predictor learnt at its start - lasts for the whole process, so
# PROCS processes are run). Done for gcc and clang-19 (where installed), as
# PIEs, with the compiler's default code alignment and with
# -falign-functions=64 (every clone starts on a 64-byte line in every copy,
# so the copies differ in dispatch only).
# With OLD_FMVGEN=path, a second fmvgen's pointer patch is built as copies
# kern_e and kern_f (e/a, f/c: that fmvgen's pointer dispatch against ifunc).
#
# KEEP=dir keeps the per-round cycles (one line a round, one column a copy).
# usage: bench/dispatch-overhead.sh [FMVGEN] [PROCS] [ROUNDS] [BLOCK]
# Writes nothing outside a temp dir; redirect the output to bench/results/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${1:-$here/build/src/fmvgen}
PROCS=${2:-15}
ROUNDS=${3:-41}
BLOCK=${4:-10000}
OLD_FMVGEN=${OLD_FMVGEN:-}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
KEEP=${KEEP:-}   # a directory to copy each harness's per-round cycles into

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
printf 'kern.o: kern.c\n\t$(CC) -O2 -c kern.c -o kern.o\n' >"$W/src/Makefile"
(cd "$W/src" && "$FMVGEN" scan --root "$W/src" -- make -s CC=gcc >/dev/null 2>&1 && rm -f kern.o)
patched() {   # FMVGEN DISPATCH DIR
  (cd "$W/src" && "$1" patch --dispatch "$2" -o "$3.patch" 2>/dev/null)
  cp -a "$W/src" "$3"
  (cd "$3" && patch -s -p1 <"$3.patch")
}
patched "$FMVGEN" ifunc "$W/ifunc"
patched "$FMVGEN" pointer "$W/pointer"
copies="a:ifunc b:pointer c:ifunc d:pointer"
if [ -n "$OLD_FMVGEN" ]; then
  patched "$OLD_FMVGEN" pointer "$W/oldpointer"
  copies="$copies e:oldpointer f:oldpointer"
fi
names=$(for x in $copies; do printf '%s ' "${x%%:*}"; done)
n=$(echo $names | wc -w)

# the harness: one noinline, 64-byte aligned loop per copy, so that each
# copy's loop is the same code at the same alignment
{
  echo '#include <stdio.h>'
  echo '#include <stdlib.h>'
  echo '#include <x86intrin.h>'
  echo 'static int arr[64];'
  echo 'static volatile long sink;'
  for k in $names; do
    echo "long kern_$k(const int *a);"
    echo "__attribute__((noinline, aligned(64))) static unsigned long long loop_$k(long n)"
    echo "{ long i, h = 0; unsigned long long t0 = __rdtsc();"
    echo "  for (i = 0; i < n; i++) h += kern_$k(arr + (i & 31));"
    echo "  { unsigned long long t1 = __rdtsc(); sink = h; return t1 - t0; } }"
  done
  echo 'int main(int argc, char **argv)'
  echo '{'
  echo "    enum { K = $n };"
  echo "    unsigned long long (*f[K])(long) = {$(for k in $names; do printf 'loop_%s, ' "$k"; done)};"
  echo '    long rounds = atol(argv[1]), block = atol(argv[2]), r, i;'
  echo '    unsigned long long t[K];'
  echo '    for (i = 0; i < 64; i++) arr[i] = (int)(i * 7 - 100);'
  echo '    for (i = 0; i < K; i++) f[i](block);'
  echo '    srand((unsigned)atol(argv[3]));'
  echo '    for (r = 0; r < rounds; r++) {'
  echo '        int o[K], j;'
  echo '        for (j = 0; j < K; j++) o[j] = j;'
  echo '        for (j = K - 1; j > 0; j--) { int x = rand() % (j + 1), y = o[j]; o[j] = o[x]; o[x] = y; }'
  echo '        for (j = 0; j < K; j++) t[o[j]] = f[o[j]](block);'
  echo '        for (j = 0; j < K; j++) printf("%llu%c", t[j], j + 1 < K ? 32 : 10);'
  echo '    }'
  echo '    return 0;'
  echo '}'
} >"$W/main.c"

harness() {   # OUT CC CFLAGS
  local objs=() x k d o s args
  for x in $copies; do
    k=${x%%:*}; d=${x#*:}; o="$W/$1-$k.o"
    "$2" $3 -c "$W/$d/kern.c" -o "$o"
    args=()
    for s in $(nm "$o" | awk '$3 ~ /^kern(\..*)?$/ {print $3}'); do args+=(--redefine-sym "$s=kern_$k${s#kern}"); done
    objcopy "${args[@]}" "$o"
    objs+=("$o")
  done
  "$2" $3 -c "$W/main.c" -o "$W/$1-main.o"
  "$2" $3 -pie -o "$W/$1" "$W/$1-main.o" "${objs[@]}"
}

# median_interval: stdin one value a line -> "median [lo, hi]", the
# distribution-free 95% interval (order statistics k and n-k+1, k from the
# binomial(n, 1/2) tail <= 2.5%)
median_interval() {
  sort -g | awk '
    {v[NR] = $1}
    END {
      n = NR; if (n < 6) { printf "%.4f (too few for an interval)", v[int((n + 1) / 2)]; exit }
      # in logs: 0.5^n underflows for n above ~1000
      lp = n * log(0.5); c = exp(lp); k = 0
      while (c <= 0.025) { k++; lp += log((n - k + 1) / k); c += exp(lp) }
      med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "%.4f [%.4f, %.4f]", med, v[k], v[n - k + 1]
    }'
}
col() { case $1 in a) echo 1;; b) echo 2;; c) echo 3;; d) echo 4;; e) echo 5;; f) echo 6;; esac; }
ratios() {   # FILE X Y -> one ratio a line
  awk -v x="$(col "$2")" -v y="$(col "$3")" '{print $x / $y}' "$1"
}

echo "dispatch overhead, one process: kern_a/kern_c ifunc, kern_b/kern_d pointer (same source, same fmvgen)"
[ -n "$OLD_FMVGEN" ] && echo "  kern_e/kern_f: pointer dispatch of $OLD_FMVGEN"
echo "$PROCS processes x $ROUNDS rounds x one block of $BLOCK calls per copy, random order per round, rdtsc"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
pairs="b/a d/c b/c d/a c/a d/b"
[ -n "$OLD_FMVGEN" ] && pairs="$pairs e/a f/c e/b"
for cc in gcc clang-19; do
  command -v "$cc" >/dev/null || continue
  for align in default 64; do
    fl="-O2 -fPIE"
    [ "$align" = 64 ] && fl="$fl -falign-functions=64"
    h="h-$cc-$align"
    harness "$h" "$cc" "$fl" 2>"$W/$h.err" || { echo "$cc $fl: harness build failed: $(head -2 "$W/$h.err")"; continue; }
    : >"$W/$h.all"
    for ((p = 0; p < PROCS; p++)); do
      "$W/$h" "$ROUNDS" "$BLOCK" "$p" >"$W/$h.$p"
      cat "$W/$h.$p" >>"$W/$h.all"
    done
    [ -n "$KEEP" ] && mkdir -p "$KEEP" && cp "$W/$h".[0-9]* "$KEEP/"
    echo
    echo "$cc $fl:"
    printf '  cycles per call (median of all rounds):'
    for k in $names; do
      printf ' %s %.2f' "$k" "$(awk -v c="$(col "$k")" -v b="$BLOCK" '{print $c / b}' "$W/$h.all" | median_interval | cut -d' ' -f1)"
    done
    echo
    for pr in $pairs; do
      x=${pr%/*}; y=${pr#*/}
      kind="pointer/ifunc"
      case $pr in c/a) kind="A/A ifunc";; d/b) kind="A/A pointer";; e/*) kind="old pointer/ifunc";; f/*) kind="old pointer/ifunc";; esac
      [ "$pr" = e/b ] && kind="old/new pointer"
      per=""
      for ((p = 0; p < PROCS; p++)); do per="$per $(ratios "$W/$h.$p" "$x" "$y" | median_interval | cut -d' ' -f1)"; done
      slow=$(ratios "$W/$h.all" "$x" "$y" | awk '$1 > 1.1 {s++} END {printf "%.1f%%", 100 * s / NR}')
      printf '  %-18s %s  %s  >1.1: %6s   per process:%s\n' "$kind" "$pr" "$(ratios "$W/$h.all" "$x" "$y" | median_interval)" "$slow" "$per"
    done
  done
done
