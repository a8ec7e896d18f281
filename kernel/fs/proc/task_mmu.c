/* /proc/PID/maps: a process's VMAs as text, in Linux's format, one line each: the range, the
 * permissions, the file offset, the device and inode, and the file's path or a label;
 * /proc/PID/smaps: the same lines, each followed by what the VMA's page tables map (resident,
 * shared, dirty, anonymous, swapped: Linux's show_smap); and /proc/PID/pagemap: one 64-bit
 * entry per virtual page, what its PTE maps (Linux's Documentation/admin-guide/mm/pagemap.rst). */
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/lib/string.h"
#include "kernel/arch/uaccess.h"
#include "mm/swap.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/slab.h"
#include "mm/vma.h"

#define MAPS_LINE 160

static size_t show_map(const struct mm_struct *mm, const struct vm_area_struct *vma, char *buf,
		       size_t cap)
{
	const struct inode *fi = vma->vm_file ? vma->vm_file->f_inode : NULL;
	unsigned long flags = vma->vm_flags;
	char name[128] = "";

	if (fi) {
		/* the name the file was opened by, " (deleted)" once it is gone, as Linux's d_path
		 * marks it */
		d_path(vma->vm_file->f_dentry, name, sizeof(name));
		if ((!fi->i_nlink || d_unlinked(vma->vm_file->f_dentry)) && S_ISREG(fi->i_mode))
			snprintf(name + strlen(name), sizeof(name) - strlen(name), " (deleted)");
	}
	else if (vma->vm_start <= mm->start_brk && vma->vm_end >= mm->brk &&
		 mm->brk > mm->start_brk)
		strlcpy(name, "[heap]", sizeof(name));
	else if (flags & VM_GROWSDOWN)
		strlcpy(name, "[stack]", sizeof(name));
	return (size_t)snprintf(buf, cap, "%08lx-%08lx %c%c%c%c %08lx %02x:%02x %-10lu %s\n",
				vma->vm_start, vma->vm_end, (flags & VM_READ) ? 'r' : '-',
				(flags & VM_WRITE) ? 'w' : '-', (flags & VM_EXEC) ? 'x' : '-',
				(flags & VM_MAYSHARE) ? 's' : 'p',
				fi ? vma->vm_pgoff << PAGE_SHIFT : 0,
				fi ? MAJOR(fi->i_sb->s_dev) : 0, fi ? MINOR(fi->i_sb->s_dev) : 0,
				fi ? fi->i_ino : 0, name);
}

/* What smaps counts of one VMA, in bytes (Linux's mem_size_stats). */
struct mem_size_stats {
	unsigned long resident, shared_clean, shared_dirty, private_clean, private_dirty;
	unsigned long referenced, anonymous, swap;
	/* each page's size divided among the PTEs that map it, << PSS_SHIFT; and of dirty ones */
	uint64_t pss, pss_dirty;
};
#define PSS_SHIFT 12

static int smaps_pte(pte_t *ptep, uint64_t va, void *arg)
{
	struct mem_size_stats *mss = arg;
	pte_t pte = *ptep;
	struct page *page;
	uint64_t pss;
	int mapcount;
	bool dirty;

	(void)va;
	if (is_swap_pte(pte)) {
		mss->swap += PAGE_SIZE;
		return 0;
	}
	page = vm_normal_page(pte);
	if (!page) /* not present, a device's frame or the zero page: Linux counts none */
		return 0;
	dirty = pte_dirty(pte) || PageDirty(page);
	mss->resident += PAGE_SIZE;
	if (pte_young(pte))
		mss->referenced += PAGE_SIZE;
	if (PageFlag(page, PG_anon))
		mss->anonymous += PAGE_SIZE;
	mapcount = page->_mapcount + 1;
	pss = ((uint64_t)PAGE_SIZE << PSS_SHIFT) / (uint64_t)(mapcount >= 2 ? mapcount : 1);
	if (mapcount >= 2)
		*(dirty ? &mss->shared_dirty : &mss->shared_clean) += PAGE_SIZE;
	else
		*(dirty ? &mss->private_dirty : &mss->private_clean) += PAGE_SIZE;
	mss->pss += pss;
	if (dirty)
		mss->pss_dirty += pss;
	return 0;
}

