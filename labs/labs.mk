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

lab-check: deps kernel tools bpf tui rootfs disks guest labs
	@test -n "$(LAB)" || { echo "usage: make lab-check LAB=NN [KERNEL=before|after]  (labs/lab-check --list)"; exit 2; }
	@$(TOP)/labs/lab-check $(if $(KERNEL),--kernel $(KERNEL)) $(LAB)
# The guest banner points at /kit/labs.
vm-run: labs
