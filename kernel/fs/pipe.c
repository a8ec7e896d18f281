/* Pipes: a ring of bytes (PIPE_DEF_SIZE, or F_SETPIPE_SZ's) between a read end and a write end,
 * as Linux's fs/pipe.c (whose ring is of pages; here of bytes, on pages taken as the ring first
 * reaches them). Reads sleep while it is empty and a writer is left; writes sleep while it is
 * full, and a write of at most PIPE_BUF bytes is atomic: it waits for room for all of it. A
 * writer with O_DIRECT (pipe2's packet mode) writes packets: see pipe_write_packets. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/pipe.h"
#include "kernel/fs/poll.h"
#include "kernel/syscalls.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/wait.h"
#include "kernel/signal/signal.h"
#include "mm/gfp.h"
#include "mm/slab.h"

#define FIONREAD 0x541b

static struct super_block *pipe_mnt;

/* Copy n bytes between the ring at offset off and user memory, one piece per ring page and
 * user page so that a fault gives the bytes before it. 0 or -EFAULT, *copied what was copied.
 * The user range was checked whole (access_ok) by read, write or the vector calls' iovec
 * import, the only ways here. */
static long pipe_copy(struct pipe_inode_info *pipe, uint64_t off, uint64_t ubuf, uint64_t n,
		      bool to_user, uint64_t *copied)
{
	struct page **pages = pipe->pages;
	uint64_t mask = pipe->size - 1, done = 0;
	long err = 0;

	while (done < n) {
		uint64_t o = off & mask, in_page = o & ~PAGE_MASK;
		uint64_t chunk = MIN(n - done, PAGE_SIZE - in_page);
		struct page **p = &pages[o / PAGE_SIZE];
		uint8_t *ring;

		chunk = MIN(chunk, PAGE_SIZE - (ubuf & ~PAGE_MASK));
		if (!*p && !(*p = alloc_page(0))) {
			err = -ENOMEM;
			break;
		}
		ring = (uint8_t *)page_address(*p) + in_page;
		if (to_user ? __copy_to_user(ubuf, ring, chunk)
			    : __copy_from_user(ring, ubuf, chunk)) {
			err = -EFAULT;
			break;
		}
		done += chunk;
		off += chunk;
		ubuf += chunk;
	}
	*copied = done;
	return err;
}

/* Drop the first n unread bytes: the packets wholly among them go, one they end inside keeps
 * its rest. (A splice that slept between its peek and this, in a file's write, may find that
 * another reader took some meanwhile: no more than there are go.) */
void pipe_advance(struct pipe_inode_info *pipe, uint64_t n)
{
	uint64_t mask = pipe->size - 1;

	n = MIN(n, pipe->len);
	while (pipe->nr_packets) {
		struct pipe_packet *p = &pipe->packets[pipe->first_packet];
		uint64_t gap = (p->pos - pipe->start) & mask; /* plain bytes before it */

		if (gap >= n)
			break;
		if (gap + p->len > n) {
			p->len -= (uint32_t)(n - gap);
			p->pos = (uint32_t)((pipe->start + n) & mask);
			break;
		}
		pipe->first_packet++;
		pipe->first_packet %= (unsigned int)(pipe->size / PAGE_SIZE);
		pipe->nr_packets--;
	}
	pipe->start = (pipe->start + n) & mask;
	pipe->len -= n;
}

/* A read of a pipe that holds packets: the plain bytes before the first (as many as n takes),
 * then that packet, of which what n leaves no room for is dropped, as Linux's pipe_read ends
 * at a PIPE_BUF_FLAG_PACKET buffer. */
static long pipe_read_packets(struct pipe_inode_info *pipe, uint64_t ubuf, uint64_t n)
{
	uint64_t total = 0, done;
	long err = 0;

	while (n && pipe->nr_packets) {
		struct pipe_packet *p = &pipe->packets[pipe->first_packet];
		uint64_t gap = (p->pos - pipe->start) & (pipe->size - 1);
		uint64_t plen = p->len;

		err = pipe_copy(pipe, pipe->start, ubuf + total, MIN(n, gap ? gap : plen), true,
				&done);
		if (err && !gap)
			break; /* a packet the caller could not take stays whole */
		pipe_advance(pipe, gap ? done : plen);
		total += done;
		n -= done;
		if (err || !gap)
			break;
	}
	if (total)
		pipe_wake(pipe); /* room for writers */
	return total ? (long)total : err;
}

