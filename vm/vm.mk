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

# Kernels the kit did not patch, for tests/vm/test-bpf-anykernel: the kit's
# stock variant (pristine 6.1, without 0001) and Debian's own packaged kernel
# (kernel/debian: apt-get download + dpkg-deb -x, an initramfs; never
# installed on this machine).  vm/run --kernel stock|debian boots them.
.PHONY: any-kernels debian-kernel
debian-kernel: deps
	@$(TOP)/kernel/debian
any-kernels: deps debian-kernel
	@$(TOP)/kernel/build stock
TEST_DEPS += any-kernels
