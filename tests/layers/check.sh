#!/usr/bin/env bash
# check.sh CC PROBE_C PROBES_TXT CMAKE BUILD_DIR LIB_DIR
# (tests/layers/CMakeLists.txt). Checks that the layers are one-way:
#  1. each line "LAYER HEADER build|fail -Idir..." of PROBES_TXT: PROBE_C
#     including HEADER, compiled with LAYER's include directories, compiles
#     (build), or fails saying that HEADER is not found (fail; any other
#     error is a failure of the test);
#  2. the build target layer_probe_store (store/'s flags, an include from
#     candidates/) fails to build, for want of the header;
#  3. no file under LIB_DIR includes by a relative path ("../x.h"), which
#     would step around the layers' include roots.
set -u
cc=$1 probe=$2 probes=$3 cmake=$4 build=$5 lib=$6
bad=0

# $1 what, $2 header, $3 expect (build|fail), $4 exit status, $5 output
judge() {
    if [ "$3" = fail ]; then
        if [ "$4" -eq 0 ]; then
            echo "FAIL: $1 includes $2 and builds: a wrong-way include must fail"
            bad=1
        elif ! grep -qE "$2(: No such file|' file not found)" <<<"$5"; then
            echo "FAIL: $1 including $2 failed, but not for want of the header:"
            tail -20 <<<"$5"
            bad=1
        else
            echo "ok: $1 cannot include $2"
        fi
    elif [ "$4" -ne 0 ]; then
        echo "FAIL: $1 may include $2, but does not compile:"
        tail -20 <<<"$5"
        bad=1
    else
        echo "ok: $1 includes $2"
    fi
}

n=0
while read -r layer header expect flags; do
    [ -n "$layer" ] || continue
    # shellcheck disable=SC2086 # flags: the -I options, split on blanks
    out=$("$cc" -std=c11 -D_GNU_SOURCE -fsyntax-only $flags "-DPROBE_HEADER=\"$header\"" "$probe" 2>&1)
    judge "$layer/" "$header" "$expect" $? "$out"
    n=$((n + 1))
done <"$probes"
if [ "$n" -lt 2 ]; then
    echo "FAIL: $probes holds $n probes"
    bad=1
fi

out=$("$cmake" --build "$build" --target layer_probe_store 2>&1)
judge "the build: store/" candidates/analyze.h fail $? "$out"

rel=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.\./' "$lib" --include='*.[ch]')
if [ -n "$rel" ]; then
    echo "FAIL: includes by a relative path step around the layers:"
    echo "$rel"
    bad=1
else
    echo "ok: no include under lib/ by a relative path"
fi
exit $bad
