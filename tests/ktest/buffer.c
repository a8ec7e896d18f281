/* Self-tests of buffer heads and the block device's page cache (kernel/fs/buffer.c,
 * kernel/fs/block_dev.c) on a disk in RAM of 61 sectors (not a whole number of pages), its
 * requests done when polled: __bread, shared pages, sync_dirty_buffer, block_read_full_page
 * with holes, the last partial page, buffers against reclaim and truncate, and writes the disk
 * fails. */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/lib/string.h"
#include "kernel/test/ktest.h"
#include "mm/filemap.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"
#include "mm/kcheck.h"
#include "mm/slab.h"

#define KB_SECTORS 61
#define KB_DEV MKDEV(240, 0) /* a local/experimental major: no driver has it */

static uint8_t kb_bytes[KB_SECTORS * SECTOR_SIZE], kb_scratch[PAGE_SIZE];
static struct gendisk kb_disk = { .disk_name = "ktb", .capacity = KB_SECTORS,
				  .logical_block_size = SECTOR_SIZE };

/* Byte i of the disk as made: never 0, different in every block, so a zeroed or misplaced
 * block shows. */
static uint8_t kb_byte(size_t i)
{
	return (uint8_t)(1 + (i / SECTOR_SIZE * 31 + i) % 255);
}

static void kb_request_fn(struct request_queue *q)
{
	(void)q; /* the next poll does the work */
}

/* A write covering this sector fails with -EIO and changes nothing (-1: none fails). */
static int64_t kb_fail_write = -1;

static void kb_poll(struct request_queue *q)
{
	struct request *req;

	while ((req = elv_next_request(q))) {
		uint8_t *at = kb_bytes + req->sector * SECTOR_SIZE;
		size_t len = (size_t)req->nr_sectors << SECTOR_SHIFT;

		if (req->cmd == WRITE && kb_fail_write >= (int64_t)req->sector &&
		    kb_fail_write < (int64_t)(req->sector + req->nr_sectors)) {
			end_request(req, -EIO);
			continue;
		}
		memcpy(req->cmd == READ ? req->buffer : at, req->cmd == READ ? at : req->buffer,
		       len);
		end_request(req, 0);
	}
}

/* The RAM disk as a block device of its own, its cache empty, its blocks size bytes (0: as
 * blkdev_get chooses). NULL if it cannot be made. */
static struct block_device *kb_bdev(unsigned int size)
{
	struct block_device *bdev;

	if (!kb_disk.queue) {
		kb_disk.queue = blk_init_queue(kb_request_fn, NULL);
		if (!kb_disk.queue)
			return NULL;
		kb_disk.queue->poll = kb_poll;
		kb_disk.part[0] = (struct hd_struct){ 0, KB_SECTORS, 0, &kb_disk };
	}
	for (size_t i = 0; i < sizeof(kb_bytes); i++)
		kb_bytes[i] = kb_byte(i);
	bdev = bdget(KB_DEV);
	if (!bdev)
		return NULL;
	bdev->bd_block_size = 0; /* as at its first open: bdev_attach chooses */
	if (bdev_attach(bdev, &kb_disk, 0))
		return NULL;
	truncate_inode_pages(bdev->bd_inode, 0, bdev->bd_inode->i_size);
	if (size)
		set_blocksize(bdev, size);
	return bdev;
}

/* What the disk holds at byte off, n bytes, equals buf. */
static bool kb_same(const void *buf, size_t off, size_t n)
{
	return !memcmp(buf, kb_bytes + off, n);
}

/* The disk's bytes [off, off + n) are as kb_bdev made them. */
static bool kb_orig(size_t off, size_t n)
{
	for (size_t i = off; i < off + n; i++)
		if (kb_bytes[i] != kb_byte(i))
			return false;
	return true;
}

