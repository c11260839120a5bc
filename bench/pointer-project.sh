#!/bin/bash
# pointer-project.sh - issue 11's check of `fmvgen patch --dispatch pointer`
# on a make-built project nobody here wrote: a copy of SRC is scanned (make
# MAKEARGS, gcc), patched with --dispatch pointer, and built patched and
# unpatched with musl-gcc (dynamic, -static), gcc (-static, -static-pie) and
# clang-19 (dynamic). Each build of PROG runs each WORKLOAD natively and
# under qemu-x86_64 -cpu Nehalem; the patched run's stdout (md5) and exit
# status must equal the unpatched build's. For each patched build: how many
# functions fmvgen inspect says are reached through their pointer, and the
# clone the dispatch map picks for one of them natively and on Nehalem
# (fmvgen verify --against the unpatched build: must pass); then verify
# --against must fail for a deliberately broken build (the patched musl
# -static program with its first pointer-dispatched clone's first byte
# made an int3: it traps natively). Prints one line per check, PASS/FAIL.
#
# A WORKLOAD is PROG's arguments, split on blanks; @IN is an input file made
# from SRC's own *.c files (deterministic), @PREP the unpatched gcc build's
# stdout of PREP (a workload, e.g. "-c -1 @IN" to decompress it later).
#
# SRC must be a clean source tree (nothing built: each build copies it).
# usage: bench/pointer-project.sh SRC "MAKEARGS" PROG PREP WORKLOAD...   (PREP may be "")
#   e.g. bench/pointer-project.sh /tmp/lz4src "-C programs lz4" programs/lz4 \
#        "-c -1 @IN" "-c -1 @IN" "-c -12 @IN" "-d -c @PREP"
# FMVGEN (default build/src/fmvgen) is the fmvgen used. Writes nothing
# outside a temp dir; redirect the output to bench/results/.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
FMVGEN=${FMVGEN:-$here/build/src/fmvgen}
SRC=$(cd "$1" && pwd); MAKEARGS=$2; PROG=$3; PREP=$4; shift 4
SRC_REV=${SRC_REV:-not a git tree}   # what SRC is, when it is no git tree
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
read -r -a margs <<<"$MAKEARGS"
fails=0
check() {   # WHAT OK(0/1) DETAIL
  if [ "$2" = 0 ]; then echo "PASS $1 $3"; else echo "FAIL $1 $3"; fails=$((fails + 1)); fi
}

cp -a "$SRC" "$W/u"
cp -a "$SRC" "$W/p"
rm -rf "$W/u/.fmvgen" "$W/p/.fmvgen"
find "$SRC" -name '*.c' | sort | head -40 | xargs cat | head -c 2000000 >"$W/in"
echo "project: $SRC ($(git -C "$SRC" log -1 --format=%h 2>/dev/null || echo "$SRC_REV")); make ${margs[*]}; PROG $PROG"
echo "input: $(wc -c <"$W/in") bytes of the project's own .c files; fmvgen $("$FMVGEN" --version 2>/dev/null | head -1)"
(cd "$W/p" && "$FMVGEN" scan --root "$W/p" -- make -s "${margs[@]}" >"$W/scan.log" 2>&1)
check "scan" $? "($(grep -E '^candidates:' "$W/scan.log" | tr -s ' '))"
(cd "$W/p" && "$FMVGEN" patch --dispatch pointer --json >"$W/patch.json" 2>/dev/null && "$FMVGEN" patch --dispatch pointer -o "$W/fmv.patch" 2>/dev/null)
rm -rf "$W/p" && cp -a "$W/u" "$W/p" && (cd "$W/p" && patch -s -p1 <"$W/fmv.patch")
check "patch --dispatch pointer (applied with patch -p1)" $? "($(jq -r '[.functions[] | .dispatch] | group_by(.) | map("\(.[0]): \(length)") | join(", ")' "$W/patch.json" 2>/dev/null))"

# each build in a fresh copy of the clean (unpatched or patched) tree
build() {   # DIR CC CFLAGS LDFLAGS -> the tree built in $W/b
  rm -rf "$W/b" && cp -a "$1" "$W/b"
  (cd "$W/b" && make -s "${margs[@]}" -j2 CC="$2" CFLAGS="$3" LDFLAGS="$4" >"$W/build.log" 2>&1)
}
runs() {    # PROG [qemu...] -> per workload "exit md5" lines
  local prog=$1 w a; shift
  for w in "$@"; do
    read -r -a a <<<"${w//@IN/$W/in}"
    a=("${a[@]//@PREP/$W/prep}")
    out=$("${QEMU[@]}" "$prog" "${a[@]}" 2>/dev/null | md5sum | cut -c1-12); echo "${PIPESTATUS[0]:-?} $out"
  done
}

