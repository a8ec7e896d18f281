/* open, close, ftruncate, chdir: a path becomes an inode (created if asked), the inode an
 * open file (its table's open() may refuse), the file a descriptor. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/fs/locks.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/namei.h"
#include "kernel/syscalls.h"
#include "kernel/sched/sched.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/slab.h"

/* What an open with flags asks of the file (Linux's ACC_MODE, and O_TRUNC writes). */
static int open_acc_mode(uint64_t flags)
{
	static const int acc[4] = { MAY_READ, MAY_WRITE, MAY_READ | MAY_WRITE,
				    MAY_READ | MAY_WRITE };

	return acc[flags & O_ACCMODE] | ((flags & O_TRUNC) ? MAY_WRITE : 0);
}

/*
 * O_CREAT (without O_EXCL) whose last component is a symbolic link to nothing creates the
 * link's target, as Linux does: relative to the link's directory, links to links followed up
 * to MAX_LINKS. Returns what vfs_create does, or -ELOOP, -ENOMEM.
 */
static int create_through_link(struct inode *base, const char *path, uint32_t mode,
			       struct inode **out)
{
	char *cur = kmalloc(PATH_MAX), *target = kmalloc(PATH_MAX);
	struct inode *link;
	struct dentry *d;
	int err, links = 0;

	if (!cur || !target) {
		err = -ENOMEM;
		goto out;
	}
	strlcpy(cur, path, PATH_MAX);
	for (;;) {
		err = path_lookup_dentry(base, cur, false, &d);
		if (!err)
			link = d->d_inode;
		if (err == -ENOENT) {
			err = vfs_create(base, cur, mode, out);
			break;
		}
		if (err)
			break;
		if (!S_ISLNK(link->i_mode) || !link->i_op || !link->i_op->readlink) {
			err = -ENOENT; /* the name came back meanwhile, not as a link */
			break;
		}
		if (++links > MAX_LINKS) {
			err = -ELOOP;
			break;
		}
		err = link->i_op->readlink(link, target, PATH_MAX - 1);
		if (err < 0)
			break;
		target[err] = '\0';
		strlcpy(cur, target, PATH_MAX);
		base = d->d_parent; /* a relative target: from the directory of the link's name */
	}
out:
	kfree(cur);
	kfree(target);
	return err;
}

int do_filp_open(struct inode *base, const char *path, uint64_t flags, uint32_t mode,
		 struct file **out)
{
	struct inode *ino;
	struct dentry *d;
	bool created = false;
	int err;

	/* the name found: the file's path is that one of its names (hard links) */
	err = path_lookup_dentry(base, path, !(flags & O_NOFOLLOW), &d);
	if (!err)
		ino = d->d_inode;
	if (!err && S_ISLNK(ino->i_mode))
		return -ELOOP; /* O_NOFOLLOW, and the last component is a link */
	if (err == -ENOENT && (flags & O_CREAT)) {
		if (flags & (O_EXCL | O_NOFOLLOW)) /* a link in the way: EEXIST, ELOOP (above) */
			err = vfs_create(base, path, apply_umask(mode & 07777), &ino);
		else
			err = create_through_link(base, path, apply_umask(mode & 07777), &ino);
		created = !err;
		d = created ? &ino->i_dentry : NULL; /* a new file's first name */
	} else if (!err && (flags & O_CREAT) && (flags & O_EXCL))
		err = -EEXIST;
	else if (!err && (flags & O_CREAT) && S_ISDIR(ino->i_mode))
		err = -EISDIR; /* even read-only: O_CREAT asks for a regular file */
	if (err)
		return err;
	if (S_ISDIR(ino->i_mode) && (open_acc_mode(flags) & MAY_WRITE))
		return -EISDIR;
	if ((flags & O_DIRECTORY) && !S_ISDIR(ino->i_mode))
		return -ENOTDIR;
	if ((flags & O_ACCMODE) == 3)
		return -EINVAL;
	if ((S_ISCHR(ino->i_mode) || S_ISBLK(ino->i_mode)) && (ino->i_sb->s_flags & MS_NODEV))
		return -EACCES; /* a device file on a nodev mount opens nothing */
	/* The file this open made is the caller's whatever its mode says. */
	err = created ? 0 : inode_permission(ino, open_acc_mode(flags));
	if (err)
		return err;
	err = dentry_open(d, (unsigned int)flags & ~(unsigned int)__FMODE_NONOTIFY, out);
	if (err)
		return err;
	/* After open succeeded (IN_OPEN, then IN_MODIFY), as Linux truncates (handle_truncate),
	 * read-only opens too: a device file is never cut, nor a running program's (ETXTBSY). */
	if ((flags & O_TRUNC) && S_ISREG(ino->i_mode) && ino->i_mapping) {
		err = get_write_access(ino);
		if (err) {
			fput(*out);
			return err;
		}
		vmtruncate(ino, 0);
		inode_touch_mtime(ino);
		put_write_access(ino);
		if (!created)
			fsnotify_change(ino, ATTR_SIZE);
	}
	return 0;
}

