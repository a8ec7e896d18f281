/* Self-tests of filemap_fault driven directly, without a process: the i_size check under the
 * page lock, which is what makes a fault racing a truncate end in SIGBUS, and the mapping's
 * a_ops->readpage as the only way a missing page gets filled. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/lib/string.h"
#include "kernel/sched/sched.h"
#include "kernel/test/ktest.h"
#include "mm/filemap.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"
#include "mm/vma.h"

static struct inode race_ino;
static int readpages;  /* race_aops's readpage calls */
static int fail_reads; /* so many of the next ones fail (-EIO, the page not up to date) */

/* The test file's store: a hole (zeroes), each read counted and the page stamped with it. */
static int race_readpage(struct file *f, struct page *page)
{
	(void)f;
	readpages++;
	if (fail_reads > 0) {
		fail_reads--;
		unlock_page(page);
		return -EIO;
	}
	memset(page_address(page), 0, PAGE_SIZE);
	*(uint32_t *)page_address(page) = 0xfeed0000U | page->index;
	SetPageFlag(page, PG_uptodate);
	unlock_page(page);
	return 0;
}

/* Only read: nothing here writes the file. */
static const struct address_space_operations race_aops = { .readpage = race_readpage };
static struct file race_file;
static struct vm_area_struct race_vma;
static volatile int fault_ret, fault_done;

/* A file of two pages whose store is race_aops (each page reads as zeroes and a stamp), and a
 * VMA of it. */
static void race_file_init(void)
{
	race_ino = (struct inode){ .i_mode = S_IFREG | 0644, .i_size = 2 * PAGE_SIZE };
	race_ino.i_mapping = &race_ino.i_data;
	race_ino.i_data.host = &race_ino;
	race_ino.i_data.a_ops = &race_aops;
	readpages = fail_reads = 0;
	INIT_LIST_HEAD(&race_ino.i_data.i_mmap);
	INIT_LIST_HEAD(&race_ino.i_data.i_mmap_nonlinear);
	race_file = (struct file){ .f_count = 1, .f_inode = &race_ino };
	race_vma =
		(struct vm_area_struct){ .vm_file = &race_file, .vm_flags = VM_READ | VM_SHARED };
}

/* The second task: fault page 1 of the file; give back what a locked page holds. */
static int faulter(void *arg)
{
	struct vm_fault vmf = { .pgoff = 1 };

	(void)arg;
	fault_ret = filemap_fault(&race_vma, &vmf);
	if (fault_ret & VM_FAULT_LOCKED) {
		unlock_page(vmf.page);
		put_page(vmf.page);
	}
	fault_done = 1;
	return 0;
}

/*
 * The page is cached and locked (as truncate_inode_pages holds it); a second task faulting it
 * sleeps in lock_page; i_size shrinks to one page, as vmtruncate sets it before it removes
 * pages; the lock is dropped. The fault finds the page still in the page cache, so only its
 * i_size check under the lock can see that page 1 is past the end now: VM_FAULT_SIGBUS.
 */
KTEST(filemap_fault_rechecks_size_under_lock)
{
	unsigned long before = nr_free_pages();
	struct task_struct *t;
	struct page *page;
	bool major;
	int status;

	race_file_init();
	page = find_or_read_page(NULL, race_ino.i_mapping, 1, &major);
	KT_CHECK(page != NULL && major);
	if (!page)
		return;
	lock_page(page);
	fault_done = 0;
	fault_ret = -1;
	t = kernel_thread(faulter, NULL, "faulter");
	KT_CHECK(t != NULL);
	if (!t) {
		unlock_page(page);
		put_page(page);
		return;
	}
	for (int i = 0; i < 10 && t->state != TASK_UNINTERRUPTIBLE; i++)
		schedule(); /* let it run into lock_page and sleep there */
	KT_CHECK(t->state == TASK_UNINTERRUPTIBLE && !fault_done);
	race_ino.i_size = PAGE_SIZE;
	unlock_page(page);
	KT_CHECK(do_wait4(t->pid, &status, 0) == t->pid);
	KT_CHECK(fault_done);
	KT_CHECK(fault_ret == VM_FAULT_SIGBUS);
	KT_CHECK(page->mapping == race_ino.i_mapping); /* truncate had not removed it yet */
	put_page(page);
	truncate_inode_pages(&race_ino, 0, 2 * PAGE_SIZE);
	KT_CHECK(race_ino.i_data.nrpages == 0);
	KT_CHECK(nr_free_pages() == before);
}

