# SPDX-License-Identifier: GPL-2.0
# tools/tools.mk — userland cookie toolkit (issue 4). Included by the top Makefile,
# which defines TOP and BUILD.  Outputs:
#   build/bin/     native x86_64 tools
#   build/bin32/   static i386 probes (-m32 -static, genuine 32-bit off_t callers)
#   build/emul/F/  the lab 08 probes ("// ck-build: emul"), static, in four flavours F:
#                  i386, i386-lfs, armhf, armhf-lfs (-lfs: -D_FILE_OFFSET_BITS=64),
#                  run in the guest under qemu-i386-static / qemu-arm-static
#   build/test/    helpers for tests/unit (fake-directory shim, codec checker)
#   build/asan/    the same tools and helpers under -fsanitize=address,undefined
# Every output is a real file target: `make tools` rebuilds only what changed.

CK_CC       ?= gcc
CK_WARN     := -std=gnu11 -Wall -Wextra -O2 -g -MMD -MP $(CK_PREFIX_MAP) -I$(TOP)/lib
CK_LIBSRC   := $(wildcard $(TOP)/lib/*.c)
CK_LIBOBJ    = $(patsubst $(TOP)/%.c,$(1)/%.o,$(CK_LIBSRC))

# Tools and which builds carry them, from the sources (tools/list): every
# tools/NAME.c is a tool; those marked "// ck-build: i386 (why)" also go to
# the guest as static i386 binaries.  A new tool is a new file, no list here.
CK_TOOLS    := $(shell $(TOP)/tools/list)
CK_TOOLS32  := $(shell $(TOP)/tools/list --i386)
CK_TOOLSEMU := $(shell $(TOP)/tools/list --emul)
CK_EMULS    := i386 i386-lfs armhf armhf-lfs
CK_HELPERS  := $(notdir $(basename $(wildcard $(TOP)/tests/unit/*-check.c)))

# Per-variant flags.  native: 64-bit off_t is the x86_64 default anyway.
# i386: deliberately WITHOUT -D_FILE_OFFSET_BITS=64, so telldir()/seekdir()
# and lseek() take a 32-bit long/off_t as an old i386 program's would.
CK_CFLAGS_native := -D_FILE_OFFSET_BITS=64
CK_LDFLAGS_native :=
CK_CFLAGS_i386   := -m32
# -u: the data-model record of lib/ckutil.c goes into every i386 binary, whether
# or not the tool calls into ckutil.o (test-bin32 reads it).
CK_LDFLAGS_i386  := -m32 -static -Wl,-u,ck_abi_long,-u,ck_abi_off_t
# The emulated readers of lab 08: the same 32-bit programs, plain and LFS, for
# i386 and for armhf (clang's ARM target with Debian's armhf cross libc and
# binutils: gcc-arm-linux-gnueabihf conflicts with gcc-multilib), all static so that
# qemu-*-static runs them with no target libraries in the guest.
CK_CFLAGS_i386-lfs   := -m32 -D_FILE_OFFSET_BITS=64
CK_LDFLAGS_i386-lfs  := $(CK_LDFLAGS_i386)
CK_CC_armhf          := clang --target=arm-linux-gnueabihf
CK_CC_armhf-lfs      := $(CK_CC_armhf)
CK_CFLAGS_armhf      :=
CK_CFLAGS_armhf-lfs  := -D_FILE_OFFSET_BITS=64
CK_LDFLAGS_armhf     := -static -Wl,-u,ck_abi_long,-u,ck_abi_off_t
CK_LDFLAGS_armhf-lfs := $(CK_LDFLAGS_armhf)
CK_CFLAGS_asan   := -D_FILE_OFFSET_BITS=64 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CK_LDFLAGS_asan  := -fsanitize=address,undefined
CK_LIBS          := -pthread -lm

CK_OBJ_native := $(BUILD)/obj/native
CK_OBJ_i386   := $(BUILD)/obj/i386
CK_OBJ_asan   := $(BUILD)/asan/obj
CK_OBJ_emul    = $(BUILD)/obj/$(1)

CK_BINS      := $(addprefix $(BUILD)/bin/,$(CK_TOOLS))
CK_BINS32    := $(addprefix $(BUILD)/bin32/,$(CK_TOOLS32))
CK_BINSEMU   := $(foreach f,$(CK_EMULS),$(addprefix $(BUILD)/emul/$(f)/,$(CK_TOOLSEMU)))
CK_TESTBINS  := $(addprefix $(BUILD)/test/,$(CK_HELPERS)) \
                $(if $(wildcard $(TOP)/tests/unit/fakedir.c),$(BUILD)/test/libfakedir.so)
CK_ASANBINS  := $(addprefix $(BUILD)/asan/bin/,$(CK_TOOLS)) $(addprefix $(BUILD)/asan/test/,$(CK_HELPERS))
CK_BENCHBINS := $(BUILD)/bench/hashbench

.PHONY: tools tools-asan bench-tools
tools: $(CK_BINS) $(CK_BINS32) $(CK_BINSEMU) $(CK_TESTBINS)
tools-asan: $(CK_ASANBINS)

# Figures, not tests: hash rates, time to first 31/63-bit pair, memory.
bench-tools: tools $(CK_BENCHBINS)
	@$(TOP)/tools/bench/run

# $(1) variant, $(2) object dir
define ck_variant
$(2)/%.o: $(TOP)/%.c
	@mkdir -p $$(@D)
	$$(CK_CCACHE) $$(or $$(CK_CC_$(1)),$$(CK_CC)) $$(CK_WARN) $$(CK_CFLAGS_$(1)) -MT $$@ -c -o $$@ $$<
$(2)/libck.a: $(call CK_LIBOBJ,$(2))
	@rm -f $$@
	ar rcs $$@ $$^
-include $$(wildcard $(2)/*/*.d $(2)/*/*/*.d)
endef
$(eval $(call ck_variant,native,$(CK_OBJ_native)))
$(eval $(call ck_variant,i386,$(CK_OBJ_i386)))
$(eval $(call ck_variant,asan,$(CK_OBJ_asan)))
$(eval $(call ck_variant,i386-lfs,$(call CK_OBJ_emul,i386-lfs)))
$(eval $(call ck_variant,armhf,$(call CK_OBJ_emul,armhf)))
$(eval $(call ck_variant,armhf-lfs,$(call CK_OBJ_emul,armhf-lfs)))

