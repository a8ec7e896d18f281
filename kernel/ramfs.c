/* The file tree: directories are lists of child inodes, looked up one path component at a
 * time. Small and linear on purpose: the ramdisk holds tens of files, not thousands. */
#include "kernel/errno.h"
#include "kernel/fs.h"
#include "kernel/string.h"
#include "mm/filemap.h"
#include "mm/slab.h"

static struct inode root = {
	.i_ino = 1,
	.i_mode = S_IFDIR | 0755,
	.i_nlink = 1,
	.i_parent = &root,
	.i_children = LIST_HEAD_INIT(root.i_children),
	.i_sibling = LIST_HEAD_INIT(root.i_sibling),
};
static unsigned long next_ino = 2;

struct inode *ramfs_root(void)
{
	return &root;
}

static struct inode *find_child(struct inode *dir, const char *name, size_t len)
{
	struct list_head *pos;

	list_for_each(pos, &dir->i_children) {
		struct inode *i = list_entry(pos, struct inode, i_sibling);

		if (strlen(i->i_name) == len && strncmp(i->i_name, name, len) == 0)
			return i;
	}
	return NULL;
}

/* Split off the next component of *path: returns its length (0 at the end), sets *name and
 * advances *path past it and any slashes. */
static size_t next_component(const char **path, const char **name)
{
	const char *p = *path;
	size_t len = 0;

	while (*p == '/')
		p++;
	*name = p;
	while (p[len] && p[len] != '/')
		len++;
	*path = p + len;
	return len;
}

/* Walk path from the root. If parent_out is set, stop before the last component and return
 * it through last/last_len instead (for create). */
static int walk(const char *path, struct inode **out, struct inode **parent_out,
		const char **last, size_t *last_len)
{
	struct inode *cur = &root;
	const char *name;
	size_t len;

	for (;;) {
		len = next_component(&path, &name);
		if (len == 0)
			break;
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		if (!S_ISDIR(cur->i_mode))
			return -ENOTDIR;
		if (parent_out) {
			const char *rest = path, *n2;

			if (next_component(&rest, &n2) == 0) {
				*parent_out = cur;
				*last = name;
				*last_len = len;
				return 0;
			}
		}
		if (len == 1 && name[0] == '.')
			continue;
		if (len == 2 && name[0] == '.' && name[1] == '.') {
			cur = cur->i_parent;
			continue;
		}
		cur = find_child(cur, name, len);
		if (!cur)
			return -ENOENT;
	}
	if (parent_out)
		return -EINVAL; /* the path names the root itself */
	*out = cur;
	return 0;
}

int ramfs_lookup(const char *path, struct inode **out)
{
	return walk(path, out, NULL, NULL, NULL);
}

static struct inode *new_inode(struct inode *dir, const char *name, size_t len, uint32_t mode)
{
	struct inode *i = kzalloc(sizeof(*i));

	if (!i)
		return NULL;
	i->i_ino = next_ino++;
	i->i_mode = mode;
	i->i_nlink = 1;
	i->i_parent = dir;
	INIT_LIST_HEAD(&i->i_children);
	memcpy(i->i_name, name, len);
	i->i_name[len] = '\0';
	list_add_tail(&i->i_sibling, &dir->i_children);
	return i;
}

int ramfs_create(const char *path, uint32_t mode, const uint8_t *data, uint64_t size,
		 struct inode **out)
{
	struct inode *dir = &root, *i;
	const char *name, *p = path;
	size_t len;

	/* Create missing parents: archives need not list a directory before its files. */
	for (;;) {
		const char *rest, *ignored;

		len = next_component(&p, &name);
		if (len == 0)
			return -EINVAL;
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		rest = p;
		if (next_component(&rest, &ignored) == 0)
			break; /* name is the last component */
		if (len == 1 && name[0] == '.')
			continue;
		i = find_child(dir, name, len);
		if (!i)
			i = new_inode(dir, name, len, S_IFDIR | 0755);
		if (!i)
			return -ENOMEM;
		if (!S_ISDIR(i->i_mode))
			return -ENOTDIR;
		dir = i;
	}
	if (len == 1 && name[0] == '.') {
		if (out)
			*out = dir;
		return S_ISDIR(mode) ? 0 : -EISDIR;
	}
	i = find_child(dir, name, len);
	if (i && S_ISDIR(i->i_mode) != S_ISDIR(mode))
		return S_ISDIR(i->i_mode) ? -EISDIR : -ENOTDIR;
	if (!i)
		i = new_inode(dir, name, len, mode);
	if (!i)
		return -ENOMEM;
	i->i_mode = mode;
	i->i_nlink = 1;
	if (!S_ISDIR(mode)) {
		if (i->i_mapping)
			truncate_inode_pages(i, 0, i->i_size); /* a replaced file starts over */
		i->i_disk = data;
		i->i_disk_size = size;
		i->i_size = size;
		i->i_mapping = &i->i_data;
		i->i_data.host = i;
		INIT_LIST_HEAD(&i->i_data.i_mmap);
		INIT_LIST_HEAD(&i->i_data.i_mmap_nonlinear);
	}
	if (out)
		*out = i;
	return 0;
}

int ramfs_unlink(const char *path, bool dir)
{
	struct inode *i;
	int err = ramfs_lookup(path, &i);

	if (err)
		return err;
	if (i == &root)
		return -EBUSY;
	if (dir && !S_ISDIR(i->i_mode))
		return -ENOTDIR;
	if (!dir && S_ISDIR(i->i_mode))
		return -EISDIR;
	if (dir && !list_empty(&i->i_children))
		return -ENOTEMPTY;
	list_del(&i->i_sibling);
	i->i_nlink = 0;
	if (i->i_count == 0)
		iput(i);
	return 0;
}

void iput(struct inode *i)
{
	if (i->i_count > 0 || i->i_nlink > 0)
		return;
	if (i->i_mapping)
		truncate_inode_pages(i, 0, i->i_size); /* its cached pages go back */
	kfree(i);
}