static long pipe_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct pipe_inode_info *pipe = f->f_inode->i_private;
	uint64_t done;
	long err;

	(void)pos;
	if (!n)
		return 0;
	while (!pipe->len) {
		if (!pipe->writers)
			return 0; /* end of file: no writer is left */
		if (f->f_flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(pipe->wait, pipe->len || !pipe->writers);
		if (err)
			return err;
	}
	if (unlikely(pipe->nr_packets))
		return pipe_read_packets(pipe, ubuf, n);
	err = pipe_copy(pipe, pipe->start, ubuf, MIN(n, pipe->len), true, &done);
	pipe->start = (pipe->start + done) & (pipe->size - 1);
	pipe->len -= done;
	if (done)
		pipe_wake(pipe); /* room for writers */
	return done ? (long)done : err;
}

/* No reader is left: the writer gets SIGPIPE, and EPIPE if it survives it. */
static long broken_pipe(void)
{
	send_sig(SIGPIPE, current);
	return -EPIPE;
}

/* Room for a packet of want bytes: a record free (a packet takes a whole slot of Linux's ring,
 * however short) and the bytes. */
static bool packet_room(struct pipe_inode_info *pipe, uint64_t want)
{
	return pipe->nr_packets < pipe->size / PAGE_SIZE && pipe->size - pipe->len >= want;
}

/* A write in packet mode (Linux 3.4's): each page of it, at most PIPE_BUF bytes, is a packet of
 * its own (so a write of at most PIPE_BUF bytes is one packet, whole). */
static long pipe_write_packets(struct file *f, struct pipe_inode_info *pipe, uint64_t ubuf,
			       uint64_t n)
{
	uint64_t written = 0, done;
	long err = 0;

	if (!pipe->packets) {
		pipe->packets = kzalloc(pipe->size / PAGE_SIZE * sizeof(*pipe->packets));
		if (!pipe->packets)
			return -ENOMEM;
	}
	while (written < n) {
		uint64_t want = MIN(n - written, PIPE_BUF), at;
		unsigned int slot;

		if (!pipe->readers) {
			err = broken_pipe();
			break;
		}
		if (!packet_room(pipe, want)) {
			if (f->f_flags & O_NONBLOCK) {
				err = -EAGAIN;
				break;
			}
			err = wait_event_interruptible(pipe->wait, packet_room(pipe, want) ||
								   !pipe->readers);
			if (err)
				break;
			continue;
		}
		at = (pipe->start + pipe->len) & (pipe->size - 1);
		err = pipe_copy(pipe, at, ubuf + written, want, false, &done);
		if (done) {
			slot = (pipe->first_packet + pipe->nr_packets++) %
			       (unsigned int)(pipe->size / PAGE_SIZE);
			pipe->packets[slot] = (struct pipe_packet){ (uint32_t)at, (uint32_t)done };
			pipe->len += done;
			written += done;
			wake_up(&pipe->wait);
		}
		if (err)
			break;
	}
	return written ? (long)written : err;
}

static long pipe_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct pipe_inode_info *pipe = f->f_inode->i_private;
	uint64_t written = 0, done;
	long err = 0;

	(void)pos;
	/* (a write of nothing succeeds whatever the pipe, as Linux's: the loop asks for readers) */
	if (unlikely(f->f_flags & O_DIRECT))
		return pipe_write_packets(f, pipe, ubuf, n);
	while (written < n) {
		/* An atomic write waits for room for all of it, any other for some room. */
		uint64_t want = n <= PIPE_BUF ? n : 1;

		if (!pipe->readers) {
			err = broken_pipe();
			break;
		}
		if (pipe->size - pipe->len < want) {
			if (f->f_flags & O_NONBLOCK) {
				err = -EAGAIN;
				break;
			}
			err = wait_event_interruptible(pipe->wait, pipe->size - pipe->len >= want ||
								   !pipe->readers);
			if (err)
				break;
			continue;
		}
		err = pipe_copy(pipe, pipe->start + pipe->len, ubuf + written,
				MIN(n - written, pipe->size - pipe->len), false, &done);
		pipe->len += done;
		written += done;
		wake_up(&pipe->wait); /* bytes for readers (the reader mostly sleeps) */
		if (err)
			break;
	}
	return written ? (long)written : err;
}

