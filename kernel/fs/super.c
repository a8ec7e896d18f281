/* File system types and the mount table. Each mount makes a new super block of its type and
 * hangs it on the directory it covers; path lookup then crosses into its root there. A kind
 * that lives on a disk (FS_REQUIRES_DEV) gets the block device named at mount, opened. */
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
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

/* The block device at path dev_name, opened: 0, -ENOENT..., -ENOTBLK, -ENXIO, -EBUSY. */
static int open_bdev(const char *dev_name, struct block_device **out)
{
	struct block_device *bdev;
	struct inode *ino;
	int err;

	if (!dev_name || !*dev_name)
		return -ENOENT;
	err = path_lookup_at(current_pwd(), dev_name, true, &ino);
	if (err)
		return err;
	if (!S_ISBLK(ino->i_mode))
		return -ENOTBLK;
	bdev = bdget(ino->i_rdev);
	if (!bdev)
		return -ENOMEM;
	if (bdev->bd_super)
		return -EBUSY; /* faultline mounts a device once (no shared super blocks) */
	err = blkdev_get(bdev);
	if (err)
		return err;
	*out = bdev;
	return 0;
}

/* A new super block of fs mounted with flags from dev_name (FS_REQUIRES_DEV), or -errno. */
static int alloc_super(struct file_system_type *fs, const char *dev_name, unsigned long flags,
		       void *data, struct inode *mountpoint, struct super_block **out)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	int err = 0;

	if (!sb)
		return -ENOMEM;
	sb->s_type = fs;
	sb->s_flags = flags;
	sb->s_mountpoint = mountpoint;
	if (fs->fs_flags & FS_REQUIRES_DEV) {
		err = open_bdev(dev_name, &sb->s_bdev);
		if (err) {
			kfree(sb);
			return err;
		}
		sb->s_dev = sb->s_bdev->bd_dev;
		bdevname(sb->s_bdev, sb->s_id, sizeof(sb->s_id));
	} else {
		sb->s_dev = MKDEV(0, next_anon_dev);
		snprintf(sb->s_id, sizeof(sb->s_id), "%s", fs->name);
	}
	err = fs->fill_super(sb, data, !!(flags & MS_SILENT));
	if (err) {
		if (sb->s_bdev)
			blkdev_put(sb->s_bdev);
		kfree(sb);
		return err;
	}
	if (sb->s_bdev)
		sb->s_bdev->bd_super = sb;
	else
		next_anon_dev++;
	*out = sb;
	return 0;
}

struct super_block *kern_mount(struct file_system_type *fs)
{
	struct super_block *sb;

	return alloc_super(fs, NULL, 0, NULL, NULL, &sb) ? NULL : sb;
}

int do_mount(const char *dev_name, const char *dir_name, const char *type, unsigned long flags,
	     void *data)
{
	struct file_system_type *fs = get_fs_type(type);
	struct inode *mountpoint = NULL;
	struct super_block *sb;
	int err;

	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~MS_MGC_MSK;
	if (!fs)
		return -ENODEV;
	if (root_sb) {
		err = path_lookup_at(current_pwd(), dir_name, true, &mountpoint);
		if (err)
			return err;
		if (!S_ISDIR(mountpoint->i_mode))
			return -ENOTDIR; /* (a second mount on a directory stacks on the first) */
	}
	err = alloc_super(fs, dev_name, flags & (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC |
					      MS_SYNCHRONOUS | MS_NOATIME | MS_SILENT),
			  data, mountpoint, &sb);
	if (err)
		return err;
	sb->s_flags &= ~MS_SILENT;
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