$(BUILD)/bin/%: $(CK_OBJ_native)/tools/%.o $(CK_OBJ_native)/libck.a
	@mkdir -p $(@D)
	$(CK_CC) $(CK_LDFLAGS_native) -o $@ $^ $(CK_LIBS)
$(BUILD)/bin32/%: $(CK_OBJ_i386)/tools/%.o $(CK_OBJ_i386)/libck.a
	@mkdir -p $(@D)
	$(CK_CC) $(CK_LDFLAGS_i386) -o $@ $^ $(CK_LIBS)
# build/emul/i386 is build/bin32's program (the same flags), beside its siblings.
$(BUILD)/emul/i386/%: $(BUILD)/bin32/%
	@mkdir -p $(@D)
	cp $< $@
define ck_emul_link
$(BUILD)/emul/$(1)/%: $(call CK_OBJ_emul,$(1))/tools/%.o $(call CK_OBJ_emul,$(1))/libck.a
	@mkdir -p $$(@D)
	$$(or $$(CK_CC_$(1)),$$(CK_CC)) $$(CK_LDFLAGS_$(1)) -o $$@ $$^ $$(CK_LIBS)
endef
$(foreach f,i386-lfs armhf armhf-lfs,$(eval $(call ck_emul_link,$(f))))
$(BUILD)/test/%: $(CK_OBJ_native)/tests/unit/%.o $(CK_OBJ_native)/libck.a
	@mkdir -p $(@D)
	$(CK_CC) $(CK_LDFLAGS_native) -o $@ $^ $(CK_LIBS)
$(BUILD)/asan/bin/%: $(CK_OBJ_asan)/tools/%.o $(CK_OBJ_asan)/libck.a
	@mkdir -p $(@D)
	$(CK_CC) $(CK_LDFLAGS_asan) -o $@ $^ $(CK_LIBS)
$(BUILD)/asan/test/%: $(CK_OBJ_asan)/tests/unit/%.o $(CK_OBJ_asan)/libck.a
	@mkdir -p $(@D)
	$(CK_CC) $(CK_LDFLAGS_asan) -o $@ $^ $(CK_LIBS)
$(BUILD)/bench/%: $(CK_OBJ_native)/tools/bench/%.o $(CK_OBJ_native)/libck.a
	@mkdir -p $(@D)
	$(CK_CC) $(CK_LDFLAGS_native) -o $@ $^ $(CK_LIBS)

# LD_PRELOAD shim that plays a hash-ordered directory with chosen cookies,
# so dirprobe's loop and duplicate detection is tested without a kernel bug.
# Built without _FILE_OFFSET_BITS=64: it defines open/open64, lseek/lseek64 itself.
$(BUILD)/test/libfakedir.so: $(TOP)/tests/unit/fakedir.c
	@mkdir -p $(@D)
	$(CK_CC) $(CK_WARN) -fPIC -shared -o $@ $< -ldl

# Keep make from deleting objects it considers intermediate.
.SECONDARY:
