/* read, write and their relatives on an open file: the checks every file shares (the
 * descriptor's mode, the user range), then the file's own file_operations. */
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/fs/poll.h"
#include "kernel/fs/uio.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"
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

/*
 * The vector calls: readv, writev, preadv, pwritev, preadv2, pwritev2 (Linux's do_readv and
 * its kin). import_iovec copies the user's iovec array and checks it whole before any byte
 * moves, in Linux's order: more than UIO_MAXIOV segments EINVAL, an unreadable array EFAULT,
 * a negative length EINVAL, then a segment outside user space EFAULT.
 */
#define MAX_RW_COUNT (0x7fffffffUL & ~0xfffUL) /* INT_MAX & PAGE_MASK: one call's bytes */

/* preadv2/pwritev2's flags, Linux's values */
#define RWF_HIPRI 0x01
#define RWF_DSYNC 0x02
#define RWF_SYNC 0x04
#define RWF_NOWAIT 0x08
#define RWF_APPEND 0x10
#define RWF_NOAPPEND 0x20
#define RWF_ATOMIC 0x40
#define RWF_DONTCACHE 0x80
#define RWF_NOSIGNAL 0x100 /* a write to a broken pipe: EPIPE without SIGPIPE (Linux 6.18) */
#define RWF_SUPPORTED 0x1ff

long iovec_from_user(uint64_t uiov, uint64_t cnt, struct iovec *fast, struct iovec **iovp)
{
	struct iovec *iov = fast;

	*iovp = fast;
	if (cnt == 0)
		return 0;
	if (cnt > UIO_MAXIOV)
		return -EINVAL;
	if (cnt > UIO_FASTIOV) {
		iov = kmalloc(cnt * sizeof(*iov));
		if (!iov)
			return -ENOMEM;
		*iovp = iov;
	}
	if (copy_from_user(iov, uiov, cnt * sizeof(*iov)))
		return -EFAULT;
	for (uint64_t i = 0; i < cnt; i++)
		if ((int64_t)iov[i].iov_len < 0)
			return -EINVAL;
	return 0;
}

long import_iovec(uint64_t uiov, uint64_t cnt, struct iovec *fast, struct iovec **iovp)
{
	struct iovec *iov;
	uint64_t total = 0;
	long err = iovec_from_user(uiov, cnt, fast, iovp);

	if (err)
		return err;
	iov = *iovp;
	for (uint64_t i = 0; i < cnt; i++) {
		if (!access_ok(iov[i].iov_base, iov[i].iov_len))
			return -EFAULT;
		iov[i].iov_len = MIN(iov[i].iov_len, MAX_RW_COUNT - total);
		total += iov[i].iov_len;
	}
	return (long)total;
}

/* What the flags ask of this file: -EOPNOTSUPP for a flag faultline does not know or cannot
 * keep, as Linux answers for a file without it: RWF_NOWAIT but on a pipe (Linux's pipes are
 * FMODE_NOWAIT; a regular file here, as tmpfs's, may sleep), RWF_ATOMIC (no store that
 * promises untorn writes), RWF_DONTCACHE (no uncached page-cache I/O, as tmpfs). */
static long rw_flags_check(struct file *f, uint64_t flags)
{
	if (flags & ~(uint64_t)RWF_SUPPORTED)
		return -EOPNOTSUPP;
	if ((flags & RWF_NOWAIT) && !S_ISFIFO(f->f_inode->i_mode))
		return -EOPNOTSUPP;
	if (flags & (RWF_ATOMIC | RWF_DONTCACHE))
		return -EOPNOTSUPP;
	return 0;
}

/* Linux's do_loop_readv_writev: segment by segment, ending at the first short one. A read
 * goes on to a later segment only if the file has data now (its poll says POLLIN), so that a
 * pipe's readv, like Linux's one read_iter call, takes what is there and does not wait for
 * more. */
static long loop_rw(struct file *f, struct iovec *iov, uint64_t cnt, uint64_t *pos, bool write)
{
	long total = 0, r = 0;

	for (uint64_t i = 0; i < cnt; i++) {
		if (!iov[i].iov_len)
			continue;
		if (!write && total && f->f_op->poll && !(f->f_op->poll(f, NULL) & POLLIN))
			break;
		r = write ? f->f_op->write(f, iov[i].iov_base, iov[i].iov_len, pos) :
			    f->f_op->read(f, iov[i].iov_base, iov[i].iov_len, pos);
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((uint64_t)r < iov[i].iov_len)
			break;
	}
	return total;
}

/* Linux's vfs_readv and vfs_writev: the mode, the iovec, then the flags (only if some byte is
 * to move: a call of 0 bytes succeeds whatever its flags), the call, and the RWF_*SYNC sync. */