static bool kb_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* The RAM disk in 1 KiB blocks (*bdevp, NULL if it cannot be made) and its block read. */
static struct buffer_head *kb_bread(struct block_device **bdevp, uint64_t block)
{
	*bdevp = kb_bdev(1024);
	return *bdevp ? __bread(*bdevp, block, 1024) : NULL;
}

static void kb_done(struct block_device *bdev)
{
	if (bdev) /* the test could not make it */
		truncate_inode_pages(bdev->bd_inode, 0, bdev->bd_inode->i_size);
}

KTEST(buffer_bread_reads_the_disk)
{
	struct block_device *bdev = kb_bdev(1024);
	struct buffer_head *bh, *last;

	KT_CHECK(bdev != NULL);
	if (!bdev)
		return;
	bh = __bread(bdev, 3, 1024);
	KT_CHECK(bh && buffer_uptodate(bh) && bh->b_size == 1024 && bh->b_blocknr == 3);
	if (bh) {
		KT_CHECK(kb_same(bh->b_data, 3 * 1024, 1024));
		KT_CHECK(!kb_same(bh->b_data, 2 * 1024, 1024)); /* the pattern tells blocks apart */
		KT_CHECK(bh->b_count == 1);
	}
	/* the last whole block reads; the one half past the end (sectors 60, 61) does not */
	last = __bread(bdev, 29, 1024);
	KT_CHECK(last && kb_same(last->b_data, 29 * 1024, 1024));
	KT_CHECK(__bread(bdev, 30, 1024) == NULL);
	KT_CHECK(__bread(bdev, 3, 1000) == NULL); /* not a power of two */
	brelse(last);
	brelse(bh);
	KT_CHECK(!bh || bh->b_count == 0);
	kb_done(bdev);
}

KTEST(buffer_blocks_share_a_page)
{
	struct block_device *bdev = kb_bdev(1024);
	struct buffer_head *a, *b, *c, *again;

	KT_CHECK(bdev != NULL);
	if (!bdev)
		return;
	a = __bread(bdev, 4, 1024); /* page 1 holds blocks 4-7 */
	b = __bread(bdev, 5, 1024);
	c = __bread(bdev, 8, 1024); /* page 2 */
	KT_CHECK(a && b && c);
	if (a && b && c) {
		KT_CHECK(a->b_page == b->b_page && b->b_data == a->b_data + 1024);
		KT_CHECK(c->b_page != a->b_page); /* the positive control: another page */
		KT_CHECK(a->b_page->index == 1 && c->b_page->index == 2);
		KT_CHECK(PagePrivate(a->b_page) && page_buffers(a->b_page)->b_blocknr == 4);
		KT_CHECK(a->b_page->mapping == bdev->bd_inode->i_mapping);
		again = __bread(bdev, 4, 1024); /* the same buffer, one more user */
		KT_CHECK(again == a && a->b_count == 2);
		brelse(again);
		/* kcheck's look at buffers: sound, then one slice out of place */
		KT_CHECK(kcheck() == 0);
		b->b_data += 512;
		KT_CHECK(kcheck() >= 1);
		b->b_data -= 512;
		KT_CHECK(kcheck() == 0);
	}
	brelse(a);
	brelse(b);
	brelse(c);
	kb_done(bdev);
}

