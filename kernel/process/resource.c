/* Resource limits, Linux's kernel/sys.c part: getrlimit, setrlimit and prlimit64 over each
 * process's rlim[] (in signal_struct: shared by its threads, copied by fork, kept by
 * execve), and the limit checks the memory calls make (RLIMIT_MEMLOCK, RLIMIT_AS,
 * RLIMIT_DATA). Descriptors and queued signals check theirs where they are allocated
 * (kernel/fs/fdtable.c, kernel/signal/sigqueue.c). */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/process/resource.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/mm_types.h"
#include "mm/vma.h"

/* Linux derives RLIMIT_NPROC and RLIMIT_SIGPENDING from memory (max_threads / 2); faultline
 * fixes RLIMIT_SIGPENDING at the number of queued signals it always allowed, and fork_init
 * sets RLIMIT_NPROC from memory as Linux's does. */
#define DEFAULT_SIGPENDING 1024
#define MLOCK_LIMIT (8UL << 20) /* Linux 5.16+: 8 MiB */
#define STACK_LIMIT (8UL << 20) /* _STK_LIM */

void rlimit_init_task(struct task_struct *t)
{
	for (int i = 0; i < RLIM_NLIMITS; i++)
		t->signal->rlim[i] = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
	t->signal->rlim[RLIMIT_STACK].rlim_cur = STACK_LIMIT;
	t->signal->rlim[RLIMIT_CORE].rlim_cur = 0;
	t->signal->rlim[RLIMIT_NPROC] = (struct rlimit){ DEFAULT_SIGPENDING, DEFAULT_SIGPENDING };
	t->signal->rlim[RLIMIT_NOFILE] = (struct rlimit){ INR_OPEN_CUR, INR_OPEN_MAX };
	t->signal->rlim[RLIMIT_MEMLOCK] = (struct rlimit){ MLOCK_LIMIT, MLOCK_LIMIT };
	t->signal->rlim[RLIMIT_SIGPENDING] =
		(struct rlimit){ DEFAULT_SIGPENDING, DEFAULT_SIGPENDING };
	t->signal->rlim[RLIMIT_MSGQUEUE] = (struct rlimit){ 819200, 819200 };
	t->signal->rlim[RLIMIT_NICE] = (struct rlimit){ 0, 0 };
	t->signal->rlim[RLIMIT_RTPRIO] = (struct rlimit){ 0, 0 };
}

uint64_t rlimit(int resource)
{
	return current->signal->rlim[resource].rlim_cur;
}

unsigned int rlimit_nofile(void)
{
	uint64_t n = rlimit(RLIMIT_NOFILE);

	return n < UINT32_MAX ? (unsigned int)n : UINT32_MAX;
}

bool can_do_mlock(void)
{
	return rlimit(RLIMIT_MEMLOCK) != 0 || capable(CAP_IPC_LOCK);
}

uint64_t mm_locked_bytes(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	struct vm_area_struct *vma;
	uint64_t n = 0;

	list_for_each_entry(vma, &mm->mmap, vm_list) {
		uint64_t s = MAX(vma->vm_start, start), e = MIN(vma->vm_end, end);

		if ((vma->vm_flags & VM_LOCKED) && s < e)
			n += e - s;
	}
	return n;
}

bool mlock_future_ok(struct mm_struct *mm, unsigned long vm_flags, uint64_t bytes)
{
	if (!(vm_flags & VM_LOCKED) || capable(CAP_IPC_LOCK))
		return true;
	return mm_locked_bytes(mm, 0, ~0UL) + bytes <= rlimit(RLIMIT_MEMLOCK);
}

/* Private writable memory that is not a stack: what RLIMIT_DATA counts (is_data_mapping). */
static bool is_data_mapping(unsigned long vm_flags)
{
	return (vm_flags & (VM_WRITE | VM_SHARED | VM_GROWSDOWN)) == VM_WRITE;
}

