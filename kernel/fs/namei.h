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
	int links;         /* symbolic links followed so far in this lookup */
};

#define MAX_LINKS 40 /* symbolic links one lookup may follow (Linux's MAXSYMLINKS) */

/* Copy a user path into path[PATH_MAX]: 0, -EFAULT, -ENAMETOOLONG, or -ENOENT for "". */
long path_from_user(uint64_t upath, char *path);
/* Walk every component of path but the last ("." and ".." resolved, mount points crossed,
 * symbolic links followed: -ELOOP past MAX_LINKS)
 * and describe the last one in *nd. A missing directory on the way is -ENOENT, or is made
 * when parents is set (the kernel's own creations: an archive need not list a directory
 * before its files). 0, -ENOENT, -ENOTDIR, -ENAMETOOLONG, -ENOMEM. */
int path_parent(struct inode *base, const char *path, struct nameidata *nd, bool parents);
/* The inode the last component names (for "." and "..", the directory; for a symbolic link
 * what it points to when follow is set or the path ends in '/'): 0, -ENOENT, -ELOOP, or
 * -ENOTDIR when the path ended in '/' and it is no directory. */
int lookup_last(const struct nameidata *nd, bool follow, struct inode **out);
/* The name path resolves to (a symbolic link followed if follow): what open and exec keep,
 * for the file's path; its d_inode is the file. 0 or as lookup_last. */
int path_lookup_dentry(struct inode *base, const char *path, bool follow, struct dentry **out);
/* The inode for path: path_parent, then lookup_last. */
int path_lookup_at(struct inode *base, const char *path, bool follow, struct inode **out);
static inline int path_lookup(const char *path, struct inode **out)
{
	return path_lookup_at(NULL, path, true, out);
}
/* Where a relative path of the *at calls starts: current's working directory for AT_FDCWD,
 * else the directory open on dirfd (-EBADF, -ENOTDIR); nothing is looked at for an absolute
 * path, as Linux. */
long dirfd_base(int64_t dirfd, const char *path, struct inode **base);
/* current's working directory (NULL for a kernel thread: the root). */
struct inode *current_pwd(void);
/* path_from_user, then path_lookup_at from dirfd's base. */
long user_path_at(int64_t dirfd, uint64_t upath, bool follow, struct inode **out);

/* open(O_CREAT) and mkdir (Linux's vfs_create, vfs_mkdir): a new, empty inode at path, whose
 * parent must exist (and not be removed). 0, -EEXIST (also for "/", "x/." and "x/.."),
 * -ENOENT, -ENOTDIR, -EISDIR (a regular file named "x/"), -ENAMETOOLONG, -ENOMEM,
 * -EACCES/-EPERM where the file system makes no names. */
int vfs_create(struct inode *base, const char *path, uint32_t mode, struct inode **out);
int vfs_mkdir(struct inode *base, const char *path, uint32_t mode);
/* A symbolic link at path holding target: 0, -ENOENT for an empty target, or as vfs_create. */
int vfs_symlink(struct inode *base, const char *target, const char *path);
/* link (kernel/fs/link.c): oldpath (a symbolic link followed if follow) gets the second
 * name newpath: 0, -EEXIST, -ENOENT, -EXDEV, -EPERM (a directory, a file system without
 * links), -EMLINK, or as vfs_create. */
int vfs_link(struct inode *old_base, const char *oldpath, struct inode *new_base,
	     const char *newpath, bool follow);
/* rename (kernel/fs/rename.c): old's name becomes new's, with renameat2's RENAME_* flags. */
int vfs_rename(struct inode *old_base, const char *old, struct inode *new_base, const char *new,
	       unsigned int flags);
/* The child called name (len bytes) of dir, a file system mounted on it followed, or NULL. */
struct inode *lookup_one(struct inode *dir, const char *name, size_t len);
/* The checks of every call that makes a name: path's parent exists (not removed), its last
 * component is a plain name that does not exist yet. 0, -EEXIST, -ENOENT, -EISDIR, ... */
int may_create(struct inode *base, const char *path, uint32_t mode, struct nameidata *nd);
/* A device file, named pipe or socket (mode: its S_IF* type | permissions) for device dev at
 * path (from base, NULL: the root): 0, as vfs_create, or -EPERM for a device without
 * CAP_MKNOD. */
int vfs_mknodat(struct inode *base, const char *path, uint32_t mode, uint32_t dev);
static inline int vfs_mknod(const char *path, uint32_t mode, uint32_t dev)
{
	return vfs_mknodat(NULL, path, mode, dev);
}
/* Remove the name path (a regular file, or an empty directory if dir). The inode lives on
 * while files are open on it. 0, -ENOENT, -EISDIR, -ENOTDIR, -ENOTEMPTY; a mount point or
 * "/" is -EBUSY, rmdir of "x/." -EINVAL, of "x/.." -ENOTEMPTY, unlink of any -EISDIR. */
int vfs_unlink(struct inode *base, const char *path, bool dir);
/* The absolute path of the name d into buf (n bytes), mount points included. */
void d_path(const struct dentry *d, char *buf, size_t n);
/* The path of an open file into buf (n bytes): that of the name it was opened by (" (deleted)"
 * once that name is gone), "pipe:[INO]" for a pipe, or for a file on the anonymous inode
 * "anon_inode:" and its name ("anon_inode:[eventfd]"), as Linux's d_path of a file
 * (/proc/PID/fd's links). */
void file_path(const struct file *f, char *buf, size_t n);

#endif
