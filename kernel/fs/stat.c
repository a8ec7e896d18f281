/* stat, fstat, newfstatat and readlink: what an inode says about itself, in Linux's x86-64
 * struct stat. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/namei.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

void generic_fillattr(struct inode *ino, struct kstat *stat)
{
	stat->dev = ino->i_sb->s_dev;
	stat->ino = ino->i_ino;
	stat->nlink = S_ISDIR(ino->i_mode) ? 2 : (uint64_t)ino->i_nlink;
	stat->mode = ino->i_mode;
	stat->uid = ino->i_uid;
	stat->gid = ino->i_gid;
	stat->rdev = ino->i_rdev;
	stat->size = ino->i_size;
	stat->blksize = 4096;
	stat->blocks = (ino->i_size + 511) / 512;
	stat->atime = ino->i_atime;
	stat->mtime = ino->i_mtime;
	stat->ctime = ino->i_ctime;
}

/* Linux's x86-64 struct stat (144 bytes) as 8-byte words. */
static long stat_to_user(struct inode *ino, uint64_t ustat)
{
	uint64_t st[18] = { 0 };
	struct kstat k;

	generic_fillattr(ino, &k);
	if (ino->i_op && ino->i_op->getattr)
		ino->i_op->getattr(ino, &k);
	st[0] = new_encode_dev(k.dev);
	st[1] = k.ino;
	st[2] = k.nlink;
	st[3] = k.mode | (uint64_t)k.uid << 32; /* st_mode, st_uid */
	st[4] = k.gid;                          /* st_gid (and padding) */
	st[5] = new_encode_dev(k.rdev);
	st[6] = k.size;
	st[7] = k.blksize;
	st[8] = k.blocks;
	st[9] = (uint64_t)k.atime.tv_sec, st[10] = (uint64_t)k.atime.tv_nsec;
	st[11] = (uint64_t)k.mtime.tv_sec, st[12] = (uint64_t)k.mtime.tv_nsec;
	st[13] = (uint64_t)k.ctime.tv_sec, st[14] = (uint64_t)k.ctime.tv_nsec;
	return copy_to_user(ustat, st, sizeof(st));
}

long sys_fstat(uint64_t fd, uint64_t ustat)
{
	struct file *f = fget(fd);

	return f ? stat_to_user(f->f_inode, ustat) : -EBADF;
}

#define AT_SYMLINK_NOFOLLOW 0x100

long sys_newfstatat(int64_t dirfd, uint64_t upath, uint64_t ustat, uint64_t flags)
{
	struct inode *ino;
	char c;
	long err;

	if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 /* AT_NO_AUTOMOUNT */))
		return -EINVAL;
	if ((flags & AT_EMPTY_PATH) && !copy_from_user(&c, upath, 1) && c == '\0')
		return sys_fstat((uint64_t)dirfd, ustat);
	err = user_path_at(dirfd, upath, !(flags & AT_SYMLINK_NOFOLLOW), &ino);
	return err ? err : stat_to_user(ino, ustat);
}

long sys_stat(uint64_t upath, uint64_t ustat)
{
	return sys_newfstatat(AT_FDCWD, upath, ustat, 0);
}

long sys_lstat(uint64_t upath, uint64_t ustat)
{
	return sys_newfstatat(AT_FDCWD, upath, ustat, AT_SYMLINK_NOFOLLOW);
}

/* readlinkat: a symbolic link's target, not NUL-terminated, cut to size bytes. */
long sys_readlinkat(int64_t dirfd, uint64_t upath, uint64_t ubuf, int64_t size)
{
	struct inode *ino;
	char *target;
	long err;

	if (size <= 0)
		return -EINVAL;
	err = user_path_at(dirfd, upath, false, &ino);
	if (err)
		return err;
	if (!S_ISLNK(ino->i_mode) || !ino->i_op || !ino->i_op->readlink)
		return -EINVAL;
	target = kmalloc(PATH_MAX);
	if (!target)
		return -ENOMEM;
	err = ino->i_op->readlink(ino, target, PATH_MAX);
	if (err >= 0) {
		err = MIN(err, size);
		if (copy_to_user(ubuf, target, (size_t)err))
			err = -EFAULT;
	}
	kfree(target);
	return err;
}

long sys_readlink(uint64_t upath, uint64_t ubuf, int64_t size)
{
	return sys_readlinkat(AT_FDCWD, upath, ubuf, size);
}
