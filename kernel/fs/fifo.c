/* Named pipes (FIFOs): a pipe reached through a name in a directory (mknod S_IFIFO, mkfifo).
 * Opening one end waits for the other, as Linux's fifo_open; the pipe itself, and all that
 * happens once both ends are open, is kernel/fs/pipe.c's. */
#include "kernel/errno.h"
#include "kernel/fs/pipe.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"

/* Sleep until *counter moves: the other end was opened (maybe closed again since). 0, or
 * -ERESTARTSYS when a signal came first (the open restarts if its handler says SA_RESTART). */
static int wait_for_partner(struct pipe_inode_info *pipe, unsigned int *counter)
{
	unsigned int cur = *counter;

	if (wait_event_interruptible(pipe->wait, *(volatile unsigned int *)counter != cur))
		return -ERESTARTSYS;
	return 0;
}

/*
 * man 7 fifo: a reader's open waits for a writer and a writer's for a reader, unless
 * O_NONBLOCK: then a reader's succeeds at once and a writer's fails with ENXIO if no one has
 * the FIFO open for reading. O_RDWR (Linux only) opens both ends and never waits. The pipe is
 * made by the first open and goes with the last close, its unread bytes with it.
 */
static int fifo_open(struct inode *ino, struct file *f)
{
	struct pipe_inode_info *pipe = ino->i_private;
	bool nonblock = f->f_flags & O_NONBLOCK;
	int err = 0;

	if (!pipe) {
		pipe = alloc_pipe_info();
		if (!pipe)
			return -ENOMEM;
		ino->i_private = pipe;
	}
	f->f_op = &pipefifo_fops; /* from here on a pipe like any other */
	switch (f->f_mode & (FMODE_READ | FMODE_WRITE)) {
	case FMODE_READ:
		pipe->r_counter++;
		if (pipe->readers++ == 0)
			wake_up(&pipe->wait); /* a writer waiting in its open */
		if (!pipe->writers && !nonblock)
			err = wait_for_partner(pipe, &pipe->w_counter);
		if (err)
			pipe->readers--;
		break;
	case FMODE_WRITE:
		if (nonblock && !pipe->readers) {
			err = -ENXIO;
			break;
		}
		pipe->w_counter++;
		if (pipe->writers++ == 0)
			wake_up(&pipe->wait);
		if (!pipe->readers)
			err = wait_for_partner(pipe, &pipe->r_counter);
		if (err)
			pipe->writers--;
		break;
	default: /* O_RDWR: both ends at once */
		pipe->readers++;
		pipe->writers++;
		pipe->r_counter++;
		pipe->w_counter++;
		wake_up(&pipe->wait);
		break;
	}
	if (err && !pipe->readers && !pipe->writers) {
		free_pipe_info(pipe);
		ino->i_private = NULL;
	}
	return err ? err : nonseekable_open(ino, f);
}

const struct file_operations def_fifo_fops = {
	.open = fifo_open,
};
