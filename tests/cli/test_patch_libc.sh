#!/bin/bash
# test_patch_libc.sh - a patched project builds and runs wherever the
# unpatched one does, whatever the C library and the link: the clones need
# IFUNC, which glibc resolves and musl does not. tests/fixtures/patch-libc
# (its kernel.c includes no C library header: the preamble must include one
# to tell) is scanned with gcc, patched, and built patched and unpatched
# with musl-gcc (dynamic, -static), gcc (-static, -static-pie, -fno-plt
# -Wl,-z,now), clang 14 and clang 19 (dynamic, -static). The kernels are
# also called from a .preinit_array function and a constructor, i.e. in a
# static glibc program while its startup code runs. Each patched build must
# print what its unpatched build prints, natively and under
# qemu-x86_64 -cpu Nehalem; the glibc builds are multi-versioned (fmvgen
# inspect: both kernels, dispatch ifunc), the musl ones hold no ifunc at
# all (no IRELATIVE relocation, no STT_GNU_IFUNC symbol). The patched files
# also compile with -std=c89 -pedantic-errors -Werror (gcc, musl-gcc,
# clang) and as C++98, and a -fvisibility=hidden shared library, with and
# without -fno-plt -Wl,-z,now, runs. A compiler that is not installed is
# skipped with a message (musl-tools is in scripts/setup-deps.sh). A
# project compiled with -fvisibility=hidden gets FMVGEN_CLONES_HIDDEN for its
# external kernels, and its shared library (gcc, clang 14 and 19) exports
# none of their symbols.
source "$TESTLIB"
source "$(dirname "$TESTLIB")/patch_libc.sh"
json=$("$FMVGEN" list --json)
# fill: inlined into main (excluded), so it is the candidate itself
# (candidates/inlined.h), and it runs from .preinit_array and a constructor too
expect_eq "candidates: the kernels, fill and the .preinit_array function" \
  "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status == "candidate") | .name] | sort | join(",")')" \
  "fill,mix,preinit,sum_sq"
expect_eq "a constructor is excluded: clang cannot combine it with target_clones" \
  "$(printf '%s' "$json" | jq -r '.functions[] | select(.name == "ctor") | .reason + ": " + .detail')" \
  "attribute: carries __attribute__((constructor)), which clang cannot combine with target_clones"
"$FMVGEN" patch -o "$TMP/fmv.patch" 2>"$TMP/patch.err"
expect_eq "plain visibility: no hidden-visibility note" "$(grep -c 'fvisibility' "$TMP/patch.err")" 0
expect_eq "plain visibility: JSON" "$("$FMVGEN" patch --json | jq -c '.hidden_visibility')" '[]'
expect_match "patch header: how the C library is recognized" "$(cat "$TMP/fmv.patch")" \
  'The preamble recognizes glibc by __GLIBC__'
"$FMVGEN" patch --apply >"$TMP/patch.out" 2>&1
expect_eq "patch --apply: exit" "$?" 0
k=$(cat kernel.c)
expect_match "kernel.c: sum_sq patched" "$k" $'\nFMVGEN_CLONES\\(sum_sq\\)\nlong sum_sq'
expect_match "kernel.c: mix patched" "$k" $'\nFMVGEN_CLONES\\(mix\\)\nvoid mix'
expect_match "kernel.c: the preamble tells the C library" "$k" \
  $'#  if !defined\\(__GLIBC__\\) && !defined\\(_FEATURES_H\\)\n#   include <limits.h>\n#  endif\n#  if defined\\(__GLIBC__\\) && !defined\\(__UCLIBC__\\) && __has_attribute\\(target_clones\\)'