/* Without a race the same fault inside the file returns its page locked, with a reference. */
KTEST(filemap_fault_returns_page_locked)
{
	struct vm_fault vmf = { .pgoff = 0 };
	unsigned long before = nr_free_pages();
	int ret;

	race_file_init();
	ret = filemap_fault(&race_vma, &vmf);
	KT_CHECK(ret == (VM_FAULT_LOCKED | VM_FAULT_MAJOR));
	if (!(ret & VM_FAULT_LOCKED))
		return;
	KT_CHECK(PageLocked(vmf.page) && vmf.page->index == 0);
	unlock_page(vmf.page);
	put_page(vmf.page);
	vmf.pgoff = 2; /* past the end: SIGBUS before any look-up */
	KT_CHECK(filemap_fault(&race_vma, &vmf) == VM_FAULT_SIGBUS);
	truncate_inode_pages(&race_ino, 0, 2 * PAGE_SIZE);
	KT_CHECK(nr_free_pages() == before);
}

/*
 * A page not in the cache is filled by the mapping's a_ops->readpage, once, for a fault and
 * for read() alike; a cached page is not read again. A read that fails is tried once more
 * (the fault's page_not_uptodate path), and two failures are SIGBUS for a fault, -EIO for a
 * read.
 */
KTEST(filemap_missing_page_filled_by_readpage)
{
	struct vm_fault vmf = { .pgoff = 0 };
	unsigned long before = nr_free_pages();
	uint32_t word = 0;
	int ret;

	race_file_init();
	ret = filemap_fault(&race_vma, &vmf);
	KT_CHECK(ret == (VM_FAULT_LOCKED | VM_FAULT_MAJOR) && readpages == 1);
	if (!(ret & VM_FAULT_LOCKED))
		return;
	KT_CHECK(*(uint32_t *)page_address(vmf.page) == 0xfeed0000U);
	unlock_page(vmf.page);
	put_page(vmf.page);
	ret = filemap_fault(&race_vma, &vmf); /* cached now: a minor fault, no read */
	KT_CHECK(ret == VM_FAULT_LOCKED && readpages == 1);
	if (ret & VM_FAULT_LOCKED) {
		unlock_page(vmf.page);
		put_page(vmf.page);
	}
	KT_CHECK(kernel_read(&race_ino, PAGE_SIZE, &word, sizeof(word)) == sizeof(word));
	KT_CHECK(word == 0xfeed0001U && readpages == 2);
	truncate_inode_pages(&race_ino, 0, 2 * PAGE_SIZE);
	KT_CHECK(race_ino.i_data.nrpages == 0);

	fail_reads = 1; /* the first read fails, the fault's second one fills the page */
	ret = filemap_fault(&race_vma, &vmf);
	KT_CHECK(ret == (VM_FAULT_LOCKED | VM_FAULT_MAJOR) && readpages == 4);
	if (ret & VM_FAULT_LOCKED) {
		KT_CHECK(PageUptodate(vmf.page));
		KT_CHECK(*(uint32_t *)page_address(vmf.page) == 0xfeed0000U);
		unlock_page(vmf.page);
		put_page(vmf.page);
	}
	fail_reads = 2; /* page 1 cannot be read */
	KT_CHECK(filemap_fault(&race_vma, &(struct vm_fault){ .pgoff = 1 }) == VM_FAULT_SIGBUS);
	KT_CHECK(readpages == 6);
	fail_reads = 2;
	truncate_inode_pages(&race_ino, 0, 2 * PAGE_SIZE);
	KT_CHECK(kernel_read(&race_ino, PAGE_SIZE, &word, sizeof(word)) == -EIO);
	KT_CHECK(readpages == 8);
	truncate_inode_pages(&race_ino, 0, 2 * PAGE_SIZE);
	KT_CHECK(race_ino.i_data.nrpages == 0 && nr_free_pages() == before);
}
