/* Pipes (kernel/fs/pipe.c) and named pipes (kernel/fs/fifo.c): PIPE_BUF and the pipe's
 * capacity, as Linux's, and the pipe both kinds read and write. */
#ifndef KERNEL_FS_PIPE_H
#define KERNEL_FS_PIPE_H

#include "kernel/fs/fs.h"
#include "kernel/sched/wait.h"
#include "mm/mmu.h"

#define PIPE_BUF 4096    /* writes of at most this many bytes are atomic */
#define PIPE_SIZE 65536  /* what a pipe holds (Linux's default: 16 pages) */
#define PIPE_PAGES (PIPE_SIZE / PAGE_SIZE)

struct page;

/* A pipe's ring and its ends, in its inode's i_private while any end is open. */
struct pipe_inode_info {
	struct wait_queue_head wait; /* readers wait for bytes, writers for room, opens of a
				      * named pipe for the other end */
	struct page *pages[PIPE_PAGES];
	uint64_t start, len;         /* the unread bytes: len of them from offset start */
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

/* Mount pipefs, where every pipe's inode lives, once at boot (its memory is then taken before
 * any process runs, not by the first one that makes a pipe). */
void pipefs_init(void);

#endif
