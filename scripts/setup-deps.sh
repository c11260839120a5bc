#!/usr/bin/env bash
# Installs the Debian packages fmvgen needs to build, test and run its demo.
# Called by `make demo` and `make check`; installs only what is missing, so a
# second run costs one dpkg query.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git
  gcc clang clang-14 libclang-14-dev
  libjansson-dev zlib1g-dev libyaml-dev libelf-dev libcapstone-dev
  libsqlite3-dev libcmocka-dev
  qemu-user binutils jq
  # verify tests: GNU libtool links a program through its wrapper script
  libtool-bin
  # verify: gdb calls the resolvers of static executables (no preload there)
  gdb
  linux-perf
  # patch tests: sqlite3 (fills a store by hand), tcc (a C compiler without
  # target_clones or __has_attribute), quilt (the patch must import)
  sqlite3 tcc quilt patch
  # musl-gcc: a C library without IFUNC, where patched code must stay plain
  musl-tools
  # scan tests: a ccache hit must not cost a compile its records
  ccache
  # select tests: report.html loaded in headless chromium (--dump-dom)
  chromium
)
# clang 19 dispatches target_clones correctly; tests use it when present.
# libclang-rt-19-dev: clang-19's libFuzzer and sanitizer runtimes, for the fuzz
# targets (`make fuzz`, and the brief fuzz step of `make check`).
OPTIONAL=(clang-19 libclang-rt-19-dev)

missing=()
for p in "${PACKAGES[@]}" "${OPTIONAL[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "fmvgen setup: missing Debian packages: ${missing[*]}; run as root or install them with apt-get" >&2
  exit 1
fi
echo "fmvgen setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Required packages must install; optional ones may be absent from the mirror.
req=()
for p in "${missing[@]}"; do
  case " ${OPTIONAL[*]} " in *" $p "*) ;; *) req+=("$p");; esac
done
[ ${#req[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends "${req[@]}"
for p in "${OPTIONAL[@]}"; do
  case " ${missing[*]} " in *" $p "*) apt-get install -y -qq --no-install-recommends "$p" || echo "fmvgen setup: optional $p not installed" >&2;; esac
done
