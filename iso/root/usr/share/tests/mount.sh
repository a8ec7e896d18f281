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
