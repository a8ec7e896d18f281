/* ioctl: every request goes to the file's own table; a file with none is no terminal and no
 * device (-ENOTTY, as Linux answers). */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/syscalls.h"

long sys_ioctl(uint64_t fd, uint64_t cmd, uint64_t arg)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if (!f->f_op || !f->f_op->ioctl)
		return -ENOTTY;
	/* The request is an unsigned int in Linux: musl passes an int, sign-extended, so
	 * _IOR numbers (bit 31 set) arrive with the upper half all ones. */
	return f->f_op->ioctl(f, (uint32_t)cmd, arg);
}
