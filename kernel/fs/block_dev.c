/* Block devices (2.6.23's fs/block_dev.c): each disk or partition's struct block_device, whose
 * bd_inode's page cache holds the device's bytes (moved by block_dev_aops.c), and the block
 * special files /dev/sda, /dev/sda1 that read and write through that cache, reading ahead in
 * runs (O_DIRECT: straight to the disk). */
#include "drivers/block/blkdev.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/process/cred.h"
#include "mm/filemap.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"
#include "mm/page.h"
#include "mm/slab.h"

/* ioctl numbers as Linux's <linux/fs.h> has them */
#define BLKGETSIZE 0x1260            /* unsigned long: the size in 512-byte sectors */
#define BLKSSZGET 0x1268             /* int: the logical sector size */
#define BLKGETSIZE64 0x80081272      /* uint64_t: the size in bytes */
#define BLKFLSBUF 0x1261             /* write the cache back and drop it (CAP_SYS_ADMIN) */
#define BLKBSZGET 0x80081270         /* int: the block size of the cache's buffers */
#define BLKROGET 0x125e              /* int: 1 if the device is read-only */
#define BLKRASET 0x1262              /* read-ahead of the disk, in sectors (CAP_SYS_ADMIN) */
#define BLKRAGET 0x1263              /* long: the same */
#define BLKFRASET 0x1264             /* the same, as Linux keeps one value for both */
#define BLKFRAGET 0x1265

static uint64_t part_bytes(const struct hd_struct *part)
{
	return part->nr_sects << SECTOR_SHIFT;
}

static LIST_HEAD(all_bdevs);
struct super_block *blockdev_superblock; /* the "bdev" file system of the bd_inodes */

static struct file_system_type bd_type = {
	.name = "bdev",
	.magic = 0x62646576, /* BDEVFS_MAGIC */
	.fill_super = pseudo_fill_super,
};

/* The inode of bdev's page cache: a "bdev" inode, never freed, with the device's a_ops. */
static struct inode *bd_inode_alloc(struct block_device *bdev)
{
	struct inode *inode;

	if (!blockdev_superblock)
		blockdev_superblock = kern_mount(&bd_type);
	if (!blockdev_superblock)
		return NULL;
	inode = new_inode(blockdev_superblock, S_IFBLK | 0600);
	if (!inode)
		return NULL;
	inode->i_rdev = bdev->bd_dev;
	inode->i_count = 1; /* the block_device's: it is never iput */
	inode->i_private = bdev;
	inode->i_data.host = inode;
	inode->i_data.a_ops = &def_blk_aops;
	INIT_LIST_HEAD(&inode->i_data.i_mmap);
	INIT_LIST_HEAD(&inode->i_data.i_mmap_nonlinear);
	inode->i_mapping = &inode->i_data;
	return inode;
}

struct block_device *bdget(uint32_t dev)
{
	struct block_device *bdev;

	list_for_each_entry(bdev, &all_bdevs, bd_list)
		if (bdev->bd_dev == dev)
			return bdev;
	bdev = kzalloc(sizeof(*bdev));
	if (!bdev)
		return NULL;
	bdev->bd_dev = dev;
	bdev->bd_inode = bd_inode_alloc(bdev);
	if (!bdev->bd_inode) {
		kfree(bdev);
		return NULL;
	}
	list_add_tail(&bdev->bd_list, &all_bdevs);
	return bdev;
}

unsigned long nr_blockdev_pages(void)
{
	struct block_device *bdev;
	unsigned long n = 0;

	list_for_each_entry(bdev, &all_bdevs, bd_list)
		n += bdev->bd_inode->i_mapping->nrpages;
	return n;
}

/* bd_block_size, and the block size of bd_inode's buffers. */
static void bd_set_blocksize(struct block_device *bdev, unsigned int size)
{
	bdev->bd_block_size = size;
	bdev->bd_inode->i_blkbits = (unsigned int)__builtin_ctz(size);
}

/* The device's size in bd_inode, and the first time (or with no file system on it) the block
 * size 2.6.23's bd_set_size chooses: the largest up to a page that divides the size. */
static void bd_set_size(struct block_device *bdev)
{
	uint64_t size = part_bytes(bdev->bd_part);
	unsigned int bsize = bdev->bd_disk->logical_block_size;

	bdev->bd_inode->i_size = size;
	if (bdev->bd_block_size && bdev->bd_super)
		return;
	while (bsize < PAGE_SIZE && !(size & bsize))
		bsize <<= 1;
	bd_set_blocksize(bdev, bsize);
}

