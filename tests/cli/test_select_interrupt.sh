#!/bin/bash
# test_select_interrupt.sh - `fmvgen select` on a build that takes long
# (tests/fixtures/select-hot-cold, with gcc, clang-14 and clang-19): a
# patched build running past --timeout fails with a line saying that
# --timeout gives it longer (sox's whole rebuild took more than the default
# 600 s on a loaded machine, and the line did not say what to do); SIGINT or
# SIGTERM during a build stops that build at once (it runs in a process group
# of its own, which a terminal's Ctrl-C does not reach) instead of after it
# ends, and the temp dir is removed.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"
for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  rm -rf "$TMP/select-hot-cold"
  P=$(copy_fixture select-hot-cold)
  (cd "$P" && "$FMVGEN" scan -- make CC="$cc" >/dev/null 2>&1) || { fail "$cc: scan failed"; continue; }
  slow="if grep -q FMVGEN_CLONES kernels.c; then sleep 40; fi; make CC=$cc"

  # every patched build times out: the error line names --timeout
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --reference none --build "$slow" --run './prog 2000' \
          --runs 2 --timeout 3 2>&1); rc=$?
  expect_eq "$cc timeout: exit" "$rc" 1
  expect_match "$cc timeout: the line says what gives it longer" "$out" \
    "no target set's build succeeded \(fma-levels: build failed \(timed out after [0-9.]+ s; select's --timeout S gives each build longer\)\)"
  expect_eq "$cc timeout: temp dir removed" "$(ls -A "$TMPDIR")" ""

  # SIGINT and SIGTERM while a patched build runs: select stops within seconds
  for sig in INT TERM; do
    (cd "$P" && exec "$FMVGEN" select --max-growth none --reference none --build "$slow" --run './prog 2000' \
       --runs 2 >"$TMP/out" 2>&1) &
    pid=$!
    for _ in $(seq 300); do grep -q 'with every candidate cloned' "$TMP/out" && break; sleep 0.1; done
    sleep 0.5
    start=$(date +%s)
    kill -$sig $pid
    wait $pid; rc=$?
    took=$(( $(date +%s) - start ))
    [ "$took" -lt 20 ] && pass || fail "$cc SIG$sig: select went on for $took s after the signal (the build was not stopped)"
    expect_eq "$cc SIG$sig: exit" "$([ $rc -ne 0 ] && echo nonzero)" nonzero
    expect_match "$cc SIG$sig: said" "$(cat "$TMP/out")" "interrupted; removing the temp directory"
    expect_eq "$cc SIG$sig: temp dir removed" "$(ls -A "$TMPDIR")" ""
  done
done
finish
