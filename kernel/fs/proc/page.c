/* /proc/kpagecount and /proc/kpageflags: one 64-bit entry per frame of RAM, at offset pfn * 8
 * (Linux's fs/proc/page.c): how many PTEs map the frame, and what it is, in Linux's KPF_*
 * bit numbers. Only what faultline knows is set: it has no LRU, no referenced or active
 * bits, no writeback, swap, huge pages, KSM or idle tracking. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/proc/internal.h"
#include "mm/gfp.h"
#include "mm/memory.h"

/* Linux's KPF_* bit numbers (include/uapi/linux/kernel-page-flags.h) that faultline sets. */
#define KPF_LOCKED	  0
#define KPF_UPTODATE	  3
#define KPF_DIRTY	  4
#define KPF_SLAB	  7
#define KPF_BUDDY	  10
#define KPF_MMAP	  11 /* mapped by at least one PTE */
#define KPF_ANON	  12
#define KPF_COMPOUND_HEAD 15 /* the first frame of a multi-frame kmalloc block */
#define KPF_NOPAGE	  20 /* no struct page: past the end of RAM */
#define KPF_ZERO_PAGE	  24
#define KPF_RESERVED	  32 /* Linux's "kernel hacking" bit: never allocatable */

#define KPAGE_BATCH 256

static uint64_t kpagecount_entry(unsigned long pfn)
{
	const struct page *p = pfn_to_page(pfn);

	/* the zero page's map count is not kept (its PTEs are never counted) */
	return p->_mapcount >= 0 ? (uint64_t)(p->_mapcount + 1) : 0;
}

static uint64_t kpageflags_entry(unsigned long pfn)
{
	const struct page *p = pfn_to_page(pfn);
	uint64_t f = 0;

	if (PageFlag(p, PG_zero))
		return 1UL << KPF_ZERO_PAGE | 1UL << KPF_RESERVED;
	f |= (uint64_t)PageFlag(p, PG_locked) << KPF_LOCKED;
	f |= (uint64_t)PageFlag(p, PG_uptodate) << KPF_UPTODATE;
	f |= (uint64_t)PageFlag(p, PG_dirty) << KPF_DIRTY;
	f |= (uint64_t)PageFlag(p, PG_slab) << KPF_SLAB;
	f |= (uint64_t)PageFlag(p, PG_buddy) << KPF_BUDDY;
	f |= (uint64_t)PageFlag(p, PG_anon) << KPF_ANON;
	f |= (uint64_t)PageFlag(p, PG_head) << KPF_COMPOUND_HEAD;
	f |= (uint64_t)PageFlag(p, PG_reserved) << KPF_RESERVED;
	if (p->_mapcount >= 0)
		f |= 1UL << KPF_MMAP;
	return f;
}

/* Entries from *pos / 8 on, one per frame below max_pfn, made by entry. Offsets and sizes
 * must be multiples of 8 (EINVAL); end of file past the last frame. */
static long kpage_read(uint64_t (*entry)(unsigned long), uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	uint64_t buf[KPAGE_BATCH], done = 0;

	if ((*pos % 8) || (n % 8))
		return -EINVAL;
	while (done < n && *pos / 8 < max_pfn) {
		unsigned long pfn = *pos / 8, k;

		for (k = 0; k < KPAGE_BATCH && done + k * 8 < n && pfn + k < max_pfn; k++)
			buf[k] = entry(pfn + k);
		if (copy_to_user(ubuf + done, buf, k * 8))
			return done ? (long)done : -EFAULT;
		done += k * 8;
		*pos += k * 8;
	}
	return (long)done;
}

static long kpagecount_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f;
	return kpage_read(kpagecount_entry, ubuf, n, pos);
}

static long kpageflags_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f;
	return kpage_read(kpageflags_entry, ubuf, n, pos);
}

static const struct file_operations kpagecount_operations = { .read = kpagecount_read };
static const struct file_operations kpageflags_operations = { .read = kpageflags_read };

int proc_page_init(struct inode *root)
{
	if (!proc_add(root, "kpagecount", S_IFREG | 0400, &kpagecount_operations) ||
	    !proc_add(root, "kpageflags", S_IFREG | 0400, &kpageflags_operations))
		return -ENOMEM;
	return 0;
}
