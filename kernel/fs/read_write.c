/* read, write and their relatives on an open file: the checks every file shares (the
 * descriptor's mode, the user range), then the file's own file_operations. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/syscalls.h"
#include "mm/filemap_rw.h"

int64_t default_llseek(struct file *f, int64_t off, int whence)
{
	int64_t base;

	switch (whence) {
	case 0: base = 0; break;
	case 1: base = (int64_t)f->f_pos; break;
	case 2: base = (int64_t)f->f_inode->i_size; break;
	default: return -EINVAL;
	}
	if (base + off < 0)
		return -EINVAL;
	f->f_pos = (uint64_t)(base + off);
	return (int64_t)f->f_pos;
}

int64_t no_llseek(struct file *f, int64_t off, int whence)
{
	(void)f;
	(void)off;
	(void)whence;
	return -ESPIPE;
}

int64_t noop_llseek(struct file *f, int64_t off, int whence)
{
	(void)off;
	(void)whence;
	return (int64_t)f->f_pos;
}

/* Linux's vfs_read and vfs_write: the mode, then whether the file can, then the range. */
static long vfs_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	if (!(f->f_mode & FMODE_READ))
		return -EBADF;
	if (!f->f_op || !f->f_op->read)
		return -EINVAL;
	if (!access_ok(ubuf, n))
		return -EFAULT;
	return f->f_op->read(f, ubuf, n, pos);
}

static long vfs_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	if (!(f->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!f->f_op || !f->f_op->write)
		return -EINVAL;
	if (!access_ok(ubuf, n))
		return -EFAULT;
	return f->f_op->write(f, ubuf, n, pos);
}

long sys_read(uint64_t fd, uint64_t ubuf, uint64_t n)
{
	struct file *f = fget(fd);

	return f ? vfs_read(f, ubuf, n, &f->f_pos) : -EBADF;
}

long sys_write(uint64_t fd, uint64_t ubuf, uint64_t n)
{
	struct file *f = fget(fd);

	return f ? vfs_write(f, ubuf, n, &f->f_pos) : -EBADF;
}

/* pread64 and pwrite64: at pos, f_pos left alone, on a file that can seek (else -ESPIPE). */
static long rw_at(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t pos, bool write)
{
	struct file *f;
	uint64_t p = (uint64_t)pos;

	if (pos < 0)
		return -EINVAL;
	f = fget(fd);
	if (!f)
		return -EBADF;
	if (!(f->f_mode & (write ? FMODE_PWRITE : FMODE_PREAD)))
		return -ESPIPE;
	return write ? vfs_write(f, ubuf, n, &p) : vfs_read(f, ubuf, n, &p);
}

long sys_pread64(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t pos)
{
	return rw_at(fd, ubuf, n, pos, false);
}

long sys_pwrite64(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t pos)
{
	return rw_at(fd, ubuf, n, pos, true);
}

#define UIO_MAXIOV 1024

long sys_writev(uint64_t fd, uint64_t uiov, uint64_t cnt)
{
	struct {
		uint64_t base, len;
	} iov;
	struct file *f = fget(fd);
	long total = 0, r;

	if (!f || !(f->f_mode & FMODE_WRITE))
		return -EBADF;
	if (cnt > UIO_MAXIOV)
		return -EINVAL;
	for (uint64_t i = 0; i < cnt; i++) {
		if (copy_from_user(&iov, uiov + i * sizeof(iov), sizeof(iov)))
			return -EFAULT;
		r = vfs_write(f, iov.base, iov.len, &f->f_pos);
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((uint64_t)r < iov.len)
			break; /* a short write ends the call, as Linux's */
	}
	return total;
}

long sys_lseek(uint64_t fd, int64_t off, uint64_t whence)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if (whence > 2)
		return -EINVAL;
	if (!(f->f_mode & FMODE_LSEEK))
		return no_llseek(f, off, (int)whence);
	if (f->f_op && f->f_op->llseek)
		return f->f_op->llseek(f, off, (int)whence);
	return default_llseek(f, off, (int)whence);
}

/* sendfile(out, in, offset, count): from a file with a page cache to any file that takes
 * bytes from the kernel (splice_write), through a kernel buffer. */
long sys_sendfile(uint64_t out_fd, uint64_t in_fd, uint64_t uoffset, uint64_t count)
{
	struct file *out = fget(out_fd), *in = fget(in_fd);
	uint64_t pos, n = 0;
	char chunk[256];
	long r = 0;

	if (!in || !(in->f_mode & FMODE_READ) || !out || !(out->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!in->f_inode->i_mapping || !out->f_op || !out->f_op->splice_write)
		return -EINVAL;
	pos = in->f_pos;
	if (uoffset && copy_from_user(&pos, uoffset, sizeof(pos)))
		return -EFAULT;
	while (n < count) {
		r = kernel_read(in->f_inode, pos, chunk, MIN(sizeof(chunk), count - n));
		if (r <= 0)
			break;
		r = out->f_op->splice_write(out, chunk, (uint64_t)r, &out->f_pos);
		if (r <= 0)
			break;
		n += (uint64_t)r;
		pos += (uint64_t)r;
	}
	if (r < 0 && n == 0)
		return r;
	if (uoffset)
		return copy_to_user(uoffset, &pos, sizeof(pos)) ? -EFAULT : (long)n;
	in->f_pos = pos;
	return (long)n;
}
