/* Making tasks: kernel stacks with guard pages, kernel threads, fork (copy the caller), and
 * the mm_struct lifetime (mm_alloc, dup_mm, mmput), as Linux keeps them in kernel/fork.c. */
#include "kernel/process/clone.h"
#include "kernel/errno.h"
#include "kernel/fs/coredump.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/fs/signalfd.h"
#include "kernel/futex/futex.h"
#include "kernel/panic.h"
#include "kernel/process/pid.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/lib/string.h"
#include "kernel/time/time.h"
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "mm/gfp.h"
#include "mm/kcheck.h"
#include "mm/memory.h"
#include "mm/tlbflush.h"
#include "mm/mm_init.h"
#include "mm/mm_types.h"
#include "mm/mman.h"
#include "mm/mmap.h"
#include "mm/slab.h"
#include "mm/vma.h"

/* Kernel stacks live in the vmap area, each in a 32 KiB slot whose lowest page is left
 * unmapped, so running off the bottom of a stack faults instead of corrupting the task below.
 * The area is the vmap area's first gigabyte (the framebuffer's follows): 32768 slots, more
 * stacks than memory holds, so memory and threads-max are the limits. A page table maps 2 MiB
 * of it, 64 slots (one word of the bitmap): made when a stack first lands there, freed when
 * its last one goes (the first one stays, made at boot). They sit under one page-middle
 * directory made at boot, which every address space shares (the kernel half of each PML4 is a
 * copy), so no address space needs to learn of them. */
#define KSTACK_SLOT 0x8000UL
#define KSTACK_AREA VMAP_BASE
#define KSTACK_SLOTS ((1UL << 30) / KSTACK_SLOT)

static uint64_t kstack_used[KSTACK_SLOTS / 64]; /* a bit per slot */
static unsigned long kstack_hint; /* no free slot below this one */

/* Linux's fork_init: at most a sixteenth of memory in kernel stacks (one in eight of
 * THREAD_SIZE-sized pieces); /proc/sys/kernel/threads-max sets it. */
int max_threads;
int nr_threads; /* tasks made and not yet released, idle tasks aside */

/* The lowest free slot, marked used; KSTACK_SLOTS if all are. */
static unsigned long kstack_slot_get(void)
{
	for (unsigned long w = kstack_hint / 64; w < KSTACK_SLOTS / 64; w++) {
		if (kstack_used[w] != ~0UL) {
			unsigned long s = w * 64 + (unsigned long)__builtin_ctzl(~kstack_used[w]);

			kstack_used[w] |= 1UL << (s % 64);
			kstack_hint = s + 1;
			return s;
		}
	}
	return KSTACK_SLOTS;
}

/* The page-middle directory entry of the kernel-stack area's 2 MiB at va. */
static uint64_t *kstack_pmd_entry(uint64_t va)
{
	uint64_t *pud = __va(kernel_pgd[pgd_index(va)] & PTE_PFN_MASK);
	uint64_t *pmd = __va(pud[pud_index(va)] & PTE_PFN_MASK);

	return &pmd[pmd_index(va)];
}

static void kstack_slot_put(unsigned long s)
{
	kstack_used[s / 64] &= ~(1UL << (s % 64));
	if (s < kstack_hint)
		kstack_hint = s;
	if (!kstack_used[s / 64] && s >= 64) { /* its page table maps no stack now */
		uint64_t base = KSTACK_AREA + s / 64 * 64 * KSTACK_SLOT;
		uint64_t *pmd = kstack_pmd_entry(base), table = *pmd & PTE_PFN_MASK;

		if (!table)
			return; /* (its first stack could not be mapped) */
		*pmd = 0;
		/* No CPU may walk to it any more: an INVLPG anywhere drops every cached
		 * page-table entry (the stacks' own TLB entries went with them). */
		flush_tlb_kernel_range(base, base + PAGE_SIZE);
		__free_page(pfn_to_page(table >> PAGE_SHIFT));
	}
}

