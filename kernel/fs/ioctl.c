/* ioctl: every request goes to the file's own table; a file with none is no terminal and no
 * device (-ENOTTY, as Linux answers). */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/syscalls.h"

long sys_ioctl(uint64_t fd, uint64_t cmd, uint64_t arg)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if (!f->f_op || !f->f_op->ioctl)
		return -ENOTTY;
	return f->f_op->ioctl(f, cmd, arg);
}
