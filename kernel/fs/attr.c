/* Changing and checking what an inode says about itself: chmod, chown, utimensat (through
 * notify_change, which asks the file system first and stamps ctime), and access. Who may:
 * the owner (chmod, explicit times), CAP_CHOWN (a new owner), the owner giving one of its
 * groups, anyone with write permission (times set to now); access asks with the real ids. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/writeback.h"
#include "kernel/syscalls.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"

#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS 0x200
#define UTIME_NOW ((1L << 30) - 1)
#define UTIME_OMIT ((1L << 30) - 2)
#define S_ISUID 04000
#define S_ISGID 02000
#define S_IXGRP 00010

int notify_change(struct inode *ino, const struct iattr *attr)
{
	int err = ino->i_op && ino->i_op->setattr ? ino->i_op->setattr(ino, attr) : 0;

	if (err)
		return err;
	if (attr->ia_valid & ATTR_MODE)
		ino->i_mode = (ino->i_mode & S_IFMT) | (attr->ia_mode & 07777);
	if (attr->ia_valid & ATTR_UID)
		ino->i_uid = attr->ia_uid;
	if (attr->ia_valid & ATTR_GID)
		ino->i_gid = attr->ia_gid;
	if (attr->ia_valid & ATTR_ATIME)
		ino->i_atime = attr->ia_atime;
	if (attr->ia_valid & ATTR_MTIME)
		ino->i_mtime = attr->ia_mtime;
	ino->i_ctime = current_time();
	mark_inode_dirty(ino);
	fsnotify_change(ino, attr->ia_valid);
	return 0;
}

void file_remove_privs(struct file *f)
{
	struct inode *ino = f->f_inode;
	uint32_t mode = ino->i_mode & 07777, new = mode & ~(uint32_t)S_ISUID;
	struct iattr a = { .ia_valid = ATTR_MODE };

	if (!S_ISREG(ino->i_mode) || !(mode & (S_ISUID | S_ISGID)) || capable(CAP_FSETID))
		return;
	if ((mode & S_ISGID) && ((mode & S_IXGRP) || !in_group_p(ino->i_gid)))
		new &= ~(uint32_t)S_ISGID;
	if (new == mode)
		return;
	a.ia_mode = new;
	notify_change(ino, &a);
}

/* The inode a *at call names: dirfd and path, or with AT_EMPTY_PATH and "" dirfd's file. */
static long inode_at(int64_t dirfd, uint64_t upath, uint64_t flags, struct inode **out)
{
	char c;

	if ((flags & AT_EMPTY_PATH) && !copy_from_user(&c, upath, 1) && c == '\0') {
		struct file *f = dirfd >= 0 ? fget((uint64_t)dirfd) : NULL;

		if (!f)
			return -EBADF;
		*out = f->f_inode;
		return 0;
	}
	return user_path_at(dirfd, upath, !(flags & AT_SYMLINK_NOFOLLOW), out);
}

/* Only the owner (or CAP_FOWNER) may; a set-group-ID bit for a group the caller is not in
 * is quietly dropped (unless CAP_FSETID). */
static long chmod_inode(struct inode *ino, uint64_t mode)
{
	struct iattr a = { .ia_valid = ATTR_MODE, .ia_mode = (uint32_t)mode & 07777 };

	if (IS_RDONLY(ino))
		return -EROFS; /* of any file, before who may is asked */
	if (!inode_owner_or_capable(ino))
		return -EPERM;
	if (!in_group_p(ino->i_gid) && !capable(CAP_FSETID))
		a.ia_mode &= ~(uint32_t)S_ISGID;
	return notify_change(ino, &a);
}

long sys_fchmodat(int64_t dirfd, uint64_t upath, uint64_t mode)
{
	struct inode *ino;
	long err = user_path_at(dirfd, upath, true, &ino);

	return err ? err : chmod_inode(ino, mode);
}

long sys_chmod(uint64_t upath, uint64_t mode)
{
	return sys_fchmodat(AT_FDCWD, upath, mode);
}

long sys_fchmod(uint64_t fd, uint64_t mode)
{
	struct file *f = fget(fd);

	return f ? chmod_inode(f->f_inode, mode) : -EBADF;
}

/* A uid or gid of -1 leaves that one as it is. Only CAP_CHOWN gives a file away; its owner
 * may "change" the owner to itself and the group to one of its own (else -EPERM). Any chown
 * of a non-directory, even to -1 and -1 and by root, drops its set-user-ID bit and its
 * set-group-ID bit when group execution is on (without group execution only for a caller
 * outside the file's group and lacking CAP_FSETID): Linux's rule. */