# Compiled with -fvisibility=hidden: the scan records the external kernels
# as hidden, and the patch keeps their dispatchers hidden (GCC and clang < 18
# would export them): FMVGEN_CLONES_HIDDEN, no note.
H="$TMP/hidden"
mkdir -p "$H" && cp -a "$FIXTURES/patch-libc/." "$H/"
(cd "$H" && "$FMVGEN" scan --root "$H" -- make -s CC=gcc CFLAGS="-O3 -fvisibility=hidden" >/dev/null 2>&1)
expect_eq "-fvisibility=hidden: the scan's visibility notes" \
  "$(cd "$H" && "$FMVGEN" list --json | jq -r '[.functions[] | select(.status == "candidate" and (.notes | map(.kind) | index("visibility"))) | .name] | sort | join(",")')" \
  "mix,sum_sq"
err=$(cd "$H" && "$FMVGEN" patch -o "$TMP/hidden.patch" 2>&1 >/dev/null)
expect_no_match "-fvisibility=hidden: no note left" "$err" 'fvisibility'
expect_eq "-fvisibility=hidden: JSON" "$(cd "$H" && "$FMVGEN" patch --json | jq -c '.hidden_visibility')" '[]'
expect_match "-fvisibility=hidden: the hidden macro" "$(cat "$TMP/hidden.patch")" \
  $'\n\\+FMVGEN_CLONES_HIDDEN\\(sum_sq\\)\n long sum_sq'
(cd "$H" && patch -s -p1 <"$TMP/hidden.patch")
expect_eq "-fvisibility=hidden: patch -p1" "$?" 0

# A store scanned before visibility was recorded (no meta visibility_notes,
# no "visibility" notes): the patch can only name the external functions
# compiled with -fvisibility=hidden (patch/visibility.h).
O="$TMP/oldstore"
mkdir -p "$O" && cp -a "$FIXTURES/patch-libc/." "$O/"
(cd "$O" && "$FMVGEN" scan --root "$O" -- make -s CC=gcc CFLAGS="-O3 -fvisibility=hidden" >/dev/null 2>&1)
sqlite3 "$O/.fmvgen/store.sqlite" "DELETE FROM meta WHERE key = 'visibility_notes';
  UPDATE functions SET notes = (SELECT json_group_array(json(value)) FROM json_each(functions.notes)
                                WHERE json_extract(value, '\$.kind') <> 'visibility')
  WHERE notes IS NOT NULL AND json_valid(notes);"
err=$(cd "$O" && "$FMVGEN" patch -o "$TMP/old.patch" 2>&1 >/dev/null)
expect_match "store without visibility records: the note names both kernels" "$err" \
  'note: 2 patched external functions are compiled with -fvisibility=hidden \(kernel.c:6 sum_sq, kernel.c:14 mix\)'
expect_eq "store without visibility records: JSON" "$(cd "$O" && "$FMVGEN" patch --json | jq -c '.hidden_visibility')" \
  '["kernel.c:6 sum_sq","kernel.c:14 mix"]'

patch_libc_configs ""

for cfg in "${configs[@]}"; do
  IFS='|' read -r name cc flags <<<"$cfg"
  if ! build "$U" "$name" "$cc" "$flags"; then fail "$name: unpatched build: $(head -3 "$TMP/build-$name.log")"; continue; fi
  if ! build "$P" "$name" "$cc" "$flags"; then fail "$name: patched build: $(head -3 "$TMP/build-$name.log")"; continue; fi
  want=$("$U/prog-$name"); rc=$?
  expect_eq "$name: unpatched runs" "$rc" 0
  expect_match "$name: unpatched prints" "$want" '^(preinit -?[0-9]+)'
  got=$("$P/prog-$name"); rc=$?
  expect_eq "$name: patched exit natively" "$rc" 0
  expect_eq "$name: patched output natively" "$got" "$want"
  got=$(qemu-x86_64 -cpu Nehalem "$P/prog-$name"); rc=$?
  expect_eq "$name: patched exit on Nehalem" "$rc" 0
  expect_eq "$name: patched output on Nehalem" "$got" "$want"
  prog="$P/prog-$name"
  case "$name" in
    musl*)
      expect_eq "$name: no IRELATIVE relocation" "$(readelf -rW "$prog" | grep -c IRELATIV)" 0
      expect_eq "$name: no STT_GNU_IFUNC symbol" "$(readelf -sW "$prog" | grep -c IFUNC)" 0
      expect_eq "$name: inspect finds no multiversioned function" \
        "$("$FMVGEN" inspect --json "$prog" | jq '.files[0].functions | length')" 0
      ;;
    *)
      json=$("$FMVGEN" inspect --json "$prog")
      for fn in sum_sq mix; do
        expect_eq "$name: $fn multi-versioned" \
          "$(printf '%s' "$json" | jq --arg f "$fn" '[.files[0].functions[] | select(.name == $f) | .versions >= 2 and .dispatch == "ifunc"] | any')" true
      done
      ;;
  esac
