/* open, close, ftruncate, chdir: a path becomes an inode (created if asked), the inode an
 * open file (its table's open() may refuse), the file a descriptor. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/locks.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/syscalls.h"
#include "kernel/sched.h"
#include "mm/filemap.h"

long sys_openat(int64_t dirfd, uint64_t upath, uint64_t flags, uint64_t mode)
{
	char path[PATH_MAX];
	struct inode *ino, *base;
	struct file *f;
	long err;

	err = path_from_user(upath, path);
	if (!err)
		err = dirfd_base(dirfd, path, &base);
	if (err)
		return err;
	err = path_lookup_at(base, path, !(flags & O_NOFOLLOW), &ino);
	if (!err && S_ISLNK(ino->i_mode))
		return -ELOOP; /* O_NOFOLLOW, and the last component is a link */
	if (err == -ENOENT && (flags & O_CREAT))
		err = vfs_create(base, path, apply_umask((uint32_t)mode & 07777), &ino);
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
	    ino->i_mapping) {
		vmtruncate(ino, 0);
		inode_touch_mtime(ino);
	}
	return fd_install_lowest(f, 0, flags & O_CLOEXEC);
}

long sys_close(uint64_t fd)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	current->files->fd[fd] = NULL;
	filp_close(f, current->files);
	return 0;
}

void filp_close(struct file *f, struct files_struct *files)
{
	locks_remove_posix(f, files);
	fput(f);
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
	inode_touch_mtime(f->f_inode);
	return vmtruncate(f->f_inode, (uint64_t)len);
}

/* chdir and fchdir: a directory becomes current's working directory. */
static long set_pwd(struct inode *dir)
{
	if (!S_ISDIR(dir->i_mode))
		return -ENOTDIR;
	set_fs_pwd(current->fs, dir);
	return 0;
}

long sys_chdir(uint64_t upath)
{
	struct inode *dir;
	long err = user_path_at(AT_FDCWD, upath, true, &dir);

	return err ? err : set_pwd(dir);
}

long sys_fchdir(uint64_t fd)
{
	struct file *f = fget(fd);

	return f ? set_pwd(f->f_inode) : -EBADF;
}
