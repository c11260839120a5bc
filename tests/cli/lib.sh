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
# expect_match WHAT TEXT REGEX
expect_match() { if printf '%s' "$2" | grep -Eq -- "$3"; then pass; else fail "$1: [$2] does not match /$3/"; fi; }
# expect_contains WHAT TEXT LITERAL: LITERAL (several lines, no pattern) is in TEXT
expect_contains() { if [[ "$2" == *"$3"* ]]; then pass; else fail "$1: [$2] does not contain [$3]"; fi; }
expect_no_match() { if printf '%s' "$2" | grep -Eq -- "$3"; then fail "$1: [$2] matches /$3/"; else pass; fi; }

# copy_fixture NAME -> prints path of a fresh copy under $TMP
copy_fixture() { mkdir -p "$TMP/$1"; cp -a "$FIXTURES/$1/." "$TMP/$1/"; printf '%s' "$TMP/$1"; }

have_clang19() { command -v clang-19 >/dev/null 2>&1; }

finish() {
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