/* Unmap [base, end) of a stack, its frames freed by the caller. */
static void kstack_unmap(uint64_t base, uint64_t end)
{
	for (uint64_t va = base; va < end; va += PAGE_SIZE)
		unmap_page(kernel_pgd, va);
	flush_tlb_kernel_range(base, end); /* unmap_page flushed this CPU only */
}

static void *kstack_alloc(void)
{
	unsigned long s = kstack_slot_get();
	uint64_t top = KSTACK_AREA + (s + 1) * KSTACK_SLOT, va;
	struct page *pages;

	if (s == KSTACK_SLOTS)
		return NULL;
	pages = alloc_pages(0, 2); /* KSTACK_SIZE: four frames */
	if (!pages) {
		kstack_slot_put(s);
		return NULL;
	}
	for (va = top - KSTACK_SIZE; va < top; va += PAGE_SIZE) {
		/* (a page table for a new 2 MiB of the area may be needed: it may fail) */
		if (map_page(kernel_pgd, va, PFN_PHYS(page_to_pfn(pages)) + va -
				     (top - KSTACK_SIZE), PAGE_KERNEL)) {
			kstack_unmap(top - KSTACK_SIZE, va);
			__free_pages(pages, 2);
			kstack_slot_put(s);
			return NULL;
		}
	}
	return (void *)(top - KSTACK_SIZE);
}

static void kstack_free(void *stack)
{
	uint64_t base = (uint64_t)stack;
	pte_t first = unmap_page(kernel_pgd, base);

	kstack_unmap(base + PAGE_SIZE, base + KSTACK_SIZE);
	__free_pages(pfn_to_page(pte_pfn(first)), 2);
	kstack_slot_put((base + KSTACK_SIZE - KSTACK_AREA) / KSTACK_SLOT - 1);
}

/* Make the kstack area's page table exist before any address space copies the kernel half. */
void fork_init(void)
{
	uint64_t threads = nr_managed_pages() * PAGE_SIZE / (KSTACK_SIZE * 8);

	if (!walk_page_table(kernel_pgd, KSTACK_AREA, true))
		panic("fork_init: no memory for the kernel-stack page table");
	max_threads = (int)MAX(MIN(threads, (uint64_t)MAX_THREADS), (uint64_t)MIN_THREADS);
	/* As Linux: the first task's RLIMIT_NPROC, which every task inherits, is half of that. */
	init_task.signal->rlim[RLIMIT_NPROC].rlim_cur = (uint64_t)max_threads / 2;
	init_task.signal->rlim[RLIMIT_NPROC].rlim_max = (uint64_t)max_threads / 2;
	pidmap_init();
}

struct pt_regs *task_pt_regs(struct task_struct *t)
{
	return (struct pt_regs *)((uint8_t *)t->stack + KSTACK_SIZE) - 1;
}

void task_set_comm(struct task_struct *t, const char *path)
{
	const char *base = strrchr(path, '/');

	strlcpy(t->comm, base ? base + 1 : path, sizeof(t->comm));
}

/* A new task, not yet runnable: pid, kernel stack, lists; the caller fills the rest. */
static struct task_struct *alloc_task(void)
{
	struct task_struct *t;