int bdev_attach(struct block_device *bdev, struct gendisk *disk, unsigned int partno)
{
	bdev->bd_disk = disk;
	bdev->bd_part = &disk->part[partno];
	bdev->bd_inode->i_data.backing_dev_info = &disk->queue->backing_dev_info;
	if (bdev->bd_block_size)
		bdev->bd_inode->i_size = part_bytes(bdev->bd_part);
	else
		bd_set_size(bdev);
	return 0;
}

void invalidate_disk_bdevs(struct gendisk *disk)
{
	struct block_device *bdev;

	list_for_each_entry(bdev, &all_bdevs, bd_list) {
		if (bdev->bd_disk != disk)
			continue;
		truncate_inode_pages(bdev->bd_inode, 0, bdev->bd_inode->i_size);
		bd_set_size(bdev);
	}
}

int blkdev_get(struct block_device *bdev)
{
	unsigned int partno;
	struct gendisk *disk = get_gendisk(bdev->bd_dev, &partno);
	int err;

	if (!disk)
		return -ENXIO;
	err = disk->fops && disk->fops->open ? disk->fops->open(disk) : 0;
	return err ? err : bdev_attach(bdev, disk, partno);
}

void blkdev_put(struct block_device *bdev)
{
	struct gendisk *disk = bdev->bd_disk;

	if (disk->fops && disk->fops->release)
		disk->fops->release(disk);
}

void bdevname(const struct block_device *bdev, char *buf, size_t n)
{
	if (bdev->bd_part->partno)
		snprintf(buf, n, "%s%u", bdev->bd_disk->disk_name, bdev->bd_part->partno);
	else
		snprintf(buf, n, "%s", bdev->bd_disk->disk_name);
}

/* Write the dirty pages of bdev's cache in [first, last] back and wait: 0, or the error of a
 * write since the last call (AS_EIO). A page whose write failed is clean (PG_error). */
static int blkdev_write_range(struct block_device *bdev, unsigned long first, unsigned long last)
{
	return filemap_write_and_wait_range(bdev->bd_inode->i_mapping,
					    (uint64_t)first << PAGE_SHIFT,
					    ((uint64_t)last << PAGE_SHIFT) + PAGE_SIZE - 1);
}

int sync_blockdev(struct block_device *bdev)
{
	uint64_t size = bdev->bd_inode->i_size;

	return size ? blkdev_write_range(bdev, 0, (unsigned long)((size - 1) >> PAGE_SHIFT)) : 0;
}

int set_blocksize(struct block_device *bdev, unsigned int size)
{
	struct inode *inode = bdev->bd_inode;

	if (bdev->bd_block_size == size)
		return 0;
	/* 2.6.23's kill_bdev: the pages go, with buffers of the old size. */
	sync_blockdev(bdev);
	bd_set_blocksize(bdev, size);
	truncate_inode_pages(inode, 0, inode->i_size);
	return 0;
}

/* Drop the cached pages of [first, last]: stale after an O_DIRECT write, or BLKFLSBUF. A page
 * that is dirty or whose buffers a file system holds stays (2.6.23's invalidate_mapping_pages
 * leaves it too). */
static void blkdev_invalidate_range(struct block_device *bdev, unsigned long first,
				    unsigned long last)
{
	struct address_space *mapping = bdev->bd_inode->i_mapping;

	for (unsigned long index = first; index <= last && mapping->nrpages; index++) {
		struct page *page = find_get_page(mapping, index);

		if (!page)
			continue;
		lock_page(page);
		if (page->mapping == mapping && try_to_release_page(page))
			remove_mapping(mapping, page);
		unlock_page(page);
		put_page(page);
	}
}

static uint64_t bdev_bytes(const struct file *f)
{
	const struct block_device *bdev = f->private_data;

	return bdev->bd_inode->i_size;
}

/*
 * O_DIRECT: between the disk and the caller's buffer without the page cache, through a
 * bounce buffer (a user buffer is not physically contiguous). The offset, the length and the
 * buffer must be multiples of the logical block size (-EINVAL otherwise, as Linux). Dirty
 * cached pages of the range are written first; a write then drops the pages it made stale.
 */
