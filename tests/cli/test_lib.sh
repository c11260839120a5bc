#!/bin/bash
# test_lib.sh - the assertions of tests/cli/lib.sh themselves: a regex
# holding a newline is matched against the whole text (grep -E would split
# it into one pattern per line, and an empty one matches everything); a
# regex that matches any line, an invalid regex and an empty literal are
# refused as test errors; skip_test exits 77; finish fails when no check ran.
source "$TESTLIB"

# verdict KIND TEXT ARG -> "pass", "fail" or "error" of one assertion run in
# a fresh shell sourcing lib.sh
verdict() {
  local out
  out=$(TMPDIR="$TMP" bash -c 'source "$TESTLIB"; "$1" what "$2" "$3"; echo "$PASSES $FAILS"' _ "$@" 2>&1)
  case $out in
    *"test error"*) echo error ;;
    *"1 0") echo pass ;;
    *"0 1") echo fail ;;
    *) echo "unexpected: $out" ;;
  esac
}
t=$'int a;\nFMVGEN_CLONES(f)\r\nvoid f(int n)\n{'
expect_eq "one-line regex, line by line" "$(verdict expect_match "$t" '^void f\(int n\)$')" pass
expect_eq "multi-line regex that is there" "$(verdict expect_match "$t" $'\nFMVGEN_CLONES\\(f\\)\r?\nvoid f\\(')" pass
expect_eq "multi-line regex whose second line is not there" "$(verdict expect_match "$t" $'\nFMVGEN_CLONES\\(f\\)\r?\nvoid g\\(')" fail
expect_eq "multi-line regex whose lines are there, not in this order" "$(verdict expect_match "$t" $'void f\\(int n\\)\nint a;')" fail
expect_eq "regex beginning with a newline, absent text" "$(verdict expect_match "$t" $'\nnowhere')" fail
expect_eq "no_match: multi-line regex absent" "$(verdict expect_no_match "$t" $'\nnowhere')" pass
expect_eq "no_match: multi-line regex present" "$(verdict expect_no_match "$t" $'int a;\nFMVGEN')" fail
expect_eq "no_match: an empty line asked for" "$(verdict expect_no_match "$t" '^$')" pass
expect_eq "empty regex refused" "$(verdict expect_match "$t" '')" error
expect_eq "trailing empty alternative refused" "$(verdict expect_match "$t" 'nowhere|')" error
expect_eq "empty alternative in a group refused" "$(verdict expect_no_match "$t" '(|nowhere)')" error
expect_eq "all optional refused" "$(verdict expect_match "$t" 'x*')" error
expect_eq "invalid regex refused (no_match would pass)" "$(verdict expect_no_match "$t" 'f(')" error
expect_eq "empty literal refused" "$(verdict expect_contains "$t" '')" error
expect_eq "literal present" "$(verdict expect_contains "$t" $'\r\nvoid f(')" pass
out=$(TMPDIR="$TMP" bash -c 'source "$TESTLIB"; skip_test "no such thing here"' 2>&1); rc=$?
expect_eq "skip_test: exit 77" "$rc" 77
expect_eq "skip_test: says why" "$out" "SKIPPED: no such thing here"
out=$(TMPDIR="$TMP" bash -c 'source "$TESTLIB"; finish' 2>&1); rc=$?
expect_eq "finish with no check: fails" "$rc" 1
expect_match "finish with no check: says so" "$out" 'FAIL: no check ran'
finish