static long chown_inode(struct inode *ino, uint64_t uid, uint64_t gid)
{
	bool owner = current->cred.fsuid == ino->i_uid;
	struct iattr a = { 0 };
	uint32_t mode = ino->i_mode;

	if (IS_RDONLY(ino))
		return -EROFS;
	if ((uint32_t)uid != (uint32_t)-1) {
		if (!(owner && (uint32_t)uid == ino->i_uid) && !capable(CAP_CHOWN))
			return -EPERM;
		a.ia_valid |= ATTR_UID;
		a.ia_uid = (uint32_t)uid;
	}
	if ((uint32_t)gid != (uint32_t)-1) {
		if (!(owner && (in_group_p((gid_t)gid) || (uint32_t)gid == ino->i_gid)) &&
		    !capable(CAP_CHOWN))
			return -EPERM;
		a.ia_valid |= ATTR_GID;
		a.ia_gid = (uint32_t)gid;
	}
	if (!S_ISDIR(mode) && (mode & (S_ISUID | S_ISGID))) {
		a.ia_valid |= ATTR_MODE;
		a.ia_mode = mode & 07777 & ~(uint32_t)S_ISUID;
		if ((mode & S_IXGRP) || (!in_group_p(ino->i_gid) && !capable(CAP_FSETID)))
			a.ia_mode &= ~(uint32_t)S_ISGID;
	}
	return notify_change(ino, &a);
}

long sys_fchownat(int64_t dirfd, uint64_t upath, uint64_t uid, uint64_t gid, uint64_t flags)
{
	struct inode *ino;
	long err;

	if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	err = inode_at(dirfd, upath, flags, &ino);
	return err ? err : chown_inode(ino, uid, gid);
}

long sys_chown(uint64_t upath, uint64_t uid, uint64_t gid)
{
	return sys_fchownat(AT_FDCWD, upath, uid, gid, 0);
}

long sys_lchown(uint64_t upath, uint64_t uid, uint64_t gid)
{
	return sys_fchownat(AT_FDCWD, upath, uid, gid, AT_SYMLINK_NOFOLLOW);
}

long sys_fchown(uint64_t fd, uint64_t uid, uint64_t gid)
{
	struct file *f = fget(fd);

	return f ? chown_inode(f->f_inode, uid, gid) : -EBADF;
}

/* One of utimensat's two times: now, left alone (false), or the caller's (-EINVAL if its
 * nanoseconds are out of range). */
static long utime_value(const int64_t t[2], struct timespec64 *out, bool *set)
{
	*set = t[1] != UTIME_OMIT;
	if (t[1] == UTIME_NOW)
		*out = current_time();
	else if (t[1] >= 0 && t[1] < 1000000000)
		*out = (struct timespec64){ t[0], (long)t[1] };
	else if (t[1] != UTIME_OMIT)
		return -EINVAL;
	return 0;
}

/* utimensat(dirfd, path, times, flags): a NULL path is dirfd's own file (futimens); NULL
 * times are both now. */
long sys_utimensat(int64_t dirfd, uint64_t upath, uint64_t utimes, uint64_t flags)
{
	int64_t t[2][2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	struct iattr a = { 0 };
	struct inode *ino;
	bool set_a, set_m;
	long err;

	if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (utimes && copy_from_user(t, utimes, sizeof(t)))
		return -EFAULT;
	err = utime_value(t[0], &a.ia_atime, &set_a);
	if (!err)
		err = utime_value(t[1], &a.ia_mtime, &set_m);
	if (err)
		return err;
	if (!upath) {
		struct file *f = dirfd >= 0 ? fget((uint64_t)dirfd) : NULL;

		if (!f)
			return -EBADF;
		ino = f->f_inode;
	} else if ((err = inode_at(dirfd, upath, flags, &ino))) {
		return err;
	}
	if (!set_a && !set_m)
		return 0; /* both UTIME_OMIT: nothing changes, not even ctime */
	if (IS_RDONLY(ino))
		return -EROFS;
	/* Both now (or NULL times): the owner or anyone who may write; other times: the owner
	 * (CAP_FOWNER standing in for either). */
	if (!inode_owner_or_capable(ino)) {
		if (t[0][1] != UTIME_NOW || t[1][1] != UTIME_NOW)
			return -EPERM;
		if (inode_permission(ino, MAY_WRITE))
			return -EACCES;
	}
	a.ia_valid = (set_a ? ATTR_ATIME : 0) | (set_m ? ATTR_MTIME : 0);
	return notify_change(ino, &a);
}

/* access and faccessat: the lookup and the check made as the real uid and gid would make
 * them (with AT_EACCESS, as the effective ones: the file-system ids, as open). The real ids
 * stand in for the file-system ones during the call, as Linux 2.6.23 did, with root's
 * capabilities only for a real uid of 0. */
long sys_faccessat2(int64_t dirfd, uint64_t upath, uint64_t mode, uint64_t flags)
{
	struct task_cred *c = &current->cred, saved = *c;
	struct inode *ino;
	long err;

	if (mode & ~7ULL)
		return -EINVAL;
	if (flags & ~(uint64_t)(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (!(flags & AT_EACCESS)) {
		c->fsuid = c->uid;
		c->fsgid = c->gid;
		c->cap_effective = c->uid == 0 ? c->cap_permitted : 0;
	}
	err = inode_at(dirfd, upath, flags, &ino);
	if (!err && mode)
		err = inode_permission(ino, (int)mode);
	c->fsuid = saved.fsuid;
	c->fsgid = saved.fsgid;
	c->cap_effective = saved.cap_effective;
	return err;
}

long sys_faccessat(int64_t dirfd, uint64_t upath, uint64_t mode)
{
	return sys_faccessat2(dirfd, upath, mode, 0);
}

long sys_access(uint64_t upath, uint64_t mode)
{
	return sys_faccessat2(AT_FDCWD, upath, mode, 0);
}
