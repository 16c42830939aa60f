# SPDX-License-Identifier: GPL-2.0
#
# The front door.  The real work is in scripts/ and tests/; see README.md
# and docs/TESTING.md.
#
#   make            skin.ko for the running or given kernel, and user space
#   make check      every test layer, then "N passed, N failed"
#   make fuzz       every fuzzer for 10 M executions (2.5 to 3.5 hours)
#   make demo       the walking skeleton in a VM, live
#   make checkpatch / make clean
#   make install    DKMS module source, skinctl, udev rules, units, config,
#                   man pages (DESTDIR, PREFIX; docs/INSTALL.md)
#   make deb        Debian packages skin, skin-dkms, skin-ros2 in build/deb/
#   make uninstall
#
# Out of tree the module also builds the kernel's own way:
#   make -C /lib/modules/$KVER/build M=$PWD
# (Kbuild, not this file, is what Kbuild reads.)

# The running kernel when its headers are there (a robot PC), else
# Debian 12's stock kernel (a test machine: make check installs it).
KVER ?= $(shell k=$$(uname -r); [ -d /lib/modules/$$k/build ] && echo $$k || scripts/kver amd64 2>/dev/null)

.PHONY: all module userspace check fuzz demo checkpatch clean
.PHONY: install uninstall deb
.PHONY: deps-build deps-run deps-deb deps-test

all: module userspace

# The Debian packages each purpose needs, installed when one is missing
# (needs root then): building and installing pull no test toolchain
# (scripts/install-deps says what each holds).
deps-build deps-run deps-deb deps-test:
	@scripts/install-deps --check $(@:deps-%=%) 2>/dev/null || scripts/install-deps $(@:deps-%=%)

module: deps-build
	@[ -n "$(KVER)" ] || { echo "make: no kernel headers: install linux-headers-$$(uname -r), or give KVER=" >&2; exit 1; }
	scripts/build-module $(KVER)

userspace: deps-build
	@[ -f build/meson/build.ninja ] || meson setup build/meson
	ninja -C build/meson

check: deps-test
	scripts/check

# make check runs them for seconds; this is the long run: 10 M executions
# per harness (FUZZ_RUNS), each capped at 2 hours (FUZZ_SECONDS); about
# 2 h 30 min to 3 h 30 min on a 2-core machine (docs/TESTING.md).
fuzz: deps-test
	FUZZ_RUNS=$${FUZZ_RUNS:-10000000} FUZZ_SECONDS=$${FUZZ_SECONDS:-7200} tests/fuzz/run

demo: deps-test
	scripts/demo

checkpatch: deps-test
	scripts/checkpatch

clean:
	rm -rf build
	@if [ -n "$(KVER)" ] && [ -d /lib/modules/$(KVER)/build ]; then \
		$(MAKE) -C /lib/modules/$(KVER)/build M=$(CURDIR) clean >/dev/null; \
	fi

# DESTDIR, PREFIX and the other directories reach scripts/install through
# the environment (make exports command-line variables).
install: deps-build deps-run
	scripts/install install

uninstall:
	scripts/install uninstall

deb: deps-deb
	scripts/build-deb
