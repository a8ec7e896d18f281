/* Self-tests of shmem driven directly, without a process: a page not cached is a new zeroed
 * page that later look-ups find again, SIGBUS past i_size, and a punched hole empties the
 * cache; the file's last fput gives every page back; reclaim keeps the pages of an unevictable
 * mapping (a SHM_LOCKed segment's). */
#include "kernel/fs/fs.h"
#include "kernel/test/ktest.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/page.h"
#include "mm/reclaim.h"
#include "mm/shmem.h"
#include "mm/vma.h"

KTEST(shmem_fault_zeroes_finds_and_punches)
{
	struct file *f = shmem_file_setup("ktest", 3 * PAGE_SIZE, 0);
	struct vm_area_struct vma = { .vm_flags = VM_READ | VM_WRITE | VM_SHARED };
	struct vm_fault vmf = { .pgoff = 1 };
	unsigned long free_before = nr_free_pages();
	struct inode *ino;
	struct page *page;
	int ret;

	KT_CHECK(f != NULL);
	if (!f)
		return;
	ino = f->f_inode;
	vma.vm_file = f;
	ret = shmem_fault(&vma, &vmf);
	KT_CHECK(ret == VM_FAULT_LOCKED);
	page = vmf.page;
	KT_CHECK(PageLocked(page) && page->mapping == ino->i_mapping && page->index == 1);
	KT_CHECK(((uint8_t *)page_address(page))[100] == 0);
	((uint8_t *)page_address(page))[100] = 0x5a;
	unlock_page(page);
	put_page(page);
	KT_CHECK(ino->i_mapping->nrpages == 1 && nr_free_pages() == free_before - 1);

	vmf = (struct vm_fault){ .pgoff = 1 };
	KT_CHECK(shmem_fault(&vma, &vmf) == VM_FAULT_LOCKED && vmf.page == page);
	KT_CHECK(((uint8_t *)page_address(page))[100] == 0x5a);
	unlock_page(page);
	put_page(page);

	vmf = (struct vm_fault){ .pgoff = 3 };
	KT_CHECK(shmem_fault(&vma, &vmf) == VM_FAULT_SIGBUS);

	ino->i_op->truncate_range(ino, 0, 2);
	KT_CHECK(ino->i_mapping->nrpages == 0 && nr_free_pages() == free_before);
	vmf = (struct vm_fault){ .pgoff = 1 };
	KT_CHECK(shmem_fault(&vma, &vmf) == VM_FAULT_LOCKED);
	KT_CHECK(((uint8_t *)page_address(vmf.page))[100] == 0);
	unlock_page(vmf.page);
	put_page(vmf.page);
	fput(f);				  /* the inode and its page go */
	KT_CHECK(nr_free_pages() >= free_before); /* (the slab may give a frame back too) */
}

/* Reclaim until the clean page is gone from mapping or a few passes over every page failed: the
 * pages still cached. */
static unsigned long reclaim_everything(struct address_space *mapping)
{
	for (int pass = 0; pass < 4 && mapping->nrpages; pass++)
		try_to_free_pages(nr_active + nr_inactive + 64, GFP_KERNEL);
	return mapping->nrpages;
}

KTEST(shmem_unevictable_kept_by_reclaim)
{
	struct file *f = shmem_file_setup("ktest-locked", PAGE_SIZE, 0);
	struct vm_area_struct vma = { .vm_flags = VM_READ | VM_SHARED };
	struct vm_fault vmf = { .pgoff = 0 };
	struct address_space *mapping;

	KT_CHECK(f != NULL);
	if (!f)
		return;
	mapping = f->f_inode->i_mapping;
	vma.vm_file = f;
	/* A page read in and never written: clean, so reclaim may drop it (it reads as zeroes
	 * again) unless its mapping is unevictable. */
	KT_CHECK(shmem_fault(&vma, &vmf) == VM_FAULT_LOCKED);
	KT_CHECK(!PageDirty(vmf.page));
	unlock_page(vmf.page);
	put_page(vmf.page);
	mapping_set_unevictable(mapping, true);
	KT_CHECK(reclaim_everything(mapping) == 1);
	mapping_set_unevictable(mapping, false);
	KT_CHECK(reclaim_everything(mapping) == 0); /* the same page, evictable again */
	fput(f);
}
