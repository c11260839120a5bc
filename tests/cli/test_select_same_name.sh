#!/bin/bash
# test_select_same_name.sh - `fmvgen select` on tests/fixtures/select-same-name:
# hot.c and cold.c each define a static vectorizable `kernel`, hot.c's ~all
# of the run, cold.c's run once. perf names both "kernel"; select tells
# them apart by file (the ELF symbol table's STT_FILE of each sample's
# symbol), so the hot one is selected and patched, the cold one is cold and
# left out of the patch, and nothing is "ambiguous". Built by gcc and by
# clang-19 (when installed); clang (14) clones no static function (the
# patch preamble empties FMVGEN_CLONES_STATIC there), so with it only the
# attribution is checked. Asserts on the selection, never on times.
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"     # select's private copies go here: must be empty at the end
mkdir -p "$TMPDIR"

# select_on CC: runs select; sets $out (report.json) and $P
select_on() {
  local cc=$1
  P=$(copy_fixture select-same-name)
  mv "$P" "$TMP/p-$cc"
  P="$TMP/p-$cc"
  (cd "$P" && "$FMVGEN" scan -- make CC="$cc" >/dev/null 2>&1) || { fail "$cc: scan failed"; return 1; }
  expect_eq "$cc: two candidates named kernel" \
    "$(cd "$P" && "$FMVGEN" list --json | jq -r '[.functions[] | select(.name=="kernel" and .status=="candidate")] | length')" 2
  out=$(cd "$P" && "$FMVGEN" select --max-growth none --build "make CC=$cc" --run './prog 40000' --runs 3 --json 2>"$TMP/err"); rc=$?
  expect_eq "$cc: exit" "$rc" 0
  [ "$rc" = 0 ] || { cat "$TMP/err" >&2; return 1; }
  return 0
}

fn() {   # FILE FIELD: a field of the kernel defined in FILE
  jq -r --arg f "$1" ".functions[] | select(.name==\"kernel\" and .file==\$f) | .$2" <<<"$out"
}

check_attribution() {   # CC
  local cc=$1
  expect_eq "$cc: hot.c's kernel counted by file" "$(fn hot.c samples_by_file)" true
  expect_eq "$cc: cold.c's kernel counted by file" "$(fn cold.c samples_by_file)" true
  expect_eq "$cc: cold.c's kernel is cold" "$(fn cold.c reason)" cold
  expect_eq "$cc: hot.c's kernel holds most of the run" "$(fn hot.c 'share > 0.5')" true
  expect_eq "$cc: nothing ambiguous" "$(jq -r '[.functions[] | select(.reason=="ambiguous-name")] | length' <<<"$out")" 0
  expect_no_match "$cc: report.md says nothing ambiguous" "$(cat "$P/.fmvgen/report.md")" "ambiguous|name not unique"
  expect_match "$cc: report.md names both files" "$(cat "$P/.fmvgen/report.md")" \
    'told apart by file:\*\* 2 candidates .* `kernel` \(cold.c:5, hot.c:5\)'
  expect_no_match "$cc: summary says nothing ambiguous" "$(cat "$TMP/err")" "ambiguous|not unique"
}

check_selection() {   # CC
  local cc=$1 patch="$P/.fmvgen/selected.patch"
  expect_eq "$cc: hot.c's kernel selected" "$(fn hot.c selected)" true
  expect_eq "$cc: cold.c's kernel not selected" "$(fn cold.c selected)" false
  expect_match "$cc: a clone of hot.c's kernel ran with fma-free" "$(fn hot.c 'variants["fma-free"].clone_ran')" \
    '^fmvgen_cp_kernel_avx2'   # select's default dispatch, cpuid: the copy
  expect_eq "$cc: one attribute line" "$(grep -c '^+FMVGEN_CLONES' "$patch")" 1
  expect_match "$cc: the patch changes hot.c" "$(cat "$patch")" '^\+\+\+ b/hot.c'
  expect_no_match "$cc: the patch leaves cold.c alone" "$(grep '^+++ ' "$patch")" "cold.c"
  expect_match "$cc: attribute before hot.c's kernel" "$(grep -A1 '^+FMVGEN_CLONES[A-Z_]*_STATIC' "$patch")" \
    "static int64_t kernel"
  (cd "$P" && patch -p1 --dry-run -s <"$patch" >/dev/null) && pass || fail "$cc: patch does not apply"
  expect_match "$cc: report.md: hot.c's kernel selected" "$(cat "$P/.fmvgen/report.md")" \
    '\| kernel \[[a-z-]+\] \| hot.c:5 \|.*\| selected \|'
  expect_eq "$cc: temp dir removed" "$(ls -A "$TMPDIR")" ""
}

if select_on gcc; then
  check_attribution gcc
  check_selection gcc
fi
if have_clang19; then
  if select_on clang-19; then
    check_attribution clang-19
    check_selection clang-19
  fi
else
  echo "clang-19 not installed: skipped"
fi
if select_on clang; then
  check_attribution clang
fi

finish
