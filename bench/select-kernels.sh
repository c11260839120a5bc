#!/usr/bin/env bash
# select-kernels.sh - bench/select-project.sh on examples/kernels: a fresh
# copy is scanned (-O3), `fmvgen select` runs on it, and its verdict is
# checked by timing the baseline, the selected patch, the all-candidates
# patch and a whole-program -march=x86-64-v3 build against each other
# (interleaved, medians), with their .text sizes.
#
#   bench/select-kernels.sh [RUNS] [BUILD_DIR] [PASSES]   (defaults: 7, build, 20000)
#
# RUNS is both select's --runs and the independent runs per build. The
# machine is shared: run it when idle.
set -euo pipefail

runs=${1:-7}
build=${2:-build}
passes=${3:-20000}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/select-kernels.XXXXXX")
trap 'rm -rf "$work"' EXIT

cp -a "$root/examples/kernels" "$work/kernels"
make -s -C "$work/kernels" clean >/dev/null
FMVGEN="$root/$build/src/fmvgen" "$root/bench/select-project.sh" -n "$runs" --runs "$runs" \
  --scan 'make -s CFLAGS=-O3' --build 'make -s CFLAGS=-O3' --run "./kernels_demo $passes" \
  --v3-build "make -s -B CFLAGS='-O3 -march=x86-64-v3'" --elf kernels_demo "$work/kernels"
