/* read() and write() through the page cache: the same pages file mappings map, so read,
 * write and mmap of a file always agree. A page not cached yet is read from the file's
 * "disk" (find_or_read_page); a written page is marked dirty and stays. */
#include "kernel/errno.h"
#include "kernel/process/resource.h"
#include "kernel/lib/string.h"
#include "kernel/arch/uaccess.h"
#include "mm/reclaim.h"
#include "mm/filemap.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"

#define MAX_FILE_SIZE (1ULL << 40) /* a write past 1 TiB is -EFBIG */

/*
 * Copy n bytes at file offset pos between the page cache and ubuf in user memory (or kbuf in
 * the kernel's, when kbuf is set), a page-cache page at a time. Reads stop at the end of the
 * file; writes extend it. Returns the bytes done, or -errno if none were.
 *
 * A user copy never crosses a user page boundary: a page is readable whole or not at all,
 * so when a copy faults, everything before it was copied and nothing of it was (Linux
 * returns exactly the bytes before the bad page too). A write that stops short grows the
 * file by what it copied only, and leaves no bytes past the new end in the cache: a later
 * ftruncate up must read zeroes there.
 */
static long file_rw(struct inode *ino, uint64_t ubuf, void *kbuf, uint64_t n, uint64_t pos,
		    bool write)
{
	uint64_t done = 0;

	if (!kbuf && !access_ok(ubuf, n))
		return -EFAULT;
	if (write && pos + n > MAX_FILE_SIZE)
		return -EFBIG;
	while (done < n) {
		uint64_t off = (pos + done) & ~PAGE_MASK, chunk = MIN(n - done, PAGE_SIZE - off);
		uint8_t *cached;
		struct page *page;
		bool major;
		long r = 0;

		if (!write && pos + done >= ino->i_size)
			break;
		if (!write)
			chunk = MIN(chunk, ino->i_size - (pos + done));
		if (!kbuf)
			chunk = MIN(chunk, PAGE_SIZE - ((ubuf + done) & ~PAGE_MASK));
		page = find_or_read_page(ino->i_mapping, (pos + done) >> PAGE_SHIFT, &major);
		if (!page)
			return done ? (long)done : -ENOMEM;
		cached = (uint8_t *)page_address(page) + off;
		if (kbuf && write)
			memcpy(cached, (uint8_t *)kbuf + done, chunk);
		else if (kbuf)
			memcpy((uint8_t *)kbuf + done, cached, chunk);
		else if (write)
			r = copy_from_user(cached, ubuf + done, chunk);
		else
			r = copy_to_user(ubuf + done, cached, chunk);
		if (write && !r) {
			SetPageFlag(page, PG_dirty);
			ino->i_size = MAX(ino->i_size, pos + done + chunk);
		}
		mark_page_accessed(page); /* no PTE's accessed bit tells reclaim of this use */
		put_page(page);
		if (r) {
			/* The page may be new, past the end, or hold bytes of a copy cut short:
			 * drop it, or zero it from the end of the file on. */
			if (write && pos + done + chunk > ino->i_size)
				truncate_inode_pages(ino, ino->i_size, pos + done + chunk);
			return done ? (long)done : -EFAULT;
		}
		done += chunk;
	}
	return (long)done;
}

long generic_file_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	long r = file_rw(f->f_inode, ubuf, NULL, n, *pos, false);

	file_accessed(f);
	if (r > 0)
		*pos += (uint64_t)r;
	return r;
}

long generic_file_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	long r;

	if (f->f_flags & O_APPEND)
		*pos = f->f_inode->i_size;
	r = fsize_write_check(*pos, &n);
	if (r)
		return r;
	if (n) {
		file_remove_privs(f);
		inode_touch_mtime(f->f_inode);
	}
	r = file_rw(f->f_inode, ubuf, NULL, n, *pos, true);
	if (r > 0)
		*pos += (uint64_t)r;
	return r;
}

long generic_file_splice_write(struct file *f, const void *kbuf, uint64_t n, uint64_t *pos)
{
	long r;

	if (f->f_flags & O_APPEND)
		*pos = f->f_inode->i_size;
	if (n) {
		file_remove_privs(f);
		inode_touch_mtime(f->f_inode);
	}
	r = file_rw(f->f_inode, 0, (void *)kbuf, n, *pos, true);
	if (r > 0)
		*pos += (uint64_t)r;
	return r;
}

long kernel_write(struct inode *ino, uint64_t pos, const void *buf, uint64_t n)
{
	if (!ino->i_mapping)
		return -EINVAL;
	return file_rw(ino, 0, (void *)buf, n, pos, true);
}

long kernel_read(struct inode *ino, uint64_t pos, void *buf, uint64_t n)
{
	if (!ino->i_mapping)
		return -EINVAL; /* only files with a page cache are read this way */
	return file_rw(ino, 0, buf, n, pos, false);
}
