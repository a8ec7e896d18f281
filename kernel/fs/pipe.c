/* Pipes: a ring of PIPE_SIZE bytes between a read end and a write end, as Linux's fs/pipe.c
 * (whose ring is of pages; here of bytes, on pages taken as the ring first reaches them).
 * Reads sleep while it is empty and a writer is left; writes sleep while it is full, and a
 * write of at most PIPE_BUF bytes is atomic: it waits for room for all of it. */
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
 * user page so that a fault gives the bytes before it. 0 or -EFAULT, *done what was copied. */
static long pipe_copy(struct pipe_inode_info *pipe, uint64_t off, uint64_t ubuf, uint64_t n,
		      bool to_user, uint64_t *done)
{
	*done = 0;
	while (*done < n) {
		uint64_t o = (off + *done) % PIPE_SIZE, in_page = o & ~PAGE_MASK;
		uint64_t chunk = MIN(n - *done, PAGE_SIZE - in_page);
		struct page **p = &pipe->pages[o / PAGE_SIZE];
		uint8_t *ring;

		chunk = MIN(chunk, PAGE_SIZE - ((ubuf + *done) & ~PAGE_MASK));
		if (!*p && !(*p = alloc_page(0)))
			return -ENOMEM;
		ring = (uint8_t *)page_address(*p) + in_page;
		if (to_user ? copy_to_user(ubuf + *done, ring, chunk)
			    : copy_from_user(ring, ubuf + *done, chunk))
			return -EFAULT;
		*done += chunk;
	}
	return 0;
}

/* Wake the pipe's sleepers and pollers, if it has any: a reader that has made room usually
 * finds nobody queued (its writer sleeps only on a full pipe). The hint needs no lock here: a
 * sleeper queues itself and tests its condition under the big kernel lock, which the caller
 * holds while it changed the pipe (Linux's wq_has_sleeper). */
static inline void pipe_wake(struct pipe_inode_info *pipe)
{
	if (waitqueue_active(&pipe->wait))
		wake_up(&pipe->wait);
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
	err = pipe_copy(pipe, pipe->start, ubuf, MIN(n, pipe->len), true, &done);
	pipe->start = (pipe->start + done) % PIPE_SIZE;
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

static long pipe_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct pipe_inode_info *pipe = f->f_inode->i_private;
	uint64_t written = 0, done;
	long err = 0;

	(void)pos;
	if (!pipe->readers)
		return broken_pipe();
	while (written < n) {
		/* An atomic write waits for room for all of it, any other for some room. */
		uint64_t want = n <= PIPE_BUF ? n : 1;

		if (!pipe->readers) {
			err = broken_pipe();
			break;
		}
		if (PIPE_SIZE - pipe->len < want) {
			if (f->f_flags & O_NONBLOCK) {
				err = -EAGAIN;
				break;
			}
			err = wait_event_interruptible(pipe->wait, PIPE_SIZE - pipe->len >= want ||
								   !pipe->readers);
			if (err)
				break;
			continue;
		}
		err = pipe_copy(pipe, pipe->start + pipe->len, ubuf + written,
				MIN(n - written, PIPE_SIZE - pipe->len), false, &done);
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
		if (PIPE_SIZE - pipe->len >= PIPE_BUF)
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

struct pipe_inode_info *alloc_pipe_info(void)
{
	struct pipe_inode_info *pipe = kzalloc(sizeof(*pipe));

	if (pipe)
		init_waitqueue_head(&pipe->wait);
	return pipe;
}

void free_pipe_info(struct pipe_inode_info *pipe)
{
	for (unsigned int i = 0; i < PIPE_PAGES; i++)
		if (pipe->pages[i])
			__free_page(pipe->pages[i]);
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

/* Two open files on one new pipe inode: the read end and the write end (flags: O_NONBLOCK). */
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
		kfree(pipe);
		return -ENFILE;
	}
	inode_init_owner(ino, NULL, S_IFIFO | 0600); /* the creator's, as Linux's pipes */
	ino->i_private = pipe;
	ino->i_fop = &pipefifo_fops;
	err = dentry_open(&ino->i_dentry, O_RDONLY | flags, &ends[0]);
	if (err) {
		kfree(pipe);
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

	if (flags & ~(uint64_t)(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	err = create_pipe_files(ends, (unsigned int)flags & O_NONBLOCK);
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
