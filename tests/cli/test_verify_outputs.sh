# test_verify_outputs.sh - what `fmvgen verify` compares and follows:
# stdout and --compare files against the native run (a CPU-dependent
# program is reported, the file left behind is the native one), float-only
# differences from an FMA clone (named as the likely cause, accepted within
# --float-tolerance), a shared library's clones found through
# LD_LIBRARY_PATH, and a hanging program stopped by --timeout.
. "$TESTLIB"
command -v jq >/dev/null || { echo "jq missing (scripts/setup-deps.sh installs it)"; exit 1; }

misc=$(copy_fixture verify-misc)
cd "$misc"
gcc -O2 cpuname.c -o cpuname
gcc -O2 hang.c -o hang

# Output that depends on AVX2: differs on Nehalem, identical on Haswell.
"$FMVGEN" verify --json --cpu Nehalem,Haswell --compare out.txt -- ./cpuname out.txt >cpu.json
expect_eq "differing output exits 1" "$?" 1
expect_eq "Nehalem stdout" "$(jq -r '.cpus[1] | "\(.cpu) \(.stdout.match) \(.stdout.line)"' cpu.json)" "Nehalem different 2"
expect_eq "Nehalem stdout lines" "$(jq -r '.cpus[1].stdout | "\(.expected)|\(.actual)"' cpu.json)" "avx2 yes|avx2 no"
expect_eq "Nehalem file" "$(jq -r '.cpus[1].files[0] | "\(.file) \(.match)"' cpu.json)" "out.txt different"
expect_eq "Nehalem ran fine" "$(jq -r '.cpus[1] | "\(.result) \(.ok)"' cpu.json)" "ok false"
expect_eq "Haswell identical" "$(jq -r '.cpus[2] | "\(.stdout.match) \(.files[0].match) \(.ok)"' cpu.json)" "identical identical true"
expect_eq "file left is the native run's" "$(cat out.txt)" "avx2 yes"
table=$("$FMVGEN" verify --cpu Nehalem --compare out.txt -- ./cpuname out.txt)
expect_match "table shows the differing line" "$table" 'Nehalem: stdout line 2: native "avx2 yes", here "avx2 no"'
expect_match "table verdict" "$table" 'Result: FAILED: Nehalem \(output differs\)'

# A --compare file the program does not write on some run is reported.
"$FMVGEN" verify --json --cpu Nehalem --compare never.txt -- ./cpuname >never.json
expect_eq "unwritten file exits 1" "$?" 1
expect_eq "unwritten file natively" "$(jq -r '.cpus[0].files[0].match' never.json)" missing

# A hanging program is stopped, natively and emulated.
"$FMVGEN" verify --json --timeout 1 --cpu Nehalem -- ./hang >hang.json
expect_eq "hang exits 1" "$?" 1
expect_eq "hang results" "$(jq -r '[.cpus[].result] | join(",")' hang.json)" "timeout,timeout"

# A crash is named on every CPU (qemu re-raises the guest's signal), with the
# program's last stderr line rather than qemu's report.
gcc -O0 crash.c -o crash
"$FMVGEN" verify --json --cpu Nehalem -- ./crash >crash.json
expect_eq "crash exits 1" "$?" 1
expect_eq "crash results" "$(jq -r '[.cpus[].result] | join(",")' crash.json)" "SIGSEGV,SIGSEGV"
expect_eq "crash message" "$(jq -r '.cpus[1].message' crash.json)" "about to crash"

# A static program takes no preloaded helper: its map comes through gdb
# (test_verify_static.sh); the CPU level is still measured.
gcc -O2 -static cpuname.c -o cpuname-static
"$FMVGEN" verify --json --cpu Haswell -- ./cpuname-static >static.json
expect_eq "static program exits 0" "$?" 0
expect_eq "static: a map through gdb" "$(jq -r '.dispatch_unavailable' static.json)" null
expect_eq "static: level measured" "$(jq -r '.cpus[1].level' static.json)" x86-64-v3

