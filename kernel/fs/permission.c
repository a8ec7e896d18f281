/* File permissions: who may read, write or search an inode (the owner's, the group's or the
 * others' bits, then the capabilities that override them), who may remove a name from a
 * directory (the sticky bit), and whose a new inode is. Linux's generic_permission rules. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"

#define S_ISGID 02000
#define S_ISVTX 01000
#define S_IXGRP 00010
#define S_IXUGO 00111

/* The bits that apply: the owner's if current's fsuid owns it, else the group's if its group
 * is one of current's, else the others'. No fallback to another class: an owner without a
 * bit the others have is refused. */
static int acl_permission_check(const struct inode *inode, int mask)
{
	uint32_t mode = inode->i_mode;

	if (current->cred.fsuid == inode->i_uid)
		mode >>= 6;
	else if (in_group_p(inode->i_gid))
		mode >>= 3;
	return (mask & ~mode & 7) ? -EACCES : 0;
}

int generic_permission(struct inode *inode, int mask)
{
	if (!acl_permission_check(inode, mask))
		return 0;
	if (S_ISDIR(inode->i_mode)) {
		/* Directories: reading and searching with DAC_READ_SEARCH, anything with
		 * DAC_OVERRIDE. */
		if (!(mask & MAY_WRITE) && capable(CAP_DAC_READ_SEARCH))
			return 0;
		return capable(CAP_DAC_OVERRIDE) ? 0 : -EACCES;
	}
	if (mask == MAY_READ && capable(CAP_DAC_READ_SEARCH))
		return 0;
	/* Executing needs at least one x bit, even for root. */
	if (!(mask & MAY_EXEC) || (inode->i_mode & S_IXUGO))
		if (capable(CAP_DAC_OVERRIDE))
			return 0;
	return -EACCES;
}

int inode_permission(struct inode *inode, int mask)
{
	/* Nobody writes to a read-only file system, not even root: not its files, directories
	 * or links (a device file or a FIFO on it writes elsewhere). 2.6.23's permission(). */
	if ((mask & MAY_WRITE) && IS_RDONLY(inode) &&
	    (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) || S_ISLNK(inode->i_mode)))
		return -EROFS;
	return generic_permission(inode, mask);
}

bool inode_owner_or_capable(const struct inode *inode)
{
	return current->cred.fsuid == inode->i_uid || capable(CAP_FOWNER);
}

int may_delete(struct inode *dir, struct inode *victim)
{
	int err = inode_permission(dir, MAY_WRITE | MAY_EXEC);
	uid_t fsuid = current->cred.fsuid;

	if (err)
		return err;
	if ((dir->i_mode & S_ISVTX) && victim->i_uid != fsuid && dir->i_uid != fsuid &&
	    !capable(CAP_FOWNER))
		return -EPERM;
	return 0;
}

void inode_init_owner(struct inode *inode, const struct inode *dir, uint32_t mode)
{
	inode->i_uid = current->cred.fsuid;
	inode->i_gid = current->cred.fsgid;
	if (dir && (dir->i_mode & S_ISGID)) {
		inode->i_gid = dir->i_gid;
		if (S_ISDIR(mode))
			mode |= S_ISGID;
		else if ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
			 !in_group_p(inode->i_gid) && !capable(CAP_FSETID))
			mode &= ~(uint32_t)S_ISGID;
	}
	inode->i_mode = mode;
}
