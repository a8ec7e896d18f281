/* UFFDIO_COPY and UFFDIO_ZEROPAGE: the pages a userfaultfd's reader puts where faults were
 * missing one (Linux's mm/userfaultfd.c, mfill_atomic). A page is filled only where no PTE is:
 * a present page is left alone (-EEXIST), so two resolvers of one fault cannot both map. */
#include "kernel/arch/atomic.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/userfaultfd_k.h"
#include "mm/anon.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/rmap.h"
#include "mm/userfaultfd.h"
#include "mm/vma.h"

/* The VMA holding [dst, dst + PAGE_SIZE), if it is registered with ctx (Linux's
 * find_dst_vma): else the range is not ctx's to fill. mmap_sem held. */
static struct vm_area_struct *find_dst_vma(struct userfaultfd_ctx *ctx, uint64_t dst)
{
	struct vm_area_struct *vma = find_vma(ctx->mm, dst);

	if (!vma || vma->vm_start > dst || vma->vm_userfaultfd_ctx.ctx != ctx)
		return NULL;
	return vma;
}

/* Map page (NULL: the zero page) at dst of ctx's mm, where nothing is mapped. 0 or -errno. */
static long mfill_one(struct userfaultfd_ctx *ctx, uint64_t dst, struct page *page)
{
	struct mm_struct *mm = ctx->mm;
	struct vm_area_struct *vma;
	long err = -ENOENT;
	pte_t *pte;

	down_read(&mm->mmap_sem);
	vma = find_dst_vma(ctx, dst);
	if (!vma)
		goto out;
	err = -ENOMEM;
	if (page && anon_vma_prepare(vma))
		goto out;
	spin_lock(&mm->page_table_lock);
	pte = walk_page_table(mm->pgd, dst, true);
	if (!pte) {
		spin_unlock(&mm->page_table_lock);
		goto out;
	}
	err = -EEXIST;
	if (pte_none(*pte)) {
		if (page) { /* writable if the VMA is (mfill_atomic_install_pte) */
			install_pte(mm, vma, pte, page, vma->vm_flags & VM_WRITE);
			page_add_new_anon_rmap(page, vma, dst);
		} else { /* read-only: the first store breaks it, as the zero page's */
			*pte = pte_wrprotect(pfn_pte(page_to_pfn(zero_page), vma->vm_page_prot)) |
			       _PAGE_ACCESSED;
		}
		err = 0;
	}
	spin_unlock(&mm->page_table_lock);
out:
	up_read(&mm->mmap_sem);
	return err;
}

long mfill_atomic(struct userfaultfd_ctx *ctx, uint64_t dst, const uint64_t *src, uint64_t len)
{
	uint64_t done = 0;
	long err = 0;

	while (done < len) {
		struct page *page = NULL;

		/* The source is read before mmap_sem is taken: a fault on it may need the
		 * lock (and may itself be a userfault, if the source is registered). */
		if (src) {
			page = alloc_page(GFP_HIGHUSER);
			if (!page) {
				err = -ENOMEM;
				break;
			}
			if (copy_from_user(page_address(page), *src + done, PAGE_SIZE)) {
				put_page(page);
				err = -EFAULT;
				break;
			}
		}
		err = mfill_one(ctx, dst + done, page);
		if (err) {
			if (page)
				put_page(page);
			break;
		}
		done += PAGE_SIZE;
	}
	return done ? (long)done : err;
}
