/* File system types and the mount table. Each mount makes a new super block of its type and
 * hangs it on the directory it covers; path lookup then crosses into its root there. */
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/lib/string.h"
#include "mm/slab.h"

static struct file_system_type *file_systems;
static LIST_HEAD(super_blocks);
static struct super_block *root_sb;
static unsigned int next_anon_dev = 1; /* st_dev 0:N for file systems with no disk */

int register_filesystem(struct file_system_type *fs)
{
	struct file_system_type **p = &file_systems;

	for (; *p; p = &(*p)->next)
		if (!strcmp((*p)->name, fs->name))
			return -EBUSY;
	fs->next = NULL;
	*p = fs;
	return 0;
}

static struct file_system_type *get_fs_type(const char *name)
{
	struct file_system_type *fs = file_systems;

	while (fs && strcmp(fs->name, name))
		fs = fs->next;
	return fs;
}

/* A new super block of fs, or NULL. */
static struct super_block *alloc_super(struct file_system_type *fs, struct inode *mountpoint)
{
	struct super_block *sb = kzalloc(sizeof(*sb));

	if (!sb)
		return NULL;
	sb->s_type = fs;
	sb->s_dev = MKDEV(0, next_anon_dev);
	sb->s_mountpoint = mountpoint;
	if (fs->fill_super(sb)) {
		kfree(sb);
		return NULL;
	}
	next_anon_dev++;
	return sb;
}

struct super_block *kern_mount(struct file_system_type *fs)
{
	return alloc_super(fs, NULL);
}

int do_mount(const char *type, const char *path)
{
	struct file_system_type *fs = get_fs_type(type);
	struct inode *mountpoint = NULL;
	struct super_block *sb;
	int err;

	if (!fs)
		return -ENODEV;
	if (root_sb) {
		err = path_lookup(path, &mountpoint);
		if (err)
			return err;
		if (!S_ISDIR(mountpoint->i_mode))
			return -ENOTDIR; /* (a second mount on a directory stacks on the first) */
	}
	sb = alloc_super(fs, mountpoint);
	if (!sb)
		return -ENOMEM;
	if (mountpoint)
		mountpoint->i_mounted = sb;
	else
		root_sb = sb;
	list_add_tail(&sb->s_list, &super_blocks);
	return 0;
}

struct inode *vfs_root(void)
{
	return root_sb->s_root;
}

struct list_head *mount_table(void)
{
	return &super_blocks;
}