/* Linux's VmFlags codes for the flags faultline has. */
static size_t show_vmflags(unsigned long flags, char *buf, size_t cap)
{
	static const struct {
		unsigned long flag;
		char code[3];
	} names[] = {
		{ VM_READ, "rd" },	 { VM_WRITE, "wr" },	 { VM_EXEC, "ex" },
		{ VM_SHARED, "sh" },	 { VM_MAYREAD, "mr" },	 { VM_MAYWRITE, "mw" },
		{ VM_MAYEXEC, "me" },	 { VM_MAYSHARE, "ms" },	 { VM_GROWSDOWN, "gd" },
		{ VM_PFNMAP, "pf" },	 { VM_LOCKED, "lo" },	 { VM_IO, "io" },
		{ VM_SEQ_READ, "sr" },	 { VM_RAND_READ, "rr" },	 { VM_DONTCOPY, "dc" },
		{ VM_ACCOUNT, "ac" },	 { VM_NORESERVE, "nr" },
		{ VM_NONLINEAR, "nl" },	 { VM_WIPEONFORK, "wf" }, { VM_UFFD_MISSING, "um" },
	};
	size_t len = (size_t)snprintf(buf, cap, "VmFlags:");

	for (size_t k = 0; k < ARRAY_SIZE(names) && len < cap; k++)
		if (flags & names[k].flag)
			len += (size_t)snprintf(buf + len, cap - len, " %s", names[k].code);
	if (len < cap)
		len += (size_t)snprintf(buf + len, cap - len, "\n");
	return MIN(len, cap);
}

/* A VMA's smaps entry: its maps line, then the counts in kB as Linux's show_smap prints
 * them (the huge-page, KSM and lazy-free lines are 0: faultline has none of those). */
static size_t show_smap(const struct mm_struct *mm, const struct vm_area_struct *vma,
			char *buf, size_t cap)
{
	struct mem_size_stats mss = { 0 };
	unsigned long pss, pss_dirty;
	size_t len;

	walk_page_range((struct mm_struct *)mm, vma->vm_start, vma->vm_end, smaps_pte, &mss);
	pss = (unsigned long)(mss.pss >> PSS_SHIFT);
	pss_dirty = (unsigned long)(mss.pss_dirty >> PSS_SHIFT);
	const struct {
		const char *name;
		unsigned long bytes;
	} lines[] = {
		{ "Size:", vma->vm_end - vma->vm_start },
		{ "KernelPageSize:", PAGE_SIZE },
		{ "MMUPageSize:", PAGE_SIZE },
		{ "Rss:", mss.resident },
		{ "Pss:", pss },
		{ "Pss_Dirty:", pss_dirty },
		{ "Shared_Clean:", mss.shared_clean },
		{ "Shared_Dirty:", mss.shared_dirty },
		{ "Private_Clean:", mss.private_clean },
		{ "Private_Dirty:", mss.private_dirty },
		{ "Referenced:", mss.referenced },
		{ "Anonymous:", mss.anonymous },
		{ "KSM:", 0 }, { "LazyFree:", 0 }, { "AnonHugePages:", 0 },
		{ "ShmemPmdMapped:", 0 }, { "FilePmdMapped:", 0 },
		{ "Shared_Hugetlb:", 0 }, { "Private_Hugetlb:", 0 },
		{ "Swap:", mss.swap },
		{ "SwapPss:", mss.swap }, /* a swap slot is one process's unless fork shared it */
		{ "Locked:", (vma->vm_flags & VM_LOCKED) ? pss : 0 },
	};

	len = MIN(show_map(mm, vma, buf, cap), cap);
	for (size_t k = 0; k < ARRAY_SIZE(lines) && len < cap; k++)
		len += MIN((size_t)snprintf(buf + len, cap - len, "%-16s%8lu kB\n", lines[k].name,
					    lines[k].bytes >> 10), cap - len);
	if (len < cap) /* (no huge pages: no VMA is eligible) */
		len += MIN((size_t)snprintf(buf + len, cap - len, "THPeligible:    0\n"),
			   cap - len);
	return len + show_vmflags(vma->vm_flags, buf + len, cap - len);
}

/* The text is made once, at open: reads see the map as it was then. per_vma bytes at most for
 * each VMA's show. */
static int vmas_open(struct inode *ino, struct file *f, size_t per_vma,
		     size_t (*show)(const struct mm_struct *, const struct vm_area_struct *,
				    char *, size_t))
{
	struct task_struct *task = proc_task(ino);
	struct mm_struct *mm = task ? task->mm : NULL;
	struct proc_text *t;
	size_t cap;

	if (!task)
		return -ENOENT;
	if (mm) /* the VMAs, read as one consistent picture */
		down_read(&mm->mmap_sem);
	cap = (mm ? (size_t)mm->map_count : 0) * per_vma + 1;
	t = proc_text_alloc(cap);
	if (t) {
		for (struct vm_area_struct *vma = mm ? vma_first(mm) : NULL; vma;
		     vma = vma_next(mm, vma))
			t->len += MIN(show(mm, vma, t->buf + t->len, cap - t->len),
				      cap - 1 - t->len);
	}
	if (mm)
		up_read(&mm->mmap_sem);
	if (!t)
		return -ENOMEM;
	f->private_data = t;
	return 0;
}

static int maps_open(struct inode *ino, struct file *f)
{
	return vmas_open(ino, f, MAPS_LINE, show_map);
}

