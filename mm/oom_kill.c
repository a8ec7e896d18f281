/* The OOM killer in Linux 2.6.23's design (mm/oom_kill.c): badness() scores every task,
 * select_bad_process() takes the worst, oom_kill_process() sends its thread group SIGKILL, and
 * out_of_memory() prints Linux's report around them. The task list, the signals and
 * oom_score_adj are big-kernel-lock data, so all of it runs under that lock. */
#include "kernel/process/cred.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/time/time.h"
#include "kernel/lib/int_sqrt.h"
#include "mm/reclaim.h"
#include "mm/filemap.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/oom.h"
#include "mm/swap.h"
#include "mm/vma.h"

#define SHIFT_HZ 7 /* log2(HZ), rounded down: Linux's <linux/timex.h> for HZ 100 */
#ifndef CAP_SYS_RAWIO
#define CAP_SYS_RAWIO 17
#endif
#define K(pages) ((pages) << (PAGE_SHIFT - 10))

/* select_bad_process found a victim still exiting: kill nobody, wait for it. */
#define OOM_ABORT ((struct task_struct *)-1L)

/* The process killed last (its tgid: pids are not reused), 0 before the first kill. While any
 * of its threads is still on its way out (not yet a zombie, so its mm is not yet freed), no
 * other process is chosen: 2.6.23 waited the same way for a task with TIF_MEMDIE set. */
static int oom_victim_tgid;

bool oom_task_is_victim(const struct task_struct *t)
{
	return oom_victim_tgid && t->tgid == oom_victim_tgid;
}

/* faultline has no nice values (every task is nice 0, as /proc/PID/stat says): 2.6.23's
 * doubling for a niced task is kept in its place and never applies. */
static int task_nice(const struct task_struct *p)
{
	(void)p;
	return 0;
}

static bool has_capability(const struct task_struct *p, int cap)
{
	return p->cred.cap_effective & CAP_TO_MASK(cap);
}

/*
 * mm's size in pages (Linux keeps it as mm->total_vm; faultline adds up the VMAs). Under
 * mmap_sem for reading, but only tried: an allocation inside a fault holds it already, and a
 * writer queued behind that hold would make a second down_read wait forever. When it is busy
 * the resident pages stand in, a lower bound.
 */
static unsigned long mm_total_vm(struct mm_struct *mm)
{
	struct vm_area_struct *v;
	unsigned long pages = 0;

	if (!down_read_trylock(&mm->mmap_sem))
		return mm->rss;
	for_each_vma(v, mm)
		pages += (v->vm_end - v->vm_start) >> PAGE_SHIFT;
	up_read(&mm->mmap_sem);
	return pages;
}

/* All the memory there is to share out: RAM frames and swap slots (Linux's totalpages). */
static unsigned long oom_totalpages(void)
{
	unsigned long swap_total, swap_free;

	si_swapinfo(&swap_total, &swap_free);
	return nr_managed_pages() + swap_total;
}

/*
 * 2.6.23's score: the size of the address space, plus half of each child's that has its own
 * (a server forking children that eat memory is a good choice, but a child that eats most of
 * it scores higher than its parent); divided by the square root of the CPU time (in units of
 * 2^(SHIFT_HZ + 3) ticks, about 10 s) and by the fourth root of the run time (units of 1024
 * s): long-running, busy work is worth keeping; doubled when niced; quartered for root (or
 * CAP_SYS_ADMIN) and again for CAP_SYS_RAWIO (direct hardware access).
 *
 * Then today's oom_score_adj, combined as Linux's oom_badness does since 2.6.36: adj/1000 of
 * all memory (RAM and swap, in pages) is added to the score, so +1000 outweighs any process
 * that fits in memory and -999 leaves almost nothing; an eligible task never scores below 1.
 * -1000 makes the task ineligible: 0, like init and kernel threads (no mm).
 */
unsigned long badness(struct task_struct *p, unsigned long uptime)
{
	struct mm_struct *mm = p->mm;
	long adj = p->signal->oom_score_adj, total;
	unsigned long points, cpu_time, run_time, start, s;
	struct task_struct *child;

	if (!mm || p->tgid == 1 || adj == OOM_SCORE_ADJ_MIN)
		return 0;
	points = mm_total_vm(mm);
	list_for_each_entry(child, &p->children, sibling)
		if (child->mm && child->mm != mm)
			points += mm_total_vm(child->mm) / 2 + 1;

	cpu_time = (p->utime + p->stime) >> (SHIFT_HZ + 3);
	start = p->start_time / HZ;
	run_time = uptime >= start ? (uptime - start) >> 10 : 0;
	s = int_sqrt(cpu_time);
	if (s)
		points /= s;
	s = int_sqrt(int_sqrt(run_time));
	if (s)
		points /= s;

	if (task_nice(p) > 0)
		points *= 2;
	if (has_capability(p, CAP_SYS_ADMIN) || p->cred.uid == 0 || p->cred.euid == 0)
		points /= 4;
	if (has_capability(p, CAP_SYS_RAWIO))
		points /= 4;

	total = (long)points + adj * (long)oom_totalpages() / 1000;
	return total > 0 ? (unsigned long)total : 1;
}

