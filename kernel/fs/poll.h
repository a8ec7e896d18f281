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
#define POLLFREE 0x4000 /* the wait queue itself is going (a wake_up key, never reported) */

/* What a file with no poll operation is: always ready to read and to write (Linux's). */
#define DEFAULT_POLLMASK (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

/* What the asker does with each wait queue a file's poll names (Linux's poll_table): poll and
 * select sleep on it (select.c), epoll hooks its callback to it (eventpoll.c). */
typedef void (*poll_queue_proc)(struct file *f, struct wait_queue_head *q,
				struct poll_table_struct *pt);
struct poll_table_struct {
	poll_queue_proc qproc;
};

/* A file's poll operation calls this for each queue whose wake_up may change its answer; pt is
 * NULL when the caller will not sleep. */
static inline void poll_wait(struct file *f, struct wait_queue_head *q,
			     struct poll_table_struct *pt)
{
	if (pt && pt->qproc)
		pt->qproc(f, q, pt);
}

/* ppoll, pselect6 and epoll_pwait wait with the set at umask (size bytes: 8, else -EINVAL) in
 * place of the blocked set (SIGKILL and SIGSTOP stay deliverable); *saved gets the old set,
 * which the call puts back when it ends. umask 0: nothing changes. 0, -EINVAL or -EFAULT. */
long set_user_sigmask(uint64_t umask, uint64_t size, uint64_t *saved);
/* The call ends: the blocked set it replaced (saved) comes back now or, when a signal ended
 * it (interrupted), once that signal's handler has run under the call's set, as Linux's
 * restore_saved_sigmask_unless (so a signal the call's set unblocks is taken). */
void restore_saved_sigmask_unless(bool interrupted, uint64_t saved);

#endif
