# SPDX-License-Identifier: GPL-2.0
# gdb-scripts: `make gdb [KERNEL=before|after]` attaches gdb to the running
# guest's kernel (started by `make vm-run` or vm/run) with the lx-* and ck-*
# commands.  Without KERNEL it follows the running variant; with one that
# differs, or no VM running, it says so and fails instead of connecting.
.PHONY: gdb
gdb: deps
	@$(TOP)/gdb-scripts/ck-gdb $(if $(KERNEL),--kernel $(KERNEL)) $(if $(PORT),--port $(PORT))
