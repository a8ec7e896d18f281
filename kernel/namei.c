/* System calls on the file tree by name and on directories: stat, getdents64, readlink,
 * unlink, mkdir, rmdir (kernel/file.c has the descriptors and the data). Every path is
 * resolved from the root: there is no current directory yet. */
#include "kernel/errno.h"
#include "kernel/file.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"

/* Copy a path from user memory into path[PATH_MAX]: 0, -EFAULT, -ENAMETOOLONG, or -ENOENT for
 * "" (as Linux's getname). */
long path_from_user(uint64_t upath, char *path)
{
	long n = strncpy_from_user(path, upath, PATH_MAX);

	if (n < 0)
		return n;
	if (n == PATH_MAX)
		return -ENAMETOOLONG;
	return n ? 0 : -ENOENT;
}

/* Resolve a user path; every path is resolved from the root (there is no cwd yet). */
static long user_path_lookup(uint64_t upath, struct inode **ino)
{
	char path[PATH_MAX];
	long err = path_from_user(upath, path);

	return err ? err : ramfs_lookup(path, ino);
}

/* Linux's x86-64 struct stat (144 bytes) as 8-byte words, for a console or an inode. */
static long stat_to_user(const struct inode *ino, uint64_t ustat)
{
	uint64_t st[18] = { 0 };

	if (!ino) {
		st[3] = 0020620; /* st_mode: a character device */
		st[2] = 1;
	} else {
		st[1] = ino->i_ino;
		st[2] = S_ISDIR(ino->i_mode) ? 2 : 1; /* st_nlink */
		st[3] = ino->i_mode;                  /* st_mode (low 32 bits), st_uid 0 */
		st[6] = ino->i_size;                  /* st_size */
		st[7] = 4096;                         /* st_blksize */
		st[8] = (ino->i_size + 511) / 512;    /* st_blocks */
	}
	return copy_to_user(ustat, st, sizeof(st));
}

long sys_fstat(uint64_t fd, uint64_t ustat)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	return stat_to_user(f->f_console ? NULL : f->f_inode, ustat);
}

long sys_newfstatat(int64_t dirfd, uint64_t upath, uint64_t ustat, uint64_t flags)
{
	struct inode *ino;
	char c;
	long err;

	if ((flags & AT_EMPTY_PATH) && !copy_from_user(&c, upath, 1) && c == '\0')
		return sys_fstat((uint64_t)dirfd, ustat);
	err = user_path_lookup(upath, &ino);
	return err ? err : stat_to_user(ino, ustat);
}

/* getdents64: f_pos counts entries: 0 is ".", 1 is "..", then the children in order. */
long sys_getdents64(uint64_t fd, uint64_t udirp, uint64_t count)
{
	struct file *f = fget(fd);
	struct inode *dir, *ino;
	struct list_head *pos;
	uint8_t rec[24 + NAME_MAX + 1];
	uint64_t done = 0, index = 0;

	if (!f || f->f_console)
		return -EBADF;
	dir = f->f_inode;
	if (!S_ISDIR(dir->i_mode))
		return -ENOTDIR;
	if (dir->i_nlink == 0)
		return -ENOENT; /* removed (Linux too); its i_parent may be gone */
	pos = &dir->i_children;
	for (;; index++) {
		const char *name;
		size_t len, reclen;

		if (index == 0) {
			ino = dir, name = ".";
		} else if (index == 1) {
			ino = dir->i_parent, name = "..";
		} else {
			pos = pos->next;
			if (pos == &dir->i_children)
				break;
			ino = list_entry(pos, struct inode, i_sibling);
			name = ino->i_name;
		}
		if (index < f->f_pos)
			continue;
		len = strlen(name);
		reclen = ALIGN_UP(19 + len + 1, 8);
		if (done + reclen > count)
			return done ? (long)done : -EINVAL;
		memset(rec, 0, reclen);
		*(uint64_t *)rec = ino->i_ino;
		*(uint64_t *)(rec + 8) = index + 1;  /* d_off: where the next entry starts */
		*(uint16_t *)(rec + 16) = (uint16_t)reclen;
		rec[18] = S_ISDIR(ino->i_mode) ? 4 : 8; /* DT_DIR, DT_REG */
		memcpy(rec + 19, name, len);
		if (copy_to_user(udirp + done, rec, reclen))
			return -EFAULT;
		done += reclen;
		f->f_pos = index + 1;
	}
	return (long)done;
}


/* There is no /proc yet, and the ramdisk holds no symbolic links. */
long sys_readlink(uint64_t upath, uint64_t ubuf, uint64_t size)
{
	struct inode *ino;
	long err = user_path_lookup(upath, &ino);

	(void)ubuf;
	(void)size;
	return err ? err : -EINVAL;
}

#define AT_REMOVEDIR 0x200

long sys_unlinkat(int64_t dirfd, uint64_t upath, uint64_t flags)
{
	char path[PATH_MAX];
	long err = path_from_user(upath, path);

	(void)dirfd;
	if (flags & ~(uint64_t)AT_REMOVEDIR)
		return -EINVAL;
	return err ? err : ramfs_unlink(path, flags & AT_REMOVEDIR);
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
	long err = path_from_user(upath, path);

	(void)dirfd;
	return err ? err : ramfs_mknod(path, S_IFDIR | (mode & 07777), NULL);
}

long sys_mkdir(uint64_t upath, uint64_t mode)
{
	return sys_mkdirat(AT_FDCWD, upath, mode);
}
