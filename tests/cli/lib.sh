# Shared helpers for the CLI tests (sourced). Each test gets a scratch
# directory removed at exit, and assertions that print what they expected.
set -u
: "${FMVGEN:?FMVGEN must point at the built fmvgen}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fmvgen-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILS=0
PASSES=0

pass() { PASSES=$((PASSES+1)); }
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS+1)); }

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() { if [ "$2" = "$3" ]; then pass; else fail "$1: got [$2], expected [$3]"; fi; }
# text_matches WHAT TEXT REGEX: status 0 when the extended regex REGEX
# matches TEXT, 1 when not, 2 (with a FAIL line for WHAT) when REGEX
# cannot fail:
# - a one-line REGEX is matched line by line (grep -E: ^ and $ anchor lines);
# - a REGEX holding a newline is matched against the whole TEXT at once
#   (bash =~, POSIX ERE: the newline is a character, ^ and $ anchor TEXT,
#   . and [^x] also match a newline). grep would instead split it into one
#   pattern per line, any of which matching, and an empty line (a REGEX
#   beginning or ending with a newline) matches everything;
# - a REGEX that matches any line (empty, an empty alternative as in a| or
#   (|b), or all optional as in x*) is refused: it matches the texts "\n",
#   "\x01" and "Zz9 _-.~(\x01" alike; so is an invalid REGEX
#   (expect_no_match would pass on it).
regex_search() {   # TEXT REGEX -> status of the search, as described above
  if [[ "$2" == *$'\n'* ]]; then [[ "$1" =~ $2 ]]; else printf '%s' "$1" | grep -Eq -- "$2"; fi
}
text_matches() {
  local rc
  regex_search "$2" "$3"; rc=$?
  if [ "$rc" -gt 1 ]; then
    fail "$1: test error: /$3/ is not a valid extended regex"
    return 2
  fi
  if [ -z "$3" ] || { regex_search $'\n' "$3" && regex_search $'\x01' "$3" && regex_search $'Zz9 _-.~(\x01' "$3"; }; then
    fail "$1: test error: /$3/ matches any text (empty, an empty alternative, or all optional)"
    return 2
  fi
  return "$rc"
}
# expect_match WHAT TEXT REGEX: REGEX matches TEXT (see text_matches)
expect_match() {
  text_matches "$1" "$2" "$3"
  case $? in 0) pass ;; 1) fail "$1: [$2] does not match /$3/" ;; esac
}
# expect_no_match WHAT TEXT REGEX: REGEX does not match TEXT (see text_matches)
expect_no_match() {
  text_matches "$1" "$2" "$3"
  case $? in 0) fail "$1: [$2] matches /$3/" ;; 1) pass ;; esac
}
# expect_contains WHAT TEXT LITERAL: LITERAL (several lines, no pattern) is
# in TEXT; an empty LITERAL is in every TEXT: refused.
expect_contains() {
  if [ -z "$3" ]; then fail "$1: test error: an empty literal is in any text"
  elif [[ "$2" == *"$3"* ]]; then pass
  else fail "$1: [$2] does not contain [$3]"; fi
}

# copy_fixture NAME -> prints path of a fresh copy under $TMP
copy_fixture() { mkdir -p "$TMP/$1"; cp -a "$FIXTURES/$1/." "$TMP/$1/"; printf '%s' "$TMP/$1"; }

have_clang19() { command -v clang-19 >/dev/null 2>&1; }
# installed CMD: CMD is on PATH; when not, says that its checks are skipped
# (a skip is never silent)
installed() { command -v "$1" >/dev/null 2>&1 && return 0; echo "$1 not installed: its checks are skipped"; return 1; }

# skip_test WHY: the whole test cannot run here: says why and exits 77,
# which CTest reports as skipped (tests/CMakeLists.txt SKIP_RETURN_CODE),
# never as passed.
skip_test() { echo "SKIPPED: $*"; exit 77; }

# finish: the summary; fails when a check failed or when no check ran.
finish() {
  [ $((PASSES + FAILS)) -eq 0 ] && fail "no check ran"
  echo "$PASSES passed, $FAILS failed"
  [ "$FAILS" -eq 0 ]
}

# chromium_dom HTML: prints the DOM of page HTML as headless chromium lays it
# out in a 1300x900 window (--dump-dom), its <body> carrying
# data-page-width="N", the page's scroll width: wider than the window means
# something runs off the right edge. Non-zero when chromium fails; check
# have_chromium first (scripts/setup-deps.sh installs it).
have_chromium() { command -v chromium >/dev/null 2>&1; }
chromium_dom() {
  local page="$TMP/dom-$RANDOM.html"
  sed 's|</body>|<script>document.body.setAttribute("data-page-width", document.documentElement.scrollWidth)</script></body>|' \
    "$1" >"$page"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chromium-profile" \
    --window-size=1300,900 --dump-dom "file://$page" 2>"$TMP/chromium.err"
}
