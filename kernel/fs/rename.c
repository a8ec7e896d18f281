/* rename, renameat, renameat2: a name moves to another place in the same file system,
 * replacing what is there (or, with RENAME_EXCHANGE, trading places with it). The checks are
 * Linux's; the move itself is the directory's file system's. */
#include "kernel/errno.h"
#include "kernel/lib/err.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/fs/namei.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

/* Is dir the inode anc, or inside it? (Within one file system: their parents lead up.) */
static bool is_subdir(struct inode *dir, struct inode *anc)
{
	for (;;) {
		if (dir == anc)
			return true;
		if (dir->i_dentry.d_parent == dir)
			return false;
		dir = dir->i_dentry.d_parent;
	}
}

/* A trailing slash on a name that is no directory (renameat2 checks it before anything but
 * the lookups). */
static bool slash_on_file(struct inode *old, struct inode *target, const struct nameidata *o,
			  const struct nameidata *n, unsigned int flags)
{
	if (flags & RENAME_EXCHANGE)
		return (!S_ISDIR(old->i_mode) && o->slash) ||
		       (!S_ISDIR(target->i_mode) && n->slash);
	return !S_ISDIR(old->i_mode) && (o->slash || n->slash);
}

/* Linux's vfs_rename checks, in its order: the old name goes from its directory, the new one
 * is made in (or replaces a name of) its directory, each as unlink and create would need
 * (-EACCES, -EPERM for the sticky bit); a directory may only replace a directory, a file only
 * a non-directory; a directory moving to another parent has its ".." rewritten, so needs
 * write permission on itself (and, exchanged, the other one too). */
static int may_rename(const struct nameidata *o, struct inode *old, const struct nameidata *n,
		      struct inode *target, unsigned int flags)
{
	int err = may_delete(o->dir, old);

	if (!err)
		err = target ? may_delete(n->dir, target)
			     : inode_permission(n->dir, MAY_WRITE | MAY_EXEC);
	if (err)
		return err;
	if (target && !(flags & RENAME_EXCHANGE)) {
		if (S_ISDIR(old->i_mode) && !S_ISDIR(target->i_mode))
			return -ENOTDIR;
		if (!S_ISDIR(old->i_mode) && S_ISDIR(target->i_mode))
			return -EISDIR;
	}
	if (o->dir == n->dir)
		return 0;
	if (S_ISDIR(old->i_mode) && (err = inode_permission(old, MAY_WRITE)))
		return err;
	if ((flags & RENAME_EXCHANGE) && S_ISDIR(target->i_mode))
		return inode_permission(target, MAY_WRITE);
	return 0;
}

int vfs_rename(struct inode *old_base, const char *oldpath, struct inode *new_base,
	       const char *newpath, unsigned int flags)
{
	struct nameidata o, n;
	struct inode *old, *target;
	bool pinned;
	int err;

	if (flags & ~(unsigned int)(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if ((flags & RENAME_NOREPLACE) && (flags & RENAME_EXCHANGE))
		return -EINVAL;
	if (flags & RENAME_WHITEOUT)
		return -EINVAL; /* ramfs, like Linux's, has no whiteouts */
	err = path_parent(old_base, oldpath, &o, false);
	if (!err)
		err = path_parent(new_base, newpath, &n, false);
	if (err)
		return err;
	if (o.last_type != LAST_NORM || n.last_type != LAST_NORM)
		return -EBUSY; /* "/", "." and ".." are no names to move */
	if (o.dir->i_sb == n.dir->i_sb && IS_RDONLY(o.dir))
		return -EROFS; /* before the names are looked up (two mounts: EXDEV below) */
	old = lookup_one(o.dir, o.last, o.last_len);
	if (IS_ERR(old))
		return (int)PTR_ERR(old);
	if (!old)
		return -ENOENT;
	if (o.dir->i_sb != n.dir->i_sb)
		return -EXDEV;
	if (n.dir->i_nlink == 0)
		return -ENOENT;
	target = lookup_one(n.dir, n.last, n.last_len);
	if (IS_ERR(target))
		return (int)PTR_ERR(target);
	if (old->i_sb != o.dir->i_sb || (target && target->i_sb != n.dir->i_sb))
		return -EBUSY; /* a mount point */
	if ((flags & RENAME_EXCHANGE) && !target)
		return -ENOENT;
	if ((flags & RENAME_NOREPLACE) && target)
		return -EEXIST;
	if (old == target)
		return 0; /* two names of one file: nothing to do */
	if (slash_on_file(old, target, &o, &n, flags))
		return -ENOTDIR;
	/* A directory cannot move into itself, nor (exchanged) take the place of an ancestor. */
	if (S_ISDIR(old->i_mode) && is_subdir(n.dir, old))
		return -EINVAL;
	if ((flags & RENAME_EXCHANGE) && S_ISDIR(target->i_mode) && is_subdir(o.dir, target))
		return -EINVAL;
	err = may_rename(&o, old, &n, target, flags);
	if (err)
		return err;
	if (target && !(flags & RENAME_EXCHANGE) && S_ISDIR(target->i_mode) &&
	    !list_empty(&target->i_children))
		return -ENOTEMPTY;
	if (!o.dir->i_op || !o.dir->i_op->rename)
		return -EPERM;
	/* a replaced target's watches hear of its end after the move's events (Linux's order) */
	pinned = target && !(flags & RENAME_EXCHANGE) && fsnotify_pin(target);
	err = o.dir->i_op->rename(o.dir, o.last, o.last_len, old, n.dir, n.last, n.last_len,
				  target, flags);
	if (!err) {
		/* (an unpinned target may be gone: it had no watch) */
		fsnotify_move(o.dir, o.last, o.last_len, n.dir, n.last, n.last_len, old,
			      pinned ? target : NULL);
		if (flags & RENAME_EXCHANGE)
			fsnotify_move(n.dir, n.last, n.last_len, o.dir, o.last, o.last_len, target,
				      NULL);
	}
	if (pinned)
		fsnotify_unpin(target);
	return err;
}

long sys_renameat2(int64_t olddirfd, uint64_t uold, int64_t newdirfd, uint64_t unew,
		   uint64_t flags)
{
	char *old = kmalloc(PATH_MAX), *new = kmalloc(PATH_MAX);
	struct inode *old_base, *new_base;
	long err = old && new ? path_from_user(uold, old) : -ENOMEM;

	if (!err)
		err = path_from_user(unew, new);
	if (!err)
		err = dirfd_base(olddirfd, old, &old_base);
	if (!err)
		err = dirfd_base(newdirfd, new, &new_base);
	if (!err)
		err = vfs_rename(old_base, old, new_base, new, (unsigned int)flags);
	kfree(old);
	kfree(new);
	return err;
}

long sys_renameat(int64_t olddirfd, uint64_t uold, int64_t newdirfd, uint64_t unew)
{
	return sys_renameat2(olddirfd, uold, newdirfd, unew, 0);
}

long sys_rename(uint64_t uold, uint64_t unew)
{
	return sys_renameat2(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}
