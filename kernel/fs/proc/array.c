/* /proc/PID/stat, status, comm and cmdline in Linux's formats (fs/proc/array.c, proc(5)), so
 * ps, top and libc's readers parse them unchanged. What faultline does not have (threads,
 * nice values, real-time policies, swap, capabilities) reads as a single-threaded process of
 * nice 0 under SCHED_OTHER, without swap, with root's full capabilities. */
#include "kernel/fs/proc/internal.h"
#include "kernel/sched/sched.h"
#include "kernel/lib/string.h"
#include "kernel/time/time.h"
#include "mm/swap.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/vma.h"

#define PF_KTHREAD 0x00200000 /* Linux's flag for a kernel thread (stat's flags field) */

/* The state as status prints it; stat prints its first letter. A state faultline does not
 * name reads as running. */
static const char *task_state(const struct task_struct *t)
{
	switch (t->state) {
	case TASK_INTERRUPTIBLE:
		return "S (sleeping)";
	case TASK_UNINTERRUPTIBLE:
		return "D (disk sleep)";
	case EXIT_ZOMBIE:
		return "Z (zombie)";
	case TASK_STOPPED:
		return "T (stopped)";
	case EXIT_DEAD:
		return "X (dead)";
	default:
		return "R (running)";
	}
}

/* A process's memory, in bytes (rss_* in pages), as status and stat report it. */
struct proc_mem {
	uint64_t vsize, data, stack, exec, locked;
	unsigned long rss_anon, rss_file, swap;
};

static int count_rss(pte_t *pte, uint64_t va, void *arg)
{
	struct proc_mem *m = arg;
	struct page *page = vm_normal_page(*pte);

	(void)va;
	if (is_swap_pte(*pte))
		m->swap++;
	if (!pte_present(*pte))
		return 0;
	if (page && PageFlag(page, PG_anon))
		m->rss_anon++;
	else
		m->rss_file++; /* file pages, and the zero page and device frames */
	return 0;
}

/* Linux's split (mm/mmap.c vm_stat_account): stack is VM_GROWSDOWN, exec is executable and
 * not writable, data is private and writable. */
