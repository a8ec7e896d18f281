/* The address_space_operations helpers of a file system whose pages have buffer heads (the
 * half of 2.6.23's fs/buffer.c a file's pages use): a page read, prepared, committed and
 * written back a block at a time through its get_block, which maps blocks to the disk. */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/vma.h"

/* The buffers of a locked page, made (the inode's block size) if it has none: NULL without
 * memory. */
static struct buffer_head *page_buffers_or_new(struct page *page)
{
	if (PagePrivate(page))
		return page_buffers(page);
	return create_empty_buffers(page, 1U << inode_blkbits(page->mapping->host), 0);
}

/*
 * Read the blocks of a locked page that are not uptodate, runs of buffers consecutive on the
 * disk in one request each (2.6.23 sent one bio per buffer and let the block layer merge
 * them). Buffers must be mapped. 0 or -EIO.
 */
static int read_buffers(struct buffer_head **arr, int nr)
{
	int err = 0;

	for (int i = 0, len; i < nr; i += len) {
		struct buffer_head *bh = arr[i];
		bool some = false;

		for (len = 1; i + len < nr && arr[i + len]->b_blocknr == bh->b_blocknr + len &&
			      arr[i + len]->b_data == bh->b_data + len * bh->b_size;
		     len++)
			;
		for (int k = i; k < i + len; k++)
			lock_buffer(arr[k]);
		for (int k = i; k < i + len; k++)
			some |= buffer_uptodate(arr[k]); /* another reader got there first */
		if (some) { /* ... so each on its own, and only those still to read */
			for (int k = i; k < i + len; k++) {
				if (!buffer_uptodate(arr[k]) && submit_bh(READ, arr[k]))
					err = -EIO;
				unlock_buffer(arr[k]);
			}
			continue;
		}
		if (submit_bh_run(READ, bh, (unsigned int)len))
			err = -EIO;
		for (int k = i; k < i + len; k++)
			unlock_buffer(arr[k]);
	}
	return err;
}

int block_read_full_page(struct page *page, get_block_t *get_block)
{
	struct inode *inode = page->mapping->host;
	struct buffer_head *arr[PAGE_SIZE / SECTOR_SIZE], *bh, *head = page_buffers_or_new(page);
	unsigned int size, bits, nr = 0;
	uint64_t iblock, lblock;
	bool error = false;
	int err;

	if (!head) {
		unlock_page(page);
		return -ENOMEM;
	}
	size = (unsigned int)head->b_size;
	bits = (unsigned int)__builtin_ctz(size);
	iblock = (uint64_t)page->index << (PAGE_SHIFT - bits);
	lblock = (inode->i_size + size - 1) >> bits;
	bh = head;
	do {
		if (buffer_uptodate(bh))
			continue;
		if (!buffer_mapped(bh)) {
			if (iblock < lblock && get_block(inode, iblock, bh, 0))
				error = true;
			if (!buffer_mapped(bh)) { /* a hole, or past the end of the file */
				memset(bh->b_data, 0, size);
				if (!error)
					set_buffer_uptodate(bh);
				continue;
			}
		}
		arr[nr++] = bh;
	} while (iblock++, (bh = bh->b_this_page) != head);
	err = read_buffers(arr, (int)nr);
	if (!err && !error) {
		/* The bytes of the last block past i_size read as zeroes (mmap shows them). */
		uint64_t start = (uint64_t)page->index << PAGE_SHIFT;

		if (inode->i_size < start + PAGE_SIZE && inode->i_size > start)
			memset((char *)page_address(page) + (inode->i_size - start), 0,
			       PAGE_SIZE - (inode->i_size - start));
		SetPageFlag(page, PG_uptodate);
	}
	unlock_page(page);
	return err || error ? -EIO : 0;
}

int __set_page_dirty_buffers(struct page *page)
{
	if (PagePrivate(page)) {
		struct buffer_head *head = page_buffers(page), *bh = head;

		do {
			set_buffer_dirty(bh);
			bh = bh->b_this_page;
		} while (bh != head);
	}
	if (PageDirty(page))
		return 0;
	SetPageFlag(page, PG_dirty);
	if (page->mapping)
		__mark_inode_dirty(page->mapping->host, I_DIRTY_PAGES); /* sync will find it */
	return 1;
}

