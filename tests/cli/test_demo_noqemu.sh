#!/usr/bin/env bash
# test_demo_noqemu.sh - `fmvgen demo --quick` where qemu-x86_64 cannot be
# found (FMVGEN_QEMU names a missing program): the article's table keeps its
# native columns and says which Debian package provides the emulated CPUs;
# the demo still succeeds. (The --json side of it is one field,
# emulation_missing, written from the same string.)
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
export FMVGEN_QEMU="$TMP/no-such-qemu"

out=$("$FMVGEN" demo --runs 1 --quick 2>"$TMP/err")
rc=$?
expect_eq "demo exit status without qemu (stderr: $(cat "$TMP/err"))" "$rc" 0
aa=$(printf '%s\n' "$out" | sed -n '/^array_addition: time of the whole program/,/^$/p')
expect_match "header without CPU columns" "$aa" '^  build +time +vs -O3$'
expect_match "-O3 -mavx2 timed" "$aa" '^  -O3 -mavx2 +[0-9]+\.[0-9]+ s +[0-9]+\.[0-9]+x$'
expect_match "package named" "$aa" \
  "^  emulated CPUs: none, $TMP/no-such-qemu not found; install the Debian package qemu-user \(apt-get install qemu-user\)$"
expect_no_match "no SIGILL claimed" "$aa" 'SIGILL'

finish