static void proc_mem_of(struct mm_struct *mm, struct proc_mem *m)
{
	memset(m, 0, sizeof(*m));
	if (!mm)
		return;
	down_read(&mm->mmap_sem);
	for (struct vm_area_struct *v = vma_first(mm); v; v = vma_next(mm, v)) {
		uint64_t size = v->vm_end - v->vm_start;

		m->vsize += size;
		if (v->vm_flags & VM_LOCKED)
			m->locked += size;
		if (v->vm_flags & VM_GROWSDOWN)
			m->stack += size;
		else if ((v->vm_flags & (VM_EXEC | VM_WRITE)) == VM_EXEC)
			m->exec += size;
		else if ((v->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE)
			m->data += size;
	}
	walk_page_range(mm, 0, USER_TOP, count_rss, m);
	up_read(&mm->mmap_sem);
}

/* The signals t ignores and catches, as bit (sig - 1). */
static void sig_actions(const struct task_struct *t, uint64_t *ign, uint64_t *catch)
{
	*ign = *catch = 0;
	for (int sig = 1; sig <= NSIG; sig++) {
		uint64_t h = t->sighand->action[sig - 1].sa_handler;

		if (h == SIG_IGN)
			*ign |= 1UL << (sig - 1);
		else if (h != SIG_DFL)
			*catch |= 1UL << (sig - 1);
	}
}

static int task_ppid(const struct task_struct *t)
{
	return t->parent && t->parent != t ? t->parent->tgid : 0;
}

void proc_pid_stat(struct proc_text *t, struct task_struct *task)
{
	struct mm_struct *mm = task->mm;
	struct proc_mem m;
	uint64_t ign, catch;

	proc_mem_of(mm, &m);
	sig_actions(task, &ign, &catch);
	/* 1-9: pid (comm) state ppid pgrp session tty_nr tpgid flags; no terminal is known to
	 * procfs yet (tty_nr 0, tpgid -1) */
	proc_printf(t, "%d (%s) %c %d %d %d %d %d %u ", task->pid, task->comm, task_state(task)[0],
		    task_ppid(task), task->pgrp, task->session, 0, -1, mm ? 0u : PF_KTHREAD);
	/* 10-17: minflt cminflt majflt cmajflt utime stime cutime cstime (clock ticks: HZ is
	 * USER_HZ, 100; children's times are not summed) */
	proc_printf(t, "%lu %lu %lu %lu %lu %lu %d %d ", task->min_flt, task->signal->cmin_flt,
		    task->maj_flt, task->signal->cmaj_flt, task->utime, task->stime, 0, 0);
	/* 18-25: priority nice num_threads itrealvalue starttime vsize rss rsslim */
	proc_printf(t, "20 0 1 0 %lu %lu %lu 18446744073709551615 ", task->start_time, m.vsize,
		    mm ? mm->rss : 0);
	/* 26-34: startcode endcode startstack kstkesp kstkeip signal blocked sigignore sigcatch
	 * (the stack and instruction pointers read 0, as Linux shows them) */
	proc_printf(t, "%lu %lu %lu 0 0 %lu %lu %lu %lu ", mm ? mm->start_code : 0,
		    mm ? mm->end_code : 0, mm ? mm->start_stack : 0, task->pending & 0x7fffffff,
		    task->blocked & 0x7fffffff, ign & 0x7fffffff, catch & 0x7fffffff);
	/* 35-44: wchan nswap cnswap exit_signal processor rt_priority policy
	 * delayacct_blkio_ticks guest_time cguest_time */
	proc_printf(t, "%d 0 0 17 0 0 0 0 0 0 ", task->state != TASK_RUNNING);
	/* 45-52: start_data end_data start_brk arg_start arg_end env_start env_end exit_code */
	proc_printf(t, "%lu %lu %lu %lu %lu %lu %lu %d\n", mm ? mm->start_data : 0,
		    mm ? mm->end_data : 0, mm ? mm->start_brk : 0, 0UL, 0UL, 0UL, 0UL,
		    task->state == EXIT_ZOMBIE ? task->exit_code : 0);
}

static void show_kb(struct proc_text *t, const char *label, uint64_t bytes)
{
	proc_printf(t, "%s\t%8lu kB\n", label, bytes >> 10);
}

void proc_pid_status(struct proc_text *t, struct task_struct *task)
{
	struct mm_struct *mm = task->mm;
	const struct task_cred *c = &task->cred;
	struct proc_mem m;
	uint64_t ign, catch, rss;

	proc_mem_of(mm, &m);
	sig_actions(task, &ign, &catch);
	proc_printf(t,
		    "Name:\t%s\nUmask:\t0022\nState:\t%s\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n"
		    "PPid:\t%d\nTracerPid:\t0\n",
		    task->comm, task_state(task), task->tgid, task->pid, task_ppid(task));
	proc_printf(t, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nFDSize:\t64\nGroups:\t\n",
		    c->uid, c->euid, c->suid, c->fsuid, c->gid, c->egid, c->sgid, c->fsgid);
	proc_printf(t, "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n", task->tgid, task->pid,
		    task->pgrp, task->session);
	if (mm) { /* kernel threads have no memory lines, as on Linux */
		rss = (uint64_t)(m.rss_anon + m.rss_file) << PAGE_SHIFT;
		/* faultline keeps no peaks: VmPeak and VmHWM are the current sizes */
		show_kb(t, "VmPeak:", m.vsize);
		show_kb(t, "VmSize:", m.vsize);
		show_kb(t, "VmLck:", m.locked);
		show_kb(t, "VmPin:", 0);
		show_kb(t, "VmHWM:", rss);
		show_kb(t, "VmRSS:", rss);
		show_kb(t, "RssAnon:", (uint64_t)m.rss_anon << PAGE_SHIFT);
		show_kb(t, "RssFile:", (uint64_t)m.rss_file << PAGE_SHIFT);
		show_kb(t, "RssShmem:", 0);
		show_kb(t, "VmData:", m.data);
		show_kb(t, "VmStk:", m.stack);
		show_kb(t, "VmExe:", m.exec);
		show_kb(t, "VmLib:", 0);
		show_kb(t, "VmPTE:", (uint64_t)count_pt_pages(mm) << PAGE_SHIFT);
		show_kb(t, "VmSwap:", (uint64_t)m.swap << PAGE_SHIFT);
	}
	proc_printf(t,
		    "Threads:\t%d\nSigQ:\t0/%d\nSigPnd:\t%016lx\nShdPnd:\t%016lx\n"
		    "SigBlk:\t%016lx\nSigIgn:\t%016lx\nSigCgt:\t%016lx\n",
		    task->signal->live, NSIG, task->pending, task->signal->shared_pending,
		    task->blocked, ign, catch);
	proc_printf(t, "CapInh:\t0000000000000000\nCapPrm:\t%016lx\nCapEff:\t%016lx\n"
		       "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\n"
		       "Seccomp:\t0\n", c->cap_permitted, c->cap_effective);
	proc_printf(t, "voluntary_ctxt_switches:\t%lu\nnonvoluntary_ctxt_switches:\t%lu\n",
		    task->nvcsw, task->nivcsw);
}

void proc_pid_comm(struct proc_text *t, struct task_struct *task)
{
	proc_printf(t, "%s\n", task->comm);
}

/* Copy up to n bytes of mm's memory at va into buf, without faulting anything in: stops at
 * the first page that is not present. Returns the bytes copied. */
static size_t read_mm(struct mm_struct *mm, uint64_t va, void *buf, size_t n)
{
	size_t done = 0;

	while (done < n && va < USER_TOP) {
		size_t chunk = MIN(n - done, PAGE_SIZE - (va & ~PAGE_MASK));
		uint64_t pa = translate(mm->pgd, va, NULL);

		if (pa == NO_PHYS_ADDR)
			break;
		memcpy((char *)buf + done, __va(pa), chunk);
		done += chunk;
		va += chunk;
	}
	return done;
}

/* argv as the program's stack holds it: the strings from argv[0]'s up to the end of the
 * last one, each ending in its NUL. Kernel threads and zombies have none (empty file). */
void proc_pid_cmdline(struct proc_text *t, struct task_struct *task)
{
	struct mm_struct *mm = task->mm;
	uint64_t argc, argv0;
	size_t n, nuls = 0;

	if (!mm || read_mm(mm, mm->start_stack, &argc, 8) != 8 || !argc ||
	    read_mm(mm, mm->start_stack + 8, &argv0, 8) != 8)
		return;
	n = read_mm(mm, argv0, t->buf, t->cap);
	for (t->len = 0; t->len < n && nuls < argc; t->len++)
		nuls += t->buf[t->len] == '\0';
}
