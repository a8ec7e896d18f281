/* mount(2): the caller's strings and options brought into the kernel, then do_mount. Only
 * a caller with CAP_SYS_ADMIN may change what is mounted, as in Linux. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/process/cred.h"
#include "kernel/syscalls.h"
#include "mm/page.h"
#include "mm/slab.h"

#define MS_MOVE 0x2000
#define MS_SHARED_KINDS (0x20000 | 0x40000 | 0x80000 | 0x100000) /* unbindable...shared */

/* A user string of at most size bytes into a new buffer *out (NULL for a NULL pointer):
 * 0, -EFAULT, -ENAMETOOLONG, -ENOMEM. */
static long copy_mount_string(uint64_t ustr, size_t size, char **out)
{
	long n;

	*out = NULL;
	if (!ustr)
		return 0;
	*out = kmalloc(size);
	if (!*out)
		return -ENOMEM;
	n = strncpy_from_user(*out, ustr, size);
	if (n >= 0 && (size_t)n < size)
		return 0;
	kfree(*out);
	*out = NULL;
	return n < 0 ? n : -ENAMETOOLONG;
}

/* The options page: as much of a page as can be read (Linux's copy_mount_options stops at
 * the first unreadable byte, since the caller's string may end right before one). */
static long copy_mount_options(uint64_t udata, char **out)
{
	size_t n = 0;

	*out = NULL;
	if (!udata)
		return 0;
	*out = kzalloc(PAGE_SIZE);
	if (!*out)
		return -ENOMEM;
	while (n < PAGE_SIZE - 1 && !copy_from_user(*out + n, udata + n, 1))
		n++;
	if (n)
		return 0;
	kfree(*out);
	*out = NULL;
	return -EFAULT;
}

long sys_mount(uint64_t udev, uint64_t udir, uint64_t utype, uint64_t flags, uint64_t udata)
{
	char *dev = NULL, *dir = NULL, *type = NULL, *data = NULL;
	long err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	dir = kmalloc(PATH_MAX);
	if (!dir)
		return -ENOMEM;
	err = path_from_user(udir, dir);
	if (!err)
		err = copy_mount_string(udev, PATH_MAX, &dev);
	if (!err)
		err = copy_mount_string(utype, PAGE_SIZE, &type);
	if (!err)
		err = copy_mount_options(udata, &data);
	if (!err && (flags & (MS_REMOUNT | MS_BIND | MS_MOVE | MS_SHARED_KINDS)))
		err = -EINVAL; /* faultline changes no mount yet: each is a new one */
	if (!err)
		err = type ? do_mount(dev, dir, type, flags, data) : -EINVAL;
	kfree(data);
	kfree(type);
	kfree(dev);
	kfree(dir);
	return err;
}
