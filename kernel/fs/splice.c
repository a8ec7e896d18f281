/* splice, tee and vmsplice (Linux's fs/splice.c): bytes moved between a pipe and a file, two
 * pipes, or a pipe and user memory. Linux hands pages over; here the bytes are copied through
 * a page of the kernel's (SPLICE_F_MOVE and SPLICE_F_GIFT are hints Linux too may ignore). */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/pipe.h"
#include "kernel/fs/uio.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"
#include "mm/slab.h"

#define SPLICE_F_MOVE 0x01
#define SPLICE_F_NONBLOCK 0x02 /* do not wait on the pipes (the files may still) */
#define SPLICE_F_MORE 0x04
#define SPLICE_F_GIFT 0x08
#define SPLICE_F_ALL (SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE | SPLICE_F_GIFT)

#define MAX_RW_COUNT (0x7fffffffUL & ~0xfffUL)

/* Linux's ipipe_prep: wait for bytes in pipe; an empty one without a writer is no error (the
 * caller then moves nothing). */
static int wait_for_bytes(struct pipe_inode_info *pipe, unsigned int flags)
{
	while (!pipe->len && pipe->writers) {
		if (flags & SPLICE_F_NONBLOCK)
			return -EAGAIN;
		int err = wait_event_interruptible(pipe->wait, pipe->len || !pipe->writers);

		if (err)
			return err;
	}
	return 0;
}

/* Linux's opipe_prep: wait while pipe is full (no reader: SIGPIPE and EPIPE). */
static int wait_for_room(struct pipe_inode_info *pipe, unsigned int flags)
{
	while (pipe->len == pipe->size) {
		if (!pipe->readers) {
			send_sig(SIGPIPE, current);
			return -EPIPE;
		}
		if (flags & SPLICE_F_NONBLOCK)
			return -EAGAIN;
		int err = wait_event_interruptible(pipe->wait,
						   pipe->len < pipe->size || !pipe->readers);

		if (err)
			return err;
	}
	return 0;
}

/* Linux's wait_for_space: a reader first, then room. */
static int wait_for_space(struct pipe_inode_info *pipe, unsigned int flags)
{
	if (!pipe->readers) {
		send_sig(SIGPIPE, current);
		return -EPIPE;
	}
	return wait_for_room(pipe, flags);
}

/* The bounce page every move goes through: NULL without memory. */
static void *get_bounce(struct page **page)
{
	*page = alloc_page(0);
	return *page ? page_address(*page) : NULL;
}

/* From a file with a page cache at *pos into the pipe: at most what the pipe has room for
 * when the call starts (Linux's filemap_splice_read fills the free slots), 0 at end of file. */
static long splice_file_to_pipe(struct file *in, struct pipe_inode_info *pipe, uint64_t *pos,
				uint64_t len, unsigned int flags)
{
	struct page *page;
	uint64_t done = 0;
	long r = 0, put;
	void *buf;

	if (!in->f_inode->i_mapping || !S_ISREG(in->f_inode->i_mode))
		return -EINVAL; /* Linux: no splice_read */
	r = wait_for_space(pipe, flags);
	if (r)
		return r;
	buf = get_bounce(&page);
	if (!buf)
		return -ENOMEM;
	len = MIN(len, pipe->size - pipe->len);
	while (done < len) {
		r = kernel_read(in->f_inode, *pos, buf, MIN(len - done, PAGE_SIZE));
		if (r <= 0)
			break;
		put = pipe_fill(pipe, buf, (uint64_t)r); /* (the read may have slept: less room) */
		if (put <= 0) {
			r = put;
			break;
		}
		done += (uint64_t)put;
		*pos += (uint64_t)put;
		if (put < r)
			break;
	}
	__free_page(page);
	if (done)
		pipe_wake(pipe);
	return done ? (long)done : r;
}

/* From the pipe into a file that takes kernel bytes (splice_write) at *pos: waits for the first
 * bytes, then takes what comes without waiting again (Linux's splice_from_pipe_next). */
static long splice_pipe_to_file(struct pipe_inode_info *pipe, struct file *out, uint64_t *pos,
				uint64_t len, unsigned int flags)
{
	struct page *page;
	uint64_t done = 0, n;
	long r = 0;
	void *buf;

	if (!out->f_op || !out->f_op->splice_write)
		return -EINVAL;
	buf = get_bounce(&page);
	if (!buf)
		return -ENOMEM;
	while (done < len) {
		if (!pipe->len) {
			if (!pipe->writers || done)
				break;
			r = wait_for_bytes(pipe, flags);
			if (r)
				break;
			continue;
		}
		n = pipe_peek(pipe, 0, buf, MIN(len - done, PAGE_SIZE));
		r = out->f_op->splice_write(out, buf, n, pos);
		if (r <= 0)
			break;
		pipe_advance(pipe, (uint64_t)r);
		pipe_wake(pipe); /* room for writers */
		done += (uint64_t)r;
		if ((uint64_t)r < n)
			break;
	}
	__free_page(page);
	return done ? (long)done : r;
}

/* Linux's splice_pipe_to_pipe (tee: link_pipe, which copies and leaves in the bytes). */
static long pipe_to_pipe(struct pipe_inode_info *ipipe, struct pipe_inode_info *opipe,
			 uint64_t len, unsigned int flags, bool tee)
{
	uint64_t done = 0, n;
	struct page *page;
	long r;
	void *buf = get_bounce(&page);

	if (!buf)
		return -ENOMEM;
retry:
	r = wait_for_bytes(ipipe, flags);
	if (!r)
		r = wait_for_room(opipe, flags);
	while (!r && len) {
		uint64_t have = ipipe->len - (tee ? done : 0);

		if (!opipe->readers) {
			send_sig(SIGPIPE, current);
			r = done ? 0 : -EPIPE;
			break;
		}
		if (!have && !ipipe->writers)
			break;
		if (!have || opipe->len == opipe->size) {
			if (done || tee)
				break; /* tee takes what is there now */
			if (flags & SPLICE_F_NONBLOCK) {
				r = -EAGAIN;
				break;
			}
			goto retry;
		}
		n = pipe_peek(ipipe, tee ? done : 0, buf, MIN(len, PAGE_SIZE));
		r = pipe_fill(opipe, buf, n);
		if (r <= 0)
			break;
		if (!tee)
			pipe_advance(ipipe, (uint64_t)r);
		done += (uint64_t)r;
		len -= (uint64_t)r;
		r = 0;
	}
	__free_page(page);
	if (done) {
		pipe_wake(opipe);
		if (!tee)
			pipe_wake(ipipe);
	}
	return done ? (long)done : r;
}