KTEST(buffer_sync_dirty_buffer_writes)
{
	struct block_device *bdev;
	struct buffer_head *bh = kb_bread(&bdev, 6);
	uint8_t *sec = kmalloc(2 * SECTOR_SIZE);

	KT_CHECK(bh && sec);
	if (!bh || !sec)
		goto out;
	memset(bh->b_data + 100, 0x5a, 200);
	mark_buffer_dirty(bh);
	KT_CHECK(buffer_dirty(bh) && PageDirty(bh->b_page));
	/* not on the disk yet: the control that the check below can see a difference */
	KT_CHECK(blk_rw(&kb_disk, READ, 12, 2, sec) == 0);
	KT_CHECK(sec[100] == kb_byte(6 * 1024 + 100) && sec[100] != 0x5a);
	KT_CHECK(sync_dirty_buffer(bh) == 0 && !buffer_dirty(bh));
	KT_CHECK(blk_rw(&kb_disk, READ, 12, 2, sec) == 0);
	KT_CHECK(sec[100] == 0x5a && sec[299] == 0x5a && sec[300] == kb_byte(6 * 1024 + 300));
	KT_CHECK(sec[99] == kb_byte(6 * 1024 + 99));
	KT_CHECK(!memcmp(sec, bh->b_data, 1024));
	/* the neighbours on the disk are untouched */
	KT_CHECK(kb_orig(5 * 1024, 1024) && kb_orig(7 * 1024, 1024));
out:
	brelse(bh);
	kfree(sec);
	kb_done(bdev);
}

/* A write the disk fails (Linux's end_buffer_write_sync, end_buffer_async_write): the buffer
 * comes back clean, not uptodate, BH_Write_EIO; the disk is as it was; the mapping has the
 * error for one filemap_write_and_wait; the next write of it clears BH_Write_EIO. The same for
 * a page written back through writepage: clean, PG_error, the error once. */
KTEST(buffer_write_error_leaves_it_clean)
{
	struct block_device *bdev;
	struct buffer_head *bh = kb_bread(&bdev, 6);
	struct address_space *mapping = bdev ? bdev->bd_inode->i_mapping : NULL;

	KT_CHECK(bh != NULL);
	if (!bh)
		goto out;
	memset(bh->b_data, 0x5a, 1024);
	mark_buffer_dirty(bh);
	kb_fail_write = 13; /* block 6's second sector */
	KT_CHECK(sync_dirty_buffer(bh) == -EIO);
	KT_CHECK(!buffer_dirty(bh) && !buffer_uptodate(bh) && buffer_write_io_error(bh));
	KT_CHECK(kb_orig(6 * 1024, 1024));
	KT_CHECK(filemap_write_and_wait(mapping) == -EIO);
	KT_CHECK(filemap_write_and_wait(mapping) == 0); /* told once */
	/* through writepage: the page's buffers dirty, the page written back */
	memset(bh->b_data, 0x6b, 1024);
	set_buffer_uptodate(bh);
	KT_CHECK(__set_page_dirty_buffers(bh->b_page) || PageDirty(bh->b_page));
	KT_CHECK(filemap_write_and_wait(mapping) == -EIO);
	KT_CHECK(!PageDirty(bh->b_page) && PageFlag(bh->b_page, PG_error));
	KT_CHECK(!buffer_dirty(bh) && buffer_write_io_error(bh) && kb_orig(6 * 1024, 1024));
	KT_CHECK(filemap_write_and_wait(mapping) == 0); /* clean: nothing is tried again */
	kb_fail_write = -1;
	memset(bh->b_data, 0x7c, 1024);
	mark_buffer_dirty(bh);
	KT_CHECK(sync_dirty_buffer(bh) == 0 && !buffer_write_io_error(bh));
	KT_CHECK(kb_bytes[6 * 1024] == 0x7c && kb_bytes[6 * 1024 + 1023] == 0x7c);
out:
	kb_fail_write = -1;
	brelse(bh);
	kb_done(bdev);
}

/* A file of 1 KiB blocks on the RAM disk: block i at disk block kb_map[i] (0: a hole). */
static const uint64_t *kb_map;

static int kb_get_block(struct inode *inode, uint64_t iblock, struct buffer_head *bh,
			int create)
{
	(void)create;
	if (iblock < 4 && kb_map[iblock])
		map_bh(bh, inode->i_sb, kb_map[iblock]);
	return 0;
}

struct kb_file {
	struct super_block sb;
	struct inode inode;
};