configs=("musl|musl-gcc|-O3|" "musl-static|musl-gcc|-O3|-static" "gcc-static|gcc|-O3|-static"
         "gcc-static-pie|gcc|-O3 -fPIE|-static-pie" "clang-19|clang-19|-O3|")
for cfg in "${configs[@]}"; do
  IFS='|' read -r name cc cflags ldflags <<<"$cfg"
  command -v "$cc" >/dev/null || { echo "SKIP $name: $cc not installed"; continue; }
  build "$W/u" "$cc" "$cflags" "$ldflags" || { check "$name unpatched build" 1 "$(grep -m2 -i error "$W/build.log")"; continue; }
  cp "$W/b/$PROG" "$W/u-$name"
  build "$W/p" "$cc" "$cflags" "$ldflags" || { check "$name patched build" 1 "$(grep -m2 -i error "$W/build.log")"; continue; }
  cp "$W/b/$PROG" "$W/p-$name"
  if [ ! -e "$W/prep" ] && [ -n "$PREP" ]; then
    read -r -a a <<<"${PREP//@IN/$W/in}"; "$W/u-$name" "${a[@]}" >"$W/prep" 2>/dev/null
  fi
  for cpu in native Nehalem; do
    QEMU=(); [ "$cpu" = native ] || QEMU=(qemu-x86_64 -cpu "$cpu")
    want=$(runs "$W/u-$name" "$@"); got=$(runs "$W/p-$name" "$@")
    check "$name $cpu: same exit and stdout as unpatched" "$([ "$want" = "$got" ] && echo 0 || echo 1)" \
      "($(echo $got | tr '\n' ' '))"
  done
  ij=$("$FMVGEN" inspect --json "$W/p-$name" 2>/dev/null)
  np=$(printf '%s' "$ij" | jq '[.files[0].functions[] | select(.dispatch == "pointer" and .versions >= 2)] | length')
  check "$name: functions reached through their pointer (inspect)" "$([ "${np:-0}" -gt 0 ] && echo 0 || echo 1)" "($np)"
  read -r -a a <<<"${1//@IN/$W/in}"; a=("${a[@]//@PREP/$W/prep}")
  vj=$("$FMVGEN" verify --json --cpu Nehalem --against "$W/u-$name" -- "$W/p-$name" "${a[@]}" 2>"$W/verify.err" >"$W/verify-$name.json"; echo $?)
  pick=$(jq -r '[.dispatch[]? | select(.picks.native != null)][0] | "\(.function): native \(.picks.native), Nehalem \(.picks.Nehalem)"' "$W/verify-$name.json" 2>/dev/null)
  check "$name: verify --against the unpatched build" "$vj" "($pick)"
done

# a deliberately broken build: the patched musl -static program with an int3
# at the start of every clone the dispatch map says this CPU runs
if [ -x "$W/p-musl-static" ]; then
  cp "$W/p-musl-static" "$W/broken"
  sec=$(readelf -SW "$W/broken" | awk '{for (i = 1; i < NF; i++) if ($i == ".text") {print $(i + 2), $(i + 3); exit}}')
  read -r va off <<<"$sec"
  nb=0
  for fn in $(jq -r '.dispatch[]? | .picks.native // empty' "$W/verify-musl-static.json" 2>/dev/null); do
    addr=$(nm "$W/broken" | awk -v f="$fn" '$3 == f {print $1; exit}')
    [ -n "$addr" ] || continue
    printf '\xcc' | dd of="$W/broken" bs=1 seek=$((0x$off + 0x$addr - 0x$va)) conv=notrunc status=none
    nb=$((nb + 1))
  done
  read -r -a a <<<"${1//@IN/$W/in}"; a=("${a[@]//@PREP/$W/prep}")
  "$FMVGEN" verify --cpu Nehalem --against "$W/u-musl-static" -- "$W/broken" "${a[@]}" >"$W/broken.out" 2>&1
  rc=$?
  check "verify --against catches a broken build (int3 at $nb clones)" "$([ "$nb" -gt 0 ] && [ $rc = 1 ] && echo 0 || echo 1)" \
    "(exit $rc: $(grep -m1 -iE 'SIG|differ|fail' "$W/broken.out" | tr -s ' ' | cut -c1-100))"
fi
echo "$fails failed"