	if (nr_threads >= READ_ONCE(max_threads)) /* threads-max, for kernel threads too */
		return NULL;
	t = kzalloc(sizeof(*t));
	if (!t)
		return NULL;
	t->pid = alloc_pidmap();
	t->stack = t->pid > 0 ? kstack_alloc() : NULL;
	if (!t->stack) {
		if (t->pid > 0)
			free_pidmap(t->pid);
		kfree(t);
		return NULL;
	}
	nr_threads++;
	t->tgid = t->pid; /* its own group until do_fork says CLONE_THREAD */
	t->exit_signal = SIGCHLD;
	t->group_leader = t;
	INIT_LIST_HEAD(&t->thread_group);
	INIT_LIST_HEAD(&t->sibling);
	cred_fork(t, current); /* a kernel thread or a forked child: the creator's ids */
	t->start_time = jiffies;
	t->state = TASK_UNINTERRUPTIBLE; /* until wake_up_process */
	t->lock_depth = -1;
	t->cpus_allowed = current->cpus_allowed; /* inherited, as sched_setaffinity(2) says */
	t->timer_slack_ns = t->default_timer_slack_ns = current->timer_slack_ns; /* prctl(2) */
	sched_fork_policy(t, current);
	t->personality = current->personality;
	t->cpu = smp_processor_id();
	t->parent = current;
	INIT_LIST_HEAD(&t->children);
	INIT_LIST_HEAD(&t->run_list);
	INIT_LIST_HEAD(&t->timer_list);
	INIT_LIST_HEAD(&t->sigstate.queue);
	return t;
}

/* Free what alloc_task made, for a task that never ran. */
static void free_task(struct task_struct *t)
{
	cred_release(t);
	kstack_free(t->stack);
	free_pidmap(t->pid);
	nr_threads--;
	kfree(t);
}

/* A new thread group's shared signal state: nothing pending, no timers, one live thread. */
static struct signal_struct *alloc_signal(void)
{
	struct signal_struct *sig = kzalloc(sizeof(*sig));

	if (!sig)
		return NULL;
	sig->count = sig->live = 1;
	memcpy(sig->rlim, current->signal->rlim, sizeof(sig->rlim)); /* the creator's limits */
	sig->oom_score_adj = current->signal->oom_score_adj; /* as Linux's copy_signal */
	sig->oom_score_adj_min = current->signal->oom_score_adj_min;
	INIT_LIST_HEAD(&sig->shared_queue);
	init_waitqueue_head(&sig->wait_chldexit);
	spin_lock_init(&sig->cpu_timer_lock);
	return sig;
}

struct sighand_struct *copy_sighand(const struct sighand_struct *old)
{
	struct sighand_struct *sh = kzalloc(sizeof(*sh));

	if (!sh)
		return NULL;
	if (old)
		memcpy(sh->action, old->action, sizeof(sh->action));
	sh->count = 1;
	init_waitqueue_head(&sh->signalfd_wqh);
	return sh;
}

void put_sighand(struct sighand_struct *sh)
{
	if (sh && --sh->count == 0) {
		signalfd_cleanup(sh);
		kfree(sh);
	}
}

/* t is gone: its thread group has one reference less; the last frees the shared state. */
static void put_signal(struct task_struct *t)
{
	struct signal_struct *sig = t->signal;

	if (!sig || --sig->count > 0)
		return;
	sigqueue_flush_shared(sig);
	kfree(sig);
}

/* Give a new process (a kernel thread, fork's child) its own signal state and actions. */
static int new_signal_state(struct task_struct *t, const struct sighand_struct *actions)
{
	t->signal = alloc_signal();
	t->sighand = copy_sighand(actions);
	if (t->signal && t->sighand)
		return 0;
	kfree(t->signal);
	kfree(t->sighand);
	return -ENOMEM;
}

static void link_task(struct task_struct *t)
{
	if (thread_group_leader(t))
		list_add_tail(&t->sibling, &t->parent->children);
	list_add_tail(&t->tasks, &all_tasks);
	attach_pid(t);
}

/* Push the frame switch_to_asm pops: six callee-saved registers, then the return address. */
static void push_switch_frame(struct task_struct *t, uint64_t *sp, void (*ret)(void),
			      uint64_t rbx, uint64_t r12)
{
	*--sp = (uint64_t)ret;
	*--sp = 0;   /* rbp: the end of the frame chain for backtraces */
	*--sp = rbx;
	*--sp = r12;
	*--sp = 0;   /* r13 */
	*--sp = 0;   /* r14 */
	*--sp = 0;   /* r15 */
	t->thread.rsp = (uint64_t)sp;
}

