# linux-ide.sh: sourced by linux-swap.sh and linux-ext2.sh: Debian's cloud kernel with the
# modules of pc's IDE disk (fetched once with apt-get download into $WORK, nothing installed),
# and an initramfs of busybox that loads them and waits for /dev/sda.
# The caller sets WORK, LINUX_PKG, BUSYBOX, QEMU and defines say().

# Debian's cloud kernel has the IDE disk's drivers as modules (ext4, which also mounts ext2,
# is built in)
IDE_MODULES="drivers/scsi/scsi_common drivers/scsi/scsi_mod drivers/ata/libata drivers/ata/ata_piix
	drivers/scsi/sd_mod"

# linux_ide_kernel: KVER and KDIR (its vmlinuz and lib/modules/KVER/kernel/), fetched if missing
linux_ide_kernel() {
	for c in cpio gzip dpkg-deb apt-get "$QEMU"; do
		command -v "$c" >/dev/null || { say "needs $c"; return 1; }
	done
	pkg=$(apt-cache depends --important "$LINUX_PKG" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || pkg=$LINUX_PKG
	KVER=${pkg#linux-image-}
	KDIR=$WORK/ide-$KVER
	[ -r "$KDIR/vmlinuz" ] && return 0
	say "fetching $pkg (apt-get download, into $WORK)"
	rm -rf "$KDIR" "$WORK"/*.deb && mkdir -p "$KDIR" || return 1
	(cd "$WORK" && apt-get download "$pkg" >/dev/null 2>&1) || { say "apt-get download failed"
		return 1; }
	files="./boot/vmlinuz-$KVER"
	for m in $IDE_MODULES; do files="$files ./lib/modules/$KVER/kernel/$m.ko"; done
	# shellcheck disable=SC2086
	dpkg-deb --fsys-tarfile "$WORK"/"$pkg"_*.deb | tar -x -C "$KDIR" $files || return 1
	mv "$KDIR/boot/vmlinuz-$KVER" "$KDIR/vmlinuz" && rm -f "$WORK"/*.deb
}

# linux_ide_root ROOT: a fresh initramfs tree of busybox and the modules, with an /init that
# mounts proc, sysfs and devtmpfs, loads the modules and waits for /dev/sda; the caller adds
# the rest of /init and packs it (linux_ide_pack)
linux_ide_root() {
	rm -rf "$1" && mkdir -p "$1/bin" "$1/dev" "$1/proc" "$1/sys" "$1/mod" || return 1
	cp "$BUSYBOX" "$1/bin/busybox" && ln -s busybox "$1/bin/sh" || return 1
	n=0
	for m in $IDE_MODULES; do
		n=$((n + 1))
		cp "$KDIR/lib/modules/$KVER/kernel/$m.ko" "$1/mod/$n-$(basename "$m").ko" ||
			return 1
	done
	cat >"$1/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
for m in /mod/*.ko; do /bin/busybox insmod "$m" || echo "linux: insmod $m failed"; done
i=0
while [ ! -b /dev/sda ] && [ $i -lt 100 ]; do /bin/busybox sleep 0.1; i=$((i + 1)); done
EOF
	chmod 755 "$1/init"
}

# linux_ide_pack ROOT OUT: ROOT as a gzipped newc archive, the same bytes every time
linux_ide_pack() {
	find "$1" -exec touch -h -d @0 {} +
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --reproducible --quiet) |
		gzip -9n >"$2"
}

# linux_ide_machine: the machine's lines of a reference file's header (MEM, APPEND set)
linux_ide_machine() {
	echo "QEMU: $("$QEMU" --version | head -n 1)"
	echo "  -machine pc -accel tcg -cpu qemu64 -m $MEM -smp 1 -icount shift=0,sleep=off"
	echo "  -rtc base=2024-01-01T00:00:00,clock=vm -append \"$APPEND\""
}

# linux_ide_comment: standard input as "# " comment lines of at most 100 columns
linux_ide_comment() {
	awk '{ s = "# " $0
		while (length(s) > 100) { i = 100; while (i > 10 && substr(s, i, 1) != " ") i--
			print substr(s, 1, i - 1); s = "#     " substr(s, i + 1) }
		print s }'
}

# linux_ide_boot TAG PROG: boot the kernel with $WORK/TAG-initrd.gz and DISK as the first IDE
# disk (MEM, APPEND, TIMEOUT set); the serial log in LOG=$WORK/PROG.log; fails, with its last
# lines, unless PROG said "PROG: done"
linux_ide_boot() {
	LOG=$WORK/$2.log
	QEMU=$QEMU sh tests/lib/qemu.sh --kernel "$KDIR/vmlinuz" --initrd "$WORK/$1-initrd.gz" \
		--append "$APPEND" --mem "$MEM" --disk "$DISK" --icount --no-exit-device \
		--serial "$WORK/$1-serial.raw" --timeout "$TIMEOUT" </dev/null \
		>"$WORK/qemu.log" 2>&1
	rc=$?
	tr -d '\r' <"$WORK/$1-serial.raw" >"$LOG"
	grep -q "^$2: done" "$LOG" && return 0
	say "the boot did not finish (QEMU exit $rc); last lines of $LOG:"
	tail -n 20 "$LOG" | sed 's/^/  | /' >&2
	sed 's/^/  qemu: /' "$WORK/qemu.log" >&2
	return 1
}
