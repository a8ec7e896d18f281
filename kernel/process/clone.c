/* clone(2): new processes and threads. What the child shares with its creator is named by the
 * flags (kernel/process/fork.c's copy_resources); here are Linux's checks of the combinations and
 * the child's first store of its thread id. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/process/clone.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"

/* Honoured, or accepted with nothing to do as Linux does when it has nothing to do:
 * CLONE_PTRACE and CLONE_UNTRACED (no tracer), CLONE_SYSVSEM (no semaphores: nothing to undo),
 * CLONE_DETACHED (ignored by Linux too), CLONE_IO. */
#define CLONE_KNOWN_FLAGS                                                                          \
	(CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_PTRACE |              \
	 CLONE_VFORK | CLONE_PARENT | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |                \
	 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_DETACHED | CLONE_UNTRACED |            \
	 CLONE_CHILD_SETTID | CLONE_IO)

/* clone(flags, stack, parent_tid, child_tid, tls), x86-64's argument order. Linux's checks:
 * a thread must share the signal handlers, shared handlers need shared memory, a new mount
 * namespace cannot share the working directory. The namespaces and pidfds faultline has not
 * are EINVAL, as a kernel built without them answers. */
long sys_clone(uint64_t flags, uint64_t stack, uint64_t parent_tid, uint64_t child_tid,
	       uint64_t tls)
{
	struct kernel_clone_args args = { .flags = flags,
					  .stack = stack,
					  .parent_tid = parent_tid,
					  .child_tid = child_tid,
					  .tls = tls };

	if ((flags & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS))
		return -EINVAL;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if (flags & ~CLONE_KNOWN_FLAGS)
		return -EINVAL;
	return do_fork(task_pt_regs(current), &args);
}

void clone_child_settid(uint64_t uaddr)
{
	int tid = current->pid;

	(void)copy_to_user(uaddr, &tid, sizeof(tid));
}
