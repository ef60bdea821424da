# SPDX-License-Identifier: GPL-2.0
# bpf/bpf.mk — the BPF tracer (issue 5).  Included by the top Makefile (TOP, BUILD).
#   build/bpf/vmlinux.h          from the kit's own 'after' vmlinux BTF (not the host's)
#   build/bpf/*.bpf.o, *.skel.h  clang -target bpf, bpftool gen skeleton
#   build/bin/cookie-trace       the loader, static (the guest has no libbpf/libelf/zlib)
#   build/bin/cookie-groups      lab helper: collision groups from a record stream
#   build/bin/ring-floor         bench helper: a ring record's pieces, timed in the guest
# Building only reads files (BTF, objects); nothing is loaded into the host kernel.

BPF_OUT      := $(BUILD)/bpf
BPF_VMLINUX  := $(BUILD)/kernel/after/vmlinux
BPF_CLANG    ?= clang
# -mcpu=v3: the collision table's compare-and-exchange and fetch-and-add (kernels >= 5.12).
BPF_CFLAGS   := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -Werror $(CK_PREFIX_MAP) -I$(BPF_OUT) -I$(TOP)/bpf
BPF_HOSTCC   ?= gcc
BPF_HOSTFLAGS := -std=gnu11 -Wall -Wextra -O2 -g $(CK_PREFIX_MAP) -I$(BPF_OUT) -I$(TOP)/bpf -I$(TOP)/lib
# Debian ships libbpf.a and libelf.a; libelf needs only zlib (checked with readelf -d).
BPF_LIBS     := -static -lbpf -lelf -lz

.PHONY: bpf
bpf: $(BUILD)/bin/cookie-trace $(BUILD)/bin/cookie-groups $(BUILD)/bin/ring-floor
TEST_DEPS += bpf

# Only when it is missing (make bpf, or make vm-run KERNEL=before, on a fresh
# clone): the BTF for vmlinux.h comes from the kit's own 'after' kernel.
$(BPF_VMLINUX):
	@echo "bpf: vmlinux.h needs the 'after' kernel's BTF, and build/kernel/after is missing:"
	@echo "bpf: building the 'after' kernel first (from the cache if it has it; cold: 8-15 min on 2 cores)"
	@$(TOP)/kernel/build after

$(BPF_OUT)/vmlinux.h: $(BPF_VMLINUX)
	@mkdir -p $(@D)
	bpftool btf dump file $< format c > $@.tmp && mv $@.tmp $@

$(BPF_OUT)/%.bpf.o: $(TOP)/bpf/%.bpf.c $(TOP)/bpf/%.h $(BPF_OUT)/vmlinux.h
	$(CK_CCACHE) $(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	bpftool gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

$(BPF_OUT)/cookie-trace.o: $(TOP)/bpf/cookie-trace.c $(TOP)/bpf/cookie-trace.h \
		$(TOP)/bpf/cookie-trace-rec.h $(BPF_OUT)/cookie-trace.skel.h \
		$(TOP)/lib/record.h $(TOP)/lib/ckutil.h $(TOP)/lib/ckname.h
	$(CK_CCACHE) $(BPF_HOSTCC) $(BPF_HOSTFLAGS) -c $< -o $@

$(BUILD)/bin/cookie-trace: $(BPF_OUT)/cookie-trace.o $(CK_OBJ_native)/libck.a
	@mkdir -p $(@D)
	$(BPF_HOSTCC) -o $@ $^ $(BPF_LIBS)

$(BPF_OUT)/cookie-groups.o: $(TOP)/bpf/cookie-groups.c $(TOP)/lib/record.h $(TOP)/lib/ckname.h $(TOP)/lib/ckutil.h
	@mkdir -p $(@D)
	$(CK_CCACHE) $(BPF_HOSTCC) $(BPF_HOSTFLAGS) -c $< -o $@

$(BUILD)/bin/cookie-groups: $(BPF_OUT)/cookie-groups.o $(CK_OBJ_native)/libck.a
	@mkdir -p $(@D)
	$(BPF_HOSTCC) -static -o $@ $^

# ring-floor times pieces of cookie-trace's record: it takes struct event from cookie-trace.h.
$(BPF_OUT)/ring-floor.bpf.o: $(TOP)/bpf/cookie-trace.h

$(BPF_OUT)/ring-floor.o: $(TOP)/bpf/ring-floor.c $(TOP)/bpf/ring-floor.h $(TOP)/bpf/cookie-trace.h \
		$(BPF_OUT)/ring-floor.skel.h $(TOP)/lib/ckutil.h
	$(CK_CCACHE) $(BPF_HOSTCC) $(BPF_HOSTFLAGS) -c $< -o $@

$(BUILD)/bin/ring-floor: $(BPF_OUT)/ring-floor.o $(CK_OBJ_native)/libck.a
	@mkdir -p $(@D)
	$(BPF_HOSTCC) -o $@ $^ $(BPF_LIBS)

# cookie-groups needs no libbpf, so the sanitizer build has it too (test-asan
# runs tests/unit/test-hostile on build/asan/bin).
$(BUILD)/asan/bin/cookie-groups: $(TOP)/bpf/cookie-groups.c $(TOP)/lib/record.h $(CK_OBJ_asan)/libck.a
	@mkdir -p $(@D)
	$(BPF_HOSTCC) $(BPF_HOSTFLAGS) $(CK_CFLAGS_asan) -o $@ $< $(CK_OBJ_asan)/libck.a $(CK_LDFLAGS_asan)
tools-asan: $(BUILD)/asan/bin/cookie-groups
