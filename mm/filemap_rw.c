/* read() and write() through the page cache: the same pages file mappings map, so read,
 * write and mmap of a file always agree. A page not cached yet is read from the file's
 * store by the file system's a_ops->readpage; a write goes through a_ops->prepare_write and
 * commit_write, which dirty the page, and it stays. */
#include "kernel/errno.h"
#include "kernel/fs/fsnotify.h"
#include "kernel/process/resource.h"
#include "kernel/lib/string.h"
#include "kernel/arch/uaccess.h"
#include "mm/reclaim.h"
#include "mm/filemap.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"

/* A read of page index, nr pages to go, of an open file on a disk: read ahead if the page is
 * not cached, or is the mark where the next window is to be read (2.6.23's
 * do_generic_mapping_read). */
static void read_ahead(struct file *f, struct address_space *mapping, unsigned long index,
		       unsigned long nr)
{
	struct page *page = find_get_page(mapping, index);

	if (!page) {
		page_cache_sync_readahead(mapping, &f->f_ra, f, index, nr);
		return;
	}
	if (PageFlag(page, PG_readahead))
		page_cache_async_readahead(mapping, &f->f_ra, f, page, index, nr);
	put_page(page);
}

/* Copy chunk bytes (within one page of the file and one user page) at file offset pos to
 * ubuf, or kbuf when set: through a_ops->readpage if the page is not cached (and the pages
 * after it up to end, the read's end, read ahead). 0 or -errno. */
static long read_chunk(struct file *f, struct inode *ino, uint64_t ubuf, void *kbuf,
		       uint64_t chunk, uint64_t pos, uint64_t end)
{
	unsigned long index = (unsigned long)(pos >> PAGE_SHIFT);
	struct page *page;
	uint8_t *cached;
	long r = 0;
	int err;

	if (f && f->f_ra.ra_pages) {
		unsigned long last = (unsigned long)((end - 1) >> PAGE_SHIFT);

		read_ahead(f, ino->i_mapping, index, last - index + 1);
		f->f_ra.prev_index = index;
	}
	err = read_mapping_page(f, ino->i_mapping, index, &page);

	if (err)
		return err;
	cached = (uint8_t *)page_address(page) + (pos & ~PAGE_MASK);
	if (kbuf)
		memcpy(kbuf, cached, chunk);
	else
		r = copy_to_user(ubuf, cached, chunk);
	mark_page_accessed(page); /* no PTE's accessed bit tells reclaim of this use */
	put_page(page);
	return r ? -EFAULT : 0;
}

/*
 * The same the other way, as 2.6.23's generic_file_buffered_write: the page locked (a new
 * one not read), a_ops->prepare_write readies it for bytes [from, to), the copy, then
 * a_ops->commit_write grows i_size and dirties the page. The user page is touched before the
 * page lock is taken, as 2.6.23 does: a source mapped from this same page would otherwise
 * fault into filemap_fault, which waits for the lock we hold. (Reclaim could still take the
 * source away in between; 2.6.24's write_begin/write_end closed that.)
 */
