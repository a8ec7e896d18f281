/* open, close and ftruncate: a path becomes an inode (created if asked), the inode an open
 * file (its table's open() may refuse), the file a descriptor. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/syscalls.h"
#include "kernel/sched.h"
#include "mm/filemap.h"

long sys_openat(int64_t dirfd, uint64_t upath, uint64_t flags, uint64_t mode)
{
	char path[PATH_MAX];
	struct inode *ino;
	struct file *f;
	long err;

	(void)dirfd; /* every path is resolved from the root: there is no cwd yet */
	err = path_from_user(upath, path);
	if (err)
		return err;
	err = path_lookup(path, &ino);
	if (err == -ENOENT && (flags & O_CREAT))
		err = vfs_create(path, (uint32_t)mode, &ino);
	else if (!err && (flags & O_CREAT) && (flags & O_EXCL))
		err = -EEXIST;
	else if (!err && (flags & O_CREAT) && S_ISDIR(ino->i_mode))
		err = -EISDIR; /* even read-only: O_CREAT asks for a regular file */
	if (err)
		return err;
	if (S_ISDIR(ino->i_mode) && (flags & O_ACCMODE) != O_RDONLY)
		return -EISDIR;
	if ((flags & O_DIRECTORY) && !S_ISDIR(ino->i_mode))
		return -ENOTDIR;
	if ((flags & O_ACCMODE) == 3)
		return -EINVAL;
	err = dentry_open(ino, (unsigned int)flags, &f);
	if (err)
		return err;
	/* After open succeeded, as Linux truncates: a device file is never cut. */
	if ((flags & O_TRUNC) && S_ISREG(ino->i_mode) && (f->f_mode & FMODE_WRITE) &&
	    ino->i_mapping)
		vmtruncate(ino, 0);
	return fd_install_lowest(f, 0, flags & O_CLOEXEC);
}

long sys_close(uint64_t fd)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	current->files->fd[fd] = NULL;
	fput(f);
	return 0;
}

long sys_ftruncate(uint64_t fd, int64_t len)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if (!S_ISREG(f->f_inode->i_mode) || !f->f_inode->i_mapping)
		return -EINVAL;
	if (!(f->f_mode & FMODE_WRITE))
		return -EINVAL; /* Linux: EINVAL for a descriptor not open for writing */
	if (len < 0)
		return -EINVAL;
	return vmtruncate(f->f_inode, (uint64_t)len);
}