long sys_openat(int64_t dirfd, uint64_t upath, uint64_t flags, uint64_t mode)
{
	char path[PATH_MAX];
	struct inode *base;
	struct file *f;
	long err;

	err = path_from_user(upath, path);
	if (!err)
		err = dirfd_base(dirfd, path, &base);
	if (!err)
		err = do_filp_open(base, path, flags, (uint32_t)mode, &f);
	if (err)
		return err;
	return fd_install_lowest(f, 0, flags & O_CLOEXEC);
}

long sys_close(uint64_t fd)
{
	struct file *f = fd >> 32 ? NULL : fd_remove((unsigned int)fd);

	if (!f)
		return -EBADF;
	filp_close(f, current->files);
	return 0;
}

#define CLOSE_RANGE_UNSHARE (1U << 1)
#define CLOSE_RANGE_CLOEXEC (1U << 2)

/* close_range(2): close (or, CLOSE_RANGE_CLOEXEC, mark close-on-exec) every descriptor in
 * [first, last]; CLOSE_RANGE_UNSHARE first gives the caller its own copy of a shared table. */
long sys_close_range(uint64_t first, uint64_t last, uint64_t flags)
{
	struct files_struct *files = current->files;

	if ((flags & ~(uint64_t)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)) ||
	    (unsigned int)first > (unsigned int)last)
		return -EINVAL;
	if ((flags & CLOSE_RANGE_UNSHARE) && files->count > 1) {
		struct files_struct *copy = dup_files(files);

		if (!copy)
			return -ENOMEM;
		current->files = copy;
		put_files(files);
		files = copy;
	}
	/* Each close may sleep and the table may change meanwhile: its size is read anew. */
	for (uint64_t fd = (unsigned int)first; fd <= (unsigned int)last &&
	     fd < files->fdt.max_fds; fd++) {
		if (!files->fdt.fd[fd])
			continue;
		if (flags & CLOSE_RANGE_CLOEXEC)
			fd_set_cloexec(files, (unsigned int)fd, true);
		else
			filp_close(fd_remove((unsigned int)fd), files);
	}
	return 0;
}

void filp_close(struct file *f, struct files_struct *files)
{
	if (f && f->f_op && f->f_op->flush)
		f->f_op->flush(f);
	locks_remove_posix(f, files);
	fput(f);
}

/* The size of the file open (for writing) on f becomes len. */
static long do_truncate(struct file *f, int64_t len)
{
	long err;

	if (len < 0)
		return -EINVAL;
	if ((uint64_t)len > f->f_inode->i_size && fsize_newsize_ok((uint64_t)len))
		return -EFBIG;
	if ((uint64_t)len > inode_maxbytes(f->f_inode)) /* no signal: 2.6.23's vmtruncate */
		return -EFBIG;
	/* the file system's say first (a sealed memfd's size may be fixed) */
	if (f->f_inode->i_op && f->f_inode->i_op->setattr) {
		struct iattr a = { .ia_valid = ATTR_SIZE, .ia_size = (uint64_t)len };
		err = f->f_inode->i_op->setattr(f->f_inode, &a);
		if (err)
			return err;
	}
	file_remove_privs(f);
	inode_touch_mtime(f->f_inode);
	err = vmtruncate(f->f_inode, (uint64_t)len);
	if (!err)
		fsnotify_change(f->f_inode, ATTR_SIZE);
	return err;
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
	return do_truncate(f, len);
}

