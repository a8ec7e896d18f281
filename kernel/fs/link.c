/* link, linkat: a second name for a file, in the same file system (Linux's do_linkat and
 * vfs_link). The new name is the directory's file system's to keep (ramfs and tmpfs: a
 * dentry of its own; ext2: a hard link on the disk). */
#include "kernel/errno.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/fs/namei.h"
#include "kernel/process/cred.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

#define AT_SYMLINK_FOLLOW 0x400

/* Linux's checks in its order: the old name found (a symbolic link itself unless follow),
 * the new one free in a live directory (EEXIST, ENOENT), another file system (EXDEV) before
 * the directory's permission (EACCES), then the file system: none that keeps links, or a
 * directory, is EPERM; a file unlinked meanwhile ENOENT. */
static int do_link(struct inode *old, struct inode *new_base, const char *newpath)
{
	struct nameidata nd;
	int err;

	err = may_create(new_base, newpath, old->i_mode, &nd);
	/* EACCES of the directory itself (may_create's last check, its walk went through) */
	if (err == -EACCES && !path_parent(new_base, newpath, &nd, false) &&
	    nd.dir->i_sb != old->i_sb)
		return -EXDEV;
	if (err)
		return err;
	if (nd.dir->i_sb != old->i_sb)
		return -EXDEV;
	if (!nd.dir->i_op || !nd.dir->i_op->link || S_ISDIR(old->i_mode))
		return -EPERM;
	if (old->i_nlink == 0)
		return -ENOENT;
	err = nd.dir->i_op->link(old, nd.dir, nd.last, nd.last_len);
	if (!err)
		fsnotify_link(nd.dir, old, nd.last, nd.last_len);
	return err;
}

int vfs_link(struct inode *old_base, const char *oldpath, struct inode *new_base,
	     const char *newpath, bool follow)
{
	struct inode *old;
	int err = path_lookup_at(old_base, oldpath, follow, &old);

	return err ? err : do_link(old, new_base, newpath);
}

/* AT_EMPTY_PATH with an empty old path: the file open on olddirfd (the working directory for
 * AT_FDCWD, a directory: EPERM), for a caller with CAP_DAC_READ_SEARCH; others get ENOENT
 * (Linux lets also the opener of the file through: faultline's files keep no opener). */
static long link_empty_path(int64_t olddirfd, struct inode **old)
{
	struct file *f;

	if (!capable(CAP_DAC_READ_SEARCH))
		return -ENOENT;
	olddirfd = (int)olddirfd;
	if (olddirfd == AT_FDCWD) {
		*old = current_pwd() ? current_pwd() : vfs_root();
		return 0;
	}
	f = olddirfd >= 0 ? fget((uint64_t)olddirfd) : NULL;
	if (!f)
		return -EBADF;
	*old = f->f_inode;
	return 0;
}

long sys_linkat(int64_t olddirfd, uint64_t uold, int64_t newdirfd, uint64_t unew,
		uint64_t flags)
{
	char *old = kmalloc(PATH_MAX), *new = kmalloc(PATH_MAX);
	struct inode *old_base, *new_base, *ino = NULL;
	long err = old && new ? 0 : -ENOMEM;

	if (!err && (flags & ~(uint64_t)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)))
		err = -EINVAL;
	if (!err)
		err = path_from_user(uold, old);
	if (err == -ENOENT && (flags & AT_EMPTY_PATH)) /* (only "" is ENOENT here) */
		err = link_empty_path(olddirfd, &ino);
	else if (!err)
		err = dirfd_base(olddirfd, old, &old_base);
	if (!err)
		err = path_from_user(unew, new);
	if (!err)
		err = dirfd_base(newdirfd, new, &new_base);
	if (!err && ino)
		err = do_link(ino, new_base, new);
	else if (!err)
		err = vfs_link(old_base, old, new_base, new, flags & AT_SYMLINK_FOLLOW);
	kfree(old);
	kfree(new);
	return err;
}

long sys_link(uint64_t uold, uint64_t unew)
{
	return sys_linkat(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}
