/* Waiting for files to be ready (kernel/fs/select.c): the events poll reports and the table a
 * file's poll operation adds its wait queues to. */
#ifndef KERNEL_FS_POLL_H
#define KERNEL_FS_POLL_H

#include "kernel/fs/fs.h"
#include "kernel/sched/wait.h"

#define POLLIN 0x001
#define POLLPRI 0x002
#define POLLOUT 0x004
#define POLLERR 0x008
#define POLLHUP 0x010
#define POLLNVAL 0x020
#define POLLRDNORM 0x040
#define POLLRDBAND 0x080
#define POLLWRNORM 0x100
#define POLLWRBAND 0x200

/* What a file with no poll operation is: always ready to read and to write (Linux's). */
#define DEFAULT_POLLMASK (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

#define POLL_TABLE_ENTRIES 128

/* The wait queues a poll or select call sleeps on, one entry per (file, queue). */
struct poll_table_struct {
	int n;
	struct {
		struct wait_queue_head *q;
		struct wait_queue_entry wait;
	} entries[POLL_TABLE_ENTRIES];
};

/* A file's poll operation calls this for each queue whose wake_up may change its answer; pt is
 * NULL when the caller will not sleep. */
void poll_wait(struct file *f, struct wait_queue_head *q, struct poll_table_struct *pt);

#endif
