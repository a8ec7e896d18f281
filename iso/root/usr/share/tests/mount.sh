# busybox's mount, umount and df, non-interactively: tests/boot/mount.sh boots
# init=/bin/sh,/usr/share/tests/mount.sh and compares the "mount:" lines with
# tests/boot/mount.expected; on Linux (as root, sh mount.sh DIR) the same lines come out.
# Sizes and device numbers, which differ between the two kernels, are left out.
export PATH=/usr/bin:/bin:/sbin
t() { echo "mount: $*"; }
d=${1:-/mnt}
mkdir -p "$d"
t list-proc $(mount | grep -c '^proc on /proc type proc (rw')
mount -t tmpfs none "$d" && t tmpfs $(mount | grep " on $d " | sed "s| on $d | on DIR |" |
	cut -d, -f1)
echo hello > "$d/f"
t df $(df "$d" | tail -n 1 | awk '{ print $1, $NF == "'"$d"'" }')
mount -o remount,ro "$d" && t remount-ro $(grep " $d " /proc/mounts | cut -d' ' -f4 | cut -c1-2)
echo x 2>/dev/null > "$d/g" || t write refused
touch "$d/f" 2>/dev/null || t touch refused
t read $(cat "$d/f")
mount -o remount,rw "$d" && echo y > "$d/g" && t remount-rw $(cat "$d/g")
cd "$d" && { umount "$d" 2>/dev/null || t umount busy; }
cd /
umount "$d" && t umount $(ls -A "$d" | wc -l) $(grep -c " $d " /proc/mounts)
umount "$d" 2>/dev/null || t umount again refused
# A file system in a file: busybox's losetup binds a free loop device to it, its mke2fs makes
# ext2 there, mount -o ro,loop reads it back; then the device is let go.
img=/tmp/mount-test.img
dd if=/dev/zero of="$img" bs=1024 count=2048 2>/dev/null
l=$(losetup -f)
losetup "$l" "$img" && t losetup $(losetup "$l" | grep -c "$img")
mke2fs -q -b 1024 "$l" >/dev/null 2>&1 && t mke2fs done
mkdir -p "$d" && mount -t ext2 -o ro "$l" "$d" &&
	t ext2 $(ls -A "$d")
umount "$d" && losetup -d "$l" && t loop-freed $(losetup "$l" 2>/dev/null | grep -c "$img")
echo ext2-in-a-file > /tmp/mount-test.txt
mount -o ro,loop "$img" "$d" 2>/dev/null && t mount-o-loop $(ls -A "$d") && umount "$d"
rm -f "$img" /tmp/mount-test.txt
