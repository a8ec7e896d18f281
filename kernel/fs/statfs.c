/* statfs and fstatfs: what a file system says about itself, in Linux's x86-64 struct statfs.
 * ramfs, procfs and pipefs have no blocks to count (0, as Linux reports for them); their
 * magic numbers are Linux's. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/namei.h"
#include "kernel/syscalls.h"

#define ST_VALID 0x0020    /* f_flags is filled in */
#define ST_RELATIME 0x1000 /* atime is updated the relatime way (file_accessed) */

static long statfs_to_user(const struct super_block *sb, uint64_t ubuf)
{
	/* f_type f_bsize f_blocks f_bfree f_bavail f_files f_ffree f_fsid f_namelen f_frsize
	 * f_flags f_spare[4]: 15 words */
	uint64_t st[15] = { 0 };

	st[0] = sb->s_type->magic;
	st[1] = 4096;                      /* f_bsize */
	st[7] = sb->s_dev;                 /* f_fsid: two ints, the device number first */
	st[8] = NAME_MAX;                  /* f_namelen */
	st[9] = 4096;                      /* f_frsize */
	st[10] = ST_VALID | ST_RELATIME;   /* f_flags */
	return copy_to_user(ubuf, st, sizeof(st));
}

long sys_statfs(uint64_t upath, uint64_t ubuf)
{
	struct inode *ino;
	long err = user_path_at(AT_FDCWD, upath, true, &ino);

	return err ? err : statfs_to_user(ino->i_sb, ubuf);
}

long sys_fstatfs(uint64_t fd, uint64_t ubuf)
{
	struct file *f = fget(fd);

	return f ? statfs_to_user(f->f_inode->i_sb, ubuf) : -EBADF;
}
