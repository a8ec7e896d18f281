# faultline: build the kernel, the ramdisk and the ISO; boot, debug and test them in QEMU.
# `make help` lists the targets and variables. Everything lands in build/.

CROSS    ?=
CC       := $(CROSS)gcc
LD       := $(CROSS)ld
NM       := $(CROSS)nm
OBJCOPY  := $(CROSS)objcopy
STRIP    := $(CROSS)strip
HOSTCC   ?= gcc
QEMU     ?= qemu-system-x86_64
GDB      ?= gdb

MEM      ?= 256M
SMP      ?= 1
ACCEL    ?= tcg
CMDLINE  ?=
INITRD_EXTRA ?=
WERROR   ?= 1
OPT      ?= -O2

B := build
# LOCKDEBUG=1: the lock checker (kernel/locking/lockdep.c, docs/locking.md): lock order, spinlocks
# held into schedule(), recursion, bad unlocks, locks held on the return to user mode. A
# build option, not a kernel parameter, so that the normal kernel's lock fast paths carry no
# test of a flag (make bench); it builds in build/lockdebug/, beside the normal build.
LOCKDEBUG ?=
ifeq ($(LOCKDEBUG),1)
B := build/lockdebug
endif
# V=1 shows every command
Q := $(if $(V),,@)

KCFLAGS := -std=gnu11 -ffreestanding -fno-builtin -nostdlib -mno-red-zone -mno-mmx -mno-sse \
	-mno-sse2 -mcmodel=kernel -fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls \
	-fno-asynchronous-unwind-tables -g $(OPT) -Wall -Wextra -I. -MMD -MP \
	-fdebug-prefix-map=$(CURDIR)=.
ifeq ($(WERROR),1)
KCFLAGS += -Werror
endif
ifeq ($(LOCKDEBUG),1)
KCFLAGS += -DCONFIG_LOCKDEBUG
endif
# EXERCISE=name (docs/exercises.md): link the lab's stub, NAME.c in the exercises/ folder of the
# subsystem the lab is about (KERNEL_EXERCISE_DIRS), whose function replaces the real (weak) one
# (several: EXERCISE="zero_page cow_reuse"). A ring-3 lab's stub is user/exercises/NAME.c,
# linked into its program instead.
KERNEL_EXERCISES := zero_page cow_reuse fault_lock nopage_compat tlb_shootdown clock \
	block_to_path
KERNEL_EXERCISE_DIRS := mm/exercises kernel/fs/ext2/exercises
# kernel_stub NAME: the kernel lab NAME's stub; kernel_stub_obj NAME: its object
kernel_stub = $(firstword $(wildcard $(addsuffix /$(1).c,$(KERNEL_EXERCISE_DIRS))))
kernel_stub_obj = $(B)/$(call kernel_stub,$(1)).o
$(foreach e,$(KERNEL_EXERCISES),$(if $(call kernel_stub,$(e)),, \
	$(error lab $(e): no $(e).c in $(KERNEL_EXERCISE_DIRS))))
USER_EXERCISES := uf_pager
EXERCISES := $(KERNEL_EXERCISES) $(USER_EXERCISES)
# A handout (make handout, below) has the file HANDOUT at its top and no answers: each lab's
# code is the student's stub file, so every build links all of them unless EXERCISE= says.
HANDOUT := $(wildcard HANDOUT)
ifneq ($(HANDOUT),)
EXERCISE ?= $(EXERCISES)
endif
EXERCISE ?=
ifneq ($(filter-out $(EXERCISES),$(EXERCISE)),)
$(error unknown EXERCISE '$(filter-out $(EXERCISES),$(EXERCISE))': one of $(EXERCISES))
endif
KASFLAGS := -g -I. -MMD -MP -D__ASSEMBLER__ -fdebug-prefix-map=$(CURDIR)=.
KLDFLAGS := -nostdlib -z max-page-size=0x1000 -T linker.ld --no-warn-rwx-segments

# kernel/ and its folders of one subject each (docs/layout.md); kernel/fs/ and kernel/ipc/ apart
KDIRS := kernel kernel/arch kernel/futex kernel/lib kernel/locking kernel/printk kernel/process \
	kernel/sched kernel/signal kernel/test kernel/time