/* A kernel thread running fn(arg), the child of parent. */
static struct task_struct *new_kernel_thread(int (*fn)(void *), void *arg, const char *name,
					     struct task_struct *parent)
{
	struct task_struct *t = alloc_task();

	if (!t)
		return NULL;
	if (new_signal_state(t, NULL)) {
		free_task(t);
		return NULL;
	}
	t->parent = parent;
	/* As Linux's kthreadd makes them: SCHED_NORMAL, whatever policy its creator has */
	t->policy = SCHED_NORMAL;
	t->rt_priority = 0;
	t->wake_preempt = true; /* no mm */
	strlcpy(t->comm, name, sizeof(t->comm));
	fpu_init_task(t);
	/* Its stack starts below the pt_regs slot, which an exec'd program will use; zeroed
	 * until then, so that a backtrace in the thread ends at kernel_thread_start rather than
	 * in whatever the stack page held before. */
	memset(task_pt_regs(t), 0, sizeof(struct pt_regs));
	push_switch_frame(t, (uint64_t *)task_pt_regs(t), kernel_thread_start, (uint64_t)fn,
			  (uint64_t)arg);
	link_task(t);
	wake_up_process(t);
	return t;
}

struct task_struct *kernel_thread(int (*fn)(void *), void *arg, const char *name)
{
	return new_kernel_thread(fn, arg, name, current);
}

struct task_struct *kthread_run(int (*fn)(void *), void *arg, const char *name)
{
	struct task_struct *t = new_kernel_thread(fn, arg, name, &init_task);

	if (t) { /* root, whoever asked for it (it ran with the creator's ids until here) */
		cred_release(t);
		cred_init_root(&t->cred);
	}
	return t;
}

/* What every new address space starts with, whatever else mm holds: its own PML4 sharing the
 * kernel half, no VMA, one user, its locks. mm itself, or NULL (freed) without memory. */
static struct mm_struct *mm_setup(struct mm_struct *mm)
{
	if (!mm)
		return NULL;
	mm->pgd = pgd_alloc();
	if (!mm->pgd) {
		kfree(mm);
		return NULL;
	}
	memcpy(mm->pgd + 256, kernel_pgd + 256, 256 * sizeof(pgd_t)); /* share the kernel half */
	mm_vma_init(mm);
	mm->mm_users = 1;
	init_rwsem(&mm->mmap_sem);
	spin_lock_init(&mm->page_table_lock);
	return mm;
}

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = mm_setup(kzalloc(sizeof(*mm)));

	if (!mm)
		return NULL;
	mm->dumpable = SUID_DUMP_USER;
	/* exec's new mm keeps the filter, as Linux's mm_init */
	mm->coredump_filter = current->mm ? current->mm->coredump_filter : MMF_DUMP_FILTER_DEFAULT;
	return mm;
}

/* Drop one user of the address space; the last frees it: its frames, its page tables, its PML4
 * (never the kernel half). */
void mmput(struct mm_struct *mm)
{
	unsigned long nr_accounted = 0;

	if (!mm || --mm->mm_users > 0)
		return;
	/* Nobody else can reach it now; the write lock keeps the rule "VMAs change only under
	 * mmap_sem for writing" true without exceptions (and the debug build checks it). */
	down_write(&mm->mmap_sem);
	kcheck_mm(mm); /* (only with the kcheck parameter) */
	exit_mmap(mm);
	BUG_ON(mm->swapents != 0); /* every swap PTE went with exit_mmap's zap */
	while (vma_first(mm)) {
		struct vm_area_struct *vma = vma_first(mm);

		if (vma->vm_flags & VM_ACCOUNT)
			nr_accounted += vma_pages(vma);
		vma_unlink(mm, vma);
		vma_free(vma);
	}
	vm_unacct_memory((long)nr_accounted);
	up_write(&mm->mmap_sem);
	if (mm->exe_file) {
		allow_write_access(mm->exe_file);
		fput(mm->exe_file);
	}
	tlb_mm_release(mm); /* no CPU keeps its tables loaded, even lazily */
	memset(mm->pgd + 256, 0, 256 * sizeof(pgd_t));
	pgd_free(mm->pgd);
	kfree(mm);
}

