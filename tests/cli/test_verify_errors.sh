# test_verify_errors.sh - `fmvgen verify` refuses what it cannot verify with
# one line naming the file and exit status 2, before running anything: a
# text file, an ELF file for another architecture, a missing program, qemu
# missing (the line names the Debian package), an unknown CPU model, bad
# option values.
. "$TESTLIB"

misc=$(copy_fixture verify-misc)
cd "$misc"
gcc -O2 cpuname.c -o cpuname

err=$("$FMVGEN" verify -- ./notelf.txt 2>&1 >/dev/null)
expect_eq "text file exit" "$?" 2
expect_eq "text file message" "$err" "fmvgen: ./notelf.txt: not an ELF file"

# The same program with e_machine (offset 18) set to AArch64 (183).
cp cpuname arm-prog
printf '\267\000' | dd of=arm-prog bs=1 seek=18 conv=notrunc 2>/dev/null
err=$("$FMVGEN" verify -- ./arm-prog 2>&1 >/dev/null)
expect_eq "foreign ELF exit" "$?" 2
expect_match "foreign ELF message" "$err" '^fmvgen: \./arm-prog: .*AArch64.*not x86-64$'
expect_eq "foreign ELF: one line" "$(printf '%s\n' "$err" | wc -l)" 1

err=$("$FMVGEN" verify -- ./no-such-program 2>&1 >/dev/null)
expect_eq "missing program exit" "$?" 2
expect_eq "missing program message" "$err" "fmvgen: ./no-such-program: no such program"

chmod -x cpuname
err=$("$FMVGEN" verify -- ./cpuname 2>&1 >/dev/null)
expect_eq "not executable exit" "$?" 2
expect_eq "not executable message" "$err" "fmvgen: ./cpuname: not executable"
chmod +x cpuname

# No qemu-x86_64 in PATH: one line naming the package, nothing run.
mkdir empty-path
err=$(PATH="$misc/empty-path" "$FMVGEN" verify --compare out.txt -- "$misc/cpuname" out.txt 2>&1 >/dev/null)
expect_eq "no qemu exit" "$?" 2
expect_match "no qemu names the package" "$err" '^fmvgen: qemu-x86_64: not found; install the Debian package qemu-user'
expect_eq "no qemu: one line" "$(printf '%s\n' "$err" | wc -l)" 1
expect_eq "no qemu: nothing ran" "$(ls out.txt 2>/dev/null)" ""

err=$("$FMVGEN" verify --cpu Nehalem,NoSuchCPU -- ./cpuname 2>&1 >/dev/null)
expect_eq "unknown model exit" "$?" 2
expect_match "unknown model message" "$err" "^fmvgen: .*qemu-x86_64: no CPU model 'NoSuchCPU'"

err=$("$FMVGEN" verify --timeout 0 -- ./cpuname 2>&1 >/dev/null)
expect_eq "bad timeout exit" "$?" 2
expect_match "bad timeout message" "$err" "^fmvgen: --timeout: '0' is not a positive number"
err=$("$FMVGEN" verify --float-tolerance abc -- ./cpuname 2>&1 >/dev/null)
expect_eq "bad tolerance exit" "$?" 2
err=$("$FMVGEN" verify --cpu , -- ./cpuname 2>&1 >/dev/null)
expect_eq "empty cpu list exit" "$?" 2
err=$("$FMVGEN" verify 2>&1 >/dev/null)
expect_eq "no program exit" "$?" 2
expect_match "no program message" "$err" "no program given"

finish