/* Readable when bytes wait (POLLHUP once no writer is left); writable when an atomic write
 * would fit (POLLERR once no reader is left). */
static unsigned int pipe_poll(struct file *f, struct poll_table_struct *pt)
{
	struct pipe_inode_info *pipe = f->f_inode->i_private;
	unsigned int mask = 0;

	poll_wait(f, &pipe->wait, pt);
	if (f->f_mode & FMODE_READ) {
		if (pipe->len)
			mask |= POLLIN | POLLRDNORM;
		if (!pipe->writers)
			mask |= POLLHUP;
	}
	if (f->f_mode & FMODE_WRITE) {
		if (pipe->size - pipe->len >= PIPE_BUF && pipe->nr_packets < pipe->size / PAGE_SIZE)
			mask |= POLLOUT | POLLWRNORM;
		if (!pipe->readers)
			mask |= POLLERR;
	}
	return mask;
}

static long pipe_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	struct pipe_inode_info *pipe = f->f_inode->i_private;
	int n = (int)pipe->len;

	if (cmd != FIONREAD)
		return -ENOTTY;
	return copy_to_user(arg, &n, sizeof(n));
}

/* Copy n bytes between the ring at offset off and kernel memory buf (pipe_copy's kernel twin,
 * for splice). 0 or -ENOMEM. */
static long pipe_copy_kernel(struct pipe_inode_info *pipe, uint64_t off, void *buf, uint64_t n,
			     bool to_buf)
{
	for (uint64_t done = 0, chunk; done < n; done += chunk) {
		uint64_t o = (off + done) & (pipe->size - 1), in_page = o & ~PAGE_MASK;
		struct page **p = &pipe->pages[o / PAGE_SIZE];
		uint8_t *ring;

		chunk = MIN(n - done, PAGE_SIZE - in_page);
		if (!*p && !(*p = alloc_page(0)))
			return -ENOMEM;
		ring = (uint8_t *)page_address(*p) + in_page;
		if (to_buf)
			memcpy((uint8_t *)buf + done, ring, chunk);
		else
			memcpy(ring, (const uint8_t *)buf + done, chunk);
	}
	return 0;
}

long pipe_fill(struct pipe_inode_info *pipe, const void *buf, uint64_t n)
{
	long err;

	n = MIN(n, pipe->size - pipe->len);
	err = pipe_copy_kernel(pipe, pipe->start + pipe->len, (void *)buf, n, false);
	if (err)
		return err;
	pipe->len += n;
	return (long)n;
}

uint64_t pipe_peek(struct pipe_inode_info *pipe, uint64_t skip, void *buf, uint64_t n)
{
	if (skip >= pipe->len)
		return 0;
	n = MIN(n, pipe->len - skip);
	/* the unread bytes' pages are all there: no allocation, no error */
	BUG_ON(pipe_copy_kernel(pipe, pipe->start + skip, buf, n, true));
	return n;
}

struct pipe_inode_info *alloc_pipe_info(void)
{
	struct pipe_inode_info *pipe = kzalloc(sizeof(*pipe));

	if (!pipe)
		return NULL;
	pipe->size = PIPE_DEF_SIZE;
	pipe->pages = kzalloc(PIPE_DEF_SIZE / PAGE_SIZE * sizeof(*pipe->pages));
	if (!pipe->pages) {
		kfree(pipe);
		return NULL;
	}
	init_waitqueue_head(&pipe->wait);
	return pipe;
}

void free_pipe_info(struct pipe_inode_info *pipe)
{
	for (uint64_t i = 0; i < pipe->size / PAGE_SIZE; i++)
		if (pipe->pages[i])
			__free_page(pipe->pages[i]);
	kfree(pipe->pages);
	kfree(pipe->packets);
	kfree(pipe);
}

/* The last end of a pipe takes its bytes with it: an anonymous pipe's inode goes too, a named
 * pipe's stays (with its name) for the next open. */