/* A file of size bytes on bdev's 1 KiB blocks (kb_map places them), or NULL; kfree it. */
static struct kb_file *kb_file_new(struct block_device *bdev, uint64_t size)
{
	struct kb_file *file = bdev ? kzalloc(sizeof(*file)) : NULL;
	struct inode *inode = file ? &file->inode : NULL;

	if (!file)
		return NULL;
	file->sb.s_bdev = bdev;
	file->sb.s_blocksize = 1024;
	file->sb.s_blocksize_bits = 10;
	inode->i_sb = &file->sb;
	inode->i_blkbits = 10;
	inode->i_size = size;
	inode->i_data.host = inode;
	INIT_LIST_HEAD(&inode->i_data.i_mmap);
	INIT_LIST_HEAD(&inode->i_data.i_mmap_nonlinear);
	inode->i_mapping = &inode->i_data;
	return file;
}

/* Page 0 of file, new, filled with 0xaa (what a hole must not show), locked in its cache. */
static struct page *kb_file_page(struct kb_file *file)
{
	struct page *page = alloc_page(GFP_KERNEL);

	if (!page)
		return NULL;
	memset(page_address(page), 0xaa, PAGE_SIZE);
	SetPageFlag(page, PG_locked);
	if (!add_to_page_cache(page, file->inode.i_mapping, 0))
		return page;
	ClearPageFlag(page, PG_locked);
	put_page(page);
	return NULL;
}

/* Page 0 of a file of size bytes placed by map holds the disk's bytes, zeroes for holes and
 * past size. */
static bool kb_file_bytes(const uint8_t *p, const uint64_t *map, uint64_t size)
{
	for (size_t j = 0; j < PAGE_SIZE; j++) {
		uint64_t disk = map[j / 1024];
		uint8_t want = j < size && disk ? kb_byte(disk * 1024 + j % 1024) : 0;

		if (p[j] != want)
			return false;
	}
	return true;
}

KTEST(buffer_block_read_full_page_holes)
{
	static const uint64_t map[] = { 10, 0, 12, 13 };
	struct block_device *bdev = kb_bdev(1024);
	struct kb_file *file = kb_file_new(bdev, 3 * 1024 + 100);
	struct inode *inode = file ? &file->inode : NULL;
	struct page *page = file ? kb_file_page(file) : NULL;

	KT_CHECK(page != NULL);
	if (!page)
		goto out;
	kb_map = map;
	KT_CHECK(block_read_full_page(page, kb_get_block) == 0);
	KT_CHECK(PageUptodate(page) && !PageLocked(page) && PagePrivate(page));
	/* block 0 the disk's 10, 1 zeroes, 2 the disk's 12, 3 its first 100 bytes of 13 */
	KT_CHECK(kb_file_bytes(page_address(page), map, inode->i_size));
	KT_CHECK(!kb_file_bytes(page_address(page), map, PAGE_SIZE)); /* zeroes past i_size */
	KT_CHECK(generic_block_bmap(inode->i_mapping, 2, kb_get_block) == 12);
	KT_CHECK(generic_block_bmap(inode->i_mapping, 1, kb_get_block) == 0);
	/* truncate frees the buffers and their reference with the page */
	truncate_inode_pages(inode, 0, inode->i_size);
	KT_CHECK(inode->i_mapping->nrpages == 0 && !PagePrivate(page) && page_count(page) == 1);
	put_page(page);
out:
	kfree(file);
	kb_done(bdev);
}

/* mpage_readpage: a page of blocks in a row (holes at its end only) is one request and gets
 * no buffer heads; a hole in its middle, or blocks out of order, go to block_read_full_page
 * (buffers). Each page holds the disk's bytes, zeroes for holes and past i_size. */