int block_prepare_write(struct page *page, unsigned int from, unsigned int to,
			get_block_t *get_block)
{
	struct inode *inode = page->mapping->host;
	struct buffer_head *bh, *head = page_buffers_or_new(page);
	unsigned int start = 0;
	uint64_t block;
	int err = 0;

	if (!head)
		return -ENOMEM;
	block = (uint64_t)page->index << (PAGE_SHIFT - __builtin_ctz((unsigned int)head->b_size));
	bh = head;
	do {
		unsigned int end = start + (unsigned int)bh->b_size;
		bool touched = end > from && start < to;

		start = end;
		if (!touched) { /* not written: as the page has it */
			if (PageUptodate(page))
				set_buffer_uptodate(bh);
			continue;
		}
		if (!buffer_mapped(bh)) {
			err = get_block(inode, block, bh, 1);
			if (err)
				break;
			if (buffer_new(bh)) { /* a new block: its old bytes are garbage */
				clear_buffer_new(bh);
				/* An uptodate page holds the block's bytes already (a store
				 * through a shared mapping into a hole): only a page read
				 * from nothing gets zeroes outside [from, to). */
				if (!PageUptodate(page))
					memset(bh->b_data, 0, bh->b_size);
				set_buffer_uptodate(bh);
				/* Dirty now: should the write fail after this, the disk must
				 * not keep the block's old bytes (a deleted file's) under a
				 * page reclaim may drop. */
				mark_buffer_dirty(bh);
				__mark_inode_dirty(inode, I_DIRTY_PAGES);
			}
		}
		if (PageUptodate(page)) {
			set_buffer_uptodate(bh);
		} else if (!buffer_uptodate(bh) && (end - bh->b_size < from || end > to)) {
			/* partly written: the rest of it must be the disk's */
			lock_buffer(bh);
			if (!buffer_uptodate(bh))
				err = submit_bh(READ, bh);
			unlock_buffer(bh);
			if (err)
				break;
		}
	} while (block++, (bh = bh->b_this_page) != head);
	return err;
}

int block_commit_write(struct page *page, unsigned int from, unsigned int to)
{
	struct buffer_head *head = page_buffers(page), *bh = head;
	unsigned int start = 0;
	bool partial = false;

	do {
		unsigned int end = start + (unsigned int)bh->b_size;

		if (end <= from || start >= to) {
			partial |= !buffer_uptodate(bh);
		} else {
			set_buffer_uptodate(bh);
			mark_buffer_dirty(bh);
		}
		start = end;
		bh = bh->b_this_page;
	} while (bh != head);
	/* Every buffer uptodate: so is the page, and read() needs no readpage. */
	if (!partial)
		SetPageFlag(page, PG_uptodate);
	return 0;
}

int generic_commit_write(struct file *f, struct page *page, unsigned int from, unsigned int to)
{
	struct inode *inode = page->mapping->host;
	uint64_t pos = ((uint64_t)page->index << PAGE_SHIFT) + to;

	(void)f;
	block_commit_write(page, from, to);
	__mark_inode_dirty(inode, I_DIRTY_PAGES); /* sync finds the page through its inode */
	if (pos > inode->i_size) {
		inode->i_size = pos;
		mark_inode_dirty(inode);
	}
	return 0;
}

int block_truncate_page(struct address_space *mapping, uint64_t from, get_block_t *get_block)
{
	struct inode *inode = mapping->host;
	unsigned int blocksize = 1U << inode_blkbits(inode), offset = from & ~PAGE_MASK;
	unsigned int length = offset & (blocksize - 1), pos;
	uint64_t iblock = (from >> PAGE_SHIFT) << (PAGE_SHIFT - inode_blkbits(inode));
	struct buffer_head *bh;
	struct page *page;
	int err = 0;

	if (!length)
		return 0; /* the end falls on a block's boundary: nothing of a block stays */
	length = blocksize - length;
	page = grab_cache_page(mapping, (unsigned long)(from >> PAGE_SHIFT));
	if (!page)
		return -ENOMEM;
	bh = page_buffers_or_new(page);
	if (!bh) {
		err = -ENOMEM;
		goto unlock;
	}
	for (pos = blocksize; offset >= pos; pos += blocksize, iblock++)
		bh = bh->b_this_page;
	if (!buffer_mapped(bh)) {
		err = get_block(inode, iblock, bh, 0);
		if (err || !buffer_mapped(bh))
			goto unlock; /* a hole stays a hole */
	}
	if (PageUptodate(page))
		set_buffer_uptodate(bh);
	if (!buffer_uptodate(bh)) {
		lock_buffer(bh);
		if (!buffer_uptodate(bh))
			err = submit_bh(READ, bh);
		unlock_buffer(bh);
		if (err)
			goto unlock;
	}
	memset((uint8_t *)page_address(page) + offset, 0, length);
	mark_buffer_dirty(bh);
	__mark_inode_dirty(inode, I_DIRTY_PAGES);
unlock:
	unlock_page(page);
	put_page(page);
	return err;
}