bool may_expand_vm(struct mm_struct *mm, unsigned long vm_flags, uint64_t bytes)
{
	struct vm_area_struct *vma;
	uint64_t total = 0, data = 0;

	if (rlimit(RLIMIT_AS) == RLIM_INFINITY && rlimit(RLIMIT_DATA) == RLIM_INFINITY)
		return true; /* the usual case: no walk of the VMAs */
	list_for_each_entry(vma, &mm->mmap, vm_list) {
		total += vma->vm_end - vma->vm_start;
		if (is_data_mapping(vma->vm_flags))
			data += vma->vm_end - vma->vm_start;
	}
	if (total + bytes > rlimit(RLIMIT_AS))
		return false;
	return !is_data_mapping(vm_flags) || data + bytes <= rlimit(RLIMIT_DATA);
}

long fsize_write_check(uint64_t pos, uint64_t *count)
{
	uint64_t limit = rlimit(RLIMIT_FSIZE);

	if (limit == RLIM_INFINITY || !*count)
		return 0;
	if (pos >= limit) {
		send_sig(SIGXFSZ, current);
		return -EFBIG;
	}
	*count = MIN(*count, limit - pos);
	return 0;
}

long fsize_newsize_ok(uint64_t size)
{
	if (size <= rlimit(RLIMIT_FSIZE))
		return 0;
	send_sig(SIGXFSZ, current);
	return -EFBIG;
}

/* May current read (and write) t's limits? Itself always; another task only with the same
 * real, effective and saved ids throughout, or with CAP_SYS_RESOURCE. */
static long check_prlimit_permission(struct task_struct *t)
{
	const struct task_cred *c = &current->cred, *tc = &t->cred;

	if (t == current)
		return 0;
	if (c->uid == tc->euid && c->uid == tc->suid && c->uid == tc->uid &&
	    c->gid == tc->egid && c->gid == tc->sgid && c->gid == tc->gid)
		return 0;
	return capable(CAP_SYS_RESOURCE) ? 0 : -EPERM;
}

/* Read t's limit of resource into *old and/or set it from *new (either may be NULL), with
 * Linux's checks: -EINVAL for an unknown resource or a soft limit above the hard one, -EPERM
 * for RLIMIT_NOFILE above nr_open or a raised hard limit without CAP_SYS_RESOURCE. */
static long do_prlimit(struct task_struct *t, uint64_t resource, const struct rlimit *new,
		       struct rlimit *old)
{
	struct rlimit *rlim;

	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	if (new) {
		if (new->rlim_cur > new->rlim_max)
			return -EINVAL;
		if (resource == RLIMIT_NOFILE && new->rlim_max > READ_ONCE(sysctl_nr_open))
			return -EPERM;
	}
	rlim = &t->signal->rlim[resource];
	if (new && new->rlim_max > rlim->rlim_max && !capable(CAP_SYS_RESOURCE))
		return -EPERM;
	if (old)
		*old = *rlim;
	if (new)
		*rlim = *new;
	return 0;
}

long sys_getrlimit(uint64_t resource, uint64_t uold)
{
	struct rlimit old;
	long err = do_prlimit(current, (unsigned int)resource, NULL, &old);

	if (!err && copy_to_user(uold, &old, sizeof(old)))
		return -EFAULT;
	return err;
}

long sys_setrlimit(uint64_t resource, uint64_t unew)
{
	struct rlimit new;

	if (copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	return do_prlimit(current, (unsigned int)resource, &new, NULL);
}

/* prlimit64(pid, resource, new, old): any task's limit (pid 0: current), read and set at once;
 * -ESRCH for no such task, -EPERM when check_prlimit_permission refuses. */
long sys_prlimit64(int64_t pid, uint64_t resource, uint64_t unew, uint64_t uold)
{
	struct rlimit new, old;
	struct task_struct *t;
	long err;

	if (unew && copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	t = (int)pid ? find_task_by_pid((int)pid) : current; /* pid_t: the low 32 bits */
	if (!t)
		return -ESRCH;
	err = check_prlimit_permission(t);
	if (err)
		return err;
	err = do_prlimit(t, (unsigned int)resource, unew ? &new : NULL, uold ? &old : NULL);
	if (!err && uold && copy_to_user(uold, &old, sizeof(old)))
		return -EFAULT;
	return err;
}
