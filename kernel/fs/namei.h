/* Path names (kernel/fs/namei.c): from a string to an inode, across mount points, and the
 * calls that make and remove names. A path starting with '/' is resolved from the root, any
 * other from a base directory: the caller's working directory, or the one a dirfd names; a
 * NULL base is the root (the kernel's own paths). */
#ifndef KERNEL_FS_NAMEI_H
#define KERNEL_FS_NAMEI_H

#include "kernel/fs/fs.h"

/* What the last component of a path is (Linux's LAST_NORM, LAST_DOT, ...). */
enum { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };

struct nameidata {
	struct inode *dir; /* the directory holding the last component */
	const char *last;  /* the last component, last_len bytes (not NUL-terminated) */
	size_t last_len;
	int last_type;
	bool slash;        /* the path ended in '/': the last component must be a directory */
};

/* Copy a user path into path[PATH_MAX]: 0, -EFAULT, -ENAMETOOLONG, or -ENOENT for "". */
long path_from_user(uint64_t upath, char *path);
/* Walk every component of path but the last ("." and ".." resolved, mount points crossed)
 * and describe the last one in *nd. A missing directory on the way is -ENOENT, or is made
 * when parents is set (the kernel's own creations: an archive need not list a directory
 * before its files). 0, -ENOENT, -ENOTDIR, -ENAMETOOLONG, -ENOMEM. */
int path_parent(struct inode *base, const char *path, struct nameidata *nd, bool parents);
/* The inode the last component names (for "." and "..", the directory): 0, -ENOENT, or
 * -ENOTDIR when the path ended in '/' and it is no directory. */
int lookup_last(const struct nameidata *nd, struct inode **out);
/* The inode for path: path_parent, then lookup_last. */
int path_lookup_at(struct inode *base, const char *path, struct inode **out);
static inline int path_lookup(const char *path, struct inode **out)
{
	return path_lookup_at(NULL, path, out);
}
/* Where a relative path of the *at calls starts: current's working directory for AT_FDCWD,
 * else the directory open on dirfd (-EBADF, -ENOTDIR); nothing is looked at for an absolute
 * path, as Linux. */
long dirfd_base(int64_t dirfd, const char *path, struct inode **base);
/* current's working directory (NULL for a kernel thread: the root). */
struct inode *current_pwd(void);
/* path_from_user, then path_lookup_at from dirfd's base. */
long user_path_at(int64_t dirfd, uint64_t upath, struct inode **out);

/* open(O_CREAT) and mkdir (Linux's vfs_create, vfs_mkdir): a new, empty inode at path, whose
 * parent must exist (and not be removed). 0, -EEXIST (also for "/", "x/." and "x/.."),
 * -ENOENT, -ENOTDIR, -EISDIR (a regular file named "x/"), -ENAMETOOLONG, -ENOMEM,
 * -EACCES/-EPERM where the file system makes no names. */
int vfs_create(struct inode *base, const char *path, uint32_t mode, struct inode **out);
int vfs_mkdir(struct inode *base, const char *path, uint32_t mode);
/* A device file (S_IFCHR | permissions) for device dev at path: 0 or as vfs_create. */
int vfs_mknod(const char *path, uint32_t mode, uint32_t dev);
/* Remove the name path (a regular file, or an empty directory if dir). The inode lives on
 * while files are open on it. 0, -ENOENT, -EISDIR, -ENOTDIR, -ENOTEMPTY; a mount point or
 * "/" is -EBUSY, rmdir of "x/." -EINVAL, of "x/.." -ENOTEMPTY, unlink of any -EISDIR. */
int vfs_unlink(struct inode *base, const char *path, bool dir);
/* The absolute path of inode into buf (n bytes), mount points included. */
void d_path(const struct inode *inode, char *buf, size_t n);

#endif
