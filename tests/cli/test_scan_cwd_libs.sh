#!/bin/bash
# test_scan_cwd_libs.sh - a build directory holding files named like the
# shared libraries fmvgen and its compiler wrapper load (libz.so.1,
# libelf.so.1, libm.so.6, libc.so.6: a zlib build makes its own libz.so.1
# there): neither looks in the current directory for them (no empty entry
# in their RUNPATH), so the scan runs and records the compile. Here the
# files are not ELF: loading one would stop the process ("file too short").
source "$TESTLIB"

P="$TMP/proj"; mkdir -p "$P"
printf 'void scale(float *a, int n) { for (int i = 0; i < n; i++) a[i] *= 2.0f; }\n' > "$P/k.c"
printf 'k.o: k.c\n\t$(CC) -O2 -c k.c -o k.o\n' > "$P/Makefile"
for lib in libz.so.1 libelf.so.1 libm.so.6 libc.so.6; do echo "not a library" > "$P/$lib"; done
out=$(cd "$P" && CC=gcc "$FMVGEN" scan --no-probe -- make -s 2>&1); rc=$?
expect_eq "scan exit" "$rc" 0
expect_no_match "no loader error" "$out" "error while loading shared libraries"
expect_eq "the compile is recorded" \
  "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT count(*) FROM compiles WHERE source='$P/k.c'")" 1
for exe in "$FMVGEN" "$(dirname "$FMVGEN")/fmvgen-cc"; do
  expect_no_match "$(basename "$exe"): no empty RUNPATH entry" \
    "$(readelf -d "$exe" | grep -E 'R(UN)?PATH')" '(\[|:)(:|\])'
done