/* The thread of p's group that still has the memory (a leader that called pthread_exit has
 * none), or NULL: Linux's find_lock_task_mm. */
static struct task_struct *task_with_mm(struct task_struct *p)
{
	struct task_struct *t;

	for_each_thread(p->group_leader, t)
		if (t->mm)
			return t;
	return NULL;
}

unsigned long oom_score(struct task_struct *p)
{
	struct task_struct *t = task_with_mm(p);

	return t ? badness(t, jiffies / HZ) : 0;
}

/*
 * The task to kill: the highest badness of all (2.6.23 walks every thread, as here). Skipped:
 * kernel threads, zombies, init, oom_score_adj -1000. OOM_ABORT when the last victim, or any
 * process in a group exit, still holds memory it is about to free: killing a second process
 * then would be a mistake (2.6.23's TIF_MEMDIE and PF_EXITING tests). NULL: nobody to kill.
 */
static struct task_struct *select_bad_process(unsigned long *ppoints)
{
	unsigned long uptime = jiffies / HZ, points;
	struct task_struct *p, *chosen = NULL;

	*ppoints = 0;
	list_for_each_entry(p, &all_tasks, tasks) {
		if (oom_task_is_victim(p) && p->state < EXIT_ZOMBIE)
			return OOM_ABORT;
		if (!p->mm || p->tgid == 1)
			continue;
		if ((p->signal->flags & SIGNAL_GROUP_EXIT) && p->state < EXIT_ZOMBIE)
			return OOM_ABORT;
		points = badness(p, uptime);
		if (points > *ppoints) {
			chosen = p;
			*ppoints = points;
		}
	}
	return chosen;
}

/* The allocation's flags by name, as Linux's %pGg prints them (faultline's own values). */
static const char *gfp_names(gfp_t gfp)
{
	static const char *const names[] = { "GFP_KERNEL", "GFP_KERNEL|__GFP_ZERO",
					     "GFP_NOFS", "GFP_NOFS|__GFP_ZERO" };

	if ((gfp & GFP_HIGHUSER) == GFP_HIGHUSER)
		return gfp & __GFP_ZERO ? "GFP_HIGHUSER|__GFP_ZERO" : "GFP_HIGHUSER";
	return names[gfp & (__GFP_ZERO | __GFP_WAIT)];
}

/* Linux's dump_header: who asked, the memory left, and every process with memory. */
static void dump_header(gfp_t gfp_mask, int order)
{
	unsigned long swap_total, swap_free;
	struct task_struct *t;

	printk("%s invoked oom-killer: gfp_mask=0x%x(%s), order=%d, oom_score_adj=%d\n",
	       current->comm, gfp_mask, gfp_names(gfp_mask), order,
	       current->signal->oom_score_adj);
	si_swapinfo(&swap_total, &swap_free);
	printk("Mem-Info:\n");
	printk("free:%lu pagecache:%lu\n", nr_free_pages(), nr_pagecache);
	printk("%lu total pagecache pages\n", nr_pagecache);
	printk("Free swap  = %lukB\n", K(swap_free));
	printk("Total swap = %lukB\n", K(swap_total));
	printk("%lu pages RAM\n", nr_managed_pages());
	printk("Tasks state (memory values in pages):\n");
	printk("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj "
	       "name\n");
	list_for_each_entry(t, &all_tasks, tasks) {
		/* one line a process: its first thread with memory; kernel threads have none */
		if (!t->mm || t->tgid == 1 || task_with_mm(t) != t)
			continue;
		printk("[%7d] %5u %5d %8lu %8lu %8lu %8lu         %5d %s\n", t->pid, t->cred.uid,
		       t->tgid, mm_total_vm(t->mm), t->mm->rss,
		       count_pt_pages(t->mm) << PAGE_SHIFT, t->mm->swapents,
		       t->signal->oom_score_adj, t->comm);
	}
}

struct rss_split {
	unsigned long anon, file;
};

static int count_rss(pte_t *pte, uint64_t va, void *arg)
{
	struct rss_split *r = arg;
	struct page *page = vm_normal_page(*pte);

	(void)va;
	if (!page)
		return 0; /* not present, the zero page, a device frame: none is freed */
	if (PageFlag(page, PG_anon))
		r->anon++;
	else
		r->file++;
	return 0;
}

