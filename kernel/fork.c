/* Making tasks: kernel stacks with guard pages, kernel threads, fork (copy the caller), and
 * the mm_struct lifetime (mm_alloc, dup_mm, mmput), as Linux keeps them in kernel/fork.c. */
#include "kernel/clone.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/uaccess.h"
#include "kernel/x86.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_init.h"
#include "mm/mm_types.h"
#include "mm/slab.h"
#include "mm/vma.h"

/* Kernel stacks live in the vmap area, one slot per task: the lowest page of each slot is
 * left unmapped, so running off the bottom of a stack faults instead of corrupting the task
 * below. 64 slots of 32 KiB fill one 2 MiB page table, allocated once at boot and shared by
 * every address space (the kernel half of each PML4 is a copy of the kernel's). */
#define KSTACK_SLOT 0x8000UL
#define KSTACK_AREA VMAP_BASE

static struct task_struct *slot_owner[NR_TASKS];
static int next_pid = 1;

int last_pid(void)
{
	return next_pid - 1;
}

static void *kstack_alloc(struct task_struct *t)
{
	for (int s = 0; s < NR_TASKS; s++) {
		uint64_t top = KSTACK_AREA + (s + 1) * KSTACK_SLOT, va;
		struct page *pages;

		if (slot_owner[s])
			continue;
		pages = alloc_pages(0, 2); /* KSTACK_SIZE: four frames */
		if (!pages)
			return NULL;
		for (va = top - KSTACK_SIZE; va < top; va += PAGE_SIZE)
			if (map_page(kernel_pgd, va, PFN_PHYS(page_to_pfn(pages)) + va -
					     (top - KSTACK_SIZE), PAGE_KERNEL))
				panic("kstack_alloc: slot %d: cannot map %lx", s, va);
		slot_owner[s] = t;
		return (void *)(top - KSTACK_SIZE);
	}
	return NULL;
}

static void kstack_free(void *stack)
{
	uint64_t base = (uint64_t)stack;
	pte_t first = 0;

	for (uint64_t va = base; va < base + KSTACK_SIZE; va += PAGE_SIZE) {
		pte_t pte = unmap_page(kernel_pgd, va);

		if (va == base)
			first = pte;
	}
	__free_pages(pfn_to_page(pte_pfn(first)), 2);
	slot_owner[(base + KSTACK_SIZE - KSTACK_AREA) / KSTACK_SLOT - 1] = NULL;
}

/* Make the kstack area's page table exist before any address space copies the kernel half. */
void fork_init(void)
{
	if (!walk_page_table(kernel_pgd, KSTACK_AREA, true))
		panic("fork_init: no memory for the kernel-stack page table");
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
	struct task_struct *t = kzalloc(sizeof(*t));

	if (!t)
		return NULL;
	t->stack = kstack_alloc(t);
	if (!t->stack) {
		kfree(t);
		return NULL;
	}
	t->pid = next_pid++;
	cred_fork(t, current); /* a kernel thread or a forked child: the creator's ids */
	memcpy(t->rlim, current->rlim, sizeof(t->rlim)); /* and its limits */
	t->start_time = jiffies;
	t->state = TASK_UNINTERRUPTIBLE; /* until wake_up_process */
	t->parent = current;
	INIT_LIST_HEAD(&t->children);
	INIT_LIST_HEAD(&t->run_list);
	INIT_LIST_HEAD(&t->timer_list);
	init_waitqueue_head(&t->wait_chldexit);
	INIT_LIST_HEAD(&t->sigstate.queue);
	return t;
}

static void link_task(struct task_struct *t)
{
	list_add_tail(&t->sibling, &current->children);
	list_add_tail(&t->tasks, &all_tasks);
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

struct task_struct *kernel_thread(int (*fn)(void *), void *arg, const char *name)
{
	struct task_struct *t = alloc_task();

	if (!t)
		return NULL;
	strlcpy(t->comm, name, sizeof(t->comm));
	fpu_init_task(t);
	/* Its stack starts below the pt_regs slot, which an exec'd program will use. */
	push_switch_frame(t, (uint64_t *)task_pt_regs(t), kernel_thread_start, (uint64_t)fn,
			  (uint64_t)arg);
	link_task(t);
	wake_up_process(t);
	return t;
}

struct task_struct *find_task_by_pid(int pid)
{
	struct list_head *pos;

	list_for_each(pos, &all_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->pid == pid)
			return t;
	}
	return NULL;
}

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kzalloc(sizeof(*mm));

	if (!mm)
		return NULL;
	mm->pgd = pgd_alloc();
	if (!mm->pgd) {
		kfree(mm);
		return NULL;
	}
	memcpy(mm->pgd + 256, kernel_pgd + 256, 256 * sizeof(pgd_t)); /* share the kernel half */
	mm_vma_init(mm);
	init_rwsem(&mm->mmap_sem);
	spin_lock_init(&mm->page_table_lock);
	return mm;
}

