#!/bin/bash
# test_outside_dotdot_header.sh - a header whose path holds ".." after a
# symbolic link (libclang names libstdc++ headers
# /../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/..., /lib being
# a link to /usr/lib; seen on snappy's C++ build as "/include/c++/12/...")
# is stored under its real path, not the one removing ".." by text gives.
# Fixture tests/fixtures/outside-dotdot-header, gcc and clang-19 (when installed).
source "$TESTLIB"

for cc in gcc clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/outside-dotdot-header/." "$P/"
  ln -s sub/deeper "$P/inc"
  cd "$P" || exit 1
  "$FMVGEN" scan --root "$P" --no-probe -- make -s CC="$cc" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  # a header's static function is judged in its TU (candidates/header.h):
  # noinline excludes it
  expect_eq "$cc: the header function is excluded (noinline)" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "scale_in_header") | .reason] | unique | join(",")')" "attribute"
  expect_eq "$cc: its file is the real one" \
    "$(printf '%s' "$json" | jq -r '[.functions[] | select(.name == "scale_in_header") | .file] | unique | join(",")')" \
    "sub/shared.h"
  expect_eq "$cc: stored absolute path" \
    "$(sqlite3 .fmvgen/store.sqlite "SELECT DISTINCT file FROM functions WHERE name='scale_in_header'")" \
    "$(cd "$P/sub" && pwd -P)/shared.h"
done

finish