static int smaps_open(struct inode *ino, struct file *f)
{
	return vmas_open(ino, f, MAPS_LINE + 26 * 32, show_smap);
}

const struct file_operations proc_smaps_operations = {
	.open = smaps_open,
	.read = proc_text_read,
	.write = proc_write_eio,
	.release = proc_text_release,
};

const struct file_operations proc_maps_operations = {
	.open = maps_open,
	.read = proc_text_read,
	.write = proc_write_eio,
	.release = proc_text_release,
};

/* pagemap's bits (Linux's PM_*): the rest of a present entry is the frame number. */
#define PM_PFN_MASK ((1UL << 55) - 1)
#define PM_SOFT_DIRTY (1UL << 55) /* never set: faultline tracks no soft-dirty bit */
#define PM_MMAP_EXCLUSIVE (1UL << 56)
#define PM_FILE (1UL << 61)       /* a file page or a shared anonymous one */
#define PM_SWAP (1UL << 62)       /* swapped out: type in bits 0..4, offset from bit 5 */
#define PM_PRESENT (1UL << 63)
#define PM_ENTRY_BYTES 8
#define PM_BATCH 256 /* entries made per step, before copying them out */

/* What pagemap's open remembers: whose pages, and whether frame numbers are shown. */
struct pagemap_private {
	int pid;
	bool show_pfn;
};

static int pagemap_open(struct inode *ino, struct file *f)
{
	struct task_struct *task = proc_task(ino);
	struct pagemap_private *p;

	if (!task)
		return -ENOENT;
	p = kmalloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->pid = task->pid;
	p->show_pfn = proc_pfn_visible(); /* decided at open, as Linux does */
	f->private_data = p;
	return 0;
}

/* The entry for the page at va of mm. A nonlinear file PTE (not present, but naming a file
 * page) is reported as a file page that is not present; a swap PTE as swapped, with where
 * (only to those who may see frame numbers, as today's Linux). */
static uint64_t pagemap_entry(struct mm_struct *mm, uint64_t va, bool show_pfn)
{
	pte_t *ptep = walk_page_table(mm->pgd, va, false);
	pte_t pte = ptep ? *ptep : 0;
	struct page *page;
	uint64_t e;

	if (is_swap_pte(pte)) {
		swp_entry_t entry = pte_to_swp_entry(pte);

		e = PM_SWAP;
		if (show_pfn)
			e |= (swp_type(entry) | swp_offset(entry) << MAX_SWAPFILES_SHIFT) &
			     PM_PFN_MASK;
		return e;
	}
	if (!pte_present(pte))
		return pte_file(pte) ? PM_FILE : 0;
	page = vm_normal_page(pte);
	e = PM_PRESENT | (show_pfn ? pte_pfn(pte) & PM_PFN_MASK : 0);
	if (page && !PageFlag(page, PG_anon))
		e |= PM_FILE;
	if (page && page->_mapcount == 0)
		e |= PM_MMAP_EXCLUSIVE;
	return e;
}

/* Entries from *pos / 8 on: the page at virtual address (*pos / 8) * 4096 each. Offsets and
 * sizes must be multiples of 8 (EINVAL); past the user half, or once the process is gone,
 * end of file. */
static long pagemap_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	const struct pagemap_private *p = f->private_data;
	uint64_t buf[PM_BATCH], done = 0;

	if ((*pos % PM_ENTRY_BYTES) || (n % PM_ENTRY_BYTES))
		return -EINVAL;
	while (done < n) {
		struct task_struct *task = find_task_by_pid(p->pid);
		uint64_t page = *pos / PM_ENTRY_BYTES, k;

		if (!task || !task->mm || page >= USER_TOP >> PAGE_SHIFT)
			break;
		down_read(&task->mm->mmap_sem);
		for (k = 0; k < PM_BATCH && done + k * PM_ENTRY_BYTES < n &&
			    page + k < USER_TOP >> PAGE_SHIFT; k++)
			buf[k] = pagemap_entry(task->mm, (page + k) << PAGE_SHIFT, p->show_pfn);
		up_read(&task->mm->mmap_sem);
		/* copy_to_user may fault (taking mmap_sem) and sleep: the entries are made
		 * before, under mmap_sem, and the task is looked up again after */
		if (copy_to_user(ubuf + done, buf, k * PM_ENTRY_BYTES))
			return done ? (long)done : -EFAULT;
		done += k * PM_ENTRY_BYTES;
		*pos += k * PM_ENTRY_BYTES;
	}
	return (long)done;
}

static void pagemap_release(struct inode *ino, struct file *f)
{
	(void)ino;
	kfree(f->private_data);
}

const struct file_operations proc_pagemap_operations = {
	.open = pagemap_open,
	.read = pagemap_read,
	.release = pagemap_release,
};