# glibc's own ifuncs, when LD_LIBRARY_PATH names libc's directory: the map
# covers them, and gettimeofday's resolver natively returns a function of
# the vDSO, which is reported as such rather than as a clone.
libc_dir=$(dirname "$(gcc -print-file-name=libc.so.6)")
LD_LIBRARY_PATH="$libc_dir" "$FMVGEN" verify --json --cpu Haswell -- ./cpuname >libc.json
expect_eq "libc program exits 0" "$?" 0
expect_match "libc's memcpy is in the map" "$(jq -r '[.dispatch[] | select(.object | endswith("/libc.so.6")) | .function] | join(",")' libc.json)" '(^|,)memcpy(,|$)'
expect_match "gettimeofday returns the vDSO's function" \
  "$(jq -r '.dispatch[] | select(.function=="gettimeofday") | .picks.native' libc.json)" '^linux-vdso\.so\.1\+0x[0-9a-f]+$'

# Floats that differ only because the v3 clone uses FMA.
fmv=$(copy_fixture verify-fmv)
cd "$fmv"
gcc -O2 fma.c -o fma
"$FMVGEN" verify --json --cpu qemu64,Haswell -- ./fma >fma.json
expect_eq "fma exits 1 without tolerance" "$?" 1
expect_eq "qemu64 floats differ" "$(jq -r '.cpus[1].stdout.match' fma.json)" floats-differ
expect_eq "Haswell (same clone as native) identical" "$(jq -r '.cpus[2].stdout.match' fma.json)" identical
expect_match "FMA named as the cause" "$(jq -r '.notes[]' fma.json)" \
  '^qemu64: .*axpy runs axpy.default there and axpy.arch_x86_64_v3 natively, and axpy.arch_x86_64_v3 uses FMA instructions. FMA contraction'
"$FMVGEN" verify --json --cpu qemu64,Haswell --float-tolerance 1e-6 -- ./fma >fma-tol.json
expect_eq "fma within tolerance exits 0" "$?" 0
expect_eq "qemu64 within tolerance" "$(jq -r '.cpus[1].stdout.match' fma-tol.json)" within-tolerance
# A tolerance below the difference still fails.
"$FMVGEN" verify --json --cpu qemu64 --float-tolerance 1e-15 -- ./fma >/dev/null
expect_eq "fma beyond a tiny tolerance exits 1" "$?" 1

# A shared library with clones, found through LD_LIBRARY_PATH.
lib=$(copy_fixture verify-lib)
cd "$lib"
mkdir -p sub
gcc -O2 -fPIC -shared libsum.c -o sub/libsum.so
gcc -O2 main.c -Lsub -lsum -o main
LD_LIBRARY_PATH="$lib/sub" "$FMVGEN" verify --json --cpu Nehalem,Haswell -- ./main >lib.json
expect_eq "library program exits 0" "$?" 0
expect_eq "library function in the map" \
  "$(jq -r '.dispatch[] | "\(.function) \(.object) \(.main)"' lib.json)" "weighted_sum $lib/sub/libsum.so false"
expect_eq "library picks" "$(jq -r '.dispatch[0].picks | "\(.Nehalem) \(.Haswell)"' lib.json)" \
  "weighted_sum.default weighted_sum.arch_x86_64_v3"
# Without LD_LIBRARY_PATH the program cannot start anywhere.
"$FMVGEN" verify --json --cpu Nehalem -- ./main >nolib.json
expect_eq "missing library exits 1" "$?" 1
expect_eq "missing library: exit 127 natively" "$(jq -r '.cpus[0].result' nolib.json)" "exit 127"
# Found through the build's rpath ($ORIGIN) just as well.
gcc -O2 main.c -Lsub -lsum -Wl,-rpath,'$ORIGIN/sub' -o main-rpath
"$FMVGEN" verify --json --cpu Haswell -- ./main-rpath >rpath.json
expect_eq "rpath library picks" "$(jq -r '.dispatch[0].picks.Haswell' rpath.json)" weighted_sum.arch_x86_64_v3

finish
