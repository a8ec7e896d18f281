/* A pipe's capacity: fcntl's F_SETPIPE_SZ and F_GETPIPE_SZ (Linux 2.6.35's) and the ceiling an
 * unprivileged caller may raise it to, /proc/sys/fs/pipe-max-size (Linux's fs/pipe.c). */
#include "kernel/errno.h"
#include "kernel/fs/pipe.h"
#include "kernel/process/cred.h"
#include "mm/gfp.h"
#include "mm/slab.h"

#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032

static unsigned int pipe_max_size = 1048576; /* Linux's default */

/* A size in bytes as a ring can have it: at least a page, a power of two; 0 past 2 GiB. */
static uint64_t round_pipe_size(unsigned int size)
{
	uint64_t r = PAGE_SIZE;

	if (size > (1U << 31))
		return 0;
	while (r < size)
		r <<= 1;
	return r;
}

int get_pipe_max_size(void)
{
	return (int)READ_ONCE(pipe_max_size);
}

/* A write of the file is rounded as F_SETPIPE_SZ's argument is (its table's range ends at
 * 1 GiB: Linux takes up to 2 GiB, which an int here cannot show). */
void set_pipe_max_size(int size)
{
	WRITE_ONCE(pipe_max_size, (unsigned int)round_pipe_size((unsigned int)size));
}

/* Rotate the ring so that its unread bytes start in its first page, then keep nr_slots pages
 * of it (the pages past them freed); the packet records follow the bytes. */
int pipe_resize_ring(struct pipe_inode_info *pipe, unsigned int nr_slots)
{
	unsigned int old_slots = (unsigned int)(pipe->size / PAGE_SIZE);
	unsigned int first = (unsigned int)(pipe->start / PAGE_SIZE), used;
	uint64_t start = pipe->start & ~PAGE_MASK;
	struct pipe_packet *packets = NULL;
	struct page **pages;

	pages = kzalloc(nr_slots * sizeof(*pages));
	if (pipe->packets)
		packets = kzalloc(nr_slots * sizeof(*packets));
	if (!pages || (pipe->packets && !packets)) {
		kfree(pages);
		kfree(packets);
		return -ENOMEM;
	}
	/* Linux's test is of buffers in use: here the pages the bytes span, or the packets */
	used = (unsigned int)((start + pipe->len + PAGE_SIZE - 1) / PAGE_SIZE);
	if (nr_slots < used || nr_slots < pipe->nr_packets) {
		kfree(pages);
		kfree(packets);
		return -EBUSY;
	}
	for (unsigned int i = 0; i < old_slots; i++) {
		struct page *page = pipe->pages[(first + i) % old_slots];

		if (i < nr_slots)
			pages[i] = page;
		else if (page)
			__free_page(page);
	}
	for (unsigned int i = 0; packets && i < pipe->nr_packets; i++) {
		struct pipe_packet *p = &pipe->packets[(pipe->first_packet + i) % old_slots];

		packets[i].pos = (uint32_t)(((p->pos - pipe->start) & (pipe->size - 1)) + start);
		packets[i].len = p->len;
	}
	kfree(pipe->pages);
	kfree(pipe->packets);
	pipe->pages = pages;
	pipe->packets = packets;
	pipe->first_packet = 0;
	pipe->start = start;
	pipe->size = (uint64_t)nr_slots * PAGE_SIZE;
	return 0;
}

/* Linux's pipe_set_size: root (CAP_SYS_RESOURCE) may go past pipe-max-size; shrinking is
 * always allowed, down to what the pipe holds. The size set is returned. */
static long pipe_set_size(struct pipe_inode_info *pipe, unsigned int arg)
{
	uint64_t size = round_pipe_size(arg);
	int err;

	if (!size)
		return -EINVAL;
	if (size > pipe->size && size > READ_ONCE(pipe_max_size) && !capable(CAP_SYS_RESOURCE))
		return -EPERM;
	if (size != pipe->size) {
		err = pipe_resize_ring(pipe, (unsigned int)(size / PAGE_SIZE));
		if (err)
			return err;
		pipe_wake(pipe); /* writers may have room now */
	}
	return (long)size;
}

long pipe_fcntl(struct file *f, unsigned int cmd, uint64_t arg)
{
	struct pipe_inode_info *pipe = get_pipe_info(f);

	if (!pipe)
		return -EBADF;
	if (cmd == F_SETPIPE_SZ)
		return pipe_set_size(pipe, (unsigned int)arg);
	if (cmd == F_GETPIPE_SZ)
		return (long)pipe->size;
	return -EINVAL;
}