/* fork's copy of an address space: every VMA, and every PTE shared copy-on-write. */
struct mm_struct *dup_mm(struct mm_struct *old)
{
	/* (not zeroed: the copy of old below writes every field) */
	struct mm_struct *mm = mm_setup(kmalloc(sizeof(*mm)));
	struct vm_area_struct *vma;
	unsigned long charge = 0;
	pgd_t *pgd;

	if (!mm)
		return NULL;
	/* As 2.6.23's dup_mmap: the parent's mmap_sem for writing, so that no fault of another
	 * thread changes a PTE while it is copied (the new mm is not visible to anyone yet). */
	down_write(&old->mmap_sem);
	pgd = mm->pgd;
	*mm = *old;
	mm->pgd = pgd;
	mm->cpu_vm_mask = 0; /* no CPU has used the copy yet */
	mm->mm_users = 1;
	init_rwsem(&mm->mmap_sem);
	spin_lock_init(&mm->page_table_lock);
	mm->rss = 0;
	mm->swapents = 0; /* copy_one_pte counts the child's */
	mm->def_flags = 0; /* mlockall(MCL_FUTURE) is not inherited, nor are locks */
	if (mm->exe_file) { /* denied already by the parent's: this one cannot fail */
		int err = deny_write_access(mm->exe_file);

		BUG_ON(err);
		get_file(mm->exe_file);
	}
	mm_vma_init(mm);
	for_each_vma(vma, old) {
		struct vm_area_struct *copy;

		if (vma->vm_flags & VM_DONTCOPY)
			continue; /* madvise(MADV_DONTFORK): a hole in the child */
		copy = kmalloc(sizeof(*copy));
		if (!copy)
			goto fail;
		*copy = *vma;
		/* Nor is a userfaultfd registration (Linux's, without UFFD_FEATURE_EVENT_FORK):
		 * the child's missing pages fault as ordinary memory. */
		copy->vm_flags &= ~(VM_LOCKED | VM_LOCKONFAULT | VM_UFFD_MISSING);
		copy->vm_userfaultfd_ctx.ctx = NULL;
		/* The child's VMA joins the parent's anon_vma: the pages copy_page_range shares
		 * are found from both (MADV_WIPEONFORK's starts empty: it needs none yet). */
		if (vma->vm_flags & VM_WIPEONFORK)
			copy->anon_vma = NULL;
		copy->anon_vma_forked = copy->anon_vma != NULL;
		anon_vma_link(copy);
		if (copy->vm_ops && copy->vm_ops->open)
			copy->vm_ops->open(copy);
		if (insert_vm_struct(mm, copy)) {
			vma_free(copy);
			goto fail;
		}
		/* The child's promised memory is promised again (Linux's dup_mmap), once for all
		 * its VMAs below: the policy's answer is the same as VMA by VMA. */
		if (copy->vm_flags & VM_ACCOUNT)
			charge += vma_pages(copy);
		/* (MADV_WIPEONFORK: the child's copy starts empty, as new memory) */
		if (!(vma->vm_flags & VM_WIPEONFORK) && copy_page_range(mm, old, vma))
			goto fail;
	}
	if (charge && security_vm_enough_memory_mm(old, (long)charge))
		goto fail;
	/* The parent's writable PTEs became read-only: drop its stale TLB entries. */
	flush_tlb_mm(old);
	up_write(&old->mmap_sem);
	return mm;
fail:
	/* mmput gives back the pages of the child's VM_ACCOUNT VMAs: count them first. */
	vm_acct_memory((long)charge);
	flush_tlb_mm(old);
	up_write(&old->mmap_sem);
	mmput(mm);
	return NULL;
}

