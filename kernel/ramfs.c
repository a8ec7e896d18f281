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
	p += len;
	while (*p == '/')
		p++;
	*path = p;
	return len;
}

/* What the last component of a path is (Linux's LAST_NORM, LAST_DOT, ...). */
enum { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };

struct nameidata {
	struct inode *dir; /* the directory holding the last component */
	const char *last;  /* the last component, last_len bytes (not NUL-terminated) */
	size_t last_len;
	int last_type;
	bool slash;        /* the path ended in '/': the last component must be a directory */
};

static struct inode *new_inode(struct inode *dir, const char *name, size_t len, uint32_t mode);

/*
 * Walk every component of path but the last, resolving "." and ".." as it goes (".." of the
 * root is the root), and describe the last one in *nd. A missing directory on the way is
 * -ENOENT, or is made when parents is set (only the kernel's own creations ask for that: an
 * archive need not list a directory before its files). 0, -ENOENT, -ENOTDIR, -ENAMETOOLONG.
 */
static int path_parent(const char *path, struct nameidata *nd, bool parents)
{
	struct inode *cur = &root, *next;
	const char *name;
	size_t len = next_component(&path, &name);

	*nd = (struct nameidata){ .dir = &root, .last_type = LAST_ROOT };
	while (len) {
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		if (!S_ISDIR(cur->i_mode))
			return -ENOTDIR;
		if (!*path) { /* name is the last component */
			nd->dir = cur;
			nd->last = name;
			nd->last_len = len;
			nd->slash = name[len] == '/';
			nd->last_type = LAST_NORM;
			if (len == 1 && name[0] == '.')
				nd->last_type = LAST_DOT;
			else if (len == 2 && name[0] == '.' && name[1] == '.')
				nd->last_type = LAST_DOTDOT;
			return 0;
		}
		if (len == 1 && name[0] == '.') {
			next = cur;
		} else if (len == 2 && name[0] == '.' && name[1] == '.') {
			next = cur->i_parent;
		} else {
			next = find_child(cur, name, len);
			if (!next && parents && !(next = new_inode(cur, name, len, S_IFDIR | 0755)))
				return -ENOMEM;
			if (!next)
				return -ENOENT;
		}
		cur = next;
		len = next_component(&path, &name);
	}
	return 0; /* the root: "/", "//" or "" */
}

/* The inode the last component of nd names: the child, or the directory for "." and "..". */
static int last_inode(const struct nameidata *nd, struct inode **out)
{
	struct inode *i;

	switch (nd->last_type) {
	case LAST_ROOT:
	case LAST_DOT:
		i = nd->dir;
		break;
	case LAST_DOTDOT:
		i = nd->dir->i_parent;
		break;
	default:
		i = find_child(nd->dir, nd->last, nd->last_len);
		if (!i)
			return -ENOENT;
	}
	if (nd->slash && !S_ISDIR(i->i_mode))
		return -ENOTDIR;
	*out = i;
	return 0;
}

int ramfs_lookup(const char *path, struct inode **out)
{
	struct nameidata nd;
	int err = path_parent(path, &nd, false);

	return err ? err : last_inode(&nd, out);
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
	if (!S_ISDIR(mode)) {
		i->i_mapping = &i->i_data;
		i->i_data.host = i;
		INIT_LIST_HEAD(&i->i_data.i_mmap);
		INIT_LIST_HEAD(&i->i_data.i_mmap_nonlinear);
	}
	return i;
}

int ramfs_create(const char *path, uint32_t mode, const uint8_t *data, uint64_t size,
		 struct inode **out)
{
	struct nameidata nd;
	struct inode *i;
	int err = path_parent(path, &nd, true);

	if (err)
		return err;
	if (nd.last_type != LAST_NORM) { /* "/", "x/." or "x/..": a directory that exists */
		if (!S_ISDIR(mode))
			return -EISDIR;
		return last_inode(&nd, out ? out : &i);
	}
	i = find_child(nd.dir, nd.last, nd.last_len);
	if (i && S_ISDIR(i->i_mode) != S_ISDIR(mode))
		return S_ISDIR(i->i_mode) ? -EISDIR : -ENOTDIR;
	if (!i && nd.slash && !S_ISDIR(mode))
		return -EISDIR;
	if (!i)
		i = new_inode(nd.dir, nd.last, nd.last_len, mode);
	if (!i)
		return -ENOMEM;
	i->i_mode = mode;
	if (!S_ISDIR(mode)) {
		truncate_inode_pages(i, 0, i->i_size); /* a replaced file starts over */
		i->i_disk = data;
		i->i_disk_size = size;
		i->i_size = size;
	}
	if (out)
		*out = i;
	return 0;
}

int ramfs_mknod(const char *path, uint32_t mode, struct inode **out)
{
	struct nameidata nd;
	struct inode *i;
	int err = path_parent(path, &nd, false);

	if (err)
		return err;
	if (nd.last_type != LAST_NORM)
		return -EEXIST; /* "/", "x/." and "x/.." always exist */
	if (find_child(nd.dir, nd.last, nd.last_len))
		return -EEXIST;
	if (nd.slash && !S_ISDIR(mode))
		return -EISDIR; /* "x/" can only be made as a directory */
	i = new_inode(nd.dir, nd.last, nd.last_len, mode);
	if (!i)
		return -ENOMEM;
	if (out)
		*out = i;
	return 0;
}

int ramfs_unlink(const char *path, bool dir)
{
	static const int not_a_name[] = { [LAST_ROOT] = -EBUSY, [LAST_DOT] = -EINVAL,
					  [LAST_DOTDOT] = -ENOTEMPTY };
	struct nameidata nd;
	struct inode *i;
	int err = path_parent(path, &nd, false);

	if (err)
		return err;
	if (nd.last_type != LAST_NORM) /* unlink: "/", "." and ".." are directories */
		return dir ? not_a_name[nd.last_type] : -EISDIR;
	i = find_child(nd.dir, nd.last, nd.last_len);
	if (!i)
		return -ENOENT;
	if (dir && !S_ISDIR(i->i_mode))
		return -ENOTDIR;
	if (!dir && S_ISDIR(i->i_mode))
		return -EISDIR;
	if (nd.slash && !S_ISDIR(i->i_mode))
		return -ENOTDIR;
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
		truncate_inode_pages(i, 0, i->i_size); /* every cached page goes back */
	kfree(i);
}
