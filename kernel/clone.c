/* clone(2) for new processes: what fork does, plus the flags C libraries pass when they fork
 * (glibc's fork is clone(CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD)). There are no
 * threads: the flags that share an address space, files or signal handlers are refused. */
#include "kernel/clone.h"
#include "kernel/errno.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/uaccess.h"

/* Honoured; CLONE_CHILD_CLEARTID's store and futex wake matter only to threads sharing the
 * memory, which a process never has, and CLONE_DETACHED is ignored by Linux too. */
#define CLONE_PROCESS_FLAGS                                                                        \
	(CSIGNAL | CLONE_VFORK | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID |       \
	 CLONE_DETACHED | CLONE_CHILD_SETTID)

/* clone(flags, stack, parent_tid, child_tid, tls), x86-64's argument order. Linux's checks
 * first (EINVAL for a thread without shared handlers, handlers without shared memory); then
 * EINVAL for what a process-only kernel cannot do: sharing
 * (CLONE_VM except with CLONE_VFORK, where the child gets a copy as vfork's does here),
 * another exit signal than SIGCHLD, and the rest of the flags. */
long sys_clone(uint64_t flags, uint64_t stack, uint64_t parent_tid, uint64_t child_tid,
	       uint64_t tls)
{
	struct kernel_clone_args args = { .flags = flags,
					  .stack = stack,
					  .parent_tid = parent_tid,
					  .child_tid = child_tid,
					  .tls = tls };
	uint64_t extra = flags & ~(CLONE_PROCESS_FLAGS | CLONE_VM);

	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if (extra || (flags & CSIGNAL) != SIGCHLD)
		return -EINVAL;
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		return -EINVAL;
	return do_fork(task_pt_regs(current), &args);
}

void clone_child_settid(uint64_t uaddr)
{
	int tid = current->pid;

	(void)copy_to_user(uaddr, &tid, sizeof(tid));
}