static long blkdev_direct_IO(int rw, struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct block_device *bdev = f->private_data;
	uint64_t size = bdev_bytes(f), done = 0, mask = bdev->bd_disk->logical_block_size - 1;
	unsigned long first = (unsigned long)(*pos >> PAGE_SHIFT), last;
	uint8_t *buf;
	long err;

	if ((*pos | n | ubuf) & mask)
		return -EINVAL;
	if (*pos >= size || !n)
		return 0;
	n = MIN(n, size - *pos);
	last = (unsigned long)((*pos + n - 1) >> PAGE_SHIFT);
	err = blkdev_write_range(bdev, first, last);
	buf = err ? NULL : bounce_alloc();
	if (!buf)
		return err ? err : -ENOMEM;
	while (done < n) {
		uint64_t chunk = MIN(n - done, BOUNCE_SIZE);
		uint64_t sector = bdev->bd_part->start_sect + ((*pos + done) >> SECTOR_SHIFT);

		if (rw == WRITE && copy_from_user(buf, ubuf + done, chunk))
			err = -EFAULT;
		if (!err)
			err = blk_rw(bdev->bd_disk, rw, sector,
				     (unsigned int)(chunk >> SECTOR_SHIFT), buf);
		if (!err && rw == READ && copy_to_user(ubuf + done, buf, chunk))
			err = -EFAULT;
		if (err)
			break;
		done += chunk;
	}
	bounce_free(buf);
	if (rw == WRITE && done) {
		blkdev_invalidate_range(bdev, first, last);
		inode_touch_mtime(f->f_inode);
	}
	*pos += done;
	return done ? (long)done : err;
}

/* The disk or partition with the file's device number (private_data: its block_device);
 * -ENXIO if no driver or partition table has it (as Linux). */
static int blkdev_open(struct inode *inode, struct file *f)
{
	struct block_device *bdev = bdget(inode->i_rdev);
	int err;

	if (!bdev)
		return -ENOMEM;
	err = blkdev_get(bdev);
	if (err)
		return err;
	f->private_data = bdev;
	/* The node's pages are the device's (2.6.23's bd_acquire): a mapping of the node is on
	 * bd_inode's i_mmap, where writeback's page_mkclean finds it. For the node's life. */
	inode->i_mapping = bdev->bd_inode->i_mapping;
	file_ra_state_init(&f->f_ra, bdev->bd_inode->i_mapping); /* the disk's, not the node's */
	return 0;
}

/* The device's dirty pages written; the error of a write since this open file last asked. */
static int blkdev_fsync(struct file *f, int datasync)
{
	int err = sync_blockdev(f->private_data), r = file_check_and_advance_wb_err(f);

	(void)datasync;
	return r ? r : err;
}

static void blkdev_release(struct inode *inode, struct file *f)
{
	(void)inode;
	blkdev_put(f->private_data);
}

static bool blkdev_read_only(struct gendisk *disk)
{
	return disk->fops && disk->fops->read_only && disk->fops->read_only(disk);
}

bool bdev_read_only(const struct block_device *bdev)
{
	return blkdev_read_only(bdev->bd_disk);
}

/* Linux's fixed_size_llseek: positions within [0, size]; SEEK_DATA and SEEK_HOLE see one
 * extent of data. */
static int64_t blkdev_llseek(struct file *f, int64_t off, int whence)
{
	int64_t size = (int64_t)bdev_bytes(f), pos;

	switch (whence) {
	case 0: pos = off; break;
	case 1: pos = (int64_t)f->f_pos + off; break;
	case 2: pos = size + off; break;
	case 3: /* SEEK_DATA */
	case 4: /* SEEK_HOLE */
		if (off < 0 || off >= size)
			return -ENXIO;
		pos = whence == 3 ? off : size;
		break;
	default: return -EINVAL;
	}
	if (pos < 0 || pos > size)
		return -EINVAL;
	f->f_pos = (uint64_t)pos;
	return pos;
}

/* Bytes read through the device's page cache, its missing pages read ahead (mm/readahead.c)
 * in runs (short at the end; a page whose read fails fails whole, as Linux's), or -EIO,
 * -EFAULT. O_DIRECT: straight from the disk. */
static long blkdev_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct block_device *bdev = f->private_data;
	long r;

	if (f->f_flags & O_DIRECT)
		return blkdev_direct_IO(READ, f, ubuf, n, pos);
	r = do_generic_mapping_rw(f, bdev->bd_inode->i_mapping, ubuf, n, *pos, false);
	file_accessed(f);
	if (r > 0)
		*pos += (uint64_t)r;
	return r;
}

