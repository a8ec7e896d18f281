/* Path lookup: a path is walked one component at a time, from the root or from a base (the
 * working directory, a dirfd), asking each directory's inode_operations for the next name and
 * crossing into a file system mounted on a directory. The calls that make and remove names
 * check the path here and leave the work to the directory's file system. */
#include "kernel/errno.h"
#include "kernel/fs/anon_inodes.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/namei.h"
#include "kernel/process/cred.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/syscalls.h"
#include "kernel/sched/sched.h"
#include "kernel/lib/err.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/arch/uaccess.h"
#include "mm/slab.h"

long path_from_user(uint64_t upath, char *path)
{
	long n = strncpy_from_user(path, upath, PATH_MAX);

	if (n < 0)
		return n;
	if (n == PATH_MAX)
		return -ENAMETOOLONG;
	return n ? 0 : -ENOENT;
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

/* May current search dir? Most directories let everyone (x for owner, group and others):
 * then who current is does not matter, and the walk does not ask. */
static inline int may_lookup(struct inode *dir)
{
	if (likely((dir->i_mode & 0111) == 0111))
		return 0;
	return inode_permission(dir, MAY_EXEC);
}

/* A directory covered by a mount stands for the root of what is mounted on it. */
static struct inode *follow_mount(struct inode *ino)
{
	while (ino->i_mounted)
		ino = ino->i_mounted->s_root;
	return ino;
}

/* "..": the parent, leaving a mounted file system through the directory it covers (".."
 * of the root is the root). */
static struct inode *follow_dotdot(struct inode *dir)
{
	while (dir == dir->i_sb->s_root && dir->i_sb->s_mountpoint)
		dir = dir->i_sb->s_mountpoint;
	return follow_mount(dir->i_dentry.d_parent);
}

/* The child called name (len bytes) of dir, mounts followed, NULL, or an ERR_PTR. */
struct inode *lookup_one(struct inode *dir, const char *name, size_t len)
{
	struct inode *child = NULL;

	if (dir->i_op && dir->i_op->lookup) {
		/* A disk's lookup sleeps on its reads: the file system must stay mounted. */
		dir->i_sb->s_inflight++;
		child = dir->i_op->lookup(dir, name, len);
		dir->i_sb->s_inflight--;
	}
	return IS_ERR_OR_NULL(child) ? child : follow_mount(child);
}

static int mkdir_in(struct inode *dir, const char *name, size_t len, uint32_t mode)
{
	if (!dir->i_op || !dir->i_op->mkdir)
		return -EPERM;
	return dir->i_op->mkdir(dir, name, len, mode);
}

static int do_path_parent(struct inode *base, const char *path, struct nameidata *nd,
			  bool parents, int links);
static int do_lookup_last(const struct nameidata *nd, bool follow, int *links,
			  struct dentry **out);

/* The name a symbolic link found in dir points to, its own last component followed too:
 * -ELOOP past MAX_LINKS links in one lookup (*links counts them). */
static int follow_link(struct inode *dir, struct inode *link, int *links, struct dentry **out)
{
	struct nameidata nd;
	char *target;
	int err;

	if (++*links > MAX_LINKS)
		return -ELOOP;
	if (!link->i_op || !link->i_op->readlink)
		return -EINVAL;
	target = kmalloc(PATH_MAX);
	if (!target)
		return -ENOMEM;
	err = link->i_op->readlink(link, target, PATH_MAX - 1);
	if (err >= 0) {
		target[err] = '\0';
		err = do_path_parent(dir, target, &nd, false, *links);
		if (!err)
			err = do_lookup_last(&nd, true, links, out);
	}
	kfree(target);
	return err;
}

int path_parent(struct inode *base, const char *path, struct nameidata *nd, bool parents)
{
	return do_path_parent(base, path, nd, parents, 0);
}

/* path_parent, with links links followed already in this lookup. */
static int do_path_parent(struct inode *base, const char *path, struct nameidata *nd,
			  bool parents, int links)
{
	struct inode *cur = path[0] == '/' || !base ? vfs_root() : base, *next;
	const char *name;
	size_t len = next_component(&path, &name);

	*nd = (struct nameidata){ .dir = cur, .last_type = LAST_ROOT, .links = links };
	while (len) {
		int err;

		if (!S_ISDIR(cur->i_mode))
			return -ENOTDIR;
		/* Every directory walked through, the last one too, needs search permission. */
		err = may_lookup(cur);
		if (err)
			return err;
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		if (!*path) { /* name is the last component */
			nd->dir = cur;
			nd->last = name;
			nd->last_len = len;
			nd->slash = name[len] == '/';
			nd->last_type = LAST_NORM;
			nd->links = links;
			if (len == 1 && name[0] == '.')
				nd->last_type = LAST_DOT;
			else if (len == 2 && name[0] == '.' && name[1] == '.')
				nd->last_type = LAST_DOTDOT;
			return 0;
		}
		if (len == 1 && name[0] == '.') {
			next = cur;
		} else if (len == 2 && name[0] == '.' && name[1] == '.') {
			next = follow_dotdot(cur);
		} else {
			next = lookup_one(cur, name, len);
			if (!next && parents) {
				err = mkdir_in(cur, name, len, S_IFDIR | 0755);
				if (err)
					return err;
				next = lookup_one(cur, name, len);
			}
			if (IS_ERR(next))
				return (int)PTR_ERR(next);
			if (!next)
				return -ENOENT;
			if (S_ISLNK(next->i_mode)) {
				struct dentry *d;

				err = follow_link(cur, next, &links, &d);
				if (err)
					return err;
				next = d->d_inode;
			}
		}
		cur = next;
		len = next_component(&path, &name);
	}
	nd->links = links;
	return 0; /* the start itself: "/", "//" or "" */
}

int lookup_last(const struct nameidata *nd, bool follow, struct inode **out)
{
	int links = nd->links, err;
	struct dentry *d;

	err = do_lookup_last(nd, follow, &links, &d);
	if (!err)
		*out = d->d_inode;
	return err;
}

/* The name of dir called name (len bytes) that lookup found to be i: the inode's first name
 * most often, else the one of its names (a hard link) held by dir; a file system mounted on
 * the name is found by its root's. */
static struct dentry *lookup_dentry(struct inode *dir, const char *name, size_t len,
				    struct inode *i)
{
	struct dentry *d = &i->i_dentry;

	if (d->d_parent == dir && !d_unhashed(d) && !strncmp(d->d_name, name, len) &&
	    !d->d_name[len])
		return d;
	d = i->i_sb == dir->i_sb ? d_lookup(dir, name, len) : NULL;
	return d && d->d_inode == i ? d : &i->i_dentry;
}

static int do_lookup_last(const struct nameidata *nd, bool follow, int *links,
			  struct dentry **out)
{
	struct inode *i;
	int err;

	switch (nd->last_type) {
	case LAST_ROOT:
	case LAST_DOT:
		i = nd->dir;
		break;
	case LAST_DOTDOT:
		i = follow_dotdot(nd->dir);
		break;
	default:
		i = lookup_one(nd->dir, nd->last, nd->last_len);
		if (IS_ERR(i))
			return (int)PTR_ERR(i);
		if (!i)
			return -ENOENT;
		/* A trailing slash asks for the directory a link points to, whatever follow
		 * says. */
		if (S_ISLNK(i->i_mode) && (follow || nd->slash)) {
			struct dentry *d;

			err = follow_link(nd->dir, i, links, &d);
			if (err)
				return err;
			if (nd->slash && !S_ISDIR(d->d_inode->i_mode))
				return -ENOTDIR;
			*out = d;
			return 0;
		}
		if (nd->slash && !S_ISDIR(i->i_mode))
			return -ENOTDIR;
		*out = lookup_dentry(nd->dir, nd->last, nd->last_len, i);
		return 0;
	}
	if (nd->slash && !S_ISDIR(i->i_mode))
		return -ENOTDIR;
	*out = &i->i_dentry;
	return 0;
}

int path_lookup_dentry(struct inode *base, const char *path, bool follow, struct dentry **out)
{
	struct nameidata nd;
	int err = path_parent(base, path, &nd, false), links = nd.links;

	return err ? err : do_lookup_last(&nd, follow, &links, out);
}

int path_lookup_at(struct inode *base, const char *path, bool follow, struct inode **out)
{
	struct nameidata nd;
	int err = path_parent(base, path, &nd, false);

	return err ? err : lookup_last(&nd, follow, out);
}

struct inode *current_pwd(void)
{
	return current->fs ? current->fs->pwd : NULL;
}

long dirfd_base(int64_t dirfd, const char *path, struct inode **base)
{
	struct file *f;

	*base = NULL;
	if (path[0] == '/')
		return 0;
	dirfd = (int)dirfd; /* an int in the ABI: glibc passes AT_FDCWD zero-extended */
	if (dirfd == AT_FDCWD) {
		*base = current_pwd();
		return 0;
	}
	f = dirfd >= 0 ? fget((uint64_t)dirfd) : NULL;
	if (!f)
		return -EBADF;
	if (!S_ISDIR(f->f_inode->i_mode))
		return -ENOTDIR;
	*base = f->f_inode;
	return 0;
}

long user_path_at(int64_t dirfd, uint64_t upath, bool follow, struct inode **out)
{
	char path[PATH_MAX];
	struct inode *base;
	long err = path_from_user(upath, path);

	if (!err)
		err = dirfd_base(dirfd, path, &base);
	if (!err)
		err = path_lookup_at(base, path, follow, out);
	/* A call naming a file uses its mount: a pending MNT_EXPIRE is called off (umount2's
	 * own lookup is no use: it calls path_lookup_at). */
	if (!err)
		(*out)->i_sb->s_expiry_mark = false;
	return err;
}

/* The checks every call that makes a name shares: the parent exists, the name does not. */
int may_create(struct inode *base, const char *path, uint32_t mode, struct nameidata *nd)
{
	int err = path_parent(base, path, nd, false);
	struct inode *i;

	if (err)
		return err;
	if (nd->dir->i_nlink == 0)
		return -ENOENT; /* a removed directory (a working directory can be one) */
	if (nd->last_type != LAST_NORM)
		return -EEXIST; /* "/", "x/." and "x/.." always exist */
	i = lookup_one(nd->dir, nd->last, nd->last_len);
	if (IS_ERR(i))
		return (int)PTR_ERR(i);
	if (i)
		return -EEXIST;
	if (nd->slash && !S_ISDIR(mode))
		return -EISDIR; /* "x/" can only be made as a directory */
	return inode_permission(nd->dir, MAY_WRITE | MAY_EXEC);
}

int vfs_create(struct inode *base, const char *path, uint32_t mode, struct inode **out)
{
	struct nameidata nd;
	int err = may_create(base, path, mode, &nd);

	if (err)
		return err;
	if (!nd.dir->i_op || !nd.dir->i_op->create)
		return -EACCES;
	err = nd.dir->i_op->create(nd.dir, nd.last, nd.last_len, S_IFREG | (mode & 07777), out);
	if (!err)
		fsnotify_create(nd.dir, nd.last, nd.last_len, false);
	return err;
}

int vfs_mkdir(struct inode *base, const char *path, uint32_t mode)
{
	struct nameidata nd;
	int err = may_create(base, path, S_IFDIR, &nd);

	if (!err)
		err = mkdir_in(nd.dir, nd.last, nd.last_len, S_IFDIR | (mode & 07777));
	if (!err)
		fsnotify_create(nd.dir, nd.last, nd.last_len, true);
	return err;
}

int vfs_mknodat(struct inode *base, const char *path, uint32_t mode, uint32_t dev)
{
	struct nameidata nd;
	struct inode *ino;
	int err = may_create(base, path, mode, &nd);

	if (err)
		return err;
	/* A whiteout (a character device 0:0) is anyone's to make, as in Linux since 5.8. */
	if ((S_ISCHR(mode) || S_ISBLK(mode)) && !(S_ISCHR(mode) && !dev) && !capable(CAP_MKNOD))
		return -EPERM;
	if (!nd.dir->i_op || !nd.dir->i_op->mknod)
		return -EPERM;
	err = nd.dir->i_op->mknod(nd.dir, nd.last, nd.last_len, mode, dev, &ino);
	if (!err)
		fsnotify_create(nd.dir, nd.last, nd.last_len, false);
	return err;
}

int vfs_symlink(struct inode *base, const char *target, const char *path)
{
	struct nameidata nd;
	int err;

	if (!*target)
		return -ENOENT;
	err = may_create(base, path, S_IFLNK, &nd);
	if (err)
		return err;
	if (!nd.dir->i_op || !nd.dir->i_op->symlink)
		return -EPERM;
	err = nd.dir->i_op->symlink(nd.dir, nd.last, nd.last_len, target);
	if (!err)
		fsnotify_create(nd.dir, nd.last, nd.last_len, false);
	return err;
}

int vfs_unlink(struct inode *base, const char *path, bool dir)
{
	static const int not_a_name[] = { [LAST_ROOT] = -EBUSY, [LAST_DOT] = -EINVAL,
					  [LAST_DOTDOT] = -ENOTEMPTY };
	int (*op)(struct inode *dir, const char *name, size_t len, struct inode *victim);
	struct nameidata nd;
	struct inode *i;
	int err = path_parent(base, path, &nd, false);
	bool pinned;

	if (err)
		return err;
	if (nd.last_type != LAST_NORM) /* unlink: "/", "." and ".." are directories */
		return dir ? not_a_name[nd.last_type] : -EISDIR;
	if (IS_RDONLY(nd.dir))
		return -EROFS; /* before the name is looked up, as Linux's mnt_want_write */
	i = lookup_one(nd.dir, nd.last, nd.last_len);
	if (IS_ERR(i))
		return (int)PTR_ERR(i);
	if (!i)
		return -ENOENT;
	if (!dir && nd.slash) /* unlink "x/": whatever x is, before any permission */
		return S_ISDIR(i->i_mode) ? -EISDIR : -ENOTDIR;
	err = may_delete(nd.dir, i);
	if (err)
		return err;
	if (dir && !S_ISDIR(i->i_mode))
		return -ENOTDIR;
	if (!dir && S_ISDIR(i->i_mode))
		return -EISDIR;
	if (i->i_sb != nd.dir->i_sb)
		return -EBUSY; /* a mount point: lookup_one gave the root mounted on it */
	if (dir && !list_empty(&i->i_children))
		return -ENOTEMPTY;
	op = !nd.dir->i_op ? NULL : dir ? nd.dir->i_op->rmdir : nd.dir->i_op->unlink;
	if (!op)
		return -EPERM;
	/* A watched victim outlives the call, so that its watches hear of its link count, then
	 * (its last user gone) of its end, before its directory hears of the name (Linux's
	 * order). */
	pinned = fsnotify_pin(i);
	err = op(nd.dir, nd.last, nd.last_len, i);
	if (pinned) { /* (unpinned, i may be gone: it had no watch) */
		if (!err && !dir)
			fsnotify_link_count(i);
		fsnotify_unpin(i);
	}
	if (!err)
		fsnotify_delete(nd.dir, nd.last, nd.last_len, dir);
	return err;
}

void d_path(const struct dentry *d, char *buf, size_t n)
{
	size_t len = 0; /* the path so far, "/a/b", is built backwards at the end of buf */
	char *end = buf + n - 1;

	*end = '\0';
	for (;;) {
		size_t l;

		/* (a directory has one name, its inode's) */
		while (d->d_inode == d->d_inode->i_sb->s_root && d->d_inode->i_sb->s_mountpoint)
			d = &d->d_inode->i_sb->s_mountpoint->i_dentry;
		if (IS_ROOT(d))
			break;
		l = strlen(d->d_name);
		if (len + l + 1 > n - 2)
			break; /* too long: the tail is kept */
		len += l + 1;
		memcpy(end - len + 1, d->d_name, l);
		end[-(long)len] = '/';
		d = &d->d_parent->i_dentry;
	}
	if (!len)
		end[-(long)++len] = '/';
	memmove(buf, end - len, len + 1);
}

void file_path(const struct file *f, char *buf, size_t n)
{
	bool anon = is_anon_inode_file(f);

	if (anon)
		snprintf(buf, n, "anon_inode:%s", f->f_dentry->d_name);
	else if (!strcmp(f->f_inode->i_sb->s_type->name, "pipefs"))
		snprintf(buf, n, "pipe:[%lu]", f->f_inode->i_ino); /* pipefs's d_dname */
	else if (!strcmp(f->f_inode->i_sb->s_type->name, "sockfs"))
		snprintf(buf, n, "socket:[%lu]", f->f_inode->i_ino); /* sockfs's d_dname */
	else
		d_path(f->f_dentry, buf, n);
	/* the name it was opened by is gone (unlinked, renamed over; a memfd, shared anonymous
	 * memory never had one): Linux's d_path says so, as /proc/PID/maps does */
	if (!anon && (d_unlinked(f->f_dentry) || !f->f_inode->i_nlink))
		snprintf(buf + strlen(buf), n - strlen(buf), " (deleted)");
}

/* getcwd: the working directory's path and its length with the NUL; -ERANGE when it does not
 * fit in size, -ENOENT once the directory has been removed (Linux's answers). */
long sys_getcwd(uint64_t ubuf, uint64_t size)
{
	struct inode *pwd = current_pwd();
	char path[PATH_MAX];
	size_t len;

	if (pwd && pwd->i_nlink == 0)
		return -ENOENT;
	d_path(&(pwd ? pwd : vfs_root())->i_dentry, path, sizeof(path));
	len = strlen(path) + 1;
	if (len > size)
		return -ERANGE;
	return copy_to_user(ubuf, path, len) ? -EFAULT : (long)len;
}

#define AT_REMOVEDIR 0x200

long sys_unlinkat(int64_t dirfd, uint64_t upath, uint64_t flags)
{
	char path[PATH_MAX];
	struct inode *base;
	long err;

	if (flags & ~(uint64_t)AT_REMOVEDIR)
		return -EINVAL;
	err = path_from_user(upath, path);
	if (!err)
		err = dirfd_base(dirfd, path, &base);
	return err ? err : vfs_unlink(base, path, flags & AT_REMOVEDIR);
}

long sys_unlink(uint64_t upath)
{
	return sys_unlinkat(AT_FDCWD, upath, 0);
}

long sys_rmdir(uint64_t upath)
{
	return sys_unlinkat(AT_FDCWD, upath, AT_REMOVEDIR);
}

long sys_mkdirat(int64_t dirfd, uint64_t upath, uint64_t mode)
{
	char path[PATH_MAX];
	struct inode *base;
	long err = path_from_user(upath, path);

	if (!err)
		err = dirfd_base(dirfd, path, &base);
	return err ? err : vfs_mkdir(base, path, apply_umask((uint32_t)mode & 07777));
}

long sys_mkdir(uint64_t upath, uint64_t mode)
{
	return sys_mkdirat(AT_FDCWD, upath, mode);
}

long sys_mknodat(int64_t dirfd, uint64_t upath, uint64_t mode, uint64_t dev)
{
	char path[PATH_MAX];
	struct inode *base, *ino;
	uint32_t type = (uint32_t)mode & S_IFMT, perm = apply_umask((uint32_t)mode & 07777);
	long err;

	switch (type) { /* Linux's may_mknod comes first */
	case 0:
	case S_IFREG:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		break;
	case S_IFDIR:
		return -EPERM;
	default:
		return -EINVAL;
	}
	err = path_from_user(upath, path);
	if (!err)
		err = dirfd_base(dirfd, path, &base);
	if (err)
		return err;
	if (type == 0 || type == S_IFREG)
		return vfs_create(base, path, perm, &ino);
	if (type != S_IFCHR && type != S_IFBLK)
		dev = 0; /* a FIFO or socket has no device number */
	return vfs_mknodat(base, path, type | perm, new_decode_dev((uint32_t)dev));
}

long sys_mknod(uint64_t upath, uint64_t mode, uint64_t dev)
{
	return sys_mknodat(AT_FDCWD, upath, mode, dev);
}

long sys_symlinkat(uint64_t utarget, int64_t dirfd, uint64_t upath)
{
	char *target = kmalloc(PATH_MAX), path[PATH_MAX];
	struct inode *base;
	long err = target ? path_from_user(utarget, target) : -ENOMEM;

	if (!err)
		err = path_from_user(upath, path);
	if (!err)
		err = dirfd_base(dirfd, path, &base);
	if (!err)
		err = vfs_symlink(base, target, path);
	kfree(target);
	return err;
}

long sys_symlink(uint64_t utarget, uint64_t upath)
{
	return sys_symlinkat(utarget, AT_FDCWD, upath);
}
