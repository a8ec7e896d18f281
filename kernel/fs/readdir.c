/* getdents64: a directory's entries in Linux's struct linux_dirent64 records. The file system
 * lists them (its readdir op); this file packs each into the caller's buffer. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/syscalls.h"
#include "kernel/lib/string.h"

struct getdents_buf {
	uint64_t udirp, count, done;
	long error; /* why the last entry was not taken: -EINVAL (no room) or -EFAULT */
};

static int filldir64(void *dirent, const char *name, size_t len, uint64_t pos,
		     unsigned long ino, unsigned int type)
{
	struct getdents_buf *buf = dirent;
	uint8_t rec[24 + NAME_MAX + 1];
	size_t reclen = ALIGN_UP(19 + len + 1, 8);

	if (buf->done + reclen > buf->count) {
		buf->error = -EINVAL;
		return -1;
	}
	memset(rec, 0, reclen);
	*(uint64_t *)rec = ino;
	*(uint64_t *)(rec + 8) = pos; /* d_off: where the next entry starts */
	*(uint16_t *)(rec + 16) = (uint16_t)reclen;
	rec[18] = (uint8_t)type;
	memcpy(rec + 19, name, len);
	if (copy_to_user(buf->udirp + buf->done, rec, reclen)) {
		buf->error = -EFAULT;
		return -1;
	}
	buf->done += reclen;
	return 0;
}

long sys_getdents64(uint64_t fd, uint64_t udirp, uint64_t count)
{
	struct file *f = fget(fd);
	struct getdents_buf buf = { udirp, count, 0, 0 };
	int err;

	if (!f)
		return -EBADF;
	if (!f->f_op || !f->f_op->readdir)
		return -ENOTDIR;
	if (f->f_inode->i_nlink == 0)
		return -ENOENT; /* removed (Linux too); its parent may be gone */
	err = f->f_op->readdir(f, &buf, filldir64);
	fsnotify_access(f); /* every listing, the end's too, as Linux's iterate_dir */
	file_accessed(f);
	if (err)
		return err;
	if (buf.done)
		return (long)buf.done;
	return buf.error; /* nothing fit: -EINVAL; a bad buffer: -EFAULT; the end: 0 */
}
