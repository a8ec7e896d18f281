/* File system types and the mount table. Each mount makes a new super block of its type and
 * hangs it on the directory it covers; path lookup then crosses into its root there. A kind
 * that lives on a disk (FS_REQUIRES_DEV) gets the block device named at mount, opened. At
 * unmount the super block leaves the table and its file system lets go of everything. */
#include "kernel/errno.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/filemap.h"
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

/* /proc/filesystems: each registered type, "nodev" before those that need no device. */
static void filesystems_show(struct proc_text *t)
{
	for (struct file_system_type *fs = file_systems; fs; fs = fs->next)
		proc_printf(t, "%s\t%s\n", (fs->fs_flags & FS_REQUIRES_DEV) ? "" : "nodev",
			    fs->name);
}

const struct proc_entry proc_filesystems = { "filesystems", 1024, filesystems_show, NULL };

static struct file_system_type *get_fs_type(const char *name)
{
	struct file_system_type *fs = file_systems;

	while (fs && strcmp(fs->name, name))
		fs = fs->next;
	return fs;
}

/* The block device at path dev_name, opened: 0, -ENOENT..., -ENOTBLK, -ENXIO, -EBUSY, or
 * -EACCES (a device file on a nodev mount; a device that refuses writes when flags ask for a
 * read-write mount: 2.6.23's open_bdev_excl). */
static int open_bdev(const char *dev_name, unsigned long flags, struct block_device **out)
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
	if (ino->i_sb->s_flags & MS_NODEV)
		return -EACCES; /* a device file on a nodev mount opens nothing (lookup_bdev) */
	bdev = bdget(ino->i_rdev);
	if (!bdev)
		return -ENOMEM;
	if (bdev->bd_super)
		return -EBUSY; /* faultline mounts a device once (no shared super blocks) */
	err = blkdev_get(bdev);
	if (err)
		return err;
	if (!(flags & MS_RDONLY) && bdev_read_only(bdev)) {
		blkdev_put(bdev);
		return -EACCES;
	}
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
	INIT_LIST_HEAD(&sb->s_files);
	INIT_LIST_HEAD(&sb->s_dirty);
	INIT_LIST_HEAD(&sb->s_list);
	if (dev_name && !(sb->s_devname = kmalloc(strlen(dev_name) + 1))) {
		kfree(sb);
		return -ENOMEM;
	}
	if (dev_name)
		strlcpy(sb->s_devname, dev_name, strlen(dev_name) + 1);
	if (fs->fs_flags & FS_REQUIRES_DEV) {
		err = open_bdev(dev_name, flags, &sb->s_bdev);
		if (err) {
			kfree(sb->s_devname);
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
		kfree(sb->s_devname);
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

/* The smallest mount ID no mounted file system has (Linux's IDs come from an IDA). */
static int alloc_mnt_id(void)
{
	struct super_block *sb;
	int id = 1;

again:
	list_for_each_entry(sb, &super_blocks, s_list)
		if (sb->s_mnt_id == id) {
			id++;
			goto again;
		}
	return id;
}

static void deactivate_super(struct super_block *sb);

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
	}
	/* fill_super may sleep on the disk: the directory is held meanwhile, and what was
	 * mounted on it since, or its removal, is looked at again after (Linux's lock_mount). */
	if (mountpoint) {
		mountpoint->i_count++;
		mountpoint->i_sb->s_inflight++; /* nor may its file system go */
	}
	err = alloc_super(fs, dev_name, flags & (MS_RMT_MASK | MS_SILENT), data, mountpoint, &sb);
	if (mountpoint) {
		struct super_block *parent = mountpoint->i_sb;
		/* removed meanwhile, or its file system lazily unmounted */
		bool gone = mountpoint->i_nlink == 0 || parent->s_detached;

		parent->s_inflight--;
		if (--mountpoint->i_count == 0 && mountpoint->i_nlink == 0)
			iput(mountpoint);
		if (parent->s_detached)
			put_detached_super(parent);
		if (gone && !err) {
			deactivate_super(sb);
			return -ENOENT;
		}
	}
	if (err)
		return err;
	sb->s_flags &= ~MS_SILENT;
	while (mountpoint && mountpoint->i_mounted) /* a second mount stacks on the first */
		mountpoint = mountpoint->i_mounted->s_root;
	sb->s_mountpoint = mountpoint;
	/* A directory takes only a directory. */
	if (mountpoint && !S_ISDIR(mountpoint->i_mode)) {
		deactivate_super(sb);
		return -ENOTDIR;
	}
	sb->s_mnt_id = alloc_mnt_id();
	if (mountpoint)
		mountpoint->i_mounted = sb;
	else
		root_sb = sb;
	list_add_tail(&sb->s_list, &super_blocks);
	if (sb->s_bdev && !(sb->s_flags & MS_RDONLY))
		wb_timer_start(); /* its dirty inodes are to be written back */
	return 0;
}

/* Is a regular file of sb open for writing, or an unlinked file of it open (whose removal a
 * read-only file system could not finish)? 2.6.23's fs_may_remount_ro, inverted. */
static bool sb_has_writers(struct super_block *sb)
{
	struct file *f;

	list_for_each_entry(f, &sb->s_files, f_list)
		if (f->f_inode->i_nlink == 0 ||
		    (S_ISREG(f->f_inode->i_mode) && (f->f_mode & FMODE_WRITE)))
			return true;
	return false;
}

