/* Open files: a table of struct file (an inode and a position), indexed by descriptor.
 * Descriptors 0, 1 and 2 are the console. One table for now; issue 3 gives each task its own. */
#include "drivers/console.h"
#include "kernel/errno.h"
#include "kernel/file.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"

#define NR_OPEN 32

static struct file files[NR_OPEN];

void files_reset(void)
{
	memset(files, 0, sizeof(files));
	for (int fd = 0; fd < 3; fd++)
		files[fd].f_console = true, files[fd].f_used = true;
}

static struct file *fget(uint64_t fd)
{
	return fd < NR_OPEN && files[fd].f_used ? &files[fd] : NULL;
}

long sys_openat(uint64_t dirfd, uint64_t upath, uint64_t flags)
{
	char path[PATH_MAX];
	struct inode *ino;
	long n, err;

	(void)dirfd; /* every path is resolved from the root: there is no cwd yet */
	n = strncpy_from_user(path, upath, sizeof(path));
	if (n < 0)
		return n;
	if (n == sizeof(path))
		return -ENAMETOOLONG;
	if ((flags & 3) != 0) /* O_RDONLY only: the ramdisk is read-only until issue 5 */
		return -EROFS;
	err = ramfs_lookup(path, &ino);
	if (err)
		return err;
	for (int fd = 3; fd < NR_OPEN; fd++) {
		if (!files[fd].f_used) {
			files[fd] = (struct file){ .f_used = true, .f_inode = ino };
			return fd;
		}
	}
	return -EMFILE;
}

long sys_close(uint64_t fd)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	f->f_used = false;
	return 0;
}

/* read from a ramdisk file: copy from its data at f_pos. */
long file_read(uint64_t fd, uint64_t ubuf, uint64_t n)
{
	struct file *f = fget(fd);
	uint64_t left;

	if (!f)
		return -EBADF;
	if (f->f_console)
		return 0; /* no keyboard yet: the console reads as end of file */
	if (S_ISDIR(f->f_inode->i_mode))
		return -EISDIR;
	if (!access_ok(ubuf, n))
		return -EFAULT;
	left = f->f_pos < f->f_inode->i_size ? f->f_inode->i_size - f->f_pos : 0;
	n = MIN(n, left);
	if (copy_to_user(ubuf, f->f_inode->i_data + f->f_pos, n))
		return -EFAULT;
	f->f_pos += n;
	return (long)n;
}

long sys_lseek(uint64_t fd, int64_t off, uint64_t whence)
{
	struct file *f = fget(fd);
	int64_t base;

	if (!f)
		return -EBADF;
	if (f->f_console)
		return -ESPIPE;
	switch (whence) {
	case 0: base = 0; break;
	case 1: base = (int64_t)f->f_pos; break;
	case 2: base = (int64_t)f->f_inode->i_size; break;
	default: return -EINVAL;
	}
	if (base + off < 0)
		return -EINVAL;
	f->f_pos = (uint64_t)(base + off);
	return (long)f->f_pos;
}

bool file_is_console(uint64_t fd)
{
	struct file *f = fget(fd);

	return f && f->f_console;
}

/* fstat: the fields of Linux's x86-64 struct stat that a ramdisk file has. */
long sys_fstat(uint64_t fd, uint64_t ustat)
{
	struct file *f = fget(fd);
	uint64_t st[18] = { 0 }; /* 144 bytes, Linux's x86-64 layout, as 8-byte words */

	if (!f)
		return -EBADF;
	if (f->f_console) {
		st[3] = 0020620; /* st_mode: a character device */
	} else {
		st[1] = f->f_inode->i_ino;
		st[2] = 1;                   /* st_nlink */
		st[3] = f->f_inode->i_mode;  /* st_mode (low 32 bits), st_uid 0 */
		st[6] = f->f_inode->i_size;  /* st_size */
		st[7] = 4096;                /* st_blksize */
		st[8] = (f->f_inode->i_size + 511) / 512;
	}
	return copy_to_user(ustat, st, sizeof(st));
}
