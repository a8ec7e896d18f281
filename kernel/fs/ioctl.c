/* ioctl: every request goes to the file's own table; a file with none is no terminal and no
 * device (-ENOTTY, as Linux answers). FIBMAP, asked of a regular file, is the VFS's own. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/process/cred.h"
#include "kernel/syscalls.h"

#define FIBMAP 1 /* _IO(0x00, 1): the disk block of a block of the file */

/* Linux's ioctl_fibmap: *uarg, a block of the file, becomes the block of the disk holding it
 * (0: a hole). Only for a file system on a disk (a_ops->bmap), and for CAP_SYS_RAWIO. */
static long ioctl_fibmap(struct file *f, uint64_t uarg)
{
	struct address_space *mapping = f->f_inode->i_mapping;
	int block;

	if (!mapping || !mapping->a_ops->bmap)
		return -EINVAL;
	if (!capable(CAP_SYS_RAWIO))
		return -EPERM;
	if (copy_from_user(&block, uarg, sizeof(block)))
		return -EFAULT;
	if (block < 0)
		return -EINVAL;
	block = (int)mapping->a_ops->bmap(mapping, (uint64_t)block);
	return copy_to_user(uarg, &block, sizeof(block)) ? -EFAULT : 0;
}

long sys_ioctl(uint64_t fd, uint64_t cmd, uint64_t arg)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if ((uint32_t)cmd == FIBMAP && S_ISREG(f->f_inode->i_mode))
		return ioctl_fibmap(f, arg);
	if (!f->f_op || !f->f_op->ioctl)
		return -ENOTTY;
	/* The request is an unsigned int in Linux: musl passes an int, sign-extended, so
	 * _IOR numbers (bit 31 set) arrive with the upper half all ones. */
	return f->f_op->ioctl(f, (uint32_t)cmd, arg);
}