int do_remount_sb(struct super_block *sb, unsigned long flags, void *data)
{
	int err;

	if (!(flags & MS_RDONLY) && sb->s_bdev && bdev_read_only(sb->s_bdev))
		return -EACCES;
	if ((flags & MS_RDONLY) && !(sb->s_flags & MS_RDONLY)) {
		if (sb_has_writers(sb))
			return -EBUSY;
		sync_filesystem(sb); /* what is dirty goes out while it still may (fsync_super) */
	}
	if (sb->s_op && sb->s_op->remount_fs) {
		err = sb->s_op->remount_fs(sb, &flags, data);
		if (err)
			return err;
	}
	sb->s_flags = (sb->s_flags & ~MS_RMT_MASK) | (flags & MS_RMT_MASK);
	if (sb->s_bdev && !(sb->s_flags & MS_RDONLY))
		wb_timer_start();
	return 0;
}

/* Does anything use sb: an open file (a mapping holds one too), a lookup or a mount asleep
 * in it, a working directory in it, a file system mounted on one of its directories? */
static bool sb_busy(struct super_block *sb)
{
	struct task_struct *t;
	struct super_block *sub;

	if (!list_empty(&sb->s_files) || sb->s_inflight)
		return true;
	list_for_each_entry(t, &all_tasks, tasks)
		if (t->fs && t->fs->pwd && t->fs->pwd->i_sb == sb)
			return true;
	list_for_each_entry(sub, &super_blocks, s_list)
		if (sub->s_mountpoint && sub->s_mountpoint->i_sb == sb)
			return true;
	return false;
}

void generic_shutdown_super(struct super_block *sb)
{
	sync_filesystem(sb); /* what it keeps on a disk reaches it before it goes */
	if (sb->s_op && sb->s_op->put_super)
		sb->s_op->put_super(sb);
}

/* Every file of sb is deleted, its directories bottom up (Linux's d_genocide): nothing uses
 * them any more, and their pages (and swap) go with them. */
void kill_litter_super(struct super_block *sb)
{
	struct inode *dir = sb->s_root, *parent;
	bool last;

	while (dir) {
		if (!list_empty(&dir->i_children)) {
			struct dentry *d;
			struct inode *i;

			d = list_first_entry(&dir->i_children, struct dentry, d_child);
			i = d->d_inode;

			if (S_ISDIR(i->i_mode)) {
				dir = i; /* its own children first */
				continue;
			}
			/* a name of a file (it may have several): the file with its last one */
			list_del(&d->d_child);
			if (d != &i->i_dentry && !d->d_count)
				kfree(d);
			if (--i->i_nlink <= 0) {
				i->i_nlink = 0;
				iput(i);
			}
			continue;
		}
		last = dir == sb->s_root;
		parent = dir->i_dentry.d_parent;
		list_del(&dir->i_dentry.d_child);
		dir->i_nlink = 0;
		iput(dir);
		dir = last ? NULL : parent;
	}
	sb->s_root = NULL;
	generic_shutdown_super(sb);
}

void kill_block_super(struct super_block *sb)
{
	struct block_device *bdev = sb->s_bdev;

	generic_shutdown_super(sb);
	sync_blockdev(bdev); /* the buffers it left dirty reach the disk, as 2.6.23's */
	bdev->bd_super = NULL;
	blkdev_put(bdev);
}

/* The end of sb: its file system lets go of it all, then the super block goes. */
static void deactivate_super(struct super_block *sb)
{
	fsnotify_sb_delete(sb); /* its watched inodes: IN_UNMOUNT, IN_IGNORED */
	if (sb->s_type->kill_sb)
		sb->s_type->kill_sb(sb);
	else if (sb->s_type->fs_flags & FS_REQUIRES_DEV)
		kill_block_super(sb);
	else
		kill_litter_super(sb);
	kfree(sb->s_devname);
	kfree(sb);
}

/* sb and every file system mounted below it leave the tree (Linux's umount_tree): each is
 * freed now if nothing uses it, else once the last user goes (put_detached_super). */
static void umount_tree(struct super_block *sb)
{
	struct super_block *sub;

again: /* (a file system below may go with those below it: the walk starts over) */
	list_for_each_entry(sub, &super_blocks, s_list)
		if (sub->s_mountpoint && sub->s_mountpoint->i_sb == sb) {
			umount_tree(sub);
			goto again;
		}
	list_del(&sb->s_list);
	if (sb->s_mountpoint->i_mounted == sb)
		sb->s_mountpoint->i_mounted = NULL;
	sb->s_mountpoint = NULL; /* ".." of its root is the root itself from now on */
	sb->s_detached = true;
	put_detached_super(sb);
}

void put_detached_super(struct super_block *sb)
{
	if (!sb_busy(sb))
		deactivate_super(sb);
}

int do_umount(struct super_block *sb, int flags)
{
	if (flags & MNT_EXPIRE) {
		if (sb == root_sb || (flags & (MNT_FORCE | MNT_DETACH)))
			return -EINVAL;
		if (sb_busy(sb))
			return -EBUSY;
		if (!sb->s_expiry_mark) {
			sb->s_expiry_mark = true;
			return -EAGAIN;
		}
	}
	/* MNT_FORCE calls the file system's umount_begin; none here has one: it changes
	 * nothing, as on Linux for such a file system. */
	if (sb == root_sb) {
		/* Linux "unmounts" the root by remounting it read-only; faultline cannot go on
		 * without a root, so the lazy detach Linux would do is refused. */
		if (flags & MNT_DETACH)
			return -EBUSY;
		return (sb->s_flags & MS_RDONLY) ? 0 : do_remount_sb(sb, sb->s_flags | MS_RDONLY,
								     NULL);
	}
	writeback_wait_sb(sb);
	if (!(flags & MNT_DETACH) && sb_busy(sb))
		return -EBUSY;
	umount_tree(sb);
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
