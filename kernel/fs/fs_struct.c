/* Working directories and umasks: each fs_struct holds a reference to its directory, so a directory
 * that is removed while a process is in it lives on (empty, nameless) until it leaves. */
#include "kernel/fs/fs_struct.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

static struct fs_struct *fs_alloc(struct inode *pwd, uint32_t umask)
{
	struct fs_struct *fs = kzalloc(sizeof(*fs));

	if (!fs)
		return NULL;
	fs->users = 1;
	fs->pwd = pwd;
	fs->umask = umask;
	pwd->i_count++;
	return fs;
}

struct fs_struct *fs_alloc_root(void)
{
	return fs_alloc(vfs_root(), 022);
}

struct fs_struct *copy_fs_struct(struct fs_struct *old)
{
	return fs_alloc(old->pwd, old->umask);
}

void put_fs_struct(struct fs_struct *fs)
{
	if (!fs || --fs->users > 0)
		return;
	set_fs_pwd(fs, NULL);
	kfree(fs);
}

void set_fs_pwd(struct fs_struct *fs, struct inode *dir)
{
	struct inode *old = fs->pwd;
	struct super_block *old_sb = old ? old->i_sb : NULL;

	fs->pwd = dir;
	if (dir) {
		dir->i_count++;
		dir->i_sb->s_expiry_mark = false; /* a use of its mount */
	}
	if (old && --old->i_count == 0)
		iput(old); /* frees it if it was removed */
	if (old_sb && unlikely(old_sb->s_detached))
		put_detached_super(old_sb); /* the last user of an unmounted file system left */
}

uint32_t apply_umask(uint32_t mode)
{
	return current->fs ? mode & ~current->fs->umask : mode;
}

long sys_umask(uint64_t mask)
{
	uint32_t old = current->fs->umask;

	current->fs->umask = (uint32_t)mask & 0777;
	return old;
}