/*
 * Bytes written, -ENOSPC at or past the end (Linux's answer for a block device), -EIO... The
 * bytes go into the page cache, and the pages are written to the disk before write() returns
 * (no writeback thread yet): what write() said was written survives a power-off.
 */
static long blkdev_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct block_device *bdev = f->private_data;
	uint64_t size = bdev_bytes(f);
	long r;
	int err;

	if (blkdev_read_only(bdev->bd_disk))
		return -EPERM;
	if (!n)
		return 0;
	if (*pos >= size)
		return -ENOSPC;
	n = MIN(n, size - *pos);
	if (f->f_flags & O_DIRECT)
		return blkdev_direct_IO(WRITE, f, ubuf, n, pos);
	r = do_generic_mapping_rw(f, bdev->bd_inode->i_mapping, ubuf, n, *pos, true);
	if (r <= 0)
		return r;
	inode_touch_mtime(f->f_inode);
	err = blkdev_write_range(bdev, (unsigned long)(*pos >> PAGE_SHIFT),
				 (unsigned long)((*pos + (uint64_t)r - 1) >> PAGE_SHIFT));
	if (err)
		return err;
	*pos += (uint64_t)r;
	return r;
}

/* BLKRAGET: the disk's read-ahead in 512-byte sectors, into a long at arg (none: -EINVAL). */
static long blkdev_get_ra(struct gendisk *disk, uint64_t arg)
{
	long sectors = (long)(disk->queue->backing_dev_info.ra_pages * PAGE_SIZE / 512);

	if (!arg)
		return -EINVAL;
	return copy_to_user(arg, &sectors, sizeof(sectors)) ? -EFAULT : 0;
}

static long blkdev_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	struct block_device *bdev = f->private_data;
	const struct hd_struct *part = bdev->bd_part;
	uint64_t bytes = part_bytes(part), sectors = part->nr_sects;
	int ssz = (int)part->disk->logical_block_size, ro = blkdev_read_only(part->disk);
	int bsz = (int)bdev->bd_block_size, err;
	struct gendisk *disk = part->disk;

	switch (cmd) {
	case BLKGETSIZE64:
		return copy_to_user(arg, &bytes, sizeof(bytes)) ? -EFAULT : 0;
	case BLKGETSIZE:
		return copy_to_user(arg, &sectors, sizeof(sectors)) ? -EFAULT : 0;
	case BLKSSZGET:
		return copy_to_user(arg, &ssz, sizeof(ssz)) ? -EFAULT : 0;
	case BLKBSZGET:
		return copy_to_user(arg, &bsz, sizeof(bsz)) ? -EFAULT : 0;
	case BLKFLSBUF: /* Linux's fsync_bdev and invalidate_bdev */
		if (!capable(CAP_SYS_ADMIN))
			return -EACCES;
		err = sync_blockdev(bdev);
		if (bytes)
			blkdev_invalidate_range(bdev, 0,
						(unsigned long)((bytes - 1) >> PAGE_SHIFT));
		return err;
	case BLKROGET:
		return copy_to_user(arg, &ro, sizeof(ro)) ? -EFAULT : 0;
	case BLKRAGET:
	case BLKFRAGET:
		return blkdev_get_ra(disk, arg);
	case BLKRASET:
	case BLKFRASET: /* files opened from now on read ahead that far */
		if (!capable(CAP_SYS_ADMIN))
			return -EACCES;
		disk->queue->backing_dev_info.ra_pages = (unsigned long)(arg * 512 / PAGE_SIZE);
		return 0;
	default: /* the driver's own, asked of the whole disk */
		if (part->partno || !disk->fops || !disk->fops->ioctl)
			return -ENOTTY;
		return disk->fops->ioctl(disk, f->f_mode, (unsigned int)cmd, arg);
	}
}

const struct file_operations def_blk_fops = {
	.open = blkdev_open,
	.llseek = blkdev_llseek,
	.read = blkdev_read,
	.write = blkdev_write,
	.ioctl = blkdev_ioctl,
	.release = blkdev_release,
	.fsync = blkdev_fsync,
	.mmap = generic_file_mmap, /* the device's page cache, written back by its writepage */
};