/* Linux's do_splice, after the offsets came in: which end is a pipe decides the move. */
static long do_splice(struct file *in, uint64_t *off_in, struct file *out, uint64_t *off_out,
		      uint64_t len, unsigned int flags)
{
	struct pipe_inode_info *ipipe = get_pipe_info(in), *opipe = get_pipe_info(out);
	uint64_t *pos;

	if (!(in->f_mode & FMODE_READ) || !(out->f_mode & FMODE_WRITE))
		return -EBADF;
	if (ipipe && opipe) {
		if (off_in || off_out)
			return -ESPIPE;
		if (ipipe == opipe)
			return -EINVAL;
		if ((in->f_flags | out->f_flags) & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		return pipe_to_pipe(ipipe, opipe, len, flags, false);
	}
	if (ipipe) {
		if (off_out && !(out->f_mode & FMODE_PWRITE))
			return -EINVAL;
		if (out->f_flags & O_APPEND)
			return -EINVAL;
		pos = off_out ? off_out : &out->f_pos;
		if ((int64_t)*pos < 0)
			return -EINVAL;
		if (in->f_flags & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		return splice_pipe_to_file(ipipe, out, pos, MIN(len, MAX_RW_COUNT), flags);
	}
	if (opipe) {
		if (off_in && !(in->f_mode & FMODE_PREAD))
			return -EINVAL;
		pos = off_in ? off_in : &in->f_pos;
		if ((int64_t)*pos < 0)
			return -EINVAL;
		if (out->f_flags & O_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
		return splice_file_to_pipe(in, opipe, pos, MIN(len, MAX_RW_COUNT), flags);
	}
	return -EINVAL;
}

long sys_splice(uint64_t fd_in, uint64_t uoff_in, uint64_t fd_out, uint64_t uoff_out,
		uint64_t len, uint64_t flags)
{
	struct file *in, *out;
	uint64_t off_in, off_out;
	long r;

	if (!len)
		return 0;
	if (flags & ~(uint64_t)SPLICE_F_ALL)
		return -EINVAL;
	in = fget(fd_in);
	out = in ? fget(fd_out) : NULL;
	if (!out)
		return -EBADF;
	/* a pipe has no offset: ESPIPE before the pointer is read (Linux's __do_splice) */
	if ((uoff_in && get_pipe_info(in)) || (uoff_out && get_pipe_info(out)))
		return -ESPIPE;
	if (uoff_out && copy_from_user(&off_out, uoff_out, sizeof(off_out)))
		return -EFAULT;
	if (uoff_in && copy_from_user(&off_in, uoff_in, sizeof(off_in)))
		return -EFAULT;
	r = do_splice(in, uoff_in ? &off_in : NULL, out, uoff_out ? &off_out : NULL, len,
		      (unsigned int)flags);
	if (r < 0)
		return r;
	if (uoff_out && copy_to_user(uoff_out, &off_out, sizeof(off_out)))
		return -EFAULT;
	if (uoff_in && copy_to_user(uoff_in, &off_in, sizeof(off_in)))
		return -EFAULT;
	return r;
}

long sys_tee(uint64_t fd_in, uint64_t fd_out, uint64_t len, uint64_t flags)
{
	struct pipe_inode_info *ipipe, *opipe;
	struct file *in, *out;

	if (flags & ~(uint64_t)SPLICE_F_ALL)
		return -EINVAL;
	if (!len)
		return 0;
	in = fget(fd_in);
	out = in ? fget(fd_out) : NULL;
	if (!out)
		return -EBADF;
	if (!(in->f_mode & FMODE_READ) || !(out->f_mode & FMODE_WRITE))
		return -EBADF;
	ipipe = get_pipe_info(in);
	opipe = get_pipe_info(out);
	if (!ipipe || !opipe || ipipe == opipe)
		return -EINVAL;
	if ((in->f_flags | out->f_flags) & O_NONBLOCK)
		flags |= SPLICE_F_NONBLOCK;
	return pipe_to_pipe(ipipe, opipe, len, (unsigned int)flags, true);
}

/* vmsplice into a pipe: each user page's bytes in turn, as many as there is room for once
 * there is some (not atomic, as Linux's iter_to_pipe); a page that faults ends it. */
static long vmsplice_to_pipe(struct pipe_inode_info *pipe, const struct iovec *iov,
			     uint64_t cnt, unsigned int flags, void *buf)
{
	uint64_t done = 0;
	long r = wait_for_space(pipe, flags);

	for (uint64_t i = 0; !r && i < cnt; i++) {
		for (uint64_t off = 0; off < iov[i].iov_len;) {
			uint64_t at = iov[i].iov_base + off;
			uint64_t n = MIN(iov[i].iov_len - off, PAGE_SIZE - (at & ~PAGE_MASK));

			if (pipe->len == pipe->size)
				goto out;
			if (copy_from_user(buf, at, n)) {
				r = -EFAULT;
				goto out;
			}
			r = pipe_fill(pipe, buf, n);
			if (r <= 0)
				goto out;
			done += (uint64_t)r;
			off += (uint64_t)r;
			r = 0;
		}
	}
out:
	if (done)
		pipe_wake(pipe);
	return done ? (long)done : r;
}

/* vmsplice out of a pipe: waits for the first bytes (SPLICE_F_NONBLOCK: EAGAIN; the file's
 * O_NONBLOCK is not asked, as Linux's vmsplice_to_user), then takes what there is. */
static long vmsplice_to_user(struct pipe_inode_info *pipe, const struct iovec *iov,
			     uint64_t cnt, unsigned int flags, void *buf)
{
	uint64_t done = 0;
	long r = 0;

	for (uint64_t i = 0; !r && i < cnt; i++) {
		for (uint64_t off = 0; off < iov[i].iov_len;) {
			uint64_t at = iov[i].iov_base + off, n;

			if (!pipe->len) {
				if (done || !pipe->writers)
					goto out;
				r = wait_for_bytes(pipe, flags);
				if (r)
					goto out;
				continue;
			}
			n = pipe_peek(pipe, 0, buf, MIN(iov[i].iov_len - off,
							 PAGE_SIZE - (at & ~PAGE_MASK)));
			if (copy_to_user(at, buf, n)) {
				r = -EFAULT;
				goto out;
			}
			pipe_advance(pipe, n);
			done += n;
			off += n;
		}
	}
out:
	if (done)
		pipe_wake(pipe); /* room for writers */
	return done ? (long)done : r;
}

/* The file's mode says the direction: writable, into the pipe; else readable, out of it. */
long sys_vmsplice(uint64_t fd, uint64_t uiov, uint64_t nr_segs, uint64_t flags)
{
	struct iovec fast[UIO_FASTIOV], *iov = fast;
	struct pipe_inode_info *pipe;
	struct page *page = NULL;
	struct file *f;
	void *buf;
	long r;

	if (flags & ~(uint64_t)SPLICE_F_ALL)
		return -EINVAL;
	f = fget(fd);
	if (!f || !(f->f_mode & (FMODE_READ | FMODE_WRITE)))
		return -EBADF;
	r = import_iovec(uiov, nr_segs, fast, &iov);
	if (r <= 0)
		goto out;
	pipe = get_pipe_info(f);
	buf = pipe ? get_bounce(&page) : NULL;
	if (!buf) {
		r = pipe ? -ENOMEM : -EBADF;
		goto out;
	}
	if (f->f_mode & FMODE_WRITE)
		r = vmsplice_to_pipe(pipe, iov, nr_segs, (unsigned int)flags, buf);
	else
		r = vmsplice_to_user(pipe, iov, nr_segs, (unsigned int)flags, buf);
	__free_page(page);
out:
	if (iov != fast)
		kfree(iov);
	return r;
}