/* mm's resident pages, anonymous and file (Linux's MM_ANONPAGES, MM_FILEPAGES): walked under
 * mmap_sem if it can be had at once, else all of rss counts as anonymous. */
static struct rss_split rss_of(struct mm_struct *mm)
{
	struct rss_split r = { 0, 0 };

	if (!down_read_trylock(&mm->mmap_sem)) {
		r.anon = mm->rss;
		return r;
	}
	walk_page_range(mm, 0, USER_TOP, count_rss, &r);
	up_read(&mm->mmap_sem);
	return r;
}

/* SIGKILL to victim's thread group and to every other process using its memory (CLONE_VM
 * without CLONE_THREAD, a vfork parent): killing one of them alone would free nothing. */
static void oom_kill_task(struct task_struct *victim)
{
	struct mm_struct *mm = victim->mm;
	struct rss_split rss = rss_of(mm);
	struct task_struct *t;

	printk("oom-kill:constraint=CONSTRAINT_NONE,global_oom,task=%s,pid=%d,uid=%u\n",
	       victim->comm, victim->tgid, victim->cred.uid);
	printk("Out of memory: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, "
	       "file-rss:%lukB, shmem-rss:0kB, UID:%u pgtables:%lukB oom_score_adj:%d\n",
	       victim->tgid, victim->comm, K(mm_total_vm(mm)), K(rss.anon), K(rss.file),
	       victim->cred.uid, K(count_pt_pages(mm)), victim->signal->oom_score_adj);
	oom_victim_tgid = victim->tgid;
	group_send_sig(SIGKILL, victim);
	list_for_each_entry(t, &all_tasks, tasks)
		if (t->mm == mm && t->tgid != victim->tgid && t->tgid != 1)
			group_send_sig(SIGKILL, t);
}

/*
 * Kill p, or one of its children. 2.6.23 tried p's children with their own memory first,
 * taking the first one it found: badness gives a parent half of each child's size, so a
 * parent scores high because of a child that eats memory, and that child is what should go.
 * Here the child with the highest badness goes (2.6.23's idea, with the choice among the
 * children made by score instead of list order); p only when none is eligible.
 */
static void oom_kill_process(struct task_struct *p, unsigned long points)
{
	unsigned long uptime = jiffies / HZ, best = 0, cp;
	struct task_struct *t, *c, *victim = p;

	for_each_thread(p->group_leader, t)
		list_for_each_entry(c, &t->children, sibling) {
			if (!c->mm || c->mm == p->mm)
				continue;
			cp = badness(c, uptime);
			if (cp > best) {
				best = cp;
				victim = task_with_mm(c);
			}
		}
	if (victim != p)
		printk("Out of memory: Kill process %d (%s) score %lu or sacrifice child\n",
		       p->tgid, p->comm, points);
	oom_kill_task(victim);
}

void out_of_memory(gfp_t gfp_mask, int order)
{
	unsigned long points;
	struct task_struct *p;

	lock_kernel();
	p = select_bad_process(&points);
	/*
	 * Memory may have come back since the allocation failed: the last victim exited (on
	 * another CPU) between that failure and the look at the tasks, which no longer shows
	 * it. 2.6.23 tried the allocation once more at pages_high before killing; here, after
	 * the choice (a victim not yet a zombie has stopped it already, and one that is has
	 * freed its memory by now), free frames above pages_high mean: kill nobody, retry.
	 */
	if (p != OOM_ABORT && nr_free_pages() > pages_high + (1UL << order))
		p = OOM_ABORT;
	if (p != OOM_ABORT) {
		dump_header(gfp_mask, order);
		if (!p)
			panic("Out of memory and no killable processes...");
		oom_kill_process(p, points);
	}
	unlock_kernel();
	/* Give the victim a chance to exit before the caller tries again (unless this is it:
	 * it should die at once). */
	if (!oom_task_is_victim(current)) {
		current->state = TASK_INTERRUPTIBLE;
		schedule_timeout(1);
	}
}

/*
 * The fault found no frame. Linux's allocator runs the OOM killer itself before it fails an
 * allocation; faultline's does not yet, so the fault path runs it here (as Linux's
 * pagefault_out_of_memory did until 4.x, with gfp_mask 0 and order 0). The faulting task is
 * not killed for it: it returns and the faulting instruction runs again, finding the memory
 * the victim freed, unless it was the victim (SIGKILL pending ends it on the way out).
 */
void pagefault_out_of_memory(void)
{
	out_of_memory(GFP_KERNEL, 0);
}
