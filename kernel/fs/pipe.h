/* Pipes (kernel/fs/pipe.c) and named pipes (kernel/fs/fifo.c): PIPE_BUF and the pipe's
 * capacity, as Linux's, and the pipe both kinds read and write. */
#ifndef KERNEL_FS_PIPE_H
#define KERNEL_FS_PIPE_H

#include "kernel/fs/fs.h"
#include "kernel/sched/wait.h"
#include "mm/mmu.h"

#define PIPE_BUF 4096        /* writes of at most this many bytes are atomic */
#define PIPE_DEF_SIZE 65536  /* what a new pipe holds (Linux's default: 16 pages) */

struct page;

/* A packet of a packet-mode pipe (pipe2's O_DIRECT): its len bytes from ring offset pos. */
struct pipe_packet {
	uint32_t pos, len;
};

/* A pipe's ring and its ends, in its inode's i_private while any end is open. */
struct pipe_inode_info {
	struct wait_queue_head wait; /* readers wait for bytes, writers for room, opens of a
				      * named pipe for the other end */
	struct page **pages;         /* size / PAGE_SIZE, each taken as the ring first reaches it */
	uint64_t start, len;         /* the unread bytes: len of them from offset start */
	uint64_t size;               /* the ring's bytes: a power-of-two number of pages */
	/* The packets among the unread bytes, in order (a ring of size / PAGE_SIZE records from
	 * first_packet; NULL until the first packet): a read takes at most one and drops what
	 * of it does not fit (Linux's PIPE_BUF_FLAG_PACKET buffers). */
	struct pipe_packet *packets;
	unsigned int first_packet, nr_packets;
	int readers, writers;        /* open files of each end */
	/* Opens of each end so far: a named pipe's open waits for the other count to move,
	 * so an opener that came and went meanwhile still ends the wait (Linux's r_counter). */
	unsigned int r_counter, w_counter;
};

/* A new, empty pipe (NULL without memory); its ring and itself freed by free_pipe_info. */
struct pipe_inode_info *alloc_pipe_info(void);
void free_pipe_info(struct pipe_inode_info *pipe);
/* read, write, poll, ioctl and release of either kind; open is the kind's own. */
extern const struct file_operations pipefifo_fops;
/* What a named pipe's inode opens with (kernel/fs/fifo.c): waits for the other end. */
extern const struct file_operations def_fifo_fops;

/* The pipe of an open file, NULL if it is not one (Linux's get_pipe_info). */
static inline struct pipe_inode_info *get_pipe_info(struct file *f)
{
	return f->f_op == &pipefifo_fops ? f->f_inode->i_private : NULL;
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

/* The kernel's own moves of a pipe's bytes (splice, tee, vmsplice: kernel/fs/splice.c); none
 * waits and none wakes. pipe_fill appends up to n bytes of buf, as many as there is room for
 * (-ENOMEM if a ring page could not be had and none went in); pipe_peek copies up to n unread
 * bytes from the skip-th on into buf; pipe_advance drops the first n unread bytes (the packets
 * among them with them). Each returns the bytes it moved. */
long pipe_fill(struct pipe_inode_info *pipe, const void *buf, uint64_t n);
uint64_t pipe_peek(struct pipe_inode_info *pipe, uint64_t skip, void *buf, uint64_t n);
void pipe_advance(struct pipe_inode_info *pipe, uint64_t n);

/* fcntl's F_SETPIPE_SZ and F_GETPIPE_SZ on a pipe (kernel/fs/pipe_fcntl.c): -EBADF on any
 * other file. */
long pipe_fcntl(struct file *f, unsigned int cmd, uint64_t arg);
/* /proc/sys/fs/pipe-max-size: the most an unprivileged F_SETPIPE_SZ may ask for. */
int get_pipe_max_size(void);
void set_pipe_max_size(int size);
/* The ring's pages and packet records for nr_slots pages, the unread bytes kept: -EBUSY if
 * they need more, -ENOMEM. */
int pipe_resize_ring(struct pipe_inode_info *pipe, unsigned int nr_slots);

/* Mount pipefs, where every pipe's inode lives, once at boot (its memory is then taken before
 * any process runs, not by the first one that makes a pipe). */
void pipefs_init(void);

#endif