/* Write the locked dirty buffers arr[0..nr) of a page, runs consecutive on the disk and in
 * the page in one request each; a buffer whose write failed stays clean, with BH_Write_EIO
 * (submit_bh_run). 0 or the first error (-EIO). */
static int write_buffers(struct buffer_head **arr, int nr)
{
	int err = 0;

	for (int i = 0, len; i < nr; i += len) {
		for (len = 1; i + len < nr && arr[i + len] == arr[i + len - 1]->b_this_page &&
			      arr[i + len]->b_blocknr == arr[i]->b_blocknr + len;
		     len++)
			;
		int r = submit_bh_run(WRITE, arr[i], (unsigned int)len);

		if (r && !err)
			err = r;
	}
	for (int k = 0; k < nr; k++)
		unlock_buffer(arr[k]);
	return err;
}

int block_write_full_page(struct page *page, get_block_t *get_block,
			  struct writeback_control *wbc)
{
	struct inode *inode = page->mapping->host;
	struct buffer_head *arr[PAGE_SIZE / SECTOR_SIZE], *bh, *head;
	uint64_t block, last;
	int err = 0, nr = 0, r;

	(void)wbc;
	/* A page without buffers (read whole, then stored to through a mapping) is dirty whole:
	 * so are its new buffers (2.6.23's __block_write_full_page). Its PG_dirty is already
	 * clear here (clear_page_dirty_for_io), so create_empty_buffers cannot tell. */
	head = PagePrivate(page) ? page_buffers(page)
				 : create_empty_buffers(page, 1U << inode_blkbits(inode),
							(1UL << BH_Dirty) | (1UL << BH_Uptodate));
	if (!head) {
		SetPageFlag(page, PG_dirty);
		unlock_page(page);
		return -ENOMEM;
	}
	block = (uint64_t)page->index << (PAGE_SHIFT - __builtin_ctz((unsigned int)head->b_size));
	last = (inode->i_size + head->b_size - 1) / head->b_size;
	bh = head;
	do {
		if (block >= last) { /* past the end of the file: nothing to write */
			clear_buffer_dirty(bh);
			continue;
		}
		if (!buffer_mapped(bh) && buffer_dirty(bh)) {
			r = get_block(inode, block, bh, 1);
			if (r && !err)
				err = r; /* -ENOSPC for fsync and msync, as it is */
		}
		if (!buffer_mapped(bh) || !buffer_dirty(bh))
			continue;
		lock_buffer(bh);
		if (test_clear_buffer_dirty(bh))
			arr[nr++] = bh;
		else
			unlock_buffer(bh); /* sync_dirty_buffer wrote it meanwhile */
	} while (block++, (bh = bh->b_this_page) != head);
	if (err) { /* a block could not be mapped: the page is only in memory, keep it dirty */
		SetPageFlag(page, PG_dirty);
		SetPageFlag(page, PG_error);
	}
	r = write_buffers(arr, nr);
	if (r) {
		/* The disk failed: as Linux's end_buffer_async_write, the page stays clean and
		 * uptodate (read() still sees the bytes while it is cached), the error waits
		 * in the mapping for fsync, and nothing tries the write again. */
		SetPageFlag(page, PG_error);
		err = r;
	}
	unlock_page(page);
	return err;
}

uint64_t generic_block_bmap(struct address_space *mapping, uint64_t block,
			    get_block_t *get_block)
{
	struct inode *inode = mapping->host;
	struct buffer_head tmp = { .b_size = 1UL << inode_blkbits(inode) };

	get_block(inode, block, &tmp, 0);
	return buffer_mapped(&tmp) ? tmp.b_blocknr : 0;
}

int block_page_mkwrite(struct vm_area_struct *vma, struct page *page, get_block_t *get_block)
{
	struct address_space *mapping = vma->vm_file->f_inode->i_mapping;
	uint64_t size = mapping->host->i_size;
	unsigned int end = PAGE_SIZE;
	int err;

	lock_page(page);
	if (page->mapping != mapping || (uint64_t)page->index << PAGE_SHIFT >= size) {
		unlock_page(page); /* truncated meanwhile: the fault looks again */
		return 0;
	}
	if (page->index == (size - 1) >> PAGE_SHIFT && (size & ~PAGE_MASK))
		end = size & ~PAGE_MASK; /* the last page: blocks up to the end of the file */
	err = block_prepare_write(page, 0, end, get_block);
	if (!err)
		err = block_commit_write(page, 0, end);
	unlock_page(page);
	return err;
}