/* Free the address space: its frames, its page tables, its PML4 (never the kernel half). */
void mmput(struct mm_struct *mm)
{
	if (!mm)
		return;
	/* Nobody else can reach it now; the write lock keeps the rule "VMAs change only under
	 * mmap_sem for writing" true without exceptions (and the debug build checks it). */
	down_write(&mm->mmap_sem);
	exit_mmap(mm);
	while (vma_first(mm)) {
		struct vm_area_struct *vma = vma_first(mm);

		vma_unlink(mm, vma);
		vma_free(vma);
	}
	up_write(&mm->mmap_sem);
	memset(mm->pgd + 256, 0, 256 * sizeof(pgd_t));
	pgd_free(mm->pgd);
	kfree(mm);
}

/* fork's copy of an address space: every VMA, and every PTE shared copy-on-write. */
struct mm_struct *dup_mm(struct mm_struct *old)
{
	struct mm_struct *mm = mm_alloc();
	struct vm_area_struct *vma;
	pgd_t *pgd;

	if (!mm)
		return NULL;
	/* As 2.6.23's dup_mmap: the parent's mmap_sem for writing, so that no fault of another
	 * thread changes a PTE while it is copied (the new mm is not visible to anyone yet). */
	down_write(&old->mmap_sem);
	pgd = mm->pgd;
	*mm = *old;
	mm->pgd = pgd;
	init_rwsem(&mm->mmap_sem);
	spin_lock_init(&mm->page_table_lock);
	mm->rss = 0;
	mm->def_flags = 0; /* mlockall(MCL_FUTURE) is not inherited, nor are locks */
	mm_vma_init(mm);
	for_each_vma(vma, old) {
		struct vm_area_struct *copy;

		if (vma->vm_flags & VM_DONTCOPY)
			continue; /* madvise(MADV_DONTFORK): a hole in the child */
		copy = kmalloc(sizeof(*copy));
		if (!copy)
			goto fail;
		*copy = *vma;
		copy->vm_flags &= ~(VM_LOCKED | VM_LOCKONFAULT);
		if (copy->vm_ops && copy->vm_ops->open)
			copy->vm_ops->open(copy);
		if (insert_vm_struct(mm, copy)) {
			vma_free(copy);
			goto fail;
		}
		if (!(vma->vm_flags & VM_WIPEONFORK) && copy_page_range(mm, old, vma))
			goto fail; /* (MADV_WIPEONFORK: the child's copy starts empty, as new memory) */
	}
	/* The parent's writable PTEs became read-only: drop its stale TLB entries. */
	write_cr3(read_cr3());
	up_write(&old->mmap_sem);
	return mm;
fail:
	write_cr3(read_cr3());
	up_write(&old->mmap_sem);
	mmput(mm);
	return NULL;
}

/* fork: a copy of the calling process that returns 0 from the same system call. args (NULL for
 * a plain fork) gives clone's extras, already checked by sys_clone (kernel/clone.c): a new
 * stack, a TLS base, where the child's tid goes in the parent's and the child's memory. */
long do_fork(struct pt_regs *regs, const struct kernel_clone_args *args)
{
	struct task_struct *t;
	struct pt_regs *child_regs;

	reap_dead_tasks(); /* their kernel-stack slots are free again */
	t = alloc_task();
	if (!t)
		return -EAGAIN;
	t->mm = dup_mm(current->mm);
	t->files = dup_files(current->files);
	t->fs = current->fs ? copy_fs_struct(current->fs) : NULL;
	if (!t->mm || !t->files || (current->fs && !t->fs)) {
		mmput(t->mm);
		put_files(t->files);
		put_fs_struct(t->fs);
		cred_release(t);
		kstack_free(t->stack);
		kfree(t);
		return -ENOMEM;
	}
	memcpy(t->comm, current->comm, sizeof(t->comm));
	t->pgrp = current->pgrp; /* the child starts in its parent's group and session */
	t->session = current->session;
	t->tty = current->tty;
	signals_fork(t, current);
	asm volatile("fxsave %0" : "=m"(t->thread.fxsave)); /* the parent's live registers */
	t->thread.fs_base = rdmsr(MSR_FS_BASE);
	child_regs = task_pt_regs(t);
	*child_regs = *regs;
	child_regs->rax = 0;
	if (args && args->stack)
		child_regs->rsp = args->stack;
	if (args && (args->flags & CLONE_SETTLS))
		t->thread.fs_base = args->tls;
	if (args && (args->flags & CLONE_CHILD_SETTID)) /* written by the child, in its memory */
		push_switch_frame(t, (uint64_t *)child_regs, ret_from_clone_settid, 0,
				  args->child_tid);
	else
		push_switch_frame(t, (uint64_t *)child_regs, ret_from_fork, 0, 0);
	link_task(t);
	if (args && (args->flags & CLONE_PARENT_SETTID)) /* as Linux, a bad address is ignored */
		(void)copy_to_user(args->parent_tid, &t->pid, sizeof(int));
	wake_up_process(t);
	return t->pid;
}

/* The parent has collected t's exit status: nothing of t is left after this. */
void release_task(struct task_struct *t)
{
	list_del(&t->sibling);
	list_del(&t->tasks);
	cred_release(t);
	kstack_free(t->stack);
	kfree(t);
	proc_flush_task(); /* its /proc directory goes, with any other no one holds */
}
