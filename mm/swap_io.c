/* Swap I/O (Linux's mm/page_io.c): one page between RAM and its slot on the area's disk,
 * synchronously through the block layer. A block device is one extent: slot N is the page at
 * byte N * PAGE_SIZE (2.6.23's map_swap_page, which also walks a swap file's extents). */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/printk.h"
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