KTEST(buffer_mpage_readpage)
{
	static const uint64_t row[] = { 8, 9, 10, 11 }, tail[] = { 8, 9, 0, 0 },
			      mid[] = { 8, 0, 10, 11 }, swapped[] = { 9, 8, 10, 11 };
	static const struct {
		const uint64_t *map;
		uint64_t size;
		bool buffers;
	} cases[] = { { row, 4096, false }, { tail, 4096, false }, { row, 2048 + 100, false },
		      { mid, 4096, true }, { swapped, 4096, true } };
	struct block_device *bdev = kb_bdev(1024);

	KT_CHECK(bdev != NULL);
	for (size_t c = 0; bdev && c < ARRAY_SIZE(cases); c++) {
		struct kb_file *file = kb_file_new(bdev, cases[c].size);
		struct page *page = file ? kb_file_page(file) : NULL;
		unsigned long reads = kb_disk.dkstats.ios[READ];

		KT_CHECK(page != NULL);
		if (page) {
			kb_map = cases[c].map;
			KT_CHECK(mpage_readpage(page, kb_get_block) == 0 && PageUptodate(page));
			KT_CHECK(kb_file_bytes(page_address(page), cases[c].map, cases[c].size));
			KT_CHECK(PagePrivate(page) == cases[c].buffers);
			KT_CHECK(cases[c].buffers || kb_disk.dkstats.ios[READ] == reads + 1);
			truncate_inode_pages(&file->inode, 0, cases[c].size);
			put_page(page);
		}
		kfree(file);
	}
	kb_done(bdev);
}

KTEST(buffer_release_only_unused)
{
	struct block_device *bdev;
	struct buffer_head *bh = kb_bread(&bdev, 1);
	struct page *page = bh ? bh->b_page : NULL;
	int count;

	KT_CHECK(bh != NULL);
	if (!bh)
		goto out;
	get_page(page);
	lock_page(page);
	count = page_count(page); /* ours, the cache's, the buffers' */
	KT_CHECK(count == 3);
	if (try_to_release_page(page)) { /* bh is held: this must not free it */
		KT_CHECK(!"try_to_release_page freed a buffer in use");
		unlock_page(page);
		put_page(page);
		goto out;
	}
	KT_CHECK(PagePrivate(page));
	brelse(bh);
	mark_buffer_dirty(page_buffers(page)->b_this_page);
	KT_CHECK(try_to_release_page(page) == 0); /* a dirty one stays too */
	KT_CHECK(sync_dirty_buffer(page_buffers(page)->b_this_page) == 0);
	KT_CHECK(PageDirty(page)); /* written on its own: the page's flag is left */
	KT_CHECK(try_to_release_page(page) == 1);
	KT_CHECK(!PagePrivate(page) && !PageDirty(page) && page_count(page) == count - 1);
	unlock_page(page);
	put_page(page);
out:
	kb_done(bdev);
}

/* The device's own readpage: the last page, 5 sectors of 8, the rest zeroes; a page is read
 * in one request. */
KTEST(buffer_bdev_last_page)
{
	struct block_device *bdev = kb_bdev(0);
	struct page *page = NULL;
	unsigned long ios;
	uint8_t *p;

	KT_CHECK(bdev && bdev->bd_block_size == SECTOR_SIZE); /* 61 sectors: no larger divides */
	if (!bdev)
		return;
	ios = kb_disk.dkstats.ios[READ];
	KT_CHECK(read_mapping_page(NULL, bdev->bd_inode->i_mapping, 7, &page) == 0);
	if (!page)
		goto out;
	p = page_address(page);
	KT_CHECK(kb_same(p, 56 * SECTOR_SIZE, 5 * SECTOR_SIZE));
	KT_CHECK(kb_zero(p + 5 * SECTOR_SIZE, 3 * SECTOR_SIZE));
	KT_CHECK(kb_disk.dkstats.ios[READ] == ios + 1);
	KT_CHECK(read_mapping_page(NULL, bdev->bd_inode->i_mapping, 7, &page) == 0);
	KT_CHECK(kb_disk.dkstats.ios[READ] == ios + 1); /* cached: no second read */
	put_page(page);
	put_page(page);
out:
	kb_done(bdev);
}

