# SPDX-License-Identifier: GPL-2.0
# labs/labs.mk — `make lab-check LAB=NN [KERNEL=X]` (issue 8).  The guest sees the
# labs at /kit/labs, a copy made here like build/guest.
.PHONY: labs lab-check
LABS_SRC := $(shell find $(TOP)/labs -type f)
$(BUILD)/labs/.stamp: $(LABS_SRC)
	@rm -rf $(BUILD)/labs && mkdir -p $(BUILD)/labs
	@cp -a $(TOP)/labs/. $(BUILD)/labs/
	@touch $@
labs: $(BUILD)/labs/.stamp
TEST_DEPS += labs

# Say so before building anything when LAB is missing.
ifneq ($(filter lab-check,$(MAKECMDGOALS)),)
ifeq ($(LAB),)
$(error usage: make lab-check LAB=NN [KERNEL=before|after]  (labs: $(TOP)/labs/lab-check --list))
endif
endif
lab-check: deps kernel tools bpf tui rootfs disks guest labs
	@$(TOP)/labs/lab-check $(if $(KIT),--kit) $(if $(KERNEL),--kernel $(KERNEL)) $(LAB)
-include $(TOP)/labs/exercise.mk
# The guest banner points at /kit/labs.
vm-run: labs
