# SPDX-License-Identifier: GPL-2.0
# mk/version.mk — the kit's version in every C command (lib/ckversion.c) and
# in the guest (build/VERSION, which /kit/mk/version reads there).  Included
# by the top Makefile after the fragments, so the ckversion.o of every build
# variant is found (CK_OBJ_native, _i386, _asan and any a fragment adds).
CK_VERSION := $(shell $(TOP)/mk/version)
CK_VERSION_OBJS := $(foreach v,$(filter CK_OBJ_%,$(.VARIABLES)),$($(v))/lib/ckversion.o)
$(CK_VERSION_OBJS): CK_WARN += -DCK_VERSION='"$(CK_VERSION)"'
$(CK_VERSION_OBJS): $(BUILD)/VERSION

# Rewritten only when the version changes: a commit relinks the tools, a
# make without one rebuilds nothing.
.PHONY: ck-version-force
$(BUILD)/VERSION: ck-version-force
	@mkdir -p $(@D)
	@echo '$(CK_VERSION)' | cmp -s - $@ || echo '$(CK_VERSION)' > $@