/* A file system's block and a read of the device meet in one page: the device's readpage
 * reads the rest of it around a buffer written but not yet on the disk, and leaves it be. */
KTEST(buffer_bdev_page_shared)
{
	struct block_device *bdev = kb_bdev(1024);
	struct address_space *mapping = bdev ? bdev->bd_inode->i_mapping : NULL;
	struct buffer_head *bh = bdev ? __getblk(bdev, 9, 1024) : NULL; /* page 2: 8-11 */
	struct buffer_head *last = bdev ? __bread(bdev, 29, 1024) : NULL; /* page 7: 28-31 */
	struct page *page = NULL;
	uint8_t *p;

	KT_CHECK(bh && last && !buffer_uptodate(bh));
	if (!bh || !last)
		goto out;
	memset(bh->b_data, 0x77, 1024);
	set_buffer_uptodate(bh);
	mark_buffer_dirty(bh);
	KT_CHECK(!PageUptodate(bh->b_page)); /* blocks 8, 10, 11 not read yet */
	KT_CHECK(read_mapping_page(NULL, mapping, 2, &page) == 0 && page == bh->b_page);
	if (page) {
		p = page_address(page);
		KT_CHECK(PageUptodate(page) && buffer_dirty(bh));
		KT_CHECK(kb_same(p, 8 * 1024, 1024) && kb_same(p + 2048, 10 * 1024, 2048));
		KT_CHECK(p[1024] == 0x77 && p[2047] == 0x77 && !kb_same(p + 1024, 9 * 1024, 1));
		put_page(page);
	}
	KT_CHECK(sync_dirty_buffer(bh) == 0 && kb_bytes[9 * 1024] == 0x77);
	/* the last page: blocks 28, 29 the disk's; 30 is half past the end, 31 wholly: zeroes */
	page = NULL;
	KT_CHECK(read_mapping_page(NULL, mapping, 7, &page) == 0 && page == last->b_page);
	if (page) {
		p = page_address(page);
		KT_CHECK(kb_same(p, 28 * 1024, 2048) && kb_zero(p + 2048, 2048));
		put_page(page);
	}
out:
	brelse(bh);
	brelse(last);
	kb_done(bdev);
}

/* A block size changed under a held buffer (set_blocksize empties the cache): the page leaves
 * the cache keeping its buffers, and the last brelse frees both. */
KTEST(buffer_truncated_while_held)
{
	struct block_device *bdev;
	struct buffer_head *bh = kb_bread(&bdev, 2);
	struct page *page;

	KT_CHECK(bh != NULL);
	if (!bh)
		goto out;
	page = bh->b_page;
	KT_CHECK(page->mapping == bdev->bd_inode->i_mapping && page_count(page) == 2);
	set_blocksize(bdev, 2048);
	KT_CHECK(bdev->bd_inode->i_mapping->nrpages == 0 && bdev->bd_block_size == 2048);
	KT_CHECK(!page->mapping && PagePrivate(page) && page_count(page) == 1);
	KT_CHECK(kb_same(bh->b_data, 2 * 1024, 1024)); /* still the holder's bytes */
	brelse(bh);
	KT_CHECK(!PagePrivate(page) && page_count(page) == 0); /* freed */
out:
	kb_done(bdev);
}

/* A page of the device written but not yet on the disk (its write failed) that gets buffers:
 * they are dirty, so reclaim cannot drop them and the bytes with them. */
