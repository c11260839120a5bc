# The two entry points of the README. Both install missing Debian packages
# first, so they work on a fresh Debian 12 machine as root.
BUILD      ?= build
BUILD_SAN  ?= build-asan
BUILD_FUZZ ?= build-fuzz
JOBS       ?= $(shell nproc)
# make fuzz: each libFuzzer target for FUZZ_SECONDS, FUZZ_JOBS at a time.
FUZZ_SECONDS ?= 60
FUZZ_JOBS  ?= 2
FUZZ_CC    ?= clang-19
LIBFUZZER  ?= /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a

.PHONY: all deps build demo check check-plain check-asan check-fuzz fuzz install clean

all: build

deps:
	scripts/setup-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/src/fmvgen demo

check: check-plain check-asan check-fuzz

check-plain: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite once more under AddressSanitizer + UBSan.
check-asan: deps
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DFMVGEN_SANITIZE=ON
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ctest --output-on-failure -j $(JOBS)

# The readers of untrusted input under libFuzzer (tests/fuzz): clang-19
# builds fuzz_<reader> with ASan+UBSan, scripts/run-fuzz.sh runs each.
fuzz: deps
	CC=$(FUZZ_CC) cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFMVGEN_FUZZ=ON -DBUILD_TESTING=OFF
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target fuzz_targets
	scripts/run-fuzz.sh $(BUILD_FUZZ) $(FUZZ_SECONDS) $(FUZZ_JOBS)

# CI's share of fuzzing: every target 20 s from its seeds, when clang-19's
# libFuzzer is there (libclang-rt-19-dev is an optional package).
check-fuzz: deps
	@if command -v $(FUZZ_CC) >/dev/null && [ -f $(LIBFUZZER) ]; then \
	  $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=20; \
	else \
	  echo "fmvgen: check-fuzz skipped: no $(FUZZ_CC) with libFuzzer ($(LIBFUZZER))"; \
	fi

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_FUZZ)
