# SPDX-License-Identifier: GPL-2.0
# vm/vm.mk — guest root image and lab disks (issue 3).  Included by the top
# Makefile, which defines TOP and BUILD and exports COOKIEKIT_CACHE.
# Both are cached outside the checkout by key (see vm/rootfs, vm/disks);
# these targets are phony because the scripts themselves decide staleness,
# in well under a second when nothing changed.
#   build/vm/rootfs.img              -> $(COOKIEKIT_CACHE)/vm/rootfs-<key>.img
#   build/vm/{ext4,ext3,xfs}.img     -> $(COOKIEKIT_CACHE)/vm/disks-<key>/*.img

.PHONY: rootfs disks

rootfs: deps
	@BUILD=$(BUILD) $(TOP)/vm/rootfs

# dirfill stages the lab directories (vm/disks falls back to touch without it).
disks: deps tools
	@BUILD=$(BUILD) $(TOP)/vm/disks