KTEST(buffer_dirty_page_dirty_buffers)
{
	struct block_device *bdev = kb_bdev(1024);
	struct address_space *mapping = bdev ? bdev->bd_inode->i_mapping : NULL;
	struct page *dirty = NULL, *clean = NULL;
	struct buffer_head *a = NULL, *b = NULL;

	KT_CHECK(bdev && !read_mapping_page(NULL, mapping, 3, &dirty) &&
		 !read_mapping_page(NULL, mapping, 4, &clean));
	if (!dirty || !clean)
		goto out;
	KT_CHECK(!PagePrivate(dirty) && !PagePrivate(clean)); /* read whole, no buffers */
	SetPageFlag(dirty, PG_dirty);
	a = __getblk(bdev, 13, 1024); /* page 3 */
	b = __getblk(bdev, 17, 1024); /* page 4, the control */
	KT_CHECK(a && b && a->b_page == dirty && b->b_page == clean);
	if (a && b) {
		KT_CHECK(buffer_dirty(a) && buffer_dirty(page_buffers(dirty)));
		KT_CHECK(!buffer_dirty(b) && buffer_uptodate(b) && buffer_uptodate(a));
		brelse(a);
		brelse(b);
		a = b = NULL;
		lock_page(dirty);
		KT_CHECK(!try_to_release_page(dirty) && PageDirty(dirty));
		unlock_page(dirty);
	}
	ClearPageFlag(dirty, PG_dirty); /* the disk in RAM is as it was: nothing to lose */
out:
	brelse(a);
	brelse(b);
	if (dirty)
		put_page(dirty);
	if (clean)
		put_page(clean);
	kb_done(bdev);
}

/* write() into a page of the device that has buffers: only the buffer written is dirtied and
 * written back (one request), the blocks around it neither read nor written. */
KTEST(buffer_bdev_write_one_block)
{
	struct block_device *bdev;
	struct buffer_head *bh = kb_bread(&bdev, 21); /* page 5: blocks 20-23 */
	unsigned long writes = kb_disk.dkstats.ios[WRITE], reads = kb_disk.dkstats.ios[READ];
	struct buffer_head *b20 = bh ? page_buffers(bh->b_page) : NULL;

	KT_CHECK(bh && b20 && b20->b_blocknr == 20 && !buffer_uptodate(b20));
	if (!bh || !b20)
		goto out;
	KT_CHECK(kernel_write(bdev->bd_inode, 21 * 1024 + 100, "hello", 5) == 5);
	KT_CHECK(!memcmp(bh->b_data + 100, "hello", 5) && buffer_dirty(bh));
	KT_CHECK(!buffer_dirty(b20) && !buffer_uptodate(b20) && !PageUptodate(bh->b_page));
	KT_CHECK(kb_bytes[21 * 1024 + 100] != 'h'); /* not on the disk yet: the control */
	KT_CHECK(sync_blockdev(bdev) == 0 && !buffer_dirty(bh));
	KT_CHECK(!memcmp(kb_bytes + 21 * 1024 + 100, "hello", 5));
	KT_CHECK(kb_orig(21 * 1024, 100) && kb_orig(21 * 1024 + 105, 1024 - 105));
	KT_CHECK(kb_orig(20 * 1024, 1024));
	KT_CHECK(kb_orig(22 * 1024, 2048));
	KT_CHECK(kb_disk.dkstats.ios[WRITE] == writes + 1 && kb_disk.dkstats.ios[READ] == reads);
	/* a whole page of four buffers: one request of 8 sectors, not four */
	brelse(bh);
	bh = __getblk(bdev, 24, 1024); /* page 6 */
	memset(kb_scratch, 0x3c, PAGE_SIZE);
	KT_CHECK(bh && kernel_write(bdev->bd_inode, 24 * 1024, kb_scratch, PAGE_SIZE) == PAGE_SIZE);
	KT_CHECK(bh && PageUptodate(bh->b_page) && buffer_dirty(page_buffers(bh->b_page)));
	writes = kb_disk.dkstats.ios[WRITE];
	KT_CHECK(sync_blockdev(bdev) == 0 && kb_disk.dkstats.ios[WRITE] == writes + 1);
	KT_CHECK(!memcmp(kb_bytes + 24 * 1024, kb_scratch, PAGE_SIZE) && kb_orig(28 * 1024, 1024));
out:
	brelse(bh);
	kb_done(bdev);
}
