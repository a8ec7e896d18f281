/* posix_fadvise and readahead(2) (Linux's mm/fadvise.c): a program tells the page cache how it
 * will read a file, so that it reads ahead more, not at all, now, or drops what was read.
 * Advice is only advice: none of it changes what a read returns. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/writeback.h"
#include "kernel/syscalls.h"
#include "mm/backing-dev.h"
#include "mm/filemap.h"

#define POSIX_FADV_NORMAL 0
#define POSIX_FADV_RANDOM 1
#define POSIX_FADV_SEQUENTIAL 2
#define POSIX_FADV_WILLNEED 3
#define POSIX_FADV_DONTNEED 4
#define POSIX_FADV_NOREUSE 5

/* Read [first, first + nr) into the cache now, 2 MiB at a time, none past the end of the file
 * (today's force_page_cache_ra): the reads are started, not waited for. */
static void force_page_cache_readahead(struct address_space *mapping, struct file *f,
				       unsigned long first, unsigned long nr)
{
	const unsigned long chunk = (2UL << 20) >> PAGE_SHIFT;
	uint64_t isize = mapping->host->i_size;
	unsigned long last;

	if (!isize || first > (last = (unsigned long)((isize - 1) >> PAGE_SHIFT)))
		return;
	nr = MIN(nr, last - first + 1);
	while (nr) {
		unsigned long n = MIN(nr, chunk);

		__do_page_cache_readahead(mapping, f, first, n, 0);
		first += n;
		nr -= n;
	}
}

/* The written pages of [offset, end] started on their way to the disk, not waited for. */
static void fdatawrite_range(struct address_space *mapping, uint64_t offset, uint64_t end)
{
	struct writeback_control wbc = {
		.sync_mode = WB_SYNC_NONE,
		.nr_to_write = WBC_ALL,
		.range_start = offset,
		.range_end = end,
	};

	if (mapping_cap_account_dirty(mapping))
		do_writepages(mapping, &wbc);
}

/*
 * Today's generic_fadvise, in its order: a pipe or FIFO is -ESPIPE, a file without a page
 * cache or a negative len -EINVAL; len 0 means to the end of the file. A file in memory
 * (ramfs, tmpfs: no device under it) takes any valid advice and does nothing, as Linux's
 * noop_backing_dev_info files do. RANDOM turns read-ahead off for this open file, SEQUENTIAL
 * doubles its window, NORMAL gives the device's back; WILLNEED reads the range now; DONTNEED
 * starts the range's written pages to the disk and drops the whole pages of it that nobody
 * needs (clean, unmapped, unlocked: a dirty one still being written stays, as on Linux).
 */
static long vfs_fadvise(struct file *f, int64_t offset, int64_t len, int advice)
{
	struct inode *inode = f->f_inode;
	struct address_space *mapping = inode->i_mapping;
	struct backing_dev_info *bdi;
	uint64_t endbyte;
	unsigned long first, last;

	if (S_ISFIFO(inode->i_mode))
		return -ESPIPE;
	if (!mapping || len < 0)
		return -EINVAL;
	bdi = mapping->backing_dev_info;
	if (!bdi)
		return advice >= POSIX_FADV_NORMAL && advice <= POSIX_FADV_NOREUSE ? 0 : -EINVAL;
	endbyte = (uint64_t)offset + (uint64_t)len;
	if (!len || endbyte < (uint64_t)len || endbyte > (uint64_t)INT64_MAX)
		endbyte = (uint64_t)INT64_MAX;
	else
		endbyte--; /* inclusive */
	switch (advice) {
	case POSIX_FADV_NORMAL:
		f->f_ra.ra_pages = (unsigned int)bdi->ra_pages;
		break;
	case POSIX_FADV_RANDOM:
		f->f_ra.ra_pages = 0;
		break;
	case POSIX_FADV_SEQUENTIAL:
		f->f_ra.ra_pages = (unsigned int)bdi->ra_pages * 2;
		break;
	case POSIX_FADV_WILLNEED:
		first = (unsigned long)((uint64_t)offset >> PAGE_SHIFT);
		last = (unsigned long)(endbyte >> PAGE_SHIFT);
		force_page_cache_readahead(mapping, f, first, last - first + 1);
		break;
	case POSIX_FADV_NOREUSE:
		break;
	case POSIX_FADV_DONTNEED:
		fdatawrite_range(mapping, (uint64_t)offset, endbyte);
		/* Only whole pages: a page the range covers in part may hold what is needed. */
		first = (unsigned long)(((uint64_t)offset + PAGE_SIZE - 1) >> PAGE_SHIFT);
		last = (unsigned long)(endbyte >> PAGE_SHIFT);
		if ((endbyte & ~PAGE_MASK) != ~PAGE_MASK) {
			if (!last)
				break;
			last--;
		}
		if (last >= first)
			invalidate_mapping_pages(mapping, first, last);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

long sys_fadvise64(uint64_t fd, int64_t offset, int64_t len, uint64_t advice)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	return vfs_fadvise(f, offset, len, (int)advice);
}

/* readahead(2): WILLNEED for a file open for reading that has pages to read (a regular file or
 * a block device), -EBADF or -EINVAL otherwise, as today's ksys_readahead. */
long sys_readahead(uint64_t fd, int64_t offset, uint64_t count)
{
	struct file *f = fget(fd);

	if (!f || !(f->f_mode & FMODE_READ))
		return -EBADF;
	if (!f->f_inode->i_mapping || !f->f_inode->i_mapping->a_ops ||
	    (!S_ISREG(f->f_inode->i_mode) && !S_ISBLK(f->f_inode->i_mode)))
		return -EINVAL;
	return vfs_fadvise(f, offset, (int64_t)count, POSIX_FADV_WILLNEED);
}
