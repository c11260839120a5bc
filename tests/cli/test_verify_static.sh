# test_verify_static.sh - `fmvgen verify` on a STATIC executable, which
# cannot take the preloaded dispatch helper: the map comes from its real
# resolvers called through gdb, natively and attached to qemu -g under each
# CPU model. The target_clones("arch=x86-64-v3","default") function must
# resolve to default on qemu64/Nehalem/SandyBridge and to the v3 clone on
# Haswell and natively (this CPU is x86-64-v4). Also: without gdb the map
# is unavailable and says why, and a failing gdb is reported per CPU.
# Built with gcc, and clang-19 when installed; skipped when gcc -static
# cannot link (no libc.a).
. "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 missing (scripts/setup-deps.sh installs qemu-user)"; exit 1; }
command -v gdb >/dev/null || { echo "gdb missing (scripts/setup-deps.sh installs it)"; exit 1; }

src=$(copy_fixture verify-static)
cd "$src"
printf 'int main(void) { return 0; }\n' >empty.c
if ! gcc -static empty.c -o empty 2>/dev/null; then
  skip_test "gcc -static cannot link here (libc.a missing)"
fi
gcc -O2 -static scale.c -o scale-gcc || { fail "gcc -static scale.c"; finish; }
compilers=(gcc)
# A static PIE has a dynamic section but no interpreter: gdb's path too.
if gcc -O2 -static-pie scale.c -o scale-gcc-static-pie 2>/dev/null; then
  compilers+=(gcc-static-pie)
fi
if command -v clang-19 >/dev/null && clang-19 -O2 -static scale.c -o scale-clang-19 2>/dev/null; then
  compilers+=(clang-19)
fi

for cc in "${compilers[@]}"; do
  prog=./scale-$cc
  "$FMVGEN" verify --json -- "$prog" >"$cc.json"
  expect_eq "$cc: static program verifies" "$?" 0
  expect_eq "$cc: map available" "$(jq -r '.dispatch_unavailable' "$cc.json")" null
  expect_eq "$cc: no dispatch errors" "$(jq -c '[.cpus[].dispatch_error] | unique' "$cc.json")" '[null]'
  picks() { jq -r --arg c "$1" '.dispatch[] | select(.function=="scale") | .picks[$c]' "$cc.json"; }
  for cpu in qemu64 Nehalem SandyBridge; do
    expect_match "$cc: default on $cpu" "$(picks "$cpu")" '^scale\.default(\.[0-9]+)?$'
  done
  expect_match "$cc: v3 clone on Haswell" "$(picks Haswell)" '^scale\.arch_x86[-_]64[-_]v3(\.[0-9]+)?$'
  expect_match "$cc: v3 clone natively" "$(picks native)" '^scale\.arch_x86[-_]64[-_]v3(\.[0-9]+)?$'
  # glibc's own ifuncs in the static binary are resolved after its startup
  # code read CPUID: memcpy differs between qemu64 and Haswell.
  expect_no_match "$cc: memcpy follows the CPU" \
    "$(jq -r '.dispatch[] | select(.function=="memcpy") | .picks.Haswell' "$cc.json")" 'sse2|null'
done

# The table says the same.
table=$("$FMVGEN" verify --cpu Nehalem,Haswell -- ./scale-gcc)
expect_eq "table exit status" "$?" 0
expect_match "table: scale row" "$table" 'scale +scale-gcc +arch_x86_64_v3 +default +arch_x86_64_v3'

# Without gdb there is no map, and the report says why (PATH holds only
# what verify needs besides gdb).
mkdir nogdb
ln -s "$(command -v true)" nogdb/true
ln -s "$(command -v qemu-x86_64)" nogdb/qemu-x86_64
PATH="$PWD/nogdb" "$FMVGEN" verify --json --cpu Nehalem -- ./scale-gcc >nogdb.json
expect_eq "no gdb: still verifies" "$?" 0
expect_match "no gdb: why" "$(jq -r '.dispatch_unavailable' nogdb.json)" '^static executable: gdb is needed'

# A gdb that fails: the map says so for each CPU, and qemu, left waiting
# for a debugger, is stopped rather than hanging the run.
mkdir badgdb
printf '#!/bin/sh\necho "gdb broke" >&2\nexit 1\n' >badgdb/gdb
chmod +x badgdb/gdb
PATH="$PWD/badgdb:$PATH" "$FMVGEN" verify --json --timeout 30 --cpu Nehalem -- ./scale-gcc >badgdb.json
expect_eq "bad gdb: still verifies" "$?" 0
expect_eq "bad gdb: why, per CPU" "$(jq -r '[.cpus[].dispatch_error] | unique | join("|")' badgdb.json)" \
  "gdb could not call the resolvers (exit status 1): gdb broke"
expect_eq "bad gdb: no picks" "$(jq -c '[.dispatch[0].picks[]] | unique' badgdb.json)" '[null]'

finish
