/* mount(2) and umount2(2): the caller's strings and options brought into the kernel, the
 * target looked up, then do_mount, do_remount_sb or do_umount. Only a caller with
 * CAP_SYS_ADMIN may change what is mounted, as in Linux (asked after the lookup, as Linux's
 * may_mount is: a missing target is ENOENT for anyone). */
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

/* The mounted file system whose root ino is, or NULL: remount and umount2 name a mount by
 * its root (Linux's check_mnt and "path->dentry != mnt->mnt_root"). */
static struct super_block *mount_of_root(struct inode *ino)
{
	struct super_block *sb = ino->i_sb;

	if (ino != sb->s_root || sb->s_detached || (!sb->s_mountpoint && ino != vfs_root()))
		return NULL;
	return sb;
}

/* MS_REMOUNT: the flags of the mount at dir change (MS_RDONLY on or off, nosuid...). With
 * MS_BIND Linux changes only the mount's own flags; here the super block is the mount. How
 * atime goes is kept unless the call names one (Linux since 3.17). */
static long do_remount(struct inode *dir, unsigned long flags, char *data)
{
	struct super_block *sb = mount_of_root(dir);

	if (!sb)
		return -EINVAL;
	if (!(flags & (MS_NOATIME | MS_NODIRATIME | MS_RELATIME | MS_STRICTATIME)))
		flags |= sb->s_flags & MS_NOATIME;
	return do_remount_sb(sb, flags, data);
}

/* What mount(2) does to the target found at dir: a new mount, or a change of one. */
static long path_mount(const char *dev, const char *dir, struct inode *target, const char *type,
		       unsigned long flags, char *data)
{
	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~MS_MGC_MSK;
	if (flags & MS_REMOUNT)
		return do_remount(target, flags, data);
	if (flags & (MS_BIND | MS_MOVE | MS_SHARED_KINDS))
		return -EINVAL; /* one super block is one mount here: no second view of it */
	return type ? do_mount(dev, dir, type, flags, data) : -EINVAL;
}

long sys_mount(uint64_t udev, uint64_t udir, uint64_t utype, uint64_t flags, uint64_t udata)
{
	char *dev = NULL, *dir = NULL, *type = NULL, *data = NULL;
	struct inode *target;
	long err;

	dir = kmalloc(PATH_MAX);
	if (!dir)
		return -ENOMEM;
	err = copy_mount_string(utype, PAGE_SIZE, &type);
	if (!err)
		err = copy_mount_string(udev, PATH_MAX, &dev);
	if (!err)
		err = copy_mount_options(udata, &data);
	if (!err)
		err = path_from_user(udir, dir);
	if (!err)
		err = path_lookup_at(current_pwd(), dir, true, &target);
	if (!err && !capable(CAP_SYS_ADMIN))
		err = -EPERM;
	if (!err)
		err = path_mount(dev, dir, target, type, flags, data);
	kfree(data);
	kfree(type);
	kfree(dev);
	kfree(dir);
	return err;
}

long sys_umount(uint64_t udir, uint64_t flags)
{
	char path[PATH_MAX];
	struct super_block *sb;
	struct inode *ino;
	long err;

	if (flags & ~(uint64_t)(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW))
		return -EINVAL;
	err = path_from_user(udir, path);
	if (!err)
		err = path_lookup_at(current_pwd(), path, !(flags & UMOUNT_NOFOLLOW), &ino);
	if (err)
		return err;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	sb = mount_of_root(ino);
	return sb ? do_umount(sb, (int)flags) : -EINVAL;
}
