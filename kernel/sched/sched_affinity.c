/* Which CPUs a thread may run on and which one it runs on: sched_setaffinity(2),
 * sched_getaffinity(2) and getcpu(2), with Linux's errors. A mask is one unsigned long per 64
 * CPUs, so 8 bytes here (NR_CPUS is 64). */
#include "kernel/arch/smp.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/lib/string.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"

#define CAP_SYS_NICE 23
#define CPUMASK_SIZE sizeof(uint64_t) /* Linux's cpumask_size() for NR_CPUS 64 */

/* pid 0 is the caller; else the thread with that id (ESRCH: none). */
static struct task_struct *affinity_task(int64_t pid)
{
	if (pid < 0)
		return NULL;
	return pid ? find_task_by_pid((int)pid) : current;
}

long sys_sched_setaffinity(int64_t pid, uint64_t len, uint64_t umask)
{
	struct task_struct *t;
	uint64_t mask = 0;

	/* A shorter mask is zero-extended, a longer one cut to the CPUs there can be. */
	if (copy_from_user(&mask, umask, len < CPUMASK_SIZE ? len : CPUMASK_SIZE))
		return -EFAULT;
	t = affinity_task(pid);
	if (!t || !t->mm)
		return -ESRCH;
	/* check_same_owner: the caller's euid is the target's uid or euid, or CAP_SYS_NICE */
	if (current->cred.euid != t->cred.euid && current->cred.euid != t->cred.uid &&
	    !capable(CAP_SYS_NICE))
		return -EPERM;
	mask &= cpu_online_mask;
	if (!mask)
		return -EINVAL; /* no CPU of the mask is online */
	set_cpus_allowed(t, mask);
	return 0;
}

/* The bytes written (the mask's size), as the system call returns it (glibc and musl turn
 * that into 0). */
long sys_sched_getaffinity(int64_t pid, uint64_t len, uint64_t umask)
{
	struct task_struct *t;
	uint64_t mask;

	if (len * 8 < (uint64_t)nr_cpu_ids || (len & (sizeof(long) - 1)))
		return -EINVAL;
	t = affinity_task(pid);
	if (!t || !t->mm)
		return -ESRCH;
	mask = t->cpus_allowed & cpu_online_mask;
	if (copy_to_user(umask, &mask, CPUMASK_SIZE))
		return -EFAULT;
	return CPUMASK_SIZE;
}

/* getcpu(cpu, node, tcache): the CPU the caller runs on now (it may move right after) and
 * its NUMA node, always 0; either pointer may be NULL. */
long sys_getcpu(uint64_t ucpu, uint64_t unode, uint64_t tcache)
{
	uint32_t cpu = (uint32_t)smp_processor_id(), node = 0;

	(void)tcache;
	if (ucpu && copy_to_user(ucpu, &cpu, sizeof(cpu)))
		return -EFAULT;
	if (unode && copy_to_user(unode, &node, sizeof(node)))
		return -EFAULT;
	return 0;
}