/* What the new task shares with current and what it gets a copy of, by clone's flags: the
 * address space (CLONE_VM), the descriptor table (CLONE_FILES), the working directory and
 * umask (CLONE_FS), the signal actions (CLONE_SIGHAND). 0 or -ENOMEM (t's are then dropped). */
static int copy_resources(struct task_struct *t, uint64_t flags)
{
	if (flags & CLONE_VM) {
		t->mm = current->mm;
		t->mm->mm_users++;
	} else {
		t->mm = dup_mm(current->mm);
	}
	if (flags & CLONE_FILES) {
		t->files = current->files;
		t->files->count++;
	} else {
		t->files = dup_files(current->files);
	}
	if ((flags & CLONE_FS) && current->fs) {
		t->fs = current->fs;
		t->fs->users++;
	} else {
		t->fs = current->fs ? copy_fs_struct(current->fs) : NULL;
	}
	if (flags & CLONE_SIGHAND) {
		t->sighand = current->sighand;
		t->sighand->count++;
	} else {
		t->sighand = copy_sighand(current->sighand);
	}
	if (flags & CLONE_THREAD) {
		t->signal = current->signal;
		t->signal->count++;
		t->signal->live++;
	} else {
		t->signal = alloc_signal();
	}
	if (t->mm && t->files && (t->fs || !current->fs) && t->sighand && t->signal)
		return 0;
	mmput(t->mm);
	put_files(t->files);
	put_fs_struct(t->fs);
	put_sighand(t->sighand);
	if (t->signal && (flags & CLONE_THREAD)) {
		t->signal->count--;
		t->signal->live--;
	} else {
		kfree(t->signal);
	}
	return -ENOMEM;
}

/* Join t to current's thread group (CLONE_THREAD): its tgid, leader and parent are the
 * group's; it is no child of anyone (wait4 sees the group through its leader). */
static void join_thread_group(struct task_struct *t)
{
	struct task_struct *leader = current->group_leader;

	t->tgid = leader->tgid;
	t->exit_signal = -1;
	t->group_leader = leader;
	t->parent = leader->parent;
	list_add_tail(&t->thread_group, &leader->thread_group);
}

/* The thread's end of its robust futexes, of vfork and of CLONE_CHILD_CLEARTID /
 * set_tid_address: the locks it still holds are marked, its vfork parent resumes; if others
 * share the memory, 0 at the clear_child_tid address and one waiter woken (pthread_join waits
 * there). The vfork pointer is big-kernel-lock data (wait_for_vfork_done). */
void mm_release(struct task_struct *t, struct mm_struct *mm)
{
	uint32_t zero = 0;

	if (t->robust_list)
		exit_robust_list(t);
	if (t->vfork_done) {
		complete(t->vfork_done);
		t->vfork_done = NULL;
	}
	if (!t->clear_child_tid || !mm || mm->mm_users <= 1)
		return;
	if (!copy_to_user(t->clear_child_tid, &zero, sizeof(zero)))
		futex_wake(t->clear_child_tid, 1, FUTEX_BITSET_MATCH_ANY, true);
	t->clear_child_tid = 0;
}

/* vfork's parent sleeps until its child execs or exits (mm_release): until then they share
 * the memory and the child runs on the parent's stack. A fatal signal ends the wait (today's
 * Linux); the child must then no longer point at the completion on this stack. The big kernel
 * lock, held again after each sleep, orders this with mm_release: a child that has not
 * completed has not been released either, so child is still valid here. */
static void wait_for_vfork_done(struct task_struct *child, struct completion *vfork)
{
	if (wait_for_completion_killable(vfork) && !vfork->done)
		child->vfork_done = NULL;
}

/* The tasks whose real user is uid, zombies and threads included (Linux counts them in the
 * user's struct user_struct; faultline counts them when asked, for a non-root fork only). */
static uint64_t user_processes(uid_t uid)
{
	struct task_struct *t;
	uint64_t n = 0;

	list_for_each_entry(t, &all_tasks, tasks)
		n += t->cred.uid == uid;
	return n;
}

