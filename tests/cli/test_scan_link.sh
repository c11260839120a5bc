#!/bin/bash
# test_scan_link.sh - builds found on lz4, on tests/fixtures/scan-link-objects:
#   - a compile-and-link command with object inputs (`cc -O3 helper.o o2.o
#     prog.c -o prog`) is one compile of one source: its records are found
#     (GCC 12 dumps, Clang YAML; the GCC JSON naming is covered by
#     test_probe/test_compiler), the function is a candidate, and the
#     target probe of that command succeeds;
#   - a source the build compiles inside $(shell) and deletes again
#     (have_pthread.c) is skipped by the probes with one note line, and is
#     neither warned about nor listed under "What defeats vectorization";
#   - list's count sentence: "1 more loop vectorizes at -O3" (GCC, scan --o3);
#   - compiles that give no records at all are warned about, not dropped;
#   - the linked source's code is compared at the target (no isa-unmatched).
# With gcc, clang, and clang-19 when installed.
source "$TESTLIB"

check_with() {
  local cc=$1
  local P; P=$(copy_fixture scan-link-objects); mv "$P" "$TMP/$cc"; P="$TMP/$cc"
  local out rc
  out=$(cd "$P" && "$FMVGEN" scan --o3 -- make CC="$cc" 2>&1); rc=$?
  expect_eq "$cc: exit" "$rc" 0
  local DB="$P/.fmvgen/store.sqlite"
  expect_eq "$cc: the linked source has its build records" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM record_files r JOIN compiles c ON c.id=r.compile_id
                      WHERE c.source LIKE '%/prog.c' AND r.variant='build' AND r.status='read'")" 1
  expect_eq "$cc: and its target probe records" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM record_files r JOIN compiles c ON c.id=r.compile_id
                      WHERE c.source LIKE '%/prog.c' AND r.variant LIKE 'probe:arch=%' AND r.status='read'")" 1
  expect_eq "$cc: the linked source's candidate" \
    "$(sqlite3 "$DB" "SELECT f.name FROM functions f JOIN compiles c ON c.id=f.compile_id
                      WHERE f.status='candidate' AND c.source LIKE '%/prog.c'")" add_scaled
  expect_no_match "$cc: no probe failure" "$out" "compile failed|warning"
  expect_eq "$cc: one note on the vanished source" "$(printf '%s\n' "$out" | grep -c '^fmvgen: note: .*have_pthread.c')" 1
  expect_match "$cc: the note says why" "$out" "1 compile not probed: its source no longer exists"
  expect_eq "$cc: no probe-failed note stored" "$(sqlite3 "$DB" "SELECT count(*) FROM tu_notes WHERE kind='probe-failed'")" 0
  local list; list=$(cd "$P" && "$FMVGEN" list)
  expect_no_match "$cc: the vanished source is not listed" "$list" "have_pthread|probe-failed"
  if [ "$cc" = gcc ]; then
    expect_match "$cc: singular count sentence" "$list" "built at -O2: 1 more loop vectorizes at -O3 "
  else
    expect_no_match "$cc: no -O2 note for clang" "$list" "What defeats vectorization"
  fi
  # prog.c compiles and links in one command: the object the wrapper's
  # records-only compile kept is compared with the target probe's code
  # (test_isa_link.sh), so there is no isa-unmatched note
  expect_no_match "$cc: the linked source's code is compared" "$list" \
    "isa-unmatched|not an x86-64 relocatable object"
  # A rescan of the rebuilt tree gives the same, and the note once.
  out=$(cd "$P" && make -s clean && "$FMVGEN" scan -- make CC="$cc" 2>&1); rc=$?
  expect_eq "$cc: rescan exit" "$rc" 0
  expect_eq "$cc: rescan note once" "$(printf '%s\n' "$out" | grep -c '^fmvgen: note:')" 1
}

# A compiler front that drops the record flags (as a flag-filtering
# launcher might): its compiles give no records, and the scan says so in
# one warning instead of silently scanning less.
mkdir -p "$TMP/bin"
cat > "$TMP/bin/clang" <<'SH'
#!/bin/bash
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = -Xclang ]; then shift 2; continue; fi
  args+=("$1"); shift
done
exec "$REAL_CLANG" "${args[@]}"
SH
chmod +x "$TMP/bin/clang"
P=$(copy_fixture scan-link-objects); mv "$P" "$TMP/filtered"; P="$TMP/filtered"
out=$(cd "$P" && REAL_CLANG=$(command -v clang) PATH="$TMP/bin:$PATH" "$FMVGEN" scan --no-probe -- make CC=clang 2>&1); rc=$?
expect_eq "no records: exit" "$rc" 0
expect_eq "no records: one warning" "$(printf '%s\n' "$out" | grep -c '^fmvgen: warning: ')" 1
expect_match "no records: the warning counts and names them" "$out" \
  "^fmvgen: warning: 4 compiles gave no optimization records, so their functions are not scanned: $P/have_pthread.c, \.\.\."
expect_eq "no records: noted per compile" \
  "$(sqlite3 "$P/.fmvgen/store.sqlite" "SELECT count(*) FROM tu_notes WHERE kind='no-records'")" 4

check_with gcc
check_with clang
if have_clang19; then check_with clang-19; else echo "clang-19 not installed: skipped"; fi
finish
