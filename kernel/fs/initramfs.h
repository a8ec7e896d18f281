/* The ramdisk unpacker (kernel/fs/initramfs.c): a cpio "newc" archive into the root ramfs. */
#ifndef KERNEL_FS_INITRAMFS_H
#define KERNEL_FS_INITRAMFS_H

#include "kernel/compiler.h"

struct initramfs_stats {
	unsigned long files, dirs, bytes;
	unsigned long links; /* symbolic links */
	unsigned long skipped; /* entries of other types (devices, hard links' extra names) */
};
/* Unpack a cpio "newc" archive into the tree. A corrupt archive is refused from the first bad
 * byte on, with a message naming the offset; what came before it stays. 0 or -EINVAL. */
int initramfs_unpack(const uint8_t *archive, size_t len, struct initramfs_stats *st);

#endif
