# test_verify.sh - `fmvgen verify` on the FMV fixture and its -march twin:
# the -march=x86-64-v3 build dies with SIGILL where AVX2 is missing, the
# target_clones build runs everywhere with the native output, and the
# dispatch map (from the real resolvers under each qemu CPU model) shows the
# default clone below x86-64-v3 and the v3 clone from Haswell up. Built with
# gcc, and with clang-19 when installed (clang 14's resolver never picks
# the v3 clone, so it is not asserted on).
. "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 missing (scripts/setup-deps.sh installs qemu-user)"; exit 1; }

src=$(copy_fixture verify-fmv)
cd "$src"
gcc -O2 -march=x86-64-v3 checksum.c -o march-v3
gcc -O2 -DFMV checksum.c -o fmv-gcc

# -march build: SIGILL on every CPU without AVX2, fine on Haswell.
"$FMVGEN" verify --json -- ./march-v3 >v3.json
expect_eq "march build exits 1" "$?" 1
for cpu in qemu64 Nehalem SandyBridge; do
  expect_eq "march build on $cpu" "$(jq -r --arg c "$cpu" '.cpus[] | select(.cpu==$c) | .result' v3.json)" SIGILL
done
expect_eq "march build on Haswell" "$(jq -r '.cpus[] | select(.cpu=="Haswell") | .result' v3.json)" ok
expect_eq "march build natively" "$(jq -r '.cpus[0] | "\(.cpu) \(.result) \(.stdout.match)"' v3.json)" "native ok reference"
expect_eq "emulated times are not reported" "$(jq '[.cpus[] | select(.emulated) | .seconds] | unique' v3.json | tr -d ' \n')" "[null]"
expect_eq "native time is" "$(jq '.cpus[0].seconds | type' v3.json)" '"number"'
expect_eq "no clones in the march build" "$(jq '.dispatch | length' v3.json)" 0

# With core dumps allowed, a SIGILL under qemu would leave a guest core
# (qemu_PROG_DATE_PID.core) in the current directory: verify turns them off.
if (ulimit -c unlimited) 2>/dev/null; then
  mkdir cores && (cd cores && ulimit -c unlimited && "$FMVGEN" verify --cpu Nehalem -- ../march-v3 >/dev/null)
  expect_eq "no core files left" "$(ls cores)" ""
fi

# The human table says the same.
table=$("$FMVGEN" verify --cpu Nehalem -- ./march-v3)
expect_eq "table exit status" "$?" 1
expect_match "table row" "$table" 'Nehalem +x86-64-v2 +SIGILL +\(emulated\)'
expect_match "table verdict" "$table" 'Result: FAILED: Nehalem \(SIGILL\)'

check_fmv() {  # check_fmv BINARY V3-CLONE-SYMBOL-REGEX DEFAULT-REGEX
  "$FMVGEN" verify --json -- "./$1" >"$1.json"
  expect_eq "$1 exits 0" "$?" 0
  expect_eq "$1 runs everywhere" "$(jq -r '[.cpus[].result] | unique | join(",")' "$1.json")" ok
  expect_eq "$1 output identical" \
    "$(jq -r '[.cpus[1:][] | .stdout.match] | unique | join(",")' "$1.json")" identical
  expect_eq "$1 levels seen by the program" \
    "$(jq -r '[.cpus[1:][] | .level] | join(",")' "$1.json")" "x86-64,x86-64-v2,x86-64-v2,x86-64-v3"
  expect_eq "$1 dispatch map has mix" "$(jq -r '[.dispatch[].function] | join(",")' "$1.json")" mix
  for cpu in qemu64 Nehalem SandyBridge; do
    expect_match "$1 picks default on $cpu" "$(jq -r --arg c "$cpu" '.dispatch[0].picks[$c]' "$1.json")" "$3"
  done
  expect_match "$1 picks the v3 clone on Haswell" "$(jq -r '.dispatch[0].picks.Haswell' "$1.json")" "$2"
  # This machine has AVX2 (x86-64-v3 at least): natively the v3 clone runs.
  expect_match "$1 picks the v3 clone natively" "$(jq -r '.dispatch[0].picks.native' "$1.json")" "$2"
}
check_fmv fmv-gcc '^mix\.arch_x86_64_v3$' '^mix\.default$'

if have_clang19; then
  clang-19 -O2 -DFMV checksum.c -o fmv-clang19
  check_fmv fmv-clang19 '^mix\.arch_x86-64-v3\.[0-9]+$' '^mix\.default\.[0-9]+$'
  # Same answer as the gcc build: the checksum does not depend on the clone.
  expect_eq "gcc and clang agree" "$(./fmv-gcc)" "$(./fmv-clang19)"
else
  echo "clang-19 not installed: clang FMV build skipped"
fi

# The default clang: before 19 its resolver ignores arch=x86-64-v3 and picks
# the default clone everywhere, which verify shows and explains.
if command -v clang >/dev/null; then
  clang -O2 -DFMV checksum.c -o fmv-clang
  major=$(clang -dumpversion | cut -d. -f1)
  "$FMVGEN" verify --json --cpu Haswell -- ./fmv-clang >clang.json
  expect_eq "clang $major build exits 0" "$?" 0
  if [ "$major" -lt 19 ]; then
    expect_match "clang $major picks default on Haswell" "$(jq -r '.dispatch[0].picks.Haswell' clang.json)" '^mix\.default\.[0-9]+$'
    expect_match "clang $major: never-picked clones noted" "$(jq -r '.notes[]' clang.json)" \
      '^mix: the resolver returned the default clone on every CPU.*mix\.arch_x86-64-v3\.[0-9]+\) never ran'
  else
    expect_match "clang $major picks v3 on Haswell" "$(jq -r '.dispatch[0].picks.Haswell' clang.json)" '^mix\.arch_x86-64-v3\.[0-9]+$'
  fi
fi
expect_no_match "gcc build: no never-picked note" "$(jq -r '.notes[]' fmv-gcc.json)" 'never ran'

# The dispatch table in the human output.
table=$("$FMVGEN" verify --cpu SandyBridge,Haswell -- ./fmv-gcc)
expect_eq "fmv table exit status" "$?" 0
expect_match "dispatch row" "$table" 'mix +fmv-gcc +arch_x86_64_v3 +default +arch_x86_64_v3'
expect_match "SandyBridge has AVX" "$table" 'SandyBridge +x86-64-v2\+AVX +ok'
expect_match "fmv verdict" "$table" 'Result: OK on all 3 CPUs'

# Paths with spaces reach qemu and the helper unchanged.
mkdir -p "with space"
cp fmv-gcc "with space/fmv gcc"
"$FMVGEN" verify --json --cpu Haswell -- "./with space/fmv gcc" "an arg" >space.json
expect_eq "spaced path exits 0" "$?" 0
expect_eq "spaced path picks" "$(jq -r '.dispatch[0].picks.Haswell' space.json)" mix.arch_x86_64_v3

finish