static long vfs_rw_vec(struct file *f, uint64_t uiov, uint64_t cnt, uint64_t *pos,
		       uint64_t flags, bool write)
{
	struct iovec fast[UIO_FASTIOV], *iov;
	unsigned int saved = f->f_flags;
	uint64_t sigpipe = current->pending; /* whether SIGPIPE was there before */
	long r;

	if (!(f->f_mode & (write ? FMODE_WRITE : FMODE_READ)))
		return -EBADF;
	if (!f->f_op || !(write ? f->f_op->write : f->f_op->read))
		return -EINVAL;
	r = import_iovec(uiov, cnt, fast, &iov);
	if (r <= 0)
		goto out;
	r = rw_flags_check(f, flags);
	if (r < 0)
		goto out;
	/* RWF_APPEND, RWF_NOAPPEND and a pipe's RWF_NOWAIT: O_APPEND or O_NONBLOCK for this call
	 * alone (the BKL keeps f_flags ours until the call sleeps, and it reads them first) */
	if (write && (flags & RWF_APPEND))
		f->f_flags |= O_APPEND;
	if (write && (flags & RWF_NOAPPEND))
		f->f_flags &= ~(unsigned int)O_APPEND;
	if (flags & RWF_NOWAIT)
		f->f_flags |= O_NONBLOCK;
	r = loop_rw(f, iov, cnt, pos, write);
	f->f_flags = (f->f_flags & ~(unsigned int)(O_APPEND | O_NONBLOCK)) |
		     (saved & (O_APPEND | O_NONBLOCK));
	/* RWF_NOSIGNAL: the SIGPIPE a broken pipe just sent the writer is taken back */
	if (r == -EPIPE && (flags & RWF_NOSIGNAL) && !(sigpipe & sigmask(SIGPIPE))) {
		uint64_t irq = local_irq_save();

		current->pending &= ~sigmask(SIGPIPE);
		local_irq_restore(irq);
	}
	if (write && r > 0 && (flags & (RWF_DSYNC | RWF_SYNC)) && f->f_op->fsync) {
		long err = f->f_op->fsync(f, !(flags & RWF_SYNC));

		if (err < 0)
			r = err;
	}
out:
	if (iov != fast)
		kfree(iov);
	return r;
}

/* at < 0: at the file position, which moves; else at that offset, on a file that can seek */
static long do_rw_vec(uint64_t fd, uint64_t uiov, uint64_t cnt, int64_t at, uint64_t flags,
		      bool write)
{
	struct file *f;
	uint64_t pos = (uint64_t)at;

	if (at < -1)
		return -EINVAL;
	f = fget(fd);
	if (!f)
		return -EBADF;
	if (at == -1)
		return vfs_rw_vec(f, uiov, cnt, &f->f_pos, flags, write);
	if (!(f->f_mode & (write ? FMODE_PWRITE : FMODE_PREAD)))
		return -ESPIPE;
	return vfs_rw_vec(f, uiov, cnt, &pos, flags, write);
}

long sys_readv(uint64_t fd, uint64_t uiov, uint64_t cnt)
{
	return do_rw_vec(fd, uiov, cnt, -1, 0, false);
}

long sys_writev(uint64_t fd, uint64_t uiov, uint64_t cnt)
{
	return do_rw_vec(fd, uiov, cnt, -1, 0, true);
}

/* The offset comes in two registers for 32-bit callers (pos_l, pos_h); on x86-64 pos_l is
 * all of it (Linux's pos_from_hilo shifts pos_h out). A negative offset is EINVAL. */
long sys_preadv(uint64_t fd, uint64_t uiov, uint64_t cnt, int64_t pos_l, uint64_t pos_h)
{
	(void)pos_h;
	return pos_l < 0 ? -EINVAL : do_rw_vec(fd, uiov, cnt, pos_l, 0, false);
}

long sys_pwritev(uint64_t fd, uint64_t uiov, uint64_t cnt, int64_t pos_l, uint64_t pos_h)
{
	(void)pos_h;
	return pos_l < 0 ? -EINVAL : do_rw_vec(fd, uiov, cnt, pos_l, 0, true);
}

/* preadv2 and pwritev2: offset -1 is the file position (any file, as readv), flags RWF_* */
long sys_preadv2(uint64_t fd, uint64_t uiov, uint64_t cnt, int64_t pos_l, uint64_t pos_h,
		 uint64_t flags)
{
	(void)pos_h;
	return do_rw_vec(fd, uiov, cnt, pos_l, flags, false);
}

long sys_pwritev2(uint64_t fd, uint64_t uiov, uint64_t cnt, int64_t pos_l, uint64_t pos_h,
		  uint64_t flags)
{
	(void)pos_h;
	return do_rw_vec(fd, uiov, cnt, pos_l, flags, true);
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
	if (n)
		fsnotify_access(in);
	if (uoffset)
		return copy_to_user(uoffset, &pos, sizeof(pos)) ? -EFAULT : (long)n;
	in->f_pos = pos;
	return (long)n;
}
