/* Introspection for tests and students: fl_vminfo, faultline's system call that reports a
 * page's PTE and struct page or the caller's counters, so ring-3 tests can check laziness,
 * COW and sharing (/proc/self/maps is in kernel/fs/proc/task_mmu.c). */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/anon.h"
#include "mm/fault.h"
#include "mm/gfp.h"
#include "mm/introspect.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/slab.h"
#include "mm/vma.h"

static void page_info(struct mm_struct *mm, uint64_t addr, struct fl_page *out)
{
	struct vm_area_struct *vma = find_vma(mm, addr);
	pte_t *ptep = walk_page_table(mm->pgd, ALIGN_DOWN(addr, PAGE_SIZE), false);
	pte_t pte = ptep ? *ptep : 0;
	struct page *page = vm_normal_page(pte);

	if (vma && vma->vm_start <= addr) {
		out->in_vma = 1;
		out->vm_flags = vma->vm_flags;
		out->file = vma->vm_file != NULL && (!page || !PageFlag(page, PG_anon));
	}
	if (!pte_present(pte))
		return;
	out->present = 1;
	out->writable = pte_write(pte);
	out->user = pte_user(pte);
	out->nx = !pte_exec(pte);
	out->dirty = pte_dirty(pte);
	out->accessed = pte_young(pte);
	out->pfn = pte_pfn(pte);
	out->zero = out->pfn == page_to_pfn(zero_page);
	if (page) {
		out->count = (uint64_t)page_count(page);
		out->mapcount = (uint64_t)(page->_mapcount + 1);
		out->anon = PageFlag(page, PG_anon);
	}
}

static int check_pte(pte_t *pte, uint64_t va, void *arg)
{
	struct fl_check *c = arg;
	struct page *page = vm_normal_page(*pte);

	(void)va;
	if (!pte_present(*pte))
		return 0;
	c->ptes++;
	if (!page)
		return 0;
	if (page->_mapcount < 0 || page_count(page) <= page->_mapcount)
		c->bad_counts++; /* every PTE holds a map count and a reference */
	if (!PageFlag(page, PG_anon)) {
		c->file_ptes++;
		if (!page->mapping)
			c->orphans++;
	}
	return 0;
}

/* Walk every user PTE of every process (vm_check in the kernel log names offenders). */
void vm_check_all(struct fl_check *c)
{
	extern struct list_head all_tasks;
	struct list_head *pos;

	list_for_each(pos, &all_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);
		struct fl_check one = { 0 };

		if (!t->mm)
			continue;
		/* Under the page-table lock: faults and zaps on other CPUs change PTEs and their
		 * pages' counts together under it, and a walk without it sees them half done. */
		spin_lock(&t->mm->page_table_lock);
		walk_page_range(t->mm, 0, USER_TOP, check_pte, &one);
		spin_unlock(&t->mm->page_table_lock);
		if (one.orphans || one.bad_counts)
			printk("vmcheck: pid %d (%s): %lu PTEs to pages no longer in the page "
			       "cache, %lu with bad counts\n", t->pid, t->comm, one.orphans,
			       one.bad_counts);
		c->ptes += one.ptes;
		c->file_ptes += one.file_ptes;
		c->orphans += one.orphans;
		c->bad_counts += one.bad_counts;
	}
}

_Static_assert(FL_FAULTS_MAX == FAULT_RING_SIZE, "FL_FAULTS copies the whole ring");

/* FL_FAULTS: the records after since that the caller's own faults wrote, up to the newest when
 * the call began. Each goes out as it is read: the records that copying to the user's buffer
 * would add (a buffer not yet touched faults) come after that newest one, so they are not in
 * this answer but in the next window, which is why a narrating program touches it first. */
static long fault_records(uint64_t since, uint64_t uout)
{
	uint64_t next = __atomic_load_n(&fault_ring_next, __ATOMIC_ACQUIRE);
	uint64_t first = next > FAULT_RING_SIZE ? next - FAULT_RING_SIZE + 1 : 1;
	struct fl_faults h = { .next = next };
	struct fl_fault f;

	if (since < next && since + 1 < first)
		h.lost = first - since - 1;
	for (uint64_t seq = since + 1 < first ? first : since + 1; seq <= next; seq++) {
		const struct fault_record *r = &fault_ring[(seq - 1) % FAULT_RING_SIZE];

		if (r->seq != seq) { /* overwritten (or being written) by a fault on another CPU */
			h.lost++;
			continue;
		}
		if (r->pid != current->pid)
			continue;
		f = (struct fl_fault){
			.seq = seq, .pid = (uint64_t)r->pid, .address = r->address,
			.pgoff = r->pgoff, .error = r->error, .vm_start = r->vm_start,
			.vm_end = r->vm_end, .result = r->result,
		};
		strlcpy(f.op, r->op ? r->op : "none", sizeof(f.op));
		if (copy_to_user(uout + offsetof(struct fl_faults, f) + h.count * sizeof(f), &f,
				 sizeof(f)))
			return -EFAULT;
		h.count++;
	}
	return copy_to_user(uout, &h, offsetof(struct fl_faults, f));
}

/* fl_vminfo(op, addr, out): fill *out for FL_PAGE, FL_MM, FL_CHECK or FL_FAULTS. 0, -EINVAL
 * or -EFAULT. */
long sys_fl_vminfo(uint64_t op, uint64_t addr, uint64_t uout)
{
	struct mm_struct *mm = current->mm;

	if (op == FL_PAGE) {
		struct fl_page p = { 0 };

		if (addr >= USER_TOP)
			return -EINVAL;
		down_read(&mm->mmap_sem);
		page_info(mm, addr, &p);
		up_read(&mm->mmap_sem); /* before the copy, which may fault */
		return copy_to_user(uout, &p, sizeof(p));
	}
	if (op == FL_MM) {
		struct fl_mm m;

		/* Threads that reaped themselves hold their kernel stacks until the next fork or
		 * wait frees them: a count of free frames is taken without them. */
		reap_dead_tasks();
		m = (struct fl_mm){
			.rss = mm->rss,
			.nr_vmas = (uint64_t)mm->map_count,
			.free_frames = nr_free_pages(),
			.pt_pages = count_pt_pages(mm),
			.min_flt = current->min_flt,
			.maj_flt = current->maj_flt,
		};

		return copy_to_user(uout, &m, sizeof(m));
	}
	if (op == FL_CHECK) {
		struct fl_check c = { 0 };

		vm_check_all(&c);
		c.past_eof = nr_fault_past_eof;
		return copy_to_user(uout, &c, sizeof(c));
	}
	if (op == FL_FAULTS)
		return fault_records(addr, uout);
	return -EINVAL;
}
