# SPDX-License-Identifier: GPL-2.0
# tui/tui.mk — cookie-top, the live viewer (issue 6).  Included by the top
# Makefile (TOP, BUILD) after tools/tools.mk (CK_WARN, libck.a per variant).
#   build/bin/cookie-top          the viewer (ncurses)
#   build/tui/                    test programs, mkstream (synthetic streams), benchmark
#   build/tui/asan/               the same under ASan+UBSan
#   build/tui/fuzz-record         libFuzzer target: record parser -> model -> frame
# Only term.c includes curses; everything else links without it.

TUI_CC      ?= gcc
TUI_FUZZCC  ?= clang
TUI_OUT     := $(BUILD)/tui
TUI_CFLAGS  := $(CK_WARN) -D_FILE_OFFSET_BITS=64 -I$(TOP)/tui
TUI_ASANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TUI_CORE    := model layout canvas render snapshot source
TUI_TESTS   := test-tui-model test-tui-layout mkstream tui-bench
TUI_LIBS    := -lm

TUI_NATIVE_CORE := $(addprefix $(TUI_OUT)/obj/,$(addsuffix .o,$(TUI_CORE)))
TUI_ASAN_CORE   := $(addprefix $(TUI_OUT)/asan/obj/,$(addsuffix .o,$(TUI_CORE)))

.PHONY: tui cookie-top tui-asan tui-fuzz bench-tui
tui: $(BUILD)/bin/cookie-top $(addprefix $(TUI_OUT)/,$(TUI_TESTS)) tui-asan tui-fuzz
tui-asan: $(TUI_OUT)/asan/cookie-top $(addprefix $(TUI_OUT)/asan/,test-tui-model test-tui-layout mkstream)
tui-fuzz: $(TUI_OUT)/fuzz-record
TEST_DEPS += tui

# Attach to the VM that `make vm-run` started (or will start): waits, reconnects.
cookie-top: $(BUILD)/bin/cookie-top
	@$(BUILD)/bin/cookie-top $(COOKIE_TOP_ARGS)

# Figures, not tests: ingest rate, memory per name, frame time (see tui/README.md).
bench-tui: $(TUI_OUT)/tui-bench $(TUI_OUT)/mkstream $(BUILD)/bin/cookie-top
	@$(TOP)/tui/bench

$(TUI_OUT)/obj/%.o: $(TOP)/tui/%.c
	@mkdir -p $(@D)
	$(CK_CCACHE) $(TUI_CC) $(TUI_CFLAGS) -O2 -MT $@ -c -o $@ $<
$(TUI_OUT)/obj/test/%.o: $(TOP)/tui/test/%.c
	@mkdir -p $(@D)
	$(CK_CCACHE) $(TUI_CC) $(TUI_CFLAGS) -O2 -MT $@ -c -o $@ $<
$(TUI_OUT)/asan/obj/%.o: $(TOP)/tui/%.c
	@mkdir -p $(@D)
	$(CK_CCACHE) $(TUI_CC) $(TUI_CFLAGS) $(TUI_ASANFLAGS) -MT $@ -c -o $@ $<
$(TUI_OUT)/asan/obj/test/%.o: $(TOP)/tui/test/%.c
	@mkdir -p $(@D)
	$(CK_CCACHE) $(TUI_CC) $(TUI_CFLAGS) $(TUI_ASANFLAGS) -MT $@ -c -o $@ $<

$(BUILD)/bin/cookie-top: $(TUI_OUT)/obj/cookie-top.o $(TUI_OUT)/obj/term.o $(TUI_NATIVE_CORE) $(CK_OBJ_native)/libck.a
	@mkdir -p $(@D)
	$(TUI_CC) -o $@ $^ -lncurses $(TUI_LIBS)
$(TUI_OUT)/asan/cookie-top: $(TUI_OUT)/asan/obj/cookie-top.o $(TUI_OUT)/asan/obj/term.o $(TUI_ASAN_CORE) $(CK_OBJ_asan)/libck.a
	$(TUI_CC) -fsanitize=address,undefined -o $@ $^ -lncurses $(TUI_LIBS)

$(TUI_OUT)/%: $(TUI_OUT)/obj/test/%.o $(TUI_NATIVE_CORE) $(CK_OBJ_native)/libck.a
	$(TUI_CC) -o $@ $^ $(TUI_LIBS)
$(TUI_OUT)/asan/%: $(TUI_OUT)/asan/obj/test/%.o $(TUI_ASAN_CORE) $(CK_OBJ_asan)/libck.a
	$(TUI_CC) -fsanitize=address,undefined -o $@ $^ $(TUI_LIBS)

# libFuzzer wants clang for every object it instruments: the parser and the
# model are compiled here again, from the same sources (no copies).
TUI_FUZZ_SRC := $(TOP)/tui/fuzz/fuzz-record.c $(TOP)/lib/record.c $(TOP)/lib/ckutil.c $(TOP)/lib/ckname.c \
                $(TOP)/lib/collide.c \
                $(addprefix $(TOP)/tui/,$(addsuffix .c,model layout canvas render snapshot))
# An object per source, so that ccache (mk/ccache.mk) keeps each.
TUI_FUZZ_FLAGS := -std=gnu11 -g -O1 $(CK_PREFIX_MAP) -I$(TOP)/lib -I$(TOP)/tui \
                  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
TUI_FUZZ_OBJ := $(patsubst $(TOP)/%.c,$(TUI_OUT)/fuzz/obj/%.o,$(TUI_FUZZ_SRC))
$(TUI_OUT)/fuzz/obj/%.o: $(TOP)/%.c $(wildcard $(TOP)/tui/*.h $(TOP)/lib/*.h)
	@mkdir -p $(@D)
	$(CK_CCACHE) $(TUI_FUZZCC) $(TUI_FUZZ_FLAGS) -c -o $@ $<
$(TUI_OUT)/fuzz-record: $(TUI_FUZZ_OBJ)
	$(TUI_FUZZCC) $(TUI_FUZZ_FLAGS) -o $@ $^ -lm

-include $(wildcard $(TUI_OUT)/obj/*.d $(TUI_OUT)/obj/test/*.d $(TUI_OUT)/asan/obj/*.d $(TUI_OUT)/asan/obj/test/*.d)