/* One operation at most (or none: allocate), with KEEP_SIZE where it makes sense: a hole
 * punched keeps the size, a range collapsed, inserted or written with zeroes changes it. */
static bool falloc_mode_ok(int mode)
{
	bool keep = mode & FALLOC_FL_KEEP_SIZE;

	if (mode & ~(FALLOC_FL_MODE_MASK | FALLOC_FL_KEEP_SIZE))
		return false;
	switch (mode & FALLOC_FL_MODE_MASK) {
	case 0:
	case FALLOC_FL_UNSHARE_RANGE:
	case FALLOC_FL_ZERO_RANGE:
		return true;
	case FALLOC_FL_PUNCH_HOLE:
		return keep;
	case FALLOC_FL_COLLAPSE_RANGE:
	case FALLOC_FL_INSERT_RANGE:
	case FALLOC_FL_WRITE_ZEROES:
		return !keep;
	default:
		return false; /* two operations at once */
	}
}

/*
 * fallocate(2): today's Linux's vfs_fallocate checks, in its order (the mode's combinations,
 * the descriptor, the file's type, the size), then the file system's i_op->fallocate.
 */
long sys_fallocate(uint64_t fd, int64_t mode, int64_t offset, int64_t len)
{
	struct file *f = fget(fd);
	struct inode *ino;
	int m = (int)mode;

	if (!f)
		return -EBADF;
	ino = f->f_inode;
	if (offset < 0 || len <= 0)
		return -EINVAL;
	if (!falloc_mode_ok(m))
		return -EOPNOTSUPP;
	if (!(f->f_mode & FMODE_WRITE))
		return -EBADF;
	if (S_ISFIFO(ino->i_mode))
		return -ESPIPE;
	if (S_ISDIR(ino->i_mode))
		return -EISDIR;
	if (!S_ISREG(ino->i_mode) && !S_ISBLK(ino->i_mode))
		return -ENODEV;
	if ((uint64_t)offset + (uint64_t)len > MAX_LFS_FILESIZE) /* (a sum that wraps too) */
		return -EFBIG;
	if (!S_ISREG(ino->i_mode) || !ino->i_op || !ino->i_op->fallocate)
		return -EOPNOTSUPP;
	return ino->i_op->fallocate(f, m, (uint64_t)offset, (uint64_t)len);
}

/* truncate(2): Linux's vfs_truncate checks, in its order; the cut itself goes through an
 * open of the file, as ftruncate's. */
long sys_truncate(uint64_t upath, int64_t len)
{
	struct inode *ino;
	struct file *f;
	long err;

	if (len < 0)
		return -EINVAL;
	err = user_path_at(AT_FDCWD, upath, true, &ino);
	if (err)
		return err;
	if (S_ISDIR(ino->i_mode))
		return -EISDIR;
	if (!S_ISREG(ino->i_mode) || !ino->i_mapping)
		return -EINVAL;
	if (IS_RDONLY(ino))
		return -EROFS;
	err = inode_permission(ino, MAY_WRITE);
	if (!err)
		/* no IN_OPEN, IN_CLOSE */
		err = dentry_open(&ino->i_dentry, O_WRONLY | __FMODE_NONOTIFY, &f);
	if (err)
		return err;
	err = do_truncate(f, len);
	fput(f);
	return err;
}

/* chdir and fchdir: a directory becomes current's working directory. */
static long set_pwd(struct inode *dir)
{
	if (!S_ISDIR(dir->i_mode))
		return -ENOTDIR;
	if (inode_permission(dir, MAY_EXEC))
		return -EACCES;
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
