/* Block special files (/dev/sda, /dev/sda1): read, write and lseek at any byte offset over a
 * disk or a partition of whole sectors, through a bounce buffer (no page cache yet): a partial
 * sector at either end of a write is read first and merged (read-modify-write). A partition's
 * offsets start at its first sector and end at its last. ioctl answers the size. */
#include "drivers/block/blkdev.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "mm/gfp.h"
#include "mm/page.h"
#include "mm/slab.h"

#define BOUNCE_ORDER 3 /* 32 KiB, 64 sectors per request */
#define BOUNCE_SIZE (PAGE_SIZE << BOUNCE_ORDER)

/* ioctl numbers as Linux's <linux/fs.h> has them */
#define BLKGETSIZE 0x1260            /* unsigned long: the size in 512-byte sectors */
#define BLKSSZGET 0x1268             /* int: the logical sector size */
#define BLKGETSIZE64 0x80081272      /* uint64_t: the size in bytes */
#define BLKROGET 0x125e              /* int: 1 if the device is read-only */

static uint64_t part_bytes(const struct hd_struct *part)
{
	return part->nr_sects << SECTOR_SHIFT;
}

static LIST_HEAD(all_bdevs);

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
	list_add_tail(&bdev->bd_list, &all_bdevs);
	return bdev;
}

int blkdev_get(struct block_device *bdev)
{
	unsigned int partno;
	struct gendisk *disk = get_gendisk(bdev->bd_dev, &partno);

	int err;

	if (!disk)
		return -ENXIO;
	err = disk->fops && disk->fops->open ? disk->fops->open(disk) : 0;
	if (err)
		return err;
	bdev->bd_disk = disk;
	bdev->bd_part = &disk->part[partno];
	if (!bdev->bd_block_size)
		bdev->bd_block_size = disk->logical_block_size;
	return 0;
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

/* The disk or partition with the file's device number (private_data: its struct hd_struct);
 * -ENXIO if no driver or partition table has it (as Linux). */
static int blkdev_open(struct inode *inode, struct file *f)
{
	unsigned int partno;
	struct gendisk *disk = get_gendisk(inode->i_rdev, &partno);
	int err;

	if (!disk)
		return -ENXIO;
	err = disk->fops && disk->fops->open ? disk->fops->open(disk) : 0;
	if (err)
		return err;
	f->private_data = &disk->part[partno];
	return 0;
}

static void blkdev_release(struct inode *inode, struct file *f)
{
	struct gendisk *disk = ((struct hd_struct *)f->private_data)->disk;

	(void)inode;
	if (disk->fops && disk->fops->release)
		disk->fops->release(disk);
}

static bool blkdev_read_only(struct gendisk *disk)
{
	return disk->fops && disk->fops->read_only && disk->fops->read_only(disk);
}

/* Linux's fixed_size_llseek: positions within [0, size]; SEEK_DATA and SEEK_HOLE see one
 * extent of data. */
static int64_t blkdev_llseek(struct file *f, int64_t off, int whence)
{
	int64_t size = (int64_t)part_bytes(f->private_data), pos;

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

static void *bounce_alloc(void)
{
	struct page *page = alloc_pages(GFP_KERNEL, BOUNCE_ORDER);

	return page ? page_address(page) : NULL;
}

static void bounce_free(void *buf)
{
	__free_pages(virt_to_page(buf), BOUNCE_ORDER);
}

/* Bytes read (short at the disk's end, or before a failing sector), or -EIO, -EFAULT. */
static long blkdev_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct hd_struct *part = f->private_data;
	struct gendisk *disk = part->disk;
	uint64_t size = part_bytes(part), done = 0;
	uint8_t *buf;
	long err = 0;

	if (*pos >= size || !n)
		return 0;
	n = MIN(n, size - *pos);
	buf = bounce_alloc();
	if (!buf)
		return -ENOMEM;
	while (done < n) {
		uint64_t p = *pos + done, off = p & (SECTOR_SIZE - 1);
		uint64_t first = part->start_sect + (p >> SECTOR_SHIFT);
		uint64_t chunk = MIN(n - done, BOUNCE_SIZE - off);
		unsigned int nsec = (unsigned int)((off + chunk + SECTOR_SIZE - 1) >> SECTOR_SHIFT);

		err = blk_rw(disk, READ, first, nsec, buf);
		if (!err && copy_to_user(ubuf + done, buf + off, chunk))
			err = -EFAULT;
		if (err)
			break;
		done += chunk;
	}
	bounce_free(buf);
	*pos += done;
	return done ? (long)done : err;
}

/* Bytes written, -ENOSPC at or past the end (Linux's answer for a block device), -EIO... */
static long blkdev_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct hd_struct *part = f->private_data;
	struct gendisk *disk = part->disk;
	uint64_t size = part_bytes(part), done = 0;
	uint8_t *buf;
	long err = 0;

	if (blkdev_read_only(disk))
		return -EPERM;
	if (!n)
		return 0;
	if (*pos >= size)
		return -ENOSPC;
	n = MIN(n, size - *pos);
	buf = bounce_alloc();
	if (!buf)
		return -ENOMEM;
	while (done < n) {
		uint64_t p = *pos + done, off = p & (SECTOR_SIZE - 1);
		uint64_t first = part->start_sect + (p >> SECTOR_SHIFT);
		uint64_t chunk = MIN(n - done, BOUNCE_SIZE - off);
		unsigned int nsec = (unsigned int)((off + chunk + SECTOR_SIZE - 1) >> SECTOR_SHIFT);
		uint64_t tail = (off + chunk) & (SECTOR_SIZE - 1);

		/* The bytes of a partial first or last sector that stay come from the disk. */
		if (off)
			err = blk_rw(disk, READ, first, 1, buf);
		if (!err && tail && !(off && nsec == 1))
			err = blk_rw(disk, READ, first + nsec - 1, 1,
				     buf + ((uint64_t)(nsec - 1) << SECTOR_SHIFT));
		if (!err && copy_from_user(buf + off, ubuf + done, chunk))
			err = -EFAULT;
		if (!err)
			err = blk_rw(disk, WRITE, first, nsec, buf);
		if (err)
			break;
		done += chunk;
	}
	bounce_free(buf);
	*pos += done;
	if (done)
		inode_touch_mtime(f->f_inode);
	return done ? (long)done : err;
}

static long blkdev_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	const struct hd_struct *part = f->private_data;
	uint64_t bytes = part_bytes(part), sectors = part->nr_sects;
	int ssz = (int)part->disk->logical_block_size, ro = blkdev_read_only(part->disk);
	struct gendisk *disk = part->disk;

	switch (cmd) {
	case BLKGETSIZE64:
		return copy_to_user(arg, &bytes, sizeof(bytes)) ? -EFAULT : 0;
	case BLKGETSIZE:
		return copy_to_user(arg, &sectors, sizeof(sectors)) ? -EFAULT : 0;
	case BLKSSZGET:
		return copy_to_user(arg, &ssz, sizeof(ssz)) ? -EFAULT : 0;
	case BLKROGET:
		return copy_to_user(arg, &ro, sizeof(ro)) ? -EFAULT : 0;
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
};
