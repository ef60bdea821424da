# SPDX-License-Identifier: GPL-2.0
# labs/exercise.mk — exercise workspaces (issue 19): `make exercise LAB=NN`
# copies lab NN's skeleton into work/NN/ (never over a student's edits),
# `make solution LAB=NN` puts the reference solution there; `make lab-check
# LAB=NN` then grades work/NN/ (KIT=1: the kit's own check).  labs/exercise.
.PHONY: exercise solution
ifneq ($(filter exercise solution,$(MAKECMDGOALS)),)
ifeq ($(LAB),)
$(error usage: make exercise|solution LAB=NN  (exercises: $(TOP)/labs/exercise --list))
endif
endif
exercise:
	@$(TOP)/labs/exercise $(LAB)
solution:
	@$(TOP)/labs/exercise --solution $(LAB)
