# SPDX-License-Identifier: GPL-2.0
# cookiekit — see README.md. Every target installs the Debian packages it needs
# (mk/deps) and rebuilds only what is stale; kernels are cached outside the checkout.
TOP      := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD    := $(TOP)/build
export COOKIEKIT_CACHE ?= $(HOME)/.cache/cookiekit
# The kit's Python runs on Debian's python3, not the first in PATH (mk/python-path).
CK_PATH  := $(shell $(TOP)/mk/python-path $(BUILD))
ifneq ($(CK_PATH),)
export PATH := $(CK_PATH)
endif

# `make kernel` builds both variants; other targets boot one (default: after).
KERNEL   ?=
VARIANT  := $(if $(KERNEL),$(KERNEL),after)

.PHONY: all deps kernel rootfs disks tools guest vm-run test check help
.DEFAULT_GOAL := help

help:
	@echo "cookiekit targets:"
	@echo "  make vm-run [KERNEL=VARIANT]              build what is stale, boot the guest shell"
	@echo "  make vm-run TRACE=1                       ... with cookie-trace streaming to build/vm/trace.sock"
	@echo "  make test                                 every test, host and VM (CI runs this)"
	@echo "  make check                                fast host tests only"
	@echo "  make gdb [KERNEL=VARIANT]                 gdb attached to the running guest, with ck-* commands"
	@echo "  make cookie-top                           live viewer of the running guest's cookies"
	@echo "  make lab-check LAB=NN [KERNEL=X] [KIT=1]  run lab NN's check in the VM, or grade work/NN/: PASS/FAIL per step"
	@echo "  make exercise LAB=NN                      lab NN's exercise skeleton into work/NN/; lab-check then grades it (KIT=1: the kit)"
	@echo "  make solution LAB=NN                      the exercise's reference solution into work/NN/"
	@echo "  make kernel [KERNEL=VARIANT]              build the patched kernel(s) into the cache"
	@echo "      VARIANT: before, after (default), stock, fd32, pers32, mine (KERNEL_MINE_PATCH=FILE) (kernel/series)"
	@echo "  make tools bpf tui                        the commands into build/bin (i386 probes: build/bin32)"
	@echo "  make rootfs disks                         guest image and lab disks (cached)"
	@echo "  make man                                  man pages into build/man/man1 (man -l build/man/man1/cookie-top.1)"
	@echo "  make install [PREFIX=/usr/local] [DESTDIR=]  build/bin's commands, man pages, bash completion"
	@echo "  make clean                                remove build/ (the cache stays)"
	@echo "  make distclean                            build/ and this checkout's entries in the cache"
	@echo "  make cache-prune [DAYS=7]                 old keys in the cache (~/.cache/cookiekit), sizes freed"
	@echo "  make cache-du                             what the cache holds"
	@echo "  make deps                                 install missing Debian packages"
	@echo "bash completion of these (KERNEL=, LAB=) and the commands' options: source mk/completion.bash"

all: kernel tools rootfs disks

# CK_DEPS_DONE=1: mk/deps has run in this make (test's second passes).
deps:
	@$(if $(CK_DEPS_DONE),:,$(TOP)/mk/deps)

kernel: deps
	@$(TOP)/kernel/build $(KERNEL)

# What `make test` builds first; each concern's fragment adds its own targets
# (TEST_DEPS += ...) and, where it has them, its user-facing targets.
TEST_DEPS := deps kernel tools rootfs disks guest

# The two 2020 proposals as experimental variants of after (kernel/series,
# lab 08): incremental rebuilds, minutes each.
.PHONY: proposal-kernels
proposal-kernels: deps
	@$(TOP)/kernel/build fd32 pers32
TEST_DEPS += proposal-kernels
include $(TOP)/mk/ccache.mk
-include $(TOP)/tools/tools.mk
-include $(TOP)/vm/vm.mk
-include $(TOP)/bpf/bpf.mk
-include $(TOP)/tui/tui.mk
-include $(TOP)/gdb-scripts/gdb.mk
-include $(TOP)/labs/labs.mk
include $(TOP)/mk/version.mk
include $(TOP)/mk/dist.mk

# bpf too: test-hostile and test-asan run cookie-groups (a fresh clone builds
# the after kernel first, for vmlinux.h; see bpf/README.md).
check: deps tools tui bpf
	@$(TOP)/tests/run tests/unit

# make test builds what the tests need in passes: the packages; the kernels
# and the root image (each of their builds takes every core); the rest (the
# host's tools for each ABI, bpf, tui under ASan and libFuzzer, the man
# pages...) a job per core (one after the other: 68.5 s in a fresh clone on
# a warm cache, 42.5 s so); then the tests.
TEST_SERIAL := kernel proposal-kernels any-kernels rootfs
test: deps
	@$(MAKE) --no-print-directory CK_DEPS_DONE=1 $(filter $(TEST_SERIAL),$(TEST_DEPS))
	@$(MAKE) --no-print-directory CK_DEPS_DONE=1 -j$(shell nproc) $(filter-out deps $(TEST_SERIAL),$(TEST_DEPS))
	@$(TOP)/tests/run

# The guest's init and helpers reach the guest through the 9p share of build/.
GUEST_SRC := $(shell find $(TOP)/vm/guest -type f)
# The guest's scripts answer --help/--version with /kit/mk/cli.sh and
# /kit/mk/version, which reads /kit/VERSION (mk/version.mk).
$(BUILD)/guest/.stamp: $(GUEST_SRC) $(TOP)/mk/cli.sh $(TOP)/mk/version $(BUILD)/VERSION
	@mkdir -p $(BUILD)/guest $(BUILD)/mk
	@cp -a $(TOP)/vm/guest/. $(BUILD)/guest/
	@cp -a $(TOP)/mk/cli.sh $(TOP)/mk/version $(BUILD)/mk/
	@touch $@
guest: $(BUILD)/guest/.stamp

# TRACE=1 starts cookie-trace at boot (make cookie-top shows it on the host);
# VMRUN_FLAGS passes anything else to vm/run (see vm/run --help).
vm-run: deps guest rootfs disks tools bpf
	@$(TOP)/kernel/build $(VARIANT)
	@$(TOP)/vm/run --kernel $(VARIANT) $(if $(filter 1,$(TRACE)),--trace) $(VMRUN_FLAGS)