/* copy_process's refusal, EAGAIN: RLIMIT_NPROC reached by the caller's real user (root and
 * CAP_SYS_RESOURCE or CAP_SYS_ADMIN may pass it). (threads-max is alloc_task's.) */
static bool fork_over_limit(void)
{
	uid_t uid = current->cred.uid;

	if (uid != 0 && !capable(CAP_SYS_RESOURCE) && !capable(CAP_SYS_ADMIN) &&
	    user_processes(uid) >= rlimit(RLIMIT_NPROC))
		return true;
	return false;
}

/* fork and clone: a copy of the calling task that returns 0 from the same system call, sharing
 * what args's flags say (NULL: a plain fork), already checked by sys_clone
 * (kernel/process/clone.c): a new stack, a TLS base, where the child's tid goes in the parent's and
 * the child's memory, and the address CLONE_CHILD_CLEARTID clears at the child's exit. */
long do_fork(struct pt_regs *regs, const struct kernel_clone_args *args)
{
	uint64_t flags = args ? args->flags : 0;
	struct task_struct *t;
	struct pt_regs *child_regs;
	struct completion vfork;
	long pid;

	reap_dead_tasks(); /* their kernel stacks and pids are free again */
	if (fork_over_limit())
		return -EAGAIN;
	t = alloc_task();
	if (!t)
		return -EAGAIN;
	if (copy_resources(t, flags)) {
		free_task(t);
		return -ENOMEM;
	}
	t->wake_preempt = !t->mm || t->rt_priority;
	memcpy(t->comm, current->comm, sizeof(t->comm));
	t->pgrp = current->pgrp; /* the child starts in its parent's group and session */
	t->session = current->session;
	t->tty = current->tty;
	t->did_exec = current->did_exec && (flags & CLONE_THREAD);
	if (flags & CLONE_THREAD)
		join_thread_group(t);
	else if (flags & CLONE_PARENT)
		t->parent = current->group_leader->parent;
	if (args && !(flags & CLONE_THREAD))
		t->exit_signal = (int)(flags & CSIGNAL);
	signals_fork(t, current);
	asm volatile("fxsave %0" : "=m"(t->thread.fxsave)); /* the parent's live registers */
	t->thread.fs_base = rdmsr(MSR_FS_BASE);
	child_regs = task_pt_regs(t);
	*child_regs = *regs;
	child_regs->rax = 0;
	if (args && args->stack)
		child_regs->rsp = args->stack;
	if (flags & CLONE_SETTLS)
		t->thread.fs_base = args->tls;
	if (flags & CLONE_CHILD_CLEARTID)
		t->clear_child_tid = args->child_tid;
	if (flags & CLONE_CHILD_SETTID) /* written by the child, in its memory */
		push_switch_frame(t, (uint64_t *)child_regs, ret_from_clone_settid, 0,
				  args->child_tid);
	else
		push_switch_frame(t, (uint64_t *)child_regs, ret_from_fork, 0, 0);
	if (flags & CLONE_VFORK) {
		init_completion(&vfork);
		t->vfork_done = &vfork;
	}
	link_task(t);
	if (flags & CLONE_PARENT_SETTID) /* as Linux, a bad address is ignored */
		(void)copy_to_user(args->parent_tid, &t->pid, sizeof(int));
	pid = t->pid; /* t may be gone once it runs (a child that reaps itself) */
	wake_up_process(t);
	if (flags & CLONE_VFORK)
		wait_for_vfork_done(t, &vfork);
	return pid;
}

/* The parent has collected t's exit status: nothing of t is left after this. */
void release_task(struct task_struct *t)
{
	wait_task_inactive(t); /* an exiting thread may still be switching away on its CPU */
	list_del(&t->sibling);
	list_del(&t->tasks);
	detach_pid(t);
	put_signal(t);
	put_sighand(t->sighand);
	free_task(t);
	proc_flush_task(); /* its /proc directory goes, with any other no one holds */
}
