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
#define S_IFCHR 0020000
#define S_IFLNK 0120000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)

/* A file's page cache and who maps it (Linux's struct address_space). Its pages are found
 * by (mapping, index) in the page-cache hash (mm/filemap.c). */
struct address_space {
	struct inode *host;
	unsigned long nrpages;          /* pages of the file in the cache */
	struct list_head i_mmap;        /* every VMA mapping the file, linked by vm->shared */
	struct list_head i_mmap_nonlinear; /* the VMAs made nonlinear by remap_file_pages */
};

/* A device file (/dev/fb0, /dev/kmsgbuf): memory with no struct page behind it, mapped by
 * mm/pfnmap.c's fault() op, which installs PTEs to the frames itself (VM_FAULT_NOPAGE). */
struct device_ops {
	const char *name;
	uint64_t phys, size;  /* the device memory: physically contiguous, page aligned */
	uint64_t pte_cache;   /* caching bits for its PTEs (_PAGE_PCD/_PAGE_PWT), or 0 */
	long (*ioctl)(struct inode *ino, uint64_t cmd, uint64_t arg);
	void (*mapped)(bool first_mapping); /* the first VMA appeared (true) / the last went */
};

struct inode {
	unsigned long i_ino;
	uint32_t i_mode;             /* S_IF* type and permission bits */
	uint64_t i_size;             /* bytes */
	/* "The disk": the bytes the file started with, inside the ramdisk module. Reading a
	 * page not in the cache copies from here (a major fault); nothing is written back. */
	const uint8_t *i_disk;
	uint64_t i_disk_size;        /* bytes of i_disk still part of the file (truncate cuts) */
	struct address_space i_data; /* regular files: the page cache */
	struct address_space *i_mapping; /* &i_data for a regular file, else NULL */
	int i_nlink;                 /* names: 1, or 0 once unlinked */
	int i_count;                 /* open struct files; freed at 0 once unlinked */
	const struct device_ops *i_dev; /* a device file: what its memory is */
	struct inode *i_parent;      /* the directory holding it (the root holds itself) */
	struct list_head i_children; /* directory: the inodes in it */
	struct list_head i_sibling;  /* link in the parent's i_children */
	char i_name[NAME_MAX + 1];
};

struct inode *ramfs_root(void);
/* Find the inode for an absolute or root-relative path. "." and ".." are resolved in every
 * component; a trailing '/' must name a directory. 0, -ENOENT, -ENOTDIR or -ENAMETOOLONG. */
int ramfs_lookup(const char *path, struct inode **out);
/* The kernel's own creations (the ramdisk unpacker, device files): create path with mode,
 * its missing parent directories too; data is not copied. An existing directory is reused,
 * an existing file replaced. 0, -ENOMEM, -ENOTDIR, -EISDIR, ... */
int ramfs_create(const char *path, uint32_t mode, const uint8_t *data, uint64_t size,
		 struct inode **out);
/* What open(O_CREAT) and mkdir do (Linux's vfs_create, vfs_mkdir): a new, empty inode at
 * path, whose parent must exist. 0, -EEXIST (also for "/", "x/." and "x/.."), -ENOENT,
 * -ENOTDIR, -EISDIR (a regular file named "x/"), -ENAMETOOLONG, -ENOMEM. */
int ramfs_mknod(const char *path, uint32_t mode, struct inode **out);
/* namei.c: copy a user path into path[PATH_MAX] (0 or -errno) */
long path_from_user(uint64_t upath, char *path);
/* Remove the name path (a regular file, or an empty directory if dir). The inode lives on
 * while files are open on it. 0, -ENOENT, -EISDIR, -ENOTDIR, -ENOTEMPTY; rmdir of "/" is
 * -EBUSY, of "x/." -EINVAL, of "x/.." -ENOTEMPTY, and unlink of any of them -EISDIR. */
int ramfs_unlink(const char *path, bool dir);
/* The last open file of inode is gone: free it if it has no name left. */
void iput(struct inode *inode);

struct initramfs_stats {
	unsigned long files, dirs, bytes;
	unsigned long skipped; /* entries of other types (devices, links) */
};
/* Unpack a cpio "newc" archive into the tree. A corrupt archive is refused from the first bad
 * byte on, with a message naming the offset; what came before it stays. 0 or -EINVAL. */
int initramfs_unpack(const uint8_t *archive, size_t len, struct initramfs_stats *st);

#endif
