#!/bin/bash
# The wrapper keeps each object it recorded beside its records
# (capture/wrapper.h): a hard link, or a copy when the object is on another
# file system than .fmvgen/records (link fails with EXDEV). Here a gcc build
# of tests/fixtures/isa-o2 writes ops.o under /dev/shm (tmpfs) and deletes
# it after linking; the project, and so its records, are under $TMP:
#   - the kept ops.o is a copy (one link), byte for byte the object built;
#     main.o, written beside the records' file system, is a hard link;
#   - the ISA comparison reads the copy: the same candidates and kinds as
#     an in-tree build (tests/cli/test_isa_candidates.sh).
# Without a second file system (/dev/shm missing, or the same device as
# $TMP), the test is skipped (exit 77: CTest reports it skipped).
. "$TESTLIB"

dir=$(copy_fixture isa-o2)
shm=/dev/shm
if [ ! -d "$shm" ] || [ ! -w "$shm" ]; then
  skip_test "no writable $shm: the copy across file systems is not tested here"
fi
shmdir=$(mktemp -d "$shm/fmvgen-kept.XXXXXX") || { fail "cannot create a directory under $shm"; finish; exit; }
trap 'rm -rf "$TMP" "$shmdir"' EXIT
if [ "$(stat -c %d "$shmdir")" = "$(stat -c %d "$dir")" ]; then
  skip_test "$shm and $TMP are one file system: the copy across file systems is not tested here"
fi

cd "$dir" || exit 1
build="gcc -O2 -c ops.c -o '$shmdir/ops.o' && gcc -O2 -c main.c -o main.o && gcc -O2 -o prog '$shmdir/ops.o' main.o -lm && cp '$shmdir/ops.o' ops.built.o && rm '$shmdir/ops.o'"
out=$("$FMVGEN" scan -- sh -c "$build" 2>&1)
expect_eq "scan exit" "$?" 0
expect_eq "the build deleted its object" "$(ls "$shmdir")" ""

kept_ops="" kept_main=""
while IFS= read -r k; do
  if cmp -s "$k" ops.built.o; then kept_ops=$k; elif cmp -s "$k" main.o; then kept_main=$k; fi
done < <(find .fmvgen/records -name object.o)
expect_match "ops.o kept" "$kept_ops" 'object\.o$'
expect_match "main.o kept" "$kept_main" 'object\.o$'
[ -n "$kept_ops" ] && expect_eq "ops.o across file systems: a copy (one link)" "$(stat -c %h "$kept_ops")" 1
[ -n "$kept_main" ] && expect_eq "main.o on the records' file system: a hard link" "$(stat -c %h "$kept_main")" 2

json=$("$FMVGEN" list --json)
expect_eq "the copy is compared: the candidates of an in-tree build" \
  "$(printf '%s' "$json" | jq -r '[.functions[] | select(.status=="candidate") | "\(.name)=\(.kind)"] | sort | join(" ")')" \
  "add_arrays=vectorized floor_twice=isa hamming2=isa lowbits=isa mad=isa quantize=isa setbits=isa"
expect_eq "no isa-unmatched note" \
  "$(printf '%s' "$json" | jq -r '[.tus[].notes[] | select(.kind=="isa-unmatched")] | length')" 0

finish