static long write_chunk(struct file *f, struct inode *ino, uint64_t ubuf, const void *kbuf,
			uint64_t chunk, uint64_t pos)
{
	const struct address_space_operations *a_ops = ino->i_mapping->a_ops;
	unsigned int from = pos & ~PAGE_MASK, to = from + (unsigned int)chunk;
	struct page *page;
	uint8_t *cached, c;
	long r = 0;
	int err;

	if (!kbuf && copy_from_user(&c, ubuf, 1))
		return -EFAULT;
	page = grab_cache_page(ino->i_mapping, pos >> PAGE_SHIFT);
	if (!page)
		return -ENOMEM;
	err = a_ops->prepare_write(f, page, from, to);
	if (err) {
		unlock_page(page);
		put_page(page);
		/* It may have allocated blocks past the end before it failed (-ENOSPC at the
		 * page's next block): they go again, as 2.6.23's vmtruncate to i_size. */
		if (pos + chunk > ino->i_size) {
			truncate_inode_pages(ino, ino->i_size, pos + chunk);
			if (ino->i_op && ino->i_op->truncate)
				ino->i_op->truncate(ino);
		}
		return err;
	}
	cached = (uint8_t *)page_address(page) + from;
	if (kbuf)
		memcpy(cached, kbuf, chunk);
	else
		r = copy_from_user(cached, ubuf, chunk);
	if (!r) {
		a_ops->commit_write(f, page, from, to);
	} else if (!PageUptodate(page)) {
		/* Nothing was copied, so [from, to) is still the file's: zeroes, as prepare_write
		 * left every byte outside it as the file has them. */
		memset(cached, 0, chunk);
		SetPageFlag(page, PG_uptodate);
	}
	unlock_page(page);
	mark_page_accessed(page); /* no PTE's accessed bit tells reclaim of this use */
	put_page(page);
	if (r) {
		/* The page may be new, past the end: drop it, or zero it from the end of the
		 * file on. */
		if (pos + chunk > ino->i_size)
			truncate_inode_pages(ino, ino->i_size, pos + chunk);
		return -EFAULT;
	}
	return 0;
}

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
static long file_rw(struct file *f, struct inode *ino, uint64_t ubuf, void *kbuf, uint64_t n,
		    uint64_t pos, bool write)
{
	uint64_t done = 0;

	if (!kbuf && !access_ok(ubuf, n))
		return -EFAULT;
	if (write && pos + n > MAX_LFS_FILESIZE)
		return -EFBIG;
	while (done < n) {
		uint64_t off = (pos + done) & ~PAGE_MASK, chunk = MIN(n - done, PAGE_SIZE - off);
		long r;

		if (!write && pos + done >= ino->i_size)
			break;
		if (!write)
			chunk = MIN(chunk, ino->i_size - (pos + done));
		if (!kbuf)
			chunk = MIN(chunk, PAGE_SIZE - ((ubuf + done) & ~PAGE_MASK));
		if (write)
			r = write_chunk(f, ino, ubuf + done, kbuf ? (uint8_t *)kbuf + done : NULL,
					chunk, pos + done);
		else
			r = read_chunk(f, ino, ubuf + done, kbuf ? (uint8_t *)kbuf + done : NULL,
				       chunk, pos + done, MIN(pos + n, ino->i_size));
		if (r)
			return done ? (long)done : r;
		done += chunk;
	}
	return (long)done;
}

long do_generic_mapping_rw(struct file *f, struct address_space *mapping, uint64_t ubuf,
			   uint64_t n, uint64_t pos, bool write)
{
	return file_rw(f, mapping->host, ubuf, NULL, n, pos, write);
}

long generic_file_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	long r = file_rw(f, f->f_inode, ubuf, NULL, n, *pos, false);

	file_accessed(f);
	if (r > 0) {
		*pos += (uint64_t)r;
		fsnotify_access(f);
	}
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
	/* The file system's own limit, as 2.6.23's generic_write_checks: no signal, and a write
	 * of nothing at the limit is fine. */
	if (*pos >= inode_maxbytes(f->f_inode) && (n || *pos > inode_maxbytes(f->f_inode)))
		return -EFBIG;
	if (n > inode_maxbytes(f->f_inode) - *pos)
		n = inode_maxbytes(f->f_inode) - *pos;
	if (n) {
		file_remove_privs(f);
		inode_touch_mtime(f->f_inode);
	}
	r = file_rw(f, f->f_inode, ubuf, NULL, n, *pos, true);
	if (r > 0) {
		*pos += (uint64_t)r;
		fsnotify_modify(f);
	}
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
	r = file_rw(f, f->f_inode, 0, (void *)kbuf, n, *pos, true);
	if (r > 0) {
		*pos += (uint64_t)r;
		fsnotify_modify(f);
	}
	return r;
}

long kernel_write(struct inode *ino, uint64_t pos, const void *buf, uint64_t n)
{
	if (!ino->i_mapping)
		return -EINVAL;
	return file_rw(NULL, ino, 0, (void *)buf, n, pos, true);
}

long kernel_read(struct inode *ino, uint64_t pos, void *buf, uint64_t n)
{
	if (!ino->i_mapping)
		return -EINVAL; /* only files with a page cache are read this way */
	return file_rw(NULL, ino, 0, buf, n, pos, false);
}
