/* File system notification (Linux's include/linux/fsnotify.h): the hooks the VFS calls where a
 * file is opened, read, written, closed, changed, named or unnamed, and the watches (marks) on
 * inodes they report to. A hook costs one look at the inode's i_fsnotify_mask when no one
 * watches; the rest is kernel/fs/fsnotify.c's, and inotify (kernel/fs/inotify_user.c) is the
 * one kind of watcher. */
#ifndef KERNEL_FS_FSNOTIFY_H
#define KERNEL_FS_FSNOTIFY_H

#include "kernel/compiler.h"
#include "kernel/fs/fs.h"

/* The events, Linux's FS_* values, which are inotify's IN_* ones. */
#define FS_ACCESS 0x00000001
#define FS_MODIFY 0x00000002
#define FS_ATTRIB 0x00000004
#define FS_CLOSE_WRITE 0x00000008
#define FS_CLOSE_NOWRITE 0x00000010
#define FS_OPEN 0x00000020
#define FS_MOVED_FROM 0x00000040
#define FS_MOVED_TO 0x00000080
#define FS_CREATE 0x00000100
#define FS_DELETE 0x00000200
#define FS_DELETE_SELF 0x00000400
#define FS_MOVE_SELF 0x00000800
#define FS_UNMOUNT 0x00002000
#define FS_Q_OVERFLOW 0x00004000
#define FS_IN_IGNORED 0x00008000
#define FS_EVENT_ON_CHILD 0x08000000 /* a directory's mark: its children's events too */
#define FS_ISDIR 0x40000000
#define ALL_FSNOTIFY_EVENTS 0x00002fff /* what a mark may ask for */

/* A mark's flags */
#define FSNOTIFY_MARK_FLAG_EXCL_UNLINK 0x1 /* no events from a file once it is unlinked */
#define FSNOTIFY_MARK_FLAG_IN_ONESHOT 0x2  /* gone after its first event */

struct fsnotify_group;

/* What a kind of watcher does with an event (Linux's struct fsnotify_ops). */
struct fsnotify_ops {
	/* An event mask on the inode of mark (name: the child it happened to, len bytes, in a
	 * directory's event; cookie: the one of a rename's two events). */
	void (*handle_inode_event)(struct fsnotify_mark *mark, uint32_t mask, const char *name,
				   size_t len, uint32_t cookie);
	/* mark is being destroyed (inotify_rm_watch, its inode gone, its group closed). */
	void (*freeing_mark)(struct fsnotify_mark *mark);
};

/* A group's watch on one inode (Linux's struct fsnotify_mark; inotify's wd is in it). */
struct fsnotify_mark {
	struct fsnotify_group *group;
	const struct fsnotify_ops *ops;
	struct inode *inode;
	uint32_t mask;  /* FS_* wanted, FS_UNMOUNT and for a directory FS_EVENT_ON_CHILD */
	unsigned int flags;
	int wd;
	struct fsnotify_mark *i_next; /* the inode's next mark */
	struct list_head g_list;      /* in its group's marks */
	struct list_head all;         /* in every mark's list (a file system's unmount) */
};

/* kernel/fs/fsnotify.c */
/* mark (group, ops, mask, flags and wd set) goes onto inode. */
void fsnotify_add_mark(struct fsnotify_mark *mark, struct inode *inode);
/* group's mark on inode, or NULL. */
struct fsnotify_mark *fsnotify_find_mark(struct inode *inode, struct fsnotify_group *group);
/* The mark's mask changed: the inode's union of them follows. */
void fsnotify_recalc_mask(struct inode *inode);
/* Off its inode, then its ops->freeing_mark (which frees it). */
void fsnotify_destroy_mark(struct fsnotify_mark *mark);
/* The slow halves of the hooks below, once some mark is on the inode or its directory. */
void __fsnotify_path(struct file *f, uint32_t mask);
void __fsnotify_inode(struct inode *inode, uint32_t mask, bool parent);
void fsnotify_name(struct inode *dir, uint32_t mask, const char *name, size_t len,
		   uint32_t cookie);
void __fsnotify_move(struct inode *old_dir, const char *old_name, size_t old_len,
		     struct inode *new_dir, const char *new_name, size_t new_len,
		     struct inode *source, struct inode *target);
/* The inode goes (its last name and user): FS_DELETE_SELF, then its marks go. */
void __fsnotify_inoderemove(struct inode *inode);
/* sb is being unmounted: FS_UNMOUNT to each watched inode of it, then its marks go. */
void fsnotify_sb_delete(struct super_block *sb);

/* Does anyone watch inode, or (its children's events) the directory that holds it under the
 * name d? */