static void pipe_release(struct inode *ino, struct file *f)
{
	struct pipe_inode_info *pipe = ino->i_private;

	if (f->f_mode & FMODE_READ)
		pipe->readers--;
	if (f->f_mode & FMODE_WRITE)
		pipe->writers--;
	wake_up(&pipe->wait); /* readers see end of file, writers EPIPE */
	if (pipe->readers || pipe->writers)
		return;
	free_pipe_info(pipe);
	ino->i_private = NULL;
	if (ino->i_sb == pipe_mnt)
		ino->i_nlink = 0; /* iput frees the inode once this last file lets go of it */
}

static int pipe_open(struct inode *ino, struct file *f)
{
	struct pipe_inode_info *pipe = ino->i_private;

	if (f->f_mode & FMODE_READ)
		pipe->readers++;
	if (f->f_mode & FMODE_WRITE)
		pipe->writers++;
	return nonseekable_open(ino, f);
}

const struct file_operations pipefifo_fops = {
	.llseek = no_llseek,
	.read = pipe_read,
	.write = pipe_write,
	.ioctl = pipe_ioctl,
	.poll = pipe_poll,
	.open = pipe_open,
	.release = pipe_release,
};

static struct file_system_type pipe_fs_type = {
	.name = "pipefs",
	.magic = 0x50495045, /* PIPEFS_MAGIC */
	.fill_super = pseudo_fill_super,
};

void pipefs_init(void)
{
	pipe_mnt = kern_mount(&pipe_fs_type);
	if (!pipe_mnt)
		printk("pipe: cannot mount pipefs: pipe() will fail with ENOMEM\n");
}

/* Two open files on one new pipe inode: the read end and the write end (flags: O_NONBLOCK,
 * O_DIRECT). */
static int create_pipe_files(struct file **ends, unsigned int flags)
{
	struct pipe_inode_info *pipe;
	struct inode *ino;
	int err;

	if (!pipe_mnt)
		return -ENOMEM; /* pipefs could not be mounted at boot */
	pipe = alloc_pipe_info();
	ino = pipe ? new_inode(pipe_mnt, S_IFIFO | 0600) : NULL;
	if (!ino) {
		if (pipe)
			free_pipe_info(pipe);
		return -ENFILE;
	}
	inode_init_owner(ino, NULL, S_IFIFO | 0600); /* the creator's, as Linux's pipes */
	ino->i_private = pipe;
	ino->i_fop = &pipefifo_fops;
	/* (only the write end says O_DIRECT, as Linux's: a packet is the writer's doing) */
	err = dentry_open(&ino->i_dentry, O_RDONLY | (flags & O_NONBLOCK), &ends[0]);
	if (err) {
		free_pipe_info(pipe);
		kfree(ino);
		return err;
	}
	err = dentry_open(&ino->i_dentry, O_WRONLY | flags, &ends[1]);
	if (err) {
		fput(ends[0]); /* the last file of the pipe: it frees pipe and inode */
		return err;
	}
	/* Linux's pipe ends are not opened by open(): no O_LARGEFILE (F_GETFL shows 0, 1) */
	ends[0]->f_flags &= ~(unsigned int)O_LARGEFILE;
	ends[1]->f_flags &= ~(unsigned int)O_LARGEFILE;
	return 0;
}

long sys_pipe2(uint64_t ufds, uint64_t flags)
{
	struct file *ends[2];
	int fds[2];
	long err;

	if (flags & ~(uint64_t)(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	err = create_pipe_files(ends, (unsigned int)flags & (O_NONBLOCK | O_DIRECT));
	if (err)
		return err;
	fds[0] = (int)fd_install_lowest(ends[0], 0, flags & O_CLOEXEC);
	fds[1] = fds[0] < 0 ? -EMFILE : (int)fd_install_lowest(ends[1], 0, flags & O_CLOEXEC);
	if (fds[1] < 0) {
		if (fds[0] >= 0)
			sys_close((uint64_t)fds[0]);
		else
			fput(ends[1]);
		return -EMFILE;
	}
	if (copy_to_user(ufds, fds, sizeof(fds))) {
		sys_close((uint64_t)fds[0]);
		sys_close((uint64_t)fds[1]);
		return -EFAULT;
	}
	return 0;
}

long sys_pipe(uint64_t ufds)
{
	return sys_pipe2(ufds, 0);
}