# by_name LIST: LIST's files in the order of their names, whatever their folders, so that a file
# moved from one folder of KDIRS to another keeps its place in the link (and make bench's counts)
by_name = $(foreach n,$(sort $(notdir $(1))),$(filter %/$(n),$(1)))
KSRCS := $(wildcard boot/*.S) $(call by_name,$(wildcard $(addsuffix /*.S,$(KDIRS)))) \
	$(wildcard drivers/*.S) $(call by_name,$(wildcard $(addsuffix /*.c,$(KDIRS)))) \
	$(wildcard kernel/fs/*.c kernel/fs/proc/*.c kernel/fs/ext2/*.c kernel/ipc/*.c mm/*.c \
		kernel/net/*.c kernel/net/unix/*.c \
		drivers/*.c drivers/tty/*.c drivers/apic/*.c drivers/pci/*.c drivers/block/*.c \
		drivers/ata/*.c drivers/block/partitions/*.c tests/ktest/*.c) \
	$(foreach e,$(filter $(KERNEL_EXERCISES),$(EXERCISE)),$(call kernel_stub,$(e)))
KOBJS := $(patsubst %,$(B)/%.o,$(KSRCS))

HOST_TESTS := $(patsubst tests/host/%.c,$(B)/host/%,$(wildcard tests/host/test_*.c))
HOSTCFLAGS := -std=gnu11 -DHOST_TEST -I. -g -O1 -fsanitize=address,undefined \
	-fno-sanitize-recover=all -Wall -Wextra -Werror

# Every boot goes through the launcher tests/lib/qemu.sh (its options: --help, docs/testing.md).
LAUNCH := QEMU=$(QEMU) sh tests/lib/qemu.sh --mem $(MEM) --smp $(SMP) --accel $(ACCEL)
HAVE_DISPLAY := $(if $(DISPLAY)$(WAYLAND_DISPLAY),yes,)
RUN_DISPLAY := $(if $(HAVE_DISPLAY),--display auto)

.PHONY: docs print-exercises swap-img disk-img all iso run debug gdb gdb-docs test host-test user \
	bench clean help deps exercise mutate syscalls
all: $(B)/faultline.elf

# ---------------------------------------------------------------- dependencies
# Commands the build needs and the Debian package that brings each.
DEP_PKGS := gcc:gcc ld:binutils $(QEMU):qemu-system-x86 grub-mkrescue:grub-common \
	xorriso:xorriso mformat:mtools cpio:cpio $(GDB):gdb python3:python3 socat:socat \
	musl-gcc:musl-tools
# mkswap formats build/swap.img, mke2fs build/disk.img; they live in /sbin, often not in a
# user's PATH.
MKSWAP ?= /sbin/mkswap
MKE2FS ?= /sbin/mke2fs
# The framebuffer console's font (drivers/font.S embeds it): a PSF1/PSF2 file, gzipped or not.
FONT_PSF ?= /usr/share/consolefonts/Lat15-Fixed16.psf.gz
DEP_FILES := /usr/lib/grub/i386-pc/moddep.lst:grub-pc-bin \
	/usr/lib/grub/x86_64-efi/moddep.lst:grub-efi-amd64-bin \
	/usr/share/OVMF/OVMF_CODE_4M.fd:ovmf /usr/lib/x86_64-linux-gnu/libc.a:libc6-dev \
	$(FONT_PSF):console-setup-linux $(MKSWAP):util-linux $(MKE2FS):e2fsprogs
# The ramdisk carries the build host's /bin/busybox, which must be the static one.
BUSYBOX  ?= /bin/busybox
BUSYBOX_OK := $(shell readelf -l $(BUSYBOX) 2>/dev/null | grep -q LOAD && \
	! readelf -l $(BUSYBOX) | grep -q INTERP && echo yes)
# dep_what/dep_pkg: the two halves of a "command:package" or "file:package" pair
dep_what = $(firstword $(subst :, ,$(1)))
dep_pkg = $(lastword $(subst :, ,$(1)))
MISSING := $(strip \
	$(foreach d,$(DEP_PKGS),$(if $(shell command -v $(call dep_what,$(d)) 2>/dev/null),, \
		$(call dep_pkg,$(d)))) \
	$(foreach d,$(DEP_FILES),$(if $(wildcard $(call dep_what,$(d))),,$(call dep_pkg,$(d)))) \
	$(if $(BUSYBOX_OK),,busybox-static))
# The same packages under other names, for the message when they cannot be installed here
DEPS_FEDORA := gcc binutils qemu-system-x86 grub2-tools-extra grub2-pc-modules \
	grub2-efi-x64-modules xorriso mtools cpio gdb edk2-ovmf e2fsprogs
DEPS_ARCH := gcc binutils qemu-system-x86 grub xorriso mtools cpio gdb edk2-ovmf e2fsprogs
DEPS_MACOS := x86_64-elf-gcc x86_64-elf-binutils qemu xorriso mtools cpio gdb e2fsprogs

# Checked again on every run while something is missing, so a tree built before a new
# dependency was added still gets it installed.
$(B)/.deps-ok: $(if $(MISSING),FORCE)
	@mkdir -p $(B)
	@if [ -n "$(MISSING)" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "deps: installing $(MISSING)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends $(MISSING) >/dev/null || exit 1; \
	  else \
	    echo "faultline needs: $(MISSING)"; \
	    echo "  Debian/Ubuntu: sudo apt-get install --no-install-recommends $(MISSING)"; \
	    echo "  Fedora:        sudo dnf install $(DEPS_FEDORA)"; \
	    echo "  Arch:          sudo pacman -S $(DEPS_ARCH)"; \
	    echo "  macOS:         brew install $(DEPS_MACOS) (and make CROSS=x86_64-elf-)"; \
	    exit 1; \
	  fi; \
	fi
	@touch $@
deps: $(B)/.deps-ok

# ---------------------------------------------------------------- system calls
# kernel/arch/syscall_64.tbl lists them, a line each; kernel/arch/syscalltbl.py makes from it
# build/gen/syscalls_64.h, whose rows become the dispatch table (kernel/syscall.c), the
# prototypes (kernel/syscalls.h) and the fuzzer's list (user/fuzz/calls.c). In build/gen/ for
# every build (LOCKDEBUG=1's too): it depends on the table alone. `make syscalls` prints the
# numbers below the highest one that have no call.
GEN := build/gen
SYSCALL_TBL := kernel/arch/syscall_64.tbl
SYSCALLS_H := $(GEN)/syscalls_64.h
$(SYSCALLS_H): $(SYSCALL_TBL) kernel/arch/syscalltbl.py
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)python3 kernel/arch/syscalltbl.py header $< > $@.tmp && mv $@.tmp $@
syscalls:
	@python3 kernel/arch/syscalltbl.py gaps $(SYSCALL_TBL)

# ---------------------------------------------------------------- kernel
# Objects depend on the flags too: a changed OPT or CROSS rebuilds everything.
KFLAGS_ALL = $(CC) $(KCFLAGS) $(KASFLAGS)
$(B)/kflags: FORCE | $(B)/.deps-ok
	@echo '$(KFLAGS_ALL)' | cmp -s - $@ || echo '$(KFLAGS_ALL)' > $@

$(B)/%.S.o: %.S $(B)/kflags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(KASFLAGS) -c $< -o $@

# (the generated header before any C file: the .d files name it for the rebuilds after)
$(B)/%.c.o: %.c $(B)/kflags | $(SYSCALLS_H)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(KCFLAGS) -c $< -o $@

# The font is embedded as the package ships it, decompressed; .incbin finds it via -I$(B).
# Remade on every run but replaced only when it differs, so FONT_PSF=... takes effect.
$(B)/font.psf: FORCE | $(B)/.deps-ok
	$(Q)gzip -dcf $(FONT_PSF) > $@.tmp && { cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@; }
$(B)/drivers/font.S.o: $(B)/font.psf
$(B)/drivers/font.S.o: KASFLAGS += -I$(B)

$(B)/ksyms0.o: | $(B)/.deps-ok
	@printf '\t.section .note.GNU-stack, "", @progbits\n' | $(CC) -c -x assembler -o $@ -

# Two links: the first has no symbol table; its symbols become build/ksyms.S, and the
# second link adds it in the last section, so no address moves between the two.
# The labs linked in: a changed EXERCISE relinks.
$(B)/exercise: FORCE | $(B)/.deps-ok
	@echo '$(EXERCISE)' | cmp -s - $@ || echo '$(EXERCISE)' > $@

# link_kernel DIR OBJS: the two links of DIR/faultline.elf from OBJS (the grade section links
# the labs' stub kernels with it too)
define link_kernel
	@$(if $(Q),echo "  LD      $(1)/faultline.elf")
	$(Q)$(LD) $(KLDFLAGS) -o $(1)/faultline.pass1 $(2) $(B)/ksyms0.o
	$(Q)sh kernel/gen-ksyms.sh $(NM) $(1)/faultline.pass1 > $(1)/ksyms.S
	$(Q)$(CC) -c $(1)/ksyms.S -o $(1)/ksyms.o
	$(Q)$(LD) $(KLDFLAGS) -o $(1)/faultline.elf $(2) $(1)/ksyms.o
	@$(NM) -n $(1)/faultline.pass1 | grep -Ev "ksyms|__kernel_end" > $(1)/pass1.syms
	@$(NM) -n $(1)/faultline.elf | grep -Ev "ksyms|__kernel_end" > $(1)/pass2.syms
	@cmp -s $(1)/pass1.syms $(1)/pass2.syms || { echo "ksyms moved symbols"; exit 1; }
endef
$(B)/faultline.elf: $(KOBJS) $(B)/ksyms0.o linker.ld kernel/gen-ksyms.sh $(B)/exercise
	$(call link_kernel,$(B),$(KOBJS))

# ---------------------------------------------------------------- user programs
# Static musl binaries: the same files run in ring 3 under faultline and natively on Linux.
USER_PROGS := $(patsubst user/%.c,$(B)/user/%,$(wildcard user/*.c))
# Their debug information names the tree as `.`, so the image is the same wherever it is built.
USER_CFLAGS := -static -O2 -g -Wall -Wextra -fdebug-prefix-map=$(CURDIR)=. \
	$(if $(filter 1,$(WERROR)),-Werror)
$(B)/user/%: user/%.c user/utest.h user/vmstat.h user/narrate.h | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSLCC  $<")
	$(Q)musl-gcc $(USER_CFLAGS) -o $@ $<
# The message-queue programs share a header.
$(B)/user/mqueue $(B)/user/mqueue-notify: user/mq-common.h
# The user-level pager's handler is weak: the lab uf_pager links the student's instead.
$(B)/user/uf-pager: user/uf-pager.c user/uf-pager.h user/utest.h $(B)/exercise \
		$(if $(filter uf_pager,$(EXERCISE)),user/exercises/uf_pager.c) | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSLCC  $@")
	$(Q)musl-gcc $(USER_CFLAGS) -o $@ $(filter %.c,$^)
# The fuzzer is the one program of several files: user/fuzz/*.c linked into /bin/fuzz.
USER_PROGS += $(B)/user/fuzz
# Its list of the numbers faultline answers is the kernel's table's (-I. finds $(SYSCALLS_H)).
$(B)/user/fuzz: $(wildcard user/fuzz/*.c) user/fuzz/fuzz.h user/utest.h user/vmstat.h \
		$(SYSCALLS_H) | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSLCC  user/fuzz/*.c")
	$(Q)musl-gcc $(USER_CFLAGS) -I. -o $@ $(filter %.c,$^)
$(B)/user/not-an-elf: user/not-an-elf
	@mkdir -p $(dir $@)
	@cp $< $@ && chmod +x $@
# A program from the host's own toolchain: static glibc, to show faultline runs more than musl.
$(B)/user/hello-glibc: user/glibc/hello.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GLIBCC  $<")
	$(Q)$(HOSTCC) -static -O2 -Wall -Wextra -o $@ $<
HOST_PROGS := $(B)/user/hello-glibc
user: $(USER_PROGS) $(HOST_PROGS) $(B)/user/not-an-elf

# ---------------------------------------------------------------- bench
# `make bench`: what a page fault costs in guest instructions (QEMU -icount), side by side
# with the Linux reference (tests/bench/linux/), then host micro-benchmarks of the VMA tree and
# the frame allocator. Not a test: nothing passes or fails on speed (docs/bench.md).
# `BENCH_LINUX=1 make bench` measures Linux anew: the same fbench as the init of Debian's
# kernel (tests/bench/linux-baseline.sh, which fetches the kernel package if /boot has none).
# This section sits before the ramdisk rule so that /bin/fbench joins the ramdisk the way
# HOST_PROGS do.
$(B)/user/fbench: user/bench/fbench.c user/bench/fbench.h | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSLCC  $<")
	$(Q)musl-gcc $(USER_CFLAGS) -o $@ $<
HOST_PROGS += $(B)/user/fbench
user: $(B)/user/fbench
# /bin/fsmpbench: the SMP kinds, a program of their own so that fbench's stays as it was (its
# name sorts after fexit's: an entry before it in /bin made lat_proc_exec's lookup dearer)
$(B)/user/fsmpbench: user/bench/fbench_smp.c user/bench/fbench.h | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSLCC  $<")
	$(Q)musl-gcc $(USER_CFLAGS) -o $@ $<
HOST_PROGS += $(B)/user/fsmpbench
user: $(B)/user/fsmpbench
# /bin/fexit: the program fbench's lat_proc_exec row execs (also in the Linux initramfs)
$(B)/user/fexit: user/bench/fexit.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSLCC  $<")
	$(Q)musl-gcc $(USER_CFLAGS) -o $@ $<
HOST_PROGS += $(B)/user/fexit
user: $(B)/user/fexit
# /bin/swapbench: the swap rows (a 48 MiB boot with a swap disk; docs/bench.md "Swap")
$(B)/user/swapbench: user/bench/swapbench.c user/bench/fbench.h user/bench/iowait.h \
		| $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSLCC  $<")
	$(Q)musl-gcc $(USER_CFLAGS) -o $@ $<
HOST_PROGS += $(B)/user/swapbench
user: $(B)/user/swapbench
# /bin/extbench: faults and reads of an ext2 file on a disk, with and without read-ahead
# (docs/bench.md "Files on a disk")
$(B)/user/extbench: user/bench/extbench.c user/bench/fbench.h user/bench/iowait.h \
		| $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSLCC  $<")
	$(Q)musl-gcc $(USER_CFLAGS) -o $@ $<
HOST_PROGS += $(B)/user/extbench
user: $(B)/user/extbench
BENCH_HOST := $(patsubst tests/bench/host/%.c,$(B)/bench/host/%,\
	$(wildcard tests/bench/host/bench_*.c))
BENCH_HOSTCFLAGS := -std=gnu11 -DHOST_TEST -I. -O2 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror)
$(B)/bench/host/%: tests/bench/host/%.c \
		$(wildcard $(addsuffix /*.[ch],$(KDIRS)) kernel/fs/*.[ch] kernel/ipc/*.[ch] \
			mm/*.[ch] drivers/tty/*.[ch] drivers/apic/*.[ch] drivers/pci/*.h \
			drivers/block/*.h drivers/ata/*.h tests/host/*.h) $(SYSCALLS_H) \
		| $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) $(BENCH_HOSTCFLAGS) $< -o $@
bench: $(B)/faultline.iso $(B)/user/fbench $(B)/user/fsmpbench $(B)/user/fexit \
		$(B)/user/swapbench $(B)/user/extbench $(BENCH_HOST)
	@ISO=$(B)/faultline.iso FBENCH=$(B)/user/fbench FSMPBENCH=$(B)/user/fsmpbench \
		FEXIT=$(B)/user/fexit SWAPBENCH=$(B)/user/swapbench MKSWAP=$(MKSWAP) \
		EXTBENCH=$(B)/user/extbench MKE2FS=$(MKE2FS) \
		BUSYBOX=$(BUSYBOX) \
		sh tests/bench/run-bench.sh
	@for b in $(BENCH_HOST); do echo; $$b || exit 1; done
# ---------------------------------------------------------------- end of bench

# ---------------------------------------------------------------- ramdisk and ISO
# mkcpio DIR OUT SOURCES: the tree DIR as the newc archive OUT, replaced only when it differs;
# every entry dated as the newest of the files SOURCES, so that the same tree makes the same
# archive and the ISOs built from it are not redone
define mkcpio
	@find $(1) -exec touch -h -r "$$(ls -td $(3) | head -n 1)" {} +
	@(cd $(1) && find . -mindepth 1 | LC_ALL=C sort | \
		cpio -o -H newc -R 0:0 --reproducible --quiet) > $(2).tmp
	@cmp -s $(2).tmp $(2) && rm $(2).tmp || mv $(2).tmp $(2)
endef
RAMDISK_FILES := $(shell find iso/root -type f 2>/dev/null)
APPLETS_NOT_LINKED := init halt poweroff reboot linuxrc
RING3_LISTS := user/expect.txt tests/ring3-host.txt tests/ring3-faultline.txt
EXTRA_FILES = $(shell [ -n "$(INITRD_EXTRA)" ] && find $(INITRD_EXTRA) 2>/dev/null)
$(B)/initrd.cpio: $(USER_PROGS) $(HOST_PROGS) $(B)/user/not-an-elf $(RING3_LISTS) \
		tests/ring3-swap.txt tests/ring3-boots.txt tests/ring3/boots.awk \
		$(RAMDISK_FILES) $(EXTRA_FILES) FORCE
	@rm -rf $(B)/initrd && mkdir -p $(B)/initrd
	@# /tmp as on any root: programs create their files there (mkdir of a missing parent is
	@# ENOENT); /mnt, where /etc/rc mounts the second disk
	@cp -r iso/root/. $(B)/initrd/
	@mkdir -p $(B)/initrd/bin $(B)/initrd/tmp $(B)/initrd/mnt
	@chmod 1777 $(B)/initrd/tmp # anyone may make files there, and remove only their own
	@cp $(USER_PROGS) $(HOST_PROGS) $(B)/user/not-an-elf $(B)/initrd/bin/
	@# without their debug information (gdb's user-symbols reads build/user's copies): the
	@# ramdisk must fit in the small machines the tests boot (24 MiB)
	@$(STRIP) --strip-debug $(addprefix $(B)/initrd/bin/,$(notdir $(USER_PROGS) $(HOST_PROGS)))
	@cp $(BUSYBOX) $(B)/initrd/bin/busybox
	@# busybox's applets: /bin/sh, the rest in /usr/bin, which comes first in the shell's PATH
	@# (docs/shell.md); the test programs keep /bin. faultline's own init and power
	@# programs are kept: busybox's would signal an init that pid 1 is not.
	@mkdir -p $(B)/initrd/usr/bin $(B)/initrd/sbin
	@ln -s busybox $(B)/initrd/bin/sh
	@for a in $$($(BUSYBOX) --list); do case " sh $(APPLETS_NOT_LINKED) " in \
		*" $$a "*) ;; *) ln -s /bin/busybox $(B)/initrd/usr/bin/$$a ;; esac; done
	@# /etc/runlist: every test program, as make test runs them (see docs/testing.md)
	@mkdir -p $(B)/initrd/etc && cat $(RING3_LISTS) | grep -v '^#' | \
		sed 's/^[^|]*| *//' > $(B)/initrd/etc/runlist
	@# /etc/ring3-swap.list: the programs that need swap, for the ring3-swap boots
	@grep -v '^#' tests/ring3-swap.txt | sed 's/^[^|]*| *//' > $(B)/initrd/etc/ring3-swap.list
	@# /etc/runlist-BOOT: what tests/ring3-boots.txt lets BOOT run of the runlist
	@for b in $$(awk -v names=1 -f tests/ring3/boots.awk tests/ring3-boots.txt /dev/null); do \
		awk -v boot=$$b -f tests/ring3/boots.awk tests/ring3-boots.txt \
		$(B)/initrd/etc/runlist > $(B)/initrd/etc/runlist-$$b; done
	@if [ -n "$(INITRD_EXTRA)" ]; then cp -r $(INITRD_EXTRA)/. $(B)/initrd/; fi
	$(call mkcpio,$(B)/initrd,$@,$(filter-out FORCE,$^) $(BUSYBOX))

$(B)/isodir/boot/grub/grub.cfg: iso/grub.cfg FORCE
	@mkdir -p $(dir $@)
	@sed 's|@CMDLINE@|$(CMDLINE)|' iso/grub.cfg > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

GRUB_MODULES := multiboot2 normal iso9660 part_msdos part_gpt all_video configfile \
	serial terminal test
# mkiso DIR ELF INITRD: DIR/faultline.iso from the boot tree DIR/isodir with ELF and INITRD
define mkiso
	@mkdir -p $(1)/isodir/boot/grub
	$(if $(filter-out $(B),$(1)),@cp $(B)/isodir/boot/grub/grub.cfg $(1)/isodir/boot/grub/)
	@cp $(2) $(1)/isodir/boot/faultline.elf
	@cp $(3) $(1)/isodir/boot/initrd.cpio
	@$(if $(Q),echo "  ISO     $(1)/faultline.iso")
	$(Q)grub-mkrescue -o $(1)/faultline.iso.tmp --compress=xz --locales= --fonts= --themes= \
		--install-modules="$(GRUB_MODULES)" $(1)/isodir -- -report_about SORRY \
		2>$(1)/grub-mkrescue.log || { cat $(1)/grub-mkrescue.log; exit 1; }
	@# a new file in its place, never one rewritten in place: a QEMU booting the old one (a
	@# test beside the build) goes on reading it whole
	@mv $(1)/faultline.iso.tmp $(1)/faultline.iso
endef
$(B)/faultline.iso: $(B)/faultline.elf $(B)/initrd.cpio $(B)/isodir/boot/grub/grub.cfg
	$(call mkiso,$(B),$(B)/faultline.elf,$(B)/initrd.cpio)
iso: $(B)/faultline.iso
# An ISO from another boot tree, with the same GRUB: tests build broken ones from build/isodir
# (no ramdisk, a corrupt ramdisk) with `make iso-from ISODIR=dir ISO_OUT=file.iso`.
iso-from:
	$(Q)grub-mkrescue -o $(ISO_OUT) --compress=xz --locales= --fonts= --themes= \
		--install-modules="$(GRUB_MODULES)" $(ISODIR) -- -report_about SORRY

.PHONY: FORCE
FORCE:

# ---------------------------------------------------------------- running
# The serial console shares this terminal with QEMU's monitor (mon:stdio), so typed keys go
# to the guest: Ctrl-a x quits QEMU, Ctrl-a c switches to the monitor and back. The kernel
# ends QEMU through isa-debug-exit with 33 (success), 35 (a self-test or a runlist program
# failed) or 37 (panic); --exit-codes turns them into 0, 1 and 2 for make.
# KARGS='init=/bin/vm-cow faulttrace': kernel parameters through fw_cfg, as the tests pass them
# (the ISO stays as it is; CMDLINE= goes into grub.cfg instead).
RUN_ARGS = --iso $< --serial mon:stdio $(RUN_DISPLAY)
# DISK=FILE: a raw image as /dev/sda; MACHINE=q35 puts it on AHCI (docs/disks.md). Without
# DISK, /dev/sda is the swap area build/swap.img (`swapon /dev/sda`, docs/swap.md).
RUN_DISK = $(or $(DISK),$(B)/swap.img)
# DISK2=FILE: a raw image as /dev/sdb, where the guest's /etc/rc mounts an ext2 file system on
# /mnt (read-only); without DISK2, build/disk.img (docs/disks.md, "The second disk").
RUN_DISK2 = $(or $(DISK2),$(B)/disk.img)
RUN_ARGS += --disk '$(RUN_DISK)' --disk2 '$(RUN_DISK2)' $(if $(MACHINE),--machine $(MACHINE))
RUN_IMAGES = $(if $(DISK),,$(B)/swap.img) $(if $(DISK2),,$(B)/disk.img)
QUIT_HINT := Ctrl-a x quits QEMU, Ctrl-a c switches to its monitor and back

# A swap area of SWAP_SIZE in util-linux's format (docs/swap.md), made once: swapping leaves
# the header as it is. A fixed UUID keeps the image the same from build to build.
SWAP_SIZE ?= 512M
$(B)/swap.img: | $(B)/.deps-ok
	@$(if $(Q),echo "  MKSWAP  $@")
	@# sparse: mkswap's warning about the holes (which matter to a swap file, not to a disk
	@# image) is shown only if it fails
	$(Q)rm -f $@.tmp && truncate -s $(SWAP_SIZE) $@.tmp && chmod 600 $@.tmp && \
		{ $(MKSWAP) -L faultline-swap -U 5a4b7ca1-0000-4000-8000-000000000001 $@.tmp \
		>$@.log 2>&1 || { cat $@.log; exit 1; }; } && rm $@.log && mv $@.tmp $@
swap-img: $(B)/swap.img

# The second disk: an ext2 file system of DISK_SIZE made by mke2fs -d from iso/disk/ (a README
# for students, a few files), a program to run from it and a file past its direct blocks. Made
# again when they change: the guest mounts it read-only, so nothing written there is lost.
DISK_SIZE ?= 16M
DISK_FILES := $(shell find iso/disk 2>/dev/null)
$(B)/disk.img: $(DISK_FILES) $(B)/user/hello Makefile | $(B)/.deps-ok
	@$(if $(Q),echo "  MKE2FS  $@")
	$(Q)rm -rf $(B)/disk $@.tmp && mkdir -p $(B)/disk/bin && cp -a iso/disk/. $(B)/disk/ && \
		cp $(B)/user/hello $(B)/disk/bin/ && seq 1 40000 >$(B)/disk/numbers.txt && \
		truncate -s $(DISK_SIZE) $@.tmp && \
		{ $(MKE2FS) -t ext2 -b 4096 -L faultline-disk -E root_owner=0:0 \
		-U 5a4b7ca1-0000-4000-8000-000000000002 -d $(B)/disk $@.tmp >$@.log 2>&1 || \
		{ cat $@.log; exit 1; }; } && rm $@.log && mv $@.tmp $@
disk-img: $(B)/disk.img

# qemu_exit: when the boot is over (the console's shell exits, the runlist ends) the kernel
# ends QEMU with its verdict, and make's status is that verdict.
run: $(B)/faultline.iso $(RUN_IMAGES)
	@echo "faultline: serial console on this terminal; $(QUIT_HINT)"
	@$(if $(KARGS)$(CMDLINE),,echo "faultline: busybox sh comes up; 'exit' in it ends the boot")
	$(LAUNCH) $(RUN_ARGS) --kargs 'qemu_exit $(KARGS)' --exit-codes

# The gdb stub's port, one per user on a shared machine (docs/gdb.md); GDBPORT=N overrides it.
GDBPORT ?= $(shell echo $$((1234 + $$(id -u) % 1000)))
GDB_HINT = 'make gdb$(if $(filter command line environment,$(origin GDBPORT)), GDBPORT=$(GDBPORT))'
debug: $(B)/faultline.iso $(RUN_IMAGES)
	@echo "QEMU waits for gdb on localhost:$(GDBPORT); in another terminal run $(GDB_HINT)"
	@echo "faultline: serial console on this terminal; $(QUIT_HINT)"
	$(LAUNCH) $(RUN_ARGS) $(if $(KARGS),--kargs '$(KARGS)') --gdb $(GDBPORT)

# faultline.gdb sets the architecture, loads tests/gdb/faultline.py and attaches; the repo's
# .gdbinit would source it a second time, so it is not auto-loaded here.
gdb: $(B)/faultline.elf
	GDBPORT=$(GDBPORT) $(GDB) -q -iex 'set auto-load local-gdbinit off' \
		-x tests/gdb/faultline.gdb $<

# docs/gdb.md's transcripts from a fresh run of the gdb fault test (make test compares them).
gdb-docs: $(B)/faultline.iso $(B)/swap.img $(B)/disk.img
	@GDB_DOCS_UPDATE=1 sh tests/gdb/run-fault-gdb-test.sh $(B)/faultline.iso \
		$(B)/faultline.elf $(B)/test-logs | { grep -v '^ok - ' || true; }

# ---------------------------------------------------------------- tests
$(B)/host/%: tests/host/%.c \
		$(wildcard $(addsuffix /*.[ch],$(KDIRS)) kernel/fs/*.[ch] kernel/ipc/*.[ch] \
			mm/*.[ch] drivers/*.[ch] drivers/tty/*.[ch] drivers/apic/*.[ch] \
			drivers/pci/*.h drivers/block/*.h drivers/ata/*.h \
			tests/host/*.h) $(SYSCALLS_H) | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) $(HOSTCFLAGS) $< -o $@

host-test: $(HOST_TESTS)
	@for t in $(HOST_TESTS); do $$t || exit 1; done

# The suite runs on $(B)'s kernel; its lock-checker part boots the LOCKDEBUG build beside it,
# its labs part the labs' stub ISOs of the grade section below (tests/grade.sh).
test: $(B)/faultline.iso $(HOST_TESTS) $(B)/swap.img $(B)/disk.img $(if $(EXERCISE),,grade-isos)
	@$(MAKE) -s LOCKDEBUG=1 iso
	@MKSWAP=$(MKSWAP) ISO=$(B)/faultline.iso ELF=$(B)/faultline.elf GRADE=$(GRADE) \
		sh tests/run.sh $(HOST_TESTS)

# `make exercise EXERCISE=name`: the ISO with that stub, then the test that exercise names.
exercise: $(B)/faultline.iso
	@[ -n "$(EXERCISE)" ] || \
		{ echo "usage: make exercise EXERCISE=name ($(EXERCISES))"; exit 2; }
	@for e in $(EXERCISE); do ISO=$(B)/faultline.iso MKSWAP=$(MKSWAP) sh tests/exercise.sh $$e \
		|| exit 1; done

# ---------------------------------------------------------------- grade
# `make grade` (docs/exercises.md, "Grading"): every lab's test (tests/exercise.sh NAME) on the
# tree as it is built, EXERCISE= included; scores in $(B)/grade/results.json for an
# autograder. `make grade CHECK_LABS=1`: the instructor's check besides: each lab's test must
# also fail with the lab's stub alone, built in $(B)/grade/NAME/ so that $(B)/faultline.iso
# stays the real kernel. A stub kernel is the normal build's objects plus the stub's (its
# function is strong, the real one weak); uf_pager's is the real kernel with a ramdisk whose
# /bin/uf-pager has the stub.
GRADE := $(B)/grade
# LABS=...: only these labs
LABS ?= $(EXERCISES)
ifneq ($(filter-out $(EXERCISES),$(LABS)),)
$(error unknown LABS '$(filter-out $(EXERCISES),$(LABS))': of $(EXERCISES))
endif
GRADE_ISOS := $(patsubst %,$(GRADE)/%/faultline.iso,$(LABS))
GRADE_STUB_OBJS := $(foreach e,$(KERNEL_EXERCISES),$(call kernel_stub_obj,$(e)))
.SECONDARY: $(GRADE_STUB_OBJS) $(patsubst %,$(GRADE)/%/faultline.elf,$(KERNEL_EXERCISES))
.PHONY: grade grade-isos
$(GRADE)/%/faultline.elf: $(KOBJS) $(B)/ksyms0.o linker.ld kernel/gen-ksyms.sh
	@[ -z "$(EXERCISE)" ] || { echo "$@: the stub kernels link the real code: no EXERCISE="; \
		exit 2; }
	@mkdir -p $(dir $@)
	$(call link_kernel,$(GRADE)/$*,$(KOBJS) $(call kernel_stub_obj,$*))
# each stub kernel's own stub, wherever its folder is
$(foreach e,$(KERNEL_EXERCISES),$(eval $(GRADE)/$(e)/faultline.elf: $(call kernel_stub_obj,$(e))))
$(GRADE)/%/faultline.iso: $(GRADE)/%/faultline.elf $(B)/initrd.cpio \
		$(B)/isodir/boot/grub/grub.cfg
	$(call mkiso,$(GRADE)/$*,$<,$(B)/initrd.cpio)
$(GRADE)/uf_pager/uf-pager: user/uf-pager.c user/uf-pager.h user/utest.h \
		user/exercises/uf_pager.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSLCC  $@")
	$(Q)musl-gcc $(USER_CFLAGS) -o $@ $(filter %.c,$^)
# the normal ramdisk's tree, its /bin/uf-pager replaced
$(GRADE)/uf_pager/initrd.cpio: $(B)/initrd.cpio $(GRADE)/uf_pager/uf-pager
	@rm -rf $(GRADE)/uf_pager/initrd && cp -a $(B)/initrd $(GRADE)/uf_pager/initrd
	@cp $(GRADE)/uf_pager/uf-pager $(GRADE)/uf_pager/initrd/bin/uf-pager
	$(call mkcpio,$(GRADE)/uf_pager/initrd,$@,$^)
$(GRADE)/uf_pager/faultline.iso: $(B)/faultline.elf $(GRADE)/uf_pager/initrd.cpio \
		$(B)/isodir/boot/grub/grub.cfg
	@[ -z "$(EXERCISE)" ] || { echo "$@: the stub ISOs hold the real code: no EXERCISE="; \
		exit 2; }
	$(call mkiso,$(GRADE)/uf_pager,$<,$(GRADE)/uf_pager/initrd.cpio)
grade-isos: $(GRADE_ISOS)

CHECK_LABS ?=
ifneq ($(filter 1,$(CHECK_LABS)),)
ifneq ($(EXERCISE),)
$(error CHECK_LABS=1 holds each stub against the real code: build it without EXERCISE=)
endif
endif
grade: $(B)/faultline.iso $(if $(filter 1,$(CHECK_LABS)),grade-isos)
	@ISO=$(B)/faultline.iso GRADE=$(GRADE) MKSWAP=$(MKSWAP) \
		sh tests/grade.sh $(if $(filter 1,$(CHECK_LABS)),--check) $(LABS)

# ---------------------------------------------------------------- handout
# For an instructor (docs/exercises.md, "For instructors: the handout"), all three from this
# tree's own answers by tests/handout/handout.py: `make handout DIR=d`, the students'
# repository in d (a new git repository, every answer replaced by its stub); `make solutions
# DIR=d`, the answers back into a handout or a student's submission; `make grade-class
# SUBMISSIONS=d`, every submission (a directory each) built in its own tree and graded by this
# tree's tests, GRADE_JOBS at a time: $(GRADE)/class/NAME/results.json, $(GRADE)/class.csv.
DIR ?=
SUBMISSIONS ?=
GRADE_JOBS ?= $(shell nproc)
.PHONY: handout solutions grade-class
handout solutions:
	@[ -n "$(DIR)" ] || { echo "usage: make $@ DIR=path"; exit 2; }
	@python3 tests/handout/handout.py $@ '$(DIR)'
grade-class: | $(B)/.deps-ok
	@[ -n "$(SUBMISSIONS)" ] || \
		{ echo "usage: make grade-class SUBMISSIONS=dir (one directory per student)"; \
		exit 2; }
	@MKSWAP=$(MKSWAP) python3 tests/handout/handout.py grade-class '$(SUBMISSIONS)' $(GRADE) \
		$(GRADE_JOBS)

# `make mutate`: each mutant of tests/mutate/mutants.txt (MUTANTS=a,b: only those) in a scratch
# copy under build/mutate/, built and given the one test that must catch it; not part of
# `make test` (minutes). Its table of CAUGHT and SURVIVED is in docs/testing.md.
MUTANTS ?=
mutate: | $(B)/.deps-ok
	@MKSWAP=$(MKSWAP) python3 tests/mutate/mutate.py '$(MUTANTS)'

clean:
	rm -rf $(B)

# `make docs`: the figures the build measures, written into the docs (tests/docs/figures.sh:
# the ISO's size and boot records in README.md, the fault costs in docs/bench.md, the system
# calls in docs/syscalls.md)
docs: $(B)/faultline.iso
	@ISO=$(B)/faultline.iso sh tests/docs/figures.sh update

# the labs, one a line (tests/docs/check.sh holds the docs to them)
print-exercises:
	@for e in $(EXERCISES); do echo $$e; done

help:
	@echo "faultline make targets:"
	@echo "  make            build the kernel ($(B)/faultline.elf)"
	@echo "  make iso        build the bootable ISO ($(B)/faultline.iso: GRUB, kernel, ramdisk)"
	@echo "  make run        boot the ISO in QEMU, serial console here (Ctrl-a x quits)"
	@echo "  make debug      boot paused, gdb stub on localhost:1234 + uid % 1000 (GDBPORT=)"
	@echo "  make gdb        attach gdb with symbols to 'make debug' (tests/gdb/faultline.gdb)"
	@echo "  make gdb-docs   rewrite docs/gdb.md's gdb transcripts from a fresh gdb fault test"
	@echo "  make test       host unit tests, kernel self-tests, boot and gdb tests"
	@echo "  make host-test  only the host unit tests"
	@echo "  make user       the ring-3 test programs (build/user/, static musl)"
	@echo "  make bench      fault costs under QEMU -icount beside Linux's; host VMA/allocator"
	@echo "  make exercise EXERCISE=name  a lab (docs/exercises.md): its stub, then its test"
	@echo "  make grade      every lab's test on the tree as built: a score and" \
		"$(B)/grade/results.json"
	@echo "  make grade CHECK_LABS=1  each lab's test must also fail with its stub alone"
	@echo "  make handout DIR=path     the students' repository: the labs' answers replaced" \
		"by their stubs"
	@echo "  make solutions DIR=path   the answers put back into a handout or a submission"
	@echo "  make grade-class SUBMISSIONS=dir  grade each student's repository in dir:" \
		"$(GRADE)/class.csv"
	@echo "  make mutate     break invariants one at a time; a test must catch each" \
		"(MUTANTS=)"
	@echo "  make docs       write the figures the build measures into README.md, docs/bench.md"
	@echo "                  and the list of system calls into docs/syscalls.md"
	@echo "  make syscalls   the system-call numbers faultline lacks" \
		"(kernel/arch/syscall_64.tbl)"
	@echo "  make clean      remove $(B)/"
	@echo "variables:"
	@echo "  LOCKDEBUG=1     the lock checker (docs/locking.md), built in build/lockdebug/"
	@echo "  CMDLINE='...'   appended to the kernel command line in grub.cfg (e.g. ktest=all)"
	@echo "  KARGS='...'     kernel parameters for one run or debug boot (fw_cfg)"
	@echo "  INITRD_EXTRA=DIR  add the tree DIR to the ramdisk root"
	@echo "  MEM=256M SMP=1  QEMU memory and CPUs;  ACCEL=tcg (kvm opts in; slow here)"
	@echo "  DISK=FILE       a raw image as /dev/sda (run, debug); without it $(B)/swap.img"
	@echo "  SWAP_SIZE=$(SWAP_SIZE)  the size of that swap area (sparse, made by mkswap)"
	@echo "  DISK2=FILE      a raw image as /dev/sdb, an ext2 file system the guest mounts on" \
		"/mnt;"
	@echo "                  without it $(B)/disk.img (mke2fs -d iso/disk/," \
		"DISK_SIZE=$(DISK_SIZE))"
	@echo "  MACHINE=q35     QEMU's q35 machine (the disk on AHCI) instead of pc (IDE)"
	@echo "  CROSS=x86_64-elf-  cross toolchain prefix;  WERROR=0 keep going on new warnings"
	@echo "  OPT=-Og         a build gdb steps line by line"
	@echo "  FONT_PSF=FILE   another PSF console font"
	@echo "  EXERCISE=name   build a lab's stub instead of the real code: $(EXERCISES)"
	@$(if $(HANDOUT),echo "                  in this handout: every lab's stub unless" \
		"EXERCISE= names some")
	@echo "  LABS='a b'      make grade: only these labs"
	@echo "  LAB_QUICK=1     make grade, grade-class: the short runs of the two long lab tests"
	@echo "  GRADE_JOBS=$(GRADE_JOBS)    make grade-class: students graded at once" \
		"(default nproc)"

-include $(KOBJS:.o=.d) $(GRADE_STUB_OBJS:.o=.d)