done
[ ${#configs[@]} -ge 3 ] && pass || fail "too few builds ran: ${configs[*]}"

# The patched file: plain C89 (pedantic) and C++98 with each C library.
patch_libc_pedantic 'sum_sq.*\.(avx2|arch_x86)'

# A -fvisibility=hidden shared library holding the kernels and the program
# (main renamed fixture_main, exported; no .preinit_array in a DSO), run by a
# launcher.
printf 'int fixture_main(void);\nint main(void) { return fixture_main(); }\n' >"$TMP/launch.c"
solib() {   # DIR CC EXTRA... -> DIR/launch
  local dir=$1 cc=$2
  shift 2
  (cd "$dir" && rm -f ./*.o libk.so launch &&
    "$cc" -O3 -fPIC -fvisibility=hidden "$@" -c kernel.c -o kernel.o &&
    "$cc" -O3 -fPIC -fvisibility=hidden "$@" -DNO_PREINIT \
      '-Dmain=__attribute__((visibility("default"))) fixture_main' \
      -c main.c -o main.o &&
    "$cc" -shared "$@" -o libk.so kernel.o main.o &&
    "$cc" "$@" "$TMP/launch.c" -L. -lk -Wl,-rpath,"$dir" -o launch) >"$TMP/solib.log" 2>&1
}
for cc in gcc clang-14 clang-19; do
  installed "$cc" || continue
  for extra in "" "-fno-plt -Wl,-z,now"; do
    # shellcheck disable=SC2086
    if solib "$U" "$cc" $extra && solib "$P" "$cc" $extra; then pass; else fail "$cc hidden .so $extra: $(head -3 "$TMP/solib.log")"; continue; fi
    want=$("$U/launch")
    expect_eq "$cc hidden .so $extra: output" "$("$P/launch")" "$want"
    expect_eq "$cc hidden .so $extra: output on Nehalem" "$(qemu-x86_64 -cpu Nehalem "$P/launch")" "$want"
    expect_eq "$cc hidden .so $extra: sum_sq multi-versioned" \
      "$("$FMVGEN" inspect --json "$P/libk.so" | jq '[.files[0].functions[] | select(.name == "sum_sq")] | length')" 1
    # the tree patched from the -fvisibility=hidden scan: nothing of the
    # kernels is exported (GCC would export the IFUNC and its resolver)
    # shellcheck disable=SC2086
    if solib "$H" "$cc" $extra; then pass; else fail "$cc hidden-patched .so $extra: $(head -3 "$TMP/solib.log")"; continue; fi
    expect_eq "$cc hidden-patched .so $extra: output" "$("$H/launch")" "$want"
    expect_eq "$cc hidden-patched .so $extra: output on Nehalem" "$(qemu-x86_64 -cpu Nehalem "$H/launch")" "$want"
    expect_eq "$cc hidden-patched .so $extra: no kernel symbol exported" \
      "$(readelf -W --dyn-syms "$H/libk.so" | awk '$7 != "UND" {print $8}' | grep -cE '^(sum_sq|mix)')" 0
    expect_eq "$cc hidden-patched .so $extra: sum_sq still multi-versioned" \
      "$("$FMVGEN" inspect --json "$H/libk.so" | jq '[.files[0].functions[] | select(.name == "sum_sq" and .versions >= 2)] | length')" 1
  done
done

finish
