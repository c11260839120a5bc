#!/bin/bash
# test_patch_setjmp.sh - a candidate that calls setjmp or sigsetjmp (libpng's
# error handling, OpenJPEG's convertpng.c) cannot have --dispatch cpuid's
# always_inline body: GCC never inlines a function that calls a
# returns-twice function ("can never be inlined because it uses setjmp", an
# error), so its copies would not build. tests/fixtures/setjmp, scanned with
# gcc, clang 14 and clang 19 (when installed): guarded_scale (setjmp) and
# checked_sum (sigsetjmp) carry a refused params note naming the call and
# get IFUNC target_clones instead (listed in ifunc_fallback); plain_add
# and fill keep their cpuid copies. Each dispatch's patch builds with -Werror and
# prints the unpatched output natively and under qemu -cpu Nehalem.
source "$TESTLIB"

for cc in gcc clang-14 clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  W="-O2 -Wall -Wextra -Werror"
  P="$TMP/$cc"; mkdir -p "$P"; cp -a "$FIXTURES/setjmp/." "$P/"
  cd "$P" || exit 1
  make -s CC="$cc" CFLAGS="$W" >/dev/null && BASE=$(./prog) && make -s clean || { fail "$cc: unpatched build"; continue; }
  "$FMVGEN" scan --root "$P" -- make -s CC="$cc" CFLAGS="$W" >"$TMP/scan-$cc.out" 2>&1
  expect_eq "$cc: scan exit" "$?" 0
  json=$("$FMVGEN" list --json)
  expect_eq "$cc: the four are candidates" \
    "$(jq -r '[.functions[] | select(.status == "candidate") | .name] | unique | join(",")' <<<"$json")" \
    "checked_sum,fill,guarded_scale,plain_add"
  for f in guarded_scale:setjmp checked_sum:sigsetjmp; do
    expect_match "$cc: ${f%%:*}'s copies refused for its ${f#*:} call" \
      "$(jq -r --arg f "${f%%:*}" '[.functions[] | select(.name == $f) | .notes[]? | select(.kind == "params") | .refused // "none"] | join(";")' <<<"$json")" \
      "calls _*${f#*:} at line [0-9]+, which returns twice"
  done
  expect_eq "$cc: plain_add's calls forwarded" \
    "$(jq -r '[.functions[] | select(.name == "plain_add") | .notes[]? | select(.kind == "params") | .refused // "forwarded"] | join(";")' <<<"$json")" \
    "forwarded"
  make -s clean
  for d in ifunc pointer cpuid; do
    "$FMVGEN" patch --dispatch "$d" -o "$TMP/$d-$cc.patch" 2>/dev/null
    expect_eq "$cc, $d: patch exit" "$?" 0
    fallback=$("$FMVGEN" patch --dispatch "$d" --json 2>/dev/null | jq -r '[.ifunc_fallback[]? | tostring | capture("(?<n>guarded_scale|checked_sum|plain_add)").n] | unique | join(",")')
    expect_eq "$cc, $d: IFUNC instead for the setjmp callers" "$fallback" "$([ "$d" = cpuid ] && echo checked_sum,guarded_scale)"
    B="$TMP/$d-$cc"; cp -a "$P" "$B"; rm -rf "$B/.fmvgen"
    (cd "$B" && patch -p1 -s <"$TMP/$d-$cc.patch") || { fail "$cc, $d: patch -p1"; continue; }
    if (cd "$B" && make -s CC="$cc" CFLAGS="$W" >"$TMP/build-$d-$cc" 2>&1); then pass; else
      fail "$cc, $d: patched build: $(grep -m1 error "$TMP/build-$d-$cc")"; continue
    fi
    expect_eq "$cc, $d: same output" "$("$B/prog")" "$BASE"
    expect_eq "$cc, $d: same output under qemu -cpu Nehalem" "$(qemu-x86_64 -cpu Nehalem "$B/prog")" "$BASE"
  done
done
finish
