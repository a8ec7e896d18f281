/* Disks: the registry of struct gendisk by device number, their sd names, their /dev files
 * (block special: sd's major 8, loop's 7) and their partitions', and /proc/partitions in
 * Linux's format. */
#include "drivers/block/blkdev.h"
#include "drivers/block/partitions/check.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/initcall.h"
#include "kernel/printk/printk.h"
#include "mm/slab.h"

static LIST_HEAD(disks);
static unsigned int nr_sd; /* sd letters given out */

struct gendisk *alloc_disk(unsigned int minors)
{
	struct gendisk *disk = kzalloc(sizeof(*disk));

	if (disk) {
		disk->minors = minors;
		disk->logical_block_size = SECTOR_SIZE;
	}
	return disk;
}

struct gendisk *alloc_disk_sd(void)
{
	struct gendisk *disk;

	if (nr_sd >= 26)
		return NULL;
	disk = alloc_disk(DISK_MINORS);
	if (!disk)
		return NULL;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "sd%c", 'a' + nr_sd);
	disk->major = SCSI_DISK0_MAJOR;
	disk->first_minor = nr_sd * DISK_MINORS;
	nr_sd++;
	return disk;
}

/* /dev/NAME as Linux's udev makes it: 0660 root:disk; faultline has no disk group, so root's. */
static void blk_mknod(const char *name, uint32_t dev)
{
	char path[40];
	int err;

	snprintf(path, sizeof(path), "/dev/%s", name);
	err = vfs_mknod(path, S_IFBLK | 0660, dev);
	if (err)
		printk("%s: cannot create %s (error %d)\n", name, path, err);
	/* Its block_device (and page cache) now, as 2.6.23's register_disk makes the disk's:
	 * the first open or mount allocates nothing, so it frees nothing either. */
	if (!bdget(dev))
		printk("%s: no memory for its block_device\n", name);
}

void add_partition(struct gendisk *disk, unsigned int partno, uint64_t start,
		   uint64_t sectors)
{
	struct hd_struct *p = &disk->part[partno];
	char name[40];

	p->start_sect = start;
	p->nr_sects = sectors;
	p->partno = partno;
	p->disk = disk;
	snprintf(name, sizeof(name), "%s%u", disk->disk_name, partno);
	blk_mknod(name, MKDEV(disk->major, disk->first_minor + partno));
}

void add_disk(struct gendisk *disk)
{
	disk->queue->name = disk->disk_name;
	disk->part[0] = (struct hd_struct){ 0, disk->capacity, 0, disk };
	list_add_tail(&disk->list, &disks);
	blk_mknod(disk->disk_name, MKDEV(disk->major, disk->first_minor));
	if (disk->minors > 1)
		rescan_partitions(disk);
}

void del_gendisk(struct gendisk *disk)
{
	list_del(&disk->list);
}

void set_capacity(struct gendisk *disk, uint64_t sectors)
{
	disk->capacity = sectors;
	disk->part[0].nr_sects = sectors;
	invalidate_disk_bdevs(disk); /* what their caches hold was the old contents' */
}

struct gendisk *get_gendisk(uint32_t dev, unsigned int *partno)
{
	struct list_head *pos;

	list_for_each(pos, &disks) {
		struct gendisk *disk = list_entry(pos, struct gendisk, list);
		unsigned int n = MINOR(dev) - disk->first_minor;

		if (MAJOR(dev) != disk->major || MINOR(dev) < disk->first_minor ||
		    n >= disk->minors)
			continue;
		if (n && !disk->part[n].nr_sects)
			return NULL;
		*partno = n;
		return disk;
	}
	return NULL;
}

void disk_for_each(void (*fn)(struct gendisk *disk, void *arg), void *arg)
{
	struct list_head *pos;

	list_for_each(pos, &disks)
		fn(list_entry(pos, struct gendisk, list), arg);
}

/* Linux's format: a header, a blank line, then major, minor, size in 1 KiB blocks, name; a
 * disk's partitions follow it in number order. A disk of no sectors is not listed. */
static void partitions_show(struct proc_text *t)
{
	struct list_head *pos;

	proc_printf(t, "major minor  #blocks  name\n\n");
	list_for_each(pos, &disks) {
		const struct gendisk *disk = list_entry(pos, struct gendisk, list);

		if (!disk->capacity)
			continue; /* an unbound loop device, as Linux leaves it out */
		proc_printf(t, "%4u  %7u %10lu %s\n", disk->major, disk->first_minor,
			    disk->capacity >> 1, disk->disk_name);
		for (unsigned int n = 1; n < DISK_MINORS; n++)
			if (disk->part[n].nr_sects)
				proc_printf(t, "%4u  %7u %10lu %s%u\n", disk->major,
					    disk->first_minor + n, disk->part[n].nr_sects >> 1,
					    disk->disk_name, n);
	}
}

static const struct proc_entry proc_partitions = { "partitions", 8192, partitions_show, NULL };

static void genhd_init(void)
{
	if (proc_create("partitions", &proc_partitions))
		printk("genhd: cannot create /proc/partitions\n");
}
device_initcall(genhd_init);
