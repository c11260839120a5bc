#!/bin/bash
# test_scan_libtool.sh - a libtool-style build (tests/fixtures/scan-libtool:
# each source compiled twice, -fPIC -DPIC into .libs/ and plain, plus
# kern.c once more with -DKERN_TOOL), with gcc, clang and clang-19 (when
# installed): each source is probed once per probe kind (the target probe
# by default, the -O3 one with --o3) and the -DKERN_TOOL compile on its
# own; both compiles of a source get the probe's records and the
# candidates (with GCC, u64_to_double vectorizes only at the target, so its
# candidate rows come from the shared probe alone); `list` and `patch` show
# each function once.
source "$TESTLIB"

for cc in gcc clang clang-19; do
  if ! command -v "$cc" >/dev/null; then
    [ "$cc" = clang-19 ] && { echo "clang-19 not installed: skipped"; continue; }
    fail "$cc missing"; continue
  fi
  P=$(copy_fixture scan-libtool); mv "$P" "$TMP/$cc"; P="$TMP/$cc"
  out=$(cd "$P" && "$FMVGEN" scan --json -- make -s CC="$cc" 2>&1); rc=$?
  expect_eq "$cc: scan exit" "$rc" 0
  DB="$P/.fmvgen/store.sqlite"
  V="probe:arch=x86-64-v4"
  expect_eq "$cc: five compiles" "$(sqlite3 "$DB" "SELECT count(*) FROM compiles WHERE exit_status=0")" 5
  expect_eq "$cc: every compile has its target probe records" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant='$V' AND status='read'")" 5
  # One probe for each pair, one for the -DKERN_TOOL compile.
  expect_eq "$cc: probes per source (distinct record files)" \
    "$(sqlite3 "$DB" "SELECT group_concat(n) FROM (SELECT count(DISTINCT r.path) AS n FROM record_files r
                      JOIN compiles c ON c.id=r.compile_id WHERE r.variant='$V' GROUP BY c.source ORDER BY c.source)")" "2,1"
  expect_eq "$cc: probe record dirs" "$(ls "$P/.fmvgen/records/probe_arch=x86-64-v4" | wc -l)" 3
  expect_eq "$cc: the pair's probed compile is the PIC one" \
    "$(sqlite3 "$DB" "SELECT DISTINCT substr(c.output, length('$P/') + 1) FROM record_files r JOIN compiles c
                      ON r.path LIKE '%/' || c.id || '/%' WHERE r.variant='$V' AND c.source='$P/util.c'")" ".libs/util.o"
  expect_eq "$cc: no -O3 probe by default" "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant='probe:O3'")" 0
  # Both compiles of util.c got the probe's loops, the same ones.
  expect_eq "$cc: the probe's loops under both compiles" \
    "$(sqlite3 "$DB" "SELECT group_concat(n) FROM (SELECT count(*) AS n FROM loops l JOIN compiles c ON c.id=l.compile_id
                      WHERE l.variant='$V' AND c.source='$P/util.c' GROUP BY c.id)")" \
    "$(sqlite3 "$DB" "SELECT n || ',' || n FROM (SELECT count(*) AS n FROM loops l JOIN compiles c ON c.id=l.compile_id
                      WHERE l.variant='$V' AND c.output='$P/.libs/util.o')")"
  expect_eq "$cc: candidates of each compile" \
    "$(sqlite3 "$DB" "SELECT group_concat(o || ':' || names, ' ') FROM (SELECT substr(c.output, length('$P/') + 1) AS o,
                      (SELECT group_concat(name) FROM (SELECT name FROM functions f WHERE f.compile_id=c.id
                       AND status='candidate' ORDER BY name)) AS names FROM compiles c ORDER BY o)")" \
    ".libs/kern.o:scale_add .libs/util.o:add_ints,u64_to_double kern-tool.o:scale_add kern.o:scale_add util.o:add_ints,u64_to_double"
  if [ "$cc" = gcc ]; then
    expect_eq "$cc: u64_to_double vectorizes only in the probe, for both compiles" \
      "$(sqlite3 "$DB" "SELECT group_concat(variant || '=' || n) FROM (SELECT l.variant, count(DISTINCT l.compile_id) AS n
                        FROM loops l WHERE l.function='u64_to_double' GROUP BY l.variant)")" "$V=2"
  fi
  expect_eq "$cc: --json candidates" "$(printf '%s' "$out" | jq '.candidates')" 3

  out=$(cd "$P" && "$FMVGEN" list 2>&1); rc=$?
  expect_eq "$cc: list exit" "$rc" 0
  expect_match "$cc: list: three candidates" "$out" "^Candidates \(3\)"
  for fn in scale_add add_ints u64_to_double; do
    expect_eq "$cc: list: $fn once" "$(printf '%s\n' "$out" | grep -c "  [a-z]*\.c:[0-9]*  $fn")" 1
  done
  expect_eq "$cc: list --json: util.c's functions name both objects" \
    "$(cd "$P" && "$FMVGEN" list --json | jq -c '[.functions[] | select(.name=="u64_to_double" or .name=="add_ints") | .outputs]')" \
    '[[".libs/util.o","util.o"],[".libs/util.o","util.o"]]'
  out=$(cd "$P" && "$FMVGEN" patch -o "$TMP/$cc.patch" 2>&1); rc=$?
  expect_eq "$cc: patch exit" "$rc" 0
  for fn in scale_add add_ints u64_to_double; do
    expect_eq "$cc: patch: one attribute for $fn" "$(grep -c "^+FMVGEN_CLONES($fn)\$" "$TMP/$cc.patch")" 1
  done

  # --o3: the -O3 comparison, also once per pair.
  out=$(cd "$P" && make -s clean && "$FMVGEN" scan --o3 -- make -s CC="$cc" 2>&1); rc=$?
  expect_eq "$cc: scan --o3 exit" "$rc" 0
  expect_eq "$cc: --o3: every compile has -O3 records" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM record_files WHERE variant='probe:O3' AND status='read'")" 5
  expect_eq "$cc: --o3: three -O3 probes" \
    "$(sqlite3 "$DB" "SELECT count(DISTINCT path) FROM record_files WHERE variant='probe:O3'")" 3
  expect_eq "$cc: --o3: three target probes" \
    "$(sqlite3 "$DB" "SELECT count(DISTINCT path) FROM record_files WHERE variant='$V'")" 3
  expect_eq "$cc: --o3: record dirs" "$(ls "$P/.fmvgen/records/probe_O3" | wc -l)" 3
done

finish
