/* Disks: the registry of struct gendisk by device number, their sd names, their /dev files
 * (block special, major 8) and /proc/partitions in Linux's format. */
#include "drivers/block/blkdev.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/initcall.h"
#include "kernel/printk/printk.h"
#include "mm/slab.h"

static LIST_HEAD(disks);
static unsigned int nr_sd; /* sd letters given out */

struct gendisk *alloc_disk_sd(void)
{
	struct gendisk *disk;

	if (nr_sd >= 26)
		return NULL;
	disk = kzalloc(sizeof(*disk));
	if (!disk)
		return NULL;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "sd%c", 'a' + nr_sd);
	disk->major = SCSI_DISK0_MAJOR;
	disk->first_minor = nr_sd * DISK_MINORS;
	disk->logical_block_size = SECTOR_SIZE;
	nr_sd++;
	return disk;
}

void add_disk(struct gendisk *disk)
{
	char path[40];
	int err;

	disk->queue->name = disk->disk_name;
	list_add_tail(&disk->list, &disks);
	snprintf(path, sizeof(path), "/dev/%s", disk->disk_name);
	/* Linux's udev makes it 0660 root:disk; faultline has no disk group, so root's. */
	err = vfs_mknod(path, S_IFBLK | 0660, MKDEV(disk->major, disk->first_minor));
	if (err)
		printk("%s: cannot create %s (error %d)\n", disk->disk_name, path, err);
}

struct gendisk *get_gendisk(uint32_t dev)
{
	struct list_head *pos;

	list_for_each(pos, &disks) {
		struct gendisk *disk = list_entry(pos, struct gendisk, list);

		if (MKDEV(disk->major, disk->first_minor) == dev)
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

/* Linux's format: a header, a blank line, then major, minor, size in 1 KiB blocks, name. */
static void partitions_show(struct proc_text *t)
{
	struct list_head *pos;

	proc_printf(t, "major minor  #blocks  name\n\n");
	list_for_each(pos, &disks) {
		const struct gendisk *disk = list_entry(pos, struct gendisk, list);

		proc_printf(t, "%4u  %7u %10lu %s\n", disk->major, disk->first_minor,
			    disk->capacity >> 1, disk->disk_name);
	}
}

static const struct proc_entry proc_partitions = { "partitions", 4096, partitions_show };

static void genhd_init(void)
{
	if (proc_create("partitions", &proc_partitions))
		printk("genhd: cannot create /proc/partitions\n");
}
device_initcall(genhd_init);
