# The two entry points of the README. Both install missing Debian packages
# first, so they work on a fresh Debian 12 machine as root.
BUILD      ?= build
BUILD_SAN  ?= build-asan
JOBS       ?= $(shell nproc)

.PHONY: all deps build demo check check-plain check-asan install clean

all: build

deps:
	scripts/setup-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/src/fmvgen demo

check: check-plain check-asan

check-plain: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite once more under AddressSanitizer + UBSan.
check-asan: deps
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DFMVGEN_SANITIZE=ON
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ctest --output-on-failure -j $(JOBS)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
