/* UFFDIO_COPY and UFFDIO_ZEROPAGE: the pages a userfaultfd's reader puts where faults were
 * missing one (Linux's mm/userfaultfd.c, mfill_atomic), in private anonymous memory or shared
 * memory. A page is filled only where none is: a present one is left alone (-EEXIST), so two
 * resolvers of one fault cannot both map. */
#include "kernel/arch/atomic.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/userfaultfd_k.h"
#include "mm/anon.h"
#include "mm/filemap.h"
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

/* Private anonymous memory: map page (NULL: the zero page) at dst, where nothing is mapped.
 * 0 or -errno; the page is the PTE's on success. */
static long mfill_anon(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t dst,
		       struct page *page)
{
	long err = -ENOMEM;
	pte_t *pte;

	if (page && anon_vma_prepare(vma))
		return err;
	spin_lock(&mm->page_table_lock);
	pte = walk_page_table(mm->pgd, dst, true);
	if (pte) {
		err = -EEXIST;
		if (pte_none(*pte)) {
			if (page) { /* writable if the VMA is (mfill_atomic_install_pte) */
				install_pte(mm, vma, pte, page, vma->vm_flags & VM_WRITE);
				page_add_new_anon_rmap(page, vma, dst);
			} else { /* read-only: the first store breaks it, as the zero page's */
				*pte = pte_wrprotect(pfn_pte(page_to_pfn(zero_page),
							     vma->vm_page_prot)) | _PAGE_ACCESSED;
			}
			err = 0;
		}
	}
	spin_unlock(&mm->page_table_lock);
	return err;
}

/*
 * Shared memory (Linux's shmem_mfill_atomic_pte): the page (NULL: a zeroed one; a shared
 * mapping never maps the zero page) becomes the file's page at dst's index, where the file has
 * none (-EEXIST, as a page another sharer faulted in), inside the file (-EFAULT), then is mapped
 * at dst. The cache keeps its own reference; the caller's becomes the PTE's, or is dropped.
 */
static long mfill_shmem(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t dst,
			struct page *page)
{
	struct inode *inode = vma->vm_file->f_inode;
	unsigned long index = linear_page_index(vma, dst);
	struct page *cached;
	long err = -EFAULT;
	pte_t *pte;

	if (index >= ALIGN_UP(inode->i_size, PAGE_SIZE) >> PAGE_SHIFT)
		goto out;
	err = -ENOMEM;
	if (!page && !(page = alloc_page(GFP_HIGHUSER | __GFP_ZERO)))
		return err;
	SetPageFlag(page, PG_locked);
	SetPageFlag(page, PG_uptodate);
	err = -EEXIST;
	if (add_to_page_cache(page, inode->i_mapping, index)) {
		ClearPageFlag(page, PG_locked);
		goto out;
	}
	cached = page;
	spin_lock(&mm->page_table_lock);
	pte = walk_page_table(mm->pgd, dst, true);
	if (pte && pte_none(*pte)) {
		install_pte(mm, vma, pte, page, vma->vm_flags & VM_WRITE);
		page_add_file_rmap(page);
		page = NULL; /* the PTE's now */
		err = 0;
	} else if (!pte) {
		err = -ENOMEM; /* (the page stays the file's: a later fault maps it) */
	}
	spin_unlock(&mm->page_table_lock);
	unlock_page(cached);
out:
	if (page)
		put_page(page);
	return err;
}

/* Fill page (NULL: zeroes) in at dst of ctx's mm. 0 or -errno; page is used up either way. */
static long mfill_one(struct userfaultfd_ctx *ctx, uint64_t dst, struct page *page)
{
	struct mm_struct *mm = ctx->mm;
	struct vm_area_struct *vma;
	long err = -ENOENT;

	down_read(&mm->mmap_sem);
	vma = find_dst_vma(ctx, dst);
	if (vma && (vma->vm_flags & VM_SHARED)) {
		err = mfill_shmem(mm, vma, dst, page);
		page = NULL;
	} else if (vma) {
		err = mfill_anon(mm, vma, dst, page);
	}
	up_read(&mm->mmap_sem);
	if (err && page)
		put_page(page);
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
		if (err)
			break;
		done += PAGE_SIZE;
	}
	return done ? (long)done : err;
}
