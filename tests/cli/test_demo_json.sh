#!/usr/bin/env bash
# test_demo_json.sh - `fmvgen demo --json --keep` (--quick, one run): valid
# JSON carrying, per example, the builds with their times (five for
# array_addition, the FMV article's rows, with OK/SIGILL per emulated CPU and
# no emulated time; three for kernels), the equal outputs and the clones;
# with --keep the work directory stays, holding one
# private copy per build (the bundled examples are never built in place).
source "$TESTLIB"

export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

before=$(cd "$FMVGEN_SRC/examples" && find . -type f | sort)
"$FMVGEN" demo --runs 1 --quick --json --keep >"$TMP/out.json" 2>"$TMP/err"
rc=$?
after=$(cd "$FMVGEN_SRC/examples" && find . -type f | sort)
expect_eq "demo --json exit status (stderr: $(cat "$TMP/err"))" "$rc" 0

if command -v python3 >/dev/null 2>&1; then
  summary=$(python3 - "$TMP/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("ok", d["ok"], "kept", d["kept"])
for ex in d["examples"]:
    print("example", ex["name"], "equal", ex["outputs_equal"],
          "builds", ",".join(b["key"] for b in ex["builds"] if b["built"] and b.get("median_s", 0) > 0),
          "clones", ",".join(sorted(c["function"] for c in ex["clones"])))
    for b in ex["builds"]:
        cpus = b.get("cpus")
        if cpus is not None:
            print("cpus", ex["name"], b["key"], " ".join(f"{c}={v['result']}" for c, v in cpus.items()),
                  "timed" if any("seconds" in v for v in cpus.values()) else "untimed")
            for c, v in cpus.items():
                for fn, clone in v.get("picks", {}).items():
                    print("pick", b["key"], c, fn, clone)
    print("emulated", ex["name"], ",".join(ex["emulated_cpus"]), ex["emulation_missing"] is not None)
print("workdir", d["workdir"])
PY
)
  expect_match "json ok" "$summary" 'ok True kept True'
  expect_match "array_addition json" "$summary" 'example array_addition equal True builds none,baseline,avx,avx2,fmv clones foo'
  expect_match "kernels json" "$summary" 'example kernels equal True builds baseline,avx2,fmv clones accumulate_rows,dot_i32,fill_inputs,mat4_mul,saxpy'
  expect_match "kernels: no emulated CPUs" "$summary" '^emulated kernels  False$'
  if command -v qemu-x86_64 >/dev/null 2>&1 || command -v qemu-x86_64-static >/dev/null 2>&1; then
    expect_match "array_addition: CPUs" "$summary" '^emulated array_addition qemu64,Nehalem,SandyBridge,Haswell False$'
    all_ok='qemu64=OK Nehalem=OK SandyBridge=OK Haswell=OK untimed'
    expect_match "json: -O0 everywhere" "$summary" "^cpus array_addition none $all_ok\$"
    expect_match "json: -O3 everywhere" "$summary" "^cpus array_addition baseline $all_ok\$"
    expect_match "json: FMV everywhere" "$summary" "^cpus array_addition fmv $all_ok\$"
    expect_match "json: -mavx2 SIGILL on Nehalem, SandyBridge" "$summary" \
      '^cpus array_addition avx2 qemu64=SIGILL Nehalem=SIGILL SandyBridge=SIGILL Haswell=OK untimed$'
    expect_match "json: -mavx SIGILL on Nehalem" "$summary" \
      '^cpus array_addition avx qemu64=SIGILL Nehalem=SIGILL SandyBridge=OK Haswell=OK untimed$'
    expect_match "json: FMV default clone on qemu64" "$summary" '^pick fmv qemu64 foo foo\.default(\.[0-9]+)?$'
  else
    expect_match "array_addition: no qemu" "$summary" '^emulated array_addition  True$'
  fi
  workdir=$(printf '%s\n' "$summary" | sed -n 's/^workdir //p')
else
  json=$(cat "$TMP/out.json")
  expect_match "json ok" "$json" '"ok": true'
  workdir=$(sed -n 's/^  "workdir": "\(.*\)",$/\1/p' "$TMP/out.json")
fi

# --keep: the work directory stays, with one copy per build of each example.
expect_match "work directory under TMPDIR" "$workdir" "^$TMPDIR/fmvgen-demo\."
for ex in array_addition kernels; do
  builds="project baseline avx2 fmv"
  [ "$ex" = array_addition ] && builds="$builds none avx"
  for b in $builds; do
    if [ -d "$workdir/$ex/$b" ]; then pass; else fail "$workdir/$ex/$b missing with --keep"; fi
  done
done
# The patch went into the scanned copy, not into the bundled example.
expect_match "copy patched" "$(cat "$workdir/array_addition/project/array_addition.c")" '__attribute__\(\(target_clones'
expect_no_match "bundled example untouched" "$(cat "$FMVGEN_SRC/examples/array_addition/array_addition.c")" '__attribute__\(\(target_clones'
expect_eq "no file added to the bundled examples" "$after" "$before"

finish
