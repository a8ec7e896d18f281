/* Helpers for file systems whose directories live in memory (kernel/fs/libfs.c), as Linux's
 * fs/libfs.c serves ramfs: a directory is the list of its children's names (dentries). */
#ifndef KERNEL_FS_LIBFS_H
#define KERNEL_FS_LIBFS_H

#include "kernel/fs/fs.h"

/* The name called name (len bytes) in dir, or NULL (Linux's d_lookup: here the directory's
 * list is the only place names are kept). */
struct dentry *d_lookup(struct inode *dir, const char *name, size_t len);
/* The child of dir named name (len bytes), or NULL. */
struct inode *simple_lookup(struct inode *dir, const char *name, size_t len);
/* Entries of an in-memory directory: f_pos 0 is ".", 1 is "..", then the children. */
int dcache_readdir(struct file *f, void *dirent,
		   int (*filldir)(void *dirent, const char *name, size_t len, uint64_t pos,
				  unsigned long ino, unsigned int type));
/* The root directory of a new in-memory file system sb, with i_op and i_fop. */
struct inode *simple_root(struct super_block *sb, uint32_t mode,
			  const struct inode_operations *iop, const struct file_operations *fop);
/* fill_super of a file system mounted nowhere whose inodes have no names (pipefs, bdev;
 * Linux's get_sb_pseudo): a bare root directory. 0 or -ENOMEM. */
int pseudo_fill_super(struct super_block *sb, void *data, int silent);
extern const struct file_operations simple_dir_operations; /* readdir only */
extern const struct inode_operations simple_dir_inode_operations; /* lookup only */

/* address_space_operations for a file system with no store (kernel/fs/libfs_aops.c): a page
 * never cached reads as zeroes; write() zeroes what it does not write, then grows i_size and
 * dirties the page. */
int simple_readpage(struct file *f, struct page *page);
int simple_prepare_write(struct file *f, struct page *page, unsigned int from, unsigned int to);
int simple_commit_write(struct file *f, struct page *page, unsigned int from, unsigned int to);

#endif
