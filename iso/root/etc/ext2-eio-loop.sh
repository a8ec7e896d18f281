# The loop half of tests/boot/ext2-eio.sh, the same in faultline and natively as root:
# sh ext2-eio-loop.sh DEV DIR FS_EIO. DEV holds an ext2 with inner.img, whose blocks under
# /lost (and its free ones) are holes; filled to the last block, the loop device over inner.img
# cannot write those blocks (ENOSPC) and fs-eio runs on it. Lines "loop: ...".
dev=$1 dir=$2 fs_eio=$3
mkdir -p "$dir/outer" "$dir/inner"
mount -t ext2 "$dev" "$dir/outer" || exit 1
dd if=/dev/zero of="$dir/outer/fill" bs=4096 2>/dev/null
echo "loop: filled: $(df -k "$dir/outer" | awk 'NR == 2 { print $4 }') KiB free"
l=$(losetup -f)
losetup "$l" "$dir/outer/inner.img" && mount -t ext2 "$l" "$dir/inner" || exit 1
"$fs_eio" "$dir/inner" 2>&1 | sed 's/^/loop: /'
umount "$dir/inner"
echo "loop: umount of the loop device: exit $?"
losetup -d "$l"
rm "$dir/outer/fill"
umount "$dir/outer"
echo "loop: umount of its file's file system: exit $?"
