# SPDX-License-Identifier: GPL-2.0
# mk/ccache.mk — the host's C compiles through ccache (Debian's), cached in
# $(COOKIEKIT_CACHE)/ccache, so that a fresh clone on a warm cache (CI, make
# test) does not compile the tools for five ABIs, ASan and libFuzzer again:
# ~54 CPU s of `make test`'s builds, measured with a PATH wrapper.  Included by
# the top Makefile before the concerns' fragments, which put $(CK_CCACHE)
# before their compilers in the compile (-c) rules only.
#
# Hits across checkouts: CCACHE_BASEDIR makes the paths under $(TOP) relative
# in what ccache hashes, and $(CK_PREFIX_MAP) writes them relative into the
# objects (debug info, __FILE__: "." is the checkout), so that neither the
# hash nor the object names another checkout.  The compile rules name their
# target with -MT $@: ccache writes a relative one otherwise, which make would
# not match with the absolute target, and a header's change would rebuild
# nothing.  Make runs in $(TOP) (make -C); the .d files' prerequisites are
# relative to it.
#
# CK_CCACHE= (empty) on the command line compiles without it; it is empty too
# where ccache is not installed yet (mk/deps installs it, for the next make).
ifeq ($(origin CK_CCACHE),undefined)
CK_CCACHE := $(shell command -v ccache 2>/dev/null)
endif
ifneq ($(CK_CCACHE),)
export CCACHE_DIR ?= $(COOKIEKIT_CACHE)/ccache
export CCACHE_BASEDIR := $(TOP)
# The kit's objects for every ABI take ~30 MB; ccache drops the oldest past this.
export CCACHE_MAXSIZE ?= 500M
endif
CK_PREFIX_MAP := -ffile-prefix-map=$(TOP)=.