static inline bool fsnotify_watched(const struct inode *inode, const struct dentry *d)
{
	return unlikely(inode->i_fsnotify_mask | d->d_parent->i_fsnotify_mask);
}

/* f was read (read, readv, sendfile's source, getdents) */
static inline void fsnotify_access(struct file *f)
{
	if (fsnotify_watched(f->f_inode, f->f_dentry))
		__fsnotify_path(f, FS_ACCESS);
}

/* f was written */
static inline void fsnotify_modify(struct file *f)
{
	if (fsnotify_watched(f->f_inode, f->f_dentry))
		__fsnotify_path(f, FS_MODIFY);
}

static inline void fsnotify_open(struct file *f)
{
	if (fsnotify_watched(f->f_inode, f->f_dentry))
		__fsnotify_path(f, FS_OPEN);
}

/* f's last reference went */
static inline void fsnotify_close(struct file *f)
{
	if (fsnotify_watched(f->f_inode, f->f_dentry))
		__fsnotify_path(f, (f->f_mode & FMODE_WRITE) ? FS_CLOSE_WRITE : FS_CLOSE_NOWRITE);
}

/* notify_change applied ia_valid's ATTR_* to inode (Linux's fsnotify_change) */
static inline void fsnotify_change(struct inode *inode, unsigned int ia_valid)
{
	uint32_t mask = 0;

	if (!fsnotify_watched(inode, &inode->i_dentry))
		return;
	if (ia_valid & (ATTR_UID | ATTR_GID | ATTR_MODE))
		mask |= FS_ATTRIB;
	if (ia_valid & ATTR_SIZE)
		mask |= FS_MODIFY;
	/* both times: a utimes call; one alone reads as the access or change it stands for */
	if ((ia_valid & (ATTR_ATIME | ATTR_MTIME)) == (ATTR_ATIME | ATTR_MTIME))
		mask |= FS_ATTRIB;
	else if (ia_valid & ATTR_ATIME)
		mask |= FS_ACCESS;
	else if (ia_valid & ATTR_MTIME)
		mask |= FS_MODIFY;
	if (mask)
		__fsnotify_inode(inode, mask, true);
}

/* inode's link count changed (a link made, a name removed or replaced): its own marks only */
static inline void fsnotify_link_count(struct inode *inode)
{
	if (unlikely(inode->i_fsnotify_mask))
		__fsnotify_inode(inode, FS_ATTRIB, false);
}

/* name (len bytes) was made in dir: a file, or with isdir a directory */
static inline void fsnotify_create(struct inode *dir, const char *name, size_t len, bool isdir)
{
	if (unlikely(dir->i_fsnotify_mask))
		fsnotify_name(dir, FS_CREATE | (isdir ? FS_ISDIR : 0), name, len, 0);
}

/* a second name for inode: its link count, then the directory's new entry */
static inline void fsnotify_link(struct inode *dir, struct inode *inode, const char *name,
				 size_t len)
{
	fsnotify_link_count(inode);
	fsnotify_create(dir, name, len, false);
}

/* name (len bytes) left dir: a file, or with isdir a directory */
static inline void fsnotify_delete(struct inode *dir, const char *name, size_t len, bool isdir)
{
	if (unlikely(dir->i_fsnotify_mask))
		fsnotify_name(dir, FS_DELETE | (isdir ? FS_ISDIR : 0), name, len, 0);
}

/* source moved from old_name in old_dir to new_name in new_dir, replacing target (or NULL) */
static inline void fsnotify_move(struct inode *old_dir, const char *old_name, size_t old_len,
				 struct inode *new_dir, const char *new_name, size_t new_len,
				 struct inode *source, struct inode *target)
{
	if (unlikely(old_dir->i_fsnotify_mask | new_dir->i_fsnotify_mask |
		     source->i_fsnotify_mask | (target ? target->i_fsnotify_mask : 0)))
		__fsnotify_move(old_dir, old_name, old_len, new_dir, new_name, new_len, source,
				target);
}

/* A watched inode about to lose a name is held over the call, so that it is still there to
 * hear its events; fsnotify_unpin lets it go (freed then if it has no name and no user). */
static inline bool fsnotify_pin(struct inode *inode)
{
	if (likely(!inode->i_fsnotify_mask))
		return false;
	inode->i_count++;
	return true;
}

static inline void fsnotify_unpin(struct inode *inode)
{
	if (--inode->i_count == 0)
		iput(inode);
}

/* inode is being freed (no name, no user left) */
static inline void fsnotify_inoderemove(struct inode *inode)
{
	if (unlikely(inode->i_fsnotify_marks))
		__fsnotify_inoderemove(inode);
}

#endif
