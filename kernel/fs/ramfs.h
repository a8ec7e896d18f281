/* ramfs (kernel/fs/ramfs.c): files that live in the page cache, directories in memory. The
 * root file system (the ramdisk is unpacked into it) and /dev are ramfs. */
#ifndef KERNEL_FS_RAMFS_H
#define KERNEL_FS_RAMFS_H

#include "kernel/fs/fs.h"

void ramfs_init(void); /* register the "ramfs" type */
/* What a regular file made in an instance gets: ramfs's own, or tmpfs's (mm/shmem.c). */
struct ramfs_file_ops {
	const struct file_operations *fop;
	const struct inode_operations *iop;
	const struct address_space_operations *aops;
};
/* A ramdisk file's store, in its inode's i_private: the bytes it had in the archive (inside
 * the ramdisk module, not copied) that are still part of it (truncate cuts size). */
struct ramfs_image {
	const uint8_t *data;
	uint64_t size;
};
/* ramfs's address_space_operations (kernel/fs/ramfs_file.c): pages are read from the image,
 * zeroes past it; writes stay in the page cache. */
extern const struct address_space_operations ramfs_aops;
/* Make sb an in-memory tree of ramfs's directories whose regular files get ops (kept by
 * pointer in s_fs_info). 0 or -ENOMEM. */
int ramfs_fill_super_ops(struct super_block *sb, const struct ramfs_file_ops *ops);
/* The ramdisk unpacker's creations: path with mode, its missing parent directories too; a
 * regular file's bytes are data (not copied: the page cache reads them on demand), its
 * atime and mtime the archive's mtime (seconds; < 0: now). An existing directory is reused,
 * an existing file replaced. 0, -ENOMEM, -ENOTDIR, -EISDIR */
int ramfs_create_kernel(const char *path, uint32_t mode, const uint8_t *data, uint64_t size,
			int64_t mtime);

#endif
