/* The in-memory file tree the ramdisk is unpacked into. Each inode has exactly one name, so
 * the directory entry lives in the inode itself (Linux keeps it apart, in struct dentry). */
#ifndef KERNEL_FS_H
#define KERNEL_FS_H

#include "kernel/list.h"

#define NAME_MAX 255
#define PATH_MAX 4096

#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFLNK 0120000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)

struct inode {
	unsigned long i_ino;
	uint32_t i_mode;             /* S_IF* type and permission bits */
	uint64_t i_size;             /* bytes */
	const uint8_t *i_data;       /* regular file: its bytes, inside the ramdisk module */
	struct inode *i_parent;      /* the directory holding it (the root holds itself) */
	struct list_head i_children; /* directory: the inodes in it */
	struct list_head i_sibling;  /* link in the parent's i_children */
	char i_name[NAME_MAX + 1];
};

struct inode *ramfs_root(void);
/* Find the inode for an absolute or root-relative path ("." and ".." understood).
 * 0, -ENOENT, -ENOTDIR or -ENAMETOOLONG. */
int ramfs_lookup(const char *path, struct inode **out);
/* Create path (its missing parent directories too) with mode; data is not copied.
 * An existing directory is reused; an existing file is replaced. 0, -ENOMEM, -ENOTDIR, ... */
int ramfs_create(const char *path, uint32_t mode, const uint8_t *data, uint64_t size,
		 struct inode **out);

struct initramfs_stats {
	unsigned long files, dirs, bytes;
	unsigned long skipped; /* entries of other types (devices, links) */
};
/* Unpack a cpio "newc" archive into the tree. A corrupt archive is refused from the first bad
 * byte on, with a message naming the offset; what came before it stays. 0 or -EINVAL. */
int initramfs_unpack(const uint8_t *archive, size_t len, struct initramfs_stats *st);

#endif
