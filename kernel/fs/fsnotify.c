/* File system notification's core (Linux's fs/notify/fsnotify.c and mark.c): the marks a
 * watcher puts on inodes, and the hand-over of each event to the marks that want it: a
 * directory's marks first (their children's events, with the child's name), then the inode's
 * own (without it), as Linux orders them. */
#include "kernel/fs/fsnotify.h"
#include "kernel/lib/string.h"

static LIST_HEAD(all_marks); /* every mark on every inode (the big kernel lock's) */

void fsnotify_recalc_mask(struct inode *inode)
{
	uint32_t mask = 0;

	for (struct fsnotify_mark *m = inode->i_fsnotify_marks; m; m = m->i_next)
		mask |= m->mask;
	/* never 0 while a mark is on it: the hooks' test is the mask alone */
	inode->i_fsnotify_mask = inode->i_fsnotify_marks ? mask | FS_UNMOUNT : 0;
}

void fsnotify_add_mark(struct fsnotify_mark *mark, struct inode *inode)
{
	mark->inode = inode;
	mark->i_next = inode->i_fsnotify_marks;
	inode->i_fsnotify_marks = mark;
	list_add_tail(&mark->all, &all_marks);
	fsnotify_recalc_mask(inode);
}

struct fsnotify_mark *fsnotify_find_mark(struct inode *inode, struct fsnotify_group *group)
{
	for (struct fsnotify_mark *m = inode->i_fsnotify_marks; m; m = m->i_next)
		if (m->group == group)
			return m;
	return NULL;
}

void fsnotify_destroy_mark(struct fsnotify_mark *mark)
{
	struct inode *inode = mark->inode;
	struct fsnotify_mark **pp = &inode->i_fsnotify_marks;

	while (*pp != mark)
		pp = &(*pp)->i_next;
	*pp = mark->i_next;
	list_del(&mark->all);
	fsnotify_recalc_mask(inode);
	mark->ops->freeing_mark(mark); /* IN_IGNORED, and the mark is freed */
}

/* One mark's share of an event: if it wants it (an unlinked file's events not, for a mark
 * with IN_EXCL_UNLINK, when unlinked says the event comes through an open file). */
static void send_to_mark(struct fsnotify_mark *m, uint32_t mask, const char *name, size_t len,
			 uint32_t cookie, bool unlinked)
{
	if (!(mask & m->mask & ALL_FSNOTIFY_EVENTS))
		return;
	if (unlinked && (m->flags & FSNOTIFY_MARK_FLAG_EXCL_UNLINK))
		return;
	m->ops->handle_inode_event(m, mask, name, len, cookie);
}

/* Every mark of inode (one of them may go as it takes the event: IN_ONESHOT). */
static void send_to_marks(struct inode *inode, uint32_t mask, const char *name, size_t len,
			  uint32_t cookie, bool unlinked)
{
	struct fsnotify_mark *m, *next;

	for (m = inode->i_fsnotify_marks; m; m = next) {
		next = m->i_next;
		send_to_mark(m, mask, name, len, cookie, unlinked);
	}
}

/* An event on inode: the marks that watch children of the directory holding it under the name
 * d (with that name), then its own. path: the event comes through an open file
 * (IN_EXCL_UNLINK applies). */
static void send_parent_and_self(struct inode *inode, const struct dentry *d, uint32_t mask,
				 bool parent, bool path)
{
	struct inode *dir = d->d_parent;
	bool unlinked = path && inode->i_nlink == 0;

	if (S_ISDIR(inode->i_mode))
		mask |= FS_ISDIR;
	if (parent && dir != inode && inode->i_nlink && (dir->i_fsnotify_mask & FS_EVENT_ON_CHILD))
		send_to_marks(dir, mask, d->d_name, strlen(d->d_name), 0, unlinked);
	send_to_marks(inode, mask, NULL, 0, 0, unlinked);
}

void __fsnotify_path(struct file *f, uint32_t mask)
{
	if (!(f->f_mode & FMODE_NONOTIFY))
		send_parent_and_self(f->f_inode, f->f_dentry, mask, true, true);
}

void __fsnotify_inode(struct inode *inode, uint32_t mask, bool parent)
{
	send_parent_and_self(inode, &inode->i_dentry, mask, parent, false);
}

void fsnotify_name(struct inode *dir, uint32_t mask, const char *name, size_t len,
		   uint32_t cookie)
{
	send_to_marks(dir, mask, name, len, cookie, false);
}

/* Linux's fsnotify_get_cookie: one number per rename, shared by its two halves. */
static uint32_t fsnotify_sync_cookie;

void __fsnotify_move(struct inode *old_dir, const char *old_name, size_t old_len,
		     struct inode *new_dir, const char *new_name, size_t new_len,
		     struct inode *source, struct inode *target)
{
	uint32_t cookie = ++fsnotify_sync_cookie;
	uint32_t isdir = S_ISDIR(source->i_mode) ? FS_ISDIR : 0;

	send_to_marks(old_dir, FS_MOVED_FROM | isdir, old_name, old_len, cookie, false);
	send_to_marks(new_dir, FS_MOVED_TO | isdir, new_name, new_len, cookie, false);
	if (target)
		fsnotify_link_count(target);
	send_to_marks(source, FS_MOVE_SELF | isdir, NULL, 0, 0, false);
}

/* Every mark of inode goes, each with its IN_IGNORED. */
static void destroy_marks(struct inode *inode)
{
	while (inode->i_fsnotify_marks)
		fsnotify_destroy_mark(inode->i_fsnotify_marks);
}

void __fsnotify_inoderemove(struct inode *inode)
{
	send_to_marks(inode, FS_DELETE_SELF | (S_ISDIR(inode->i_mode) ? FS_ISDIR : 0), NULL, 0,
		      0, false);
	destroy_marks(inode);
}

/* The watched inodes of sb, newest first (the order of Linux's s_inodes, where each new inode
 * goes first; numbers here only grow). */
void fsnotify_sb_delete(struct super_block *sb)
{
	for (;;) {
		struct inode *inode = NULL;
		struct fsnotify_mark *m;

		list_for_each_entry(m, &all_marks, all)
			if (m->inode->i_sb == sb && (!inode || m->inode->i_ino > inode->i_ino))
				inode = m->inode;
		if (!inode)
			return;
		send_to_marks(inode, FS_UNMOUNT | (S_ISDIR(inode->i_mode) ? FS_ISDIR : 0), NULL,
			      0, 0, false);
		destroy_marks(inode);
	}
}
