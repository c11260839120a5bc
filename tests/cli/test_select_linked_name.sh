#!/bin/bash
# test_select_linked_name.sh - `fmvgen select` on tests/fixtures/
# select-linked-name: bin/dot and bin/fill each link their own global
# `kernel_run` (dot/kernel.c, fill/kernel.c: one name, one basename, other
# code). Perf names both "kernel_run"; global symbols carry no source file,
# so select tells them apart by the linked file each sample came from
# (select/linkedfile.h): the compile-and-link command's own output
# (MODE=link), or the object whose code the baseline's program holds
# (objects linked later). Each is counted by file with its own program's
# samples and charged its own program's clones' bytes (not both programs'),
# nothing is "ambiguous", and dot's kernel_run (several times
# faster with AVX2/AVX-512 clones) is selected and patched alone in its
# file. gcc in both modes, clang (14) with objects, clang-19 with one
# command per program. Asserts on the attribution and selection, never on
# times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"     # select's private copies go here: must be empty at the end
mkdir -p "$TMPDIR"

# select_on CC MODE: runs select; sets $out (report.json) and $P
select_on() {
  local cc=$1 mode=$2
  P=$(copy_fixture select-linked-name)
  mv "$P" "$TMP/p-$cc-$mode"
  P="$TMP/p-$cc-$mode"
  (cd "$P" && "$FMVGEN" scan -- make CC="$cc" MODE="$mode" >/dev/null 2>&1) || { fail "$cc $mode: scan failed"; return 1; }
  expect_eq "$cc $mode: two candidates named kernel_run" \
    "$(cd "$P" && "$FMVGEN" list --json | jq -r '[.functions[] | select(.name=="kernel_run" and .status=="candidate")] | length')" 2
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=$cc MODE=$mode" --run './bin/dot 60000' \
          --run './bin/fill 100000' --runs 3 --json 2>"$TMP/err"); rc=$?
  expect_eq "$cc $mode: exit" "$rc" 0
  [ "$rc" = 0 ] || { cat "$TMP/err" >&2; return 1; }
  return 0
}

fn() {   # FILE FIELD: a field of the kernel_run defined in FILE
  jq -r --arg f "$1" ".functions[] | select(.name==\"kernel_run\" and .file==\$f) | .$2" <<<"$out"
}

check() {   # CC MODE
  local tag="$1 $2" patch="$P/.fmvgen/selected.patch"
  expect_eq "$tag: dot's kernel_run counted by file" "$(fn dot/kernel.c samples_by_file)" true
  expect_eq "$tag: fill's kernel_run counted by file" "$(fn fill/kernel.c samples_by_file)" true
  expect_eq "$tag: nothing ambiguous" "$(jq -r '[.functions[] | select(.reason=="ambiguous-name")] | length' <<<"$out")" 0
  expect_no_match "$tag: no file left untold" "$(jq -r '.notes[]?' <<<"$out")" "cannot be told apart by linked file"
  # counted by name, both would get the samples of both programs: the same count
  local d f
  d=$(fn dot/kernel.c baseline_samples_per_run); f=$(fn fill/kernel.c baseline_samples_per_run)
  expect_eq "$tag: each counted with its own program's samples" "$(jq -n --argjson d "$d" --argjson f "$f" '$d > 0 and $f > 0 and $d != $f')" true
  # code growth too: each its own program's clones (by name, both would show the sum of both)
  d=$(fn dot/kernel.c 'bytes_added["fma-free"]'); f=$(fn fill/kernel.c 'bytes_added["fma-free"]')
  expect_eq "$tag: each charged its own program's clones" "$(jq -n --argjson d "$d" --argjson f "$f" '$d > 0 and $f > 0 and $d != $f')" true
  expect_eq "$tag: dot's kernel_run selected" "$(fn dot/kernel.c selected)" true
  expect_match "$tag: a clone of dot's kernel_run ran" "$(fn dot/kernel.c 'variants["fma-free"].clone_ran')" \
    '^fmvgen_cp_kernel_run_'
  expect_match "$tag: the patch changes dot/kernel.c" "$(grep '^+++ ' "$patch")" '^\+\+\+ b/dot/kernel.c'
  if [ "$(fn fill/kernel.c selected)" = false ]; then
    expect_no_match "$tag: fill's kernel_run not selected, not patched" "$(grep '^+++ ' "$patch")" "fill/kernel.c"
  fi
  expect_no_match "$tag: summary says nothing ambiguous" "$(cat "$TMP/err")" "ambiguous|not unique"
  (cd "$P" && patch -p1 --dry-run -s <"$patch" >/dev/null) && pass || fail "$tag: patch does not apply"
  expect_eq "$tag: temp dir removed" "$(ls -A "$TMPDIR")" ""
}

if select_on gcc objects; then check gcc objects; fi
if select_on gcc link; then check gcc link; fi
if select_on clang objects; then check clang objects; fi
if have_clang19; then
  if select_on clang-19 link; then check clang-19 link; fi
else
  echo "clang-19 not installed: skipped"
fi

finish
