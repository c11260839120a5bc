#!/bin/bash
# test_namespace.sh - fmvgen-ns, the helper select runs each variant's
# commands through (lib/run/namespace.h): inside, the bound copy is seen at
# the original path, and what a command writes there lands in the copy;
# outside, the original is untouched and no mount is left; nested binds;
# the user-namespace path (root without CAP_SYS_ADMIN, through setpriv);
# usage errors and a missing program. Skipped where mount namespaces are not
# permitted at all.
source "$TESTLIB"

NS="$(dirname "$FMVGEN")/fmvgen-ns"
[ -x "$NS" ] || { fail "fmvgen-ns is not built next to fmvgen"; finish; exit 1; }
if ! "$NS" --bind / / -- true 2>/dev/null; then
  skip_test "private mount namespaces are not permitted here"
fi

mkdir -p "$TMP/orig/sub" "$TMP/copy/sub" "$TMP/build"
echo original >"$TMP/orig/f"
echo copy >"$TMP/copy/f"
echo build >"$TMP/build/g"

expect_eq "bind: the copy is seen at the original path" \
  "$("$NS" --bind "$TMP/copy" "$TMP/orig" -- cat "$TMP/orig/f")" copy
"$NS" --bind "$TMP/copy" "$TMP/orig" -- sh -c 'echo written >"$1/new"' sh "$TMP/orig"
expect_eq "bind: a write inside lands in the copy" "$(cat "$TMP/copy/new" 2>&1)" written
[ -e "$TMP/orig/new" ] && fail "bind: the original was written" || pass
expect_eq "bind: the original is untouched outside" "$(cat "$TMP/orig/f")" original
expect_eq "bind: no mount left outside" "$(grep -c " $TMP/orig " /proc/self/mounts)" 0
expect_eq "nested binds: the later one lies inside the earlier one" \
  "$("$NS" --bind "$TMP/copy" "$TMP/orig" --bind "$TMP/build" "$TMP/orig/sub" -- cat "$TMP/orig/f" "$TMP/orig/sub/g")" \
  "$(printf 'copy\nbuild')"
expect_eq "cwd and arguments pass through" \
  "$(cd "$TMP/copy" && "$NS" --bind "$TMP/copy" "$TMP/orig" -- sh -c 'pwd; printf "[%s]" "$@"' sh 'a b' '')" \
  "$(printf '%s\n[a b][]' "$TMP/copy")"

if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
  out=$(setpriv --bounding-set -sys_admin --inh-caps -sys_admin "$NS" --bind "$TMP/copy" "$TMP/orig" -- \
        sh -c 'cat "$1/f"; id -u' sh "$TMP/orig" 2>&1); rc=$?
  if [ "$rc" = 0 ]; then
    expect_eq "user namespace: the copy seen, the uid kept" "$out" "$(printf 'copy\n0')"
  else
    expect_match "user namespace refused: says which call" "$out" "^fmvgen-ns: unshare\(mount namespace\): Operation not permitted; "
  fi
fi

out=$("$NS" --bind "$TMP/copy" 2>&1); rc=$?
expect_eq "usage: exit" "$rc" 125
expect_match "usage: one line" "$out" "^fmvgen-ns: usage: fmvgen-ns \[--bind SRC DST\]\.\.\. -- PROGRAM ARGS\.\.\.$"
out=$("$NS" --bind "$TMP/copy" "$TMP/nowhere" -- true 2>&1); rc=$?
expect_eq "missing mount point: exit" "$rc" 125
expect_eq "missing mount point: says so" "$out" "fmvgen-ns: mount --bind $TMP/copy $TMP/nowhere: No such file or directory"
out=$("$NS" -- "$TMP/no-such-program" 2>&1); rc=$?
expect_eq "missing program: exit" "$rc" 127
expect_eq "missing program: says so" "$out" "fmvgen-ns: $TMP/no-such-program: No such file or directory"

finish
