/* Swap I/O (Linux's mm/page_io.c): pages between RAM and their slots on the area's disk,
 * synchronously through the block layer, a run of consecutive slots in one request. A block
 * device is one extent: slot N is the page at byte N * PAGE_SIZE (2.6.23's map_swap_page,
 * which also walks a swap file's extents). */
#include "drivers/block/blkdev.h"
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/initcall.h"
#include "kernel/lib/string.h"
#include "kernel/locking/rwsem.h"
#include "kernel/printk/printk.h"
#include "mm/gfp.h"
#include "mm/page.h"
#include "mm/swap.h"

#define SECTORS_PER_PAGE (PAGE_SIZE >> SECTOR_SHIFT)

static int swap_rw(int cmd, swp_entry_t entry, struct page *page)
{
	struct gendisk *disk = swap_entry_disk(entry);
	int err;

	if (!disk)
		return -EINVAL;
	err = blk_rw(disk, cmd, (uint64_t)swp_offset(entry) * SECTORS_PER_PAGE,
		     SECTORS_PER_PAGE, page_address(page));
	if (err)
		printk("%s: %s error on swap entry %08lx (slot %lu)\n", disk->disk_name,
		       cmd == WRITE ? "Write" : "Read", entry.val, swp_offset(entry));
	return err;
}

int swap_readpage(swp_entry_t entry, struct page *page)
{
	return swap_rw(READ, entry, page);
}

int swap_writepage(swp_entry_t entry, struct page *page)
{
	return swap_rw(WRITE, entry, page);
}

/*
 * A run of slots goes through one request into or out of a bounce buffer, as the block layer
 * takes one contiguous buffer: a request costs far more than copying its pages (under QEMU, a
 * disk request is an exit to the emulator and an interrupt; docs/bench.md, "Swap"). The
 * buffer is taken at boot, so reclaim never has to allocate to write; bounce_sem makes its
 * users take turns (they sleep on the disk while they hold it).
 */
static void *bounce;
static struct rw_semaphore bounce_sem;

static void swap_io_init(void)
{
	struct page *page = alloc_pages(GFP_KERNEL, 4); /* SWAP_IO_MAX pages */

	init_rwsem(&bounce_sem);
	bounce = page ? page_address(page) : NULL;
}
device_initcall(swap_io_init);

static int swap_rw_pages(int cmd, swp_entry_t first, struct page **pages, int n)
{
	struct gendisk *disk = swap_entry_disk(first);
	int err;

	BUG_ON(n < 1 || n > SWAP_IO_MAX);
	if (n == 1 || !bounce || !disk) {
		for (int i = 0; i < n; i++)
			if ((err = swap_rw(cmd, swp_entry(swp_type(first), swp_offset(first) + i),
					   pages[i])))
				return err;
		return 0;
	}
	down_write(&bounce_sem);
	if (cmd == WRITE)
		for (int i = 0; i < n; i++)
			memcpy((uint8_t *)bounce + i * PAGE_SIZE, page_address(pages[i]),
			       PAGE_SIZE);
	err = blk_rw(disk, cmd, (uint64_t)swp_offset(first) * SECTORS_PER_PAGE,
		     (unsigned int)n * SECTORS_PER_PAGE, bounce);
	if (!err && cmd == READ)
		for (int i = 0; i < n; i++)
			memcpy(page_address(pages[i]), (uint8_t *)bounce + i * PAGE_SIZE,
			       PAGE_SIZE);
	up_write(&bounce_sem);
	if (err)
		printk("%s: %s error on swap slots %lu..%lu\n", disk->disk_name,
		       cmd == WRITE ? "Write" : "Read", swp_offset(first),
		       swp_offset(first) + (unsigned long)n - 1);
	return err;
}

int swap_readpages(swp_entry_t first, struct page **pages, int n)
{
	return swap_rw_pages(READ, first, pages, n);
}

int swap_writepages(swp_entry_t first, struct page **pages, int n)
{
	return swap_rw_pages(WRITE, first, pages, n);
}
