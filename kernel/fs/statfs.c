/* statfs and fstatfs: what a file system says about itself, in Linux's x86-64 struct statfs.
 * A file system with blocks counts them in its super_operations' statfs; ramfs, procfs and
 * pipefs have none (0, as Linux reports for them). The magic numbers are Linux's. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/namei.h"
#include "kernel/syscalls.h"

#define ST_VALID 0x0020    /* f_flags is filled in */
#define ST_NOATIME 0x0400  /* no atime is updated (a noatime mount) */
#define ST_RELATIME 0x1000 /* atime is updated the relatime way (file_accessed) */

static long statfs_to_user(struct super_block *sb, uint64_t ubuf)
{
	/* f_type f_bsize f_blocks f_bfree f_bavail f_files f_ffree f_fsid f_namelen f_frsize
	 * f_flags f_spare[4]: 15 words */
	uint64_t st[15] = { 0 };
	struct kstatfs k = { .f_bsize = 4096, .f_namelen = NAME_MAX };
	long err = sb->s_op && sb->s_op->statfs ? sb->s_op->statfs(sb, &k) : 0;

	if (err)
		return err;
	st[0] = sb->s_type->magic;
	st[1] = k.f_bsize;
	st[2] = k.f_blocks;
	st[3] = k.f_bfree;
	st[4] = k.f_bavail;
	st[5] = k.f_files;
	st[6] = k.f_ffree;
	st[7] = sb->s_dev;                 /* f_fsid: two ints, the device number first */
	st[8] = k.f_namelen;
	st[9] = k.f_frsize ? k.f_frsize : k.f_bsize;
	/* ST_RDONLY ... ST_SYNCHRONOUS, ST_MANDLOCK have the values of the MS_ flags */
	st[10] = ST_VALID | ((sb->s_flags & MS_NOATIME) ? ST_NOATIME : ST_RELATIME) |
		 (sb->s_flags & (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_SYNCHRONOUS |
				 MS_MANDLOCK));
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
