/* Loop devices: /dev/loopN is a block device whose sectors are the bytes of a file (or of another
 * block device), so a file can hold a file system (Linux's drivers/block/loop.c). A request queued
 * on it wakes the device's kernel thread, which reads or writes the backing file through its page
 * cache and ends the request; /dev/loop-control hands out free devices. */
#include "drivers/block/blkdev.h"
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/namei.h"
#include "kernel/initcall.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/filemap_rw.h"
#include "mm/slab.h"

#define LOOP_MAJOR 7
#define MISC_MAJOR 10
#define LOOP_CTRL_MINOR 237
#define MAX_LOOP 256 /* faultline's limit on /dev/loopN (Linux's is the minor numbers') */
#define MIN_LOOP 8   /* made at boot, as Linux's CONFIG_BLK_DEV_LOOP_MIN_COUNT */

/* ioctl numbers and structures of Linux's <linux/loop.h> */
#define LOOP_SET_FD 0x4C00
#define LOOP_CLR_FD 0x4C01
#define LOOP_SET_STATUS64 0x4C04
#define LOOP_GET_STATUS64 0x4C05
#define LOOP_SET_CAPACITY 0x4C07
#define LOOP_CONFIGURE 0x4C0A
#define LOOP_CTL_ADD 0x4C80
#define LOOP_CTL_REMOVE 0x4C81
#define LOOP_CTL_GET_FREE 0x4C82

#define LO_FLAGS_READ_ONLY 1
#define LO_FLAGS_AUTOCLEAR 4
/* what LOOP_SET_STATUS64 may turn on, and off; what LOOP_CONFIGURE may ask for */
#define LOOP_SET_STATUS_SETTABLE_FLAGS LO_FLAGS_AUTOCLEAR
#define LOOP_SET_STATUS_CLEARABLE_FLAGS LO_FLAGS_AUTOCLEAR
#define LOOP_CONFIGURE_SETTABLE_FLAGS (LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR)
#define LO_NAME_SIZE 64

struct loop_info64 {
	uint64_t lo_device, lo_inode, lo_rdevice, lo_offset, lo_sizelimit;
	uint32_t lo_number, lo_encrypt_type, lo_encrypt_key_size, lo_flags;
	uint8_t lo_file_name[LO_NAME_SIZE];
	uint8_t lo_crypt_name[LO_NAME_SIZE];
	uint8_t lo_encrypt_key[32];
	uint64_t lo_init[2];
};

struct loop_config {
	uint32_t fd, block_size;
	struct loop_info64 info;
	uint64_t reserved[8];
};

/* A device's life: bound by LOOP_SET_FD or LOOP_CONFIGURE; LOOP_CLR_FD starts its rundown,
 * and the last close unbinds it (today's Linux). */
enum { Lo_unbound, Lo_bound, Lo_rundown };

struct loop_device {
	int lo_number;
	int lo_state;
	struct file *lo_backing_file; /* NULL: unbound */
	uint64_t lo_offset, lo_sizelimit; /* bytes: where the device starts in the file, and
					   * its most (0: up to the file's end) */
	uint32_t lo_flags;
	uint8_t lo_file_name[LO_NAME_SIZE]; /* what the binder said the file is called */
	int lo_openers;                     /* opens of /dev/loopN and mounts from it */
	struct gendisk *lo_disk;
	struct task_struct *lo_thread;      /* while bound: does the requests, asleep when idle */
	struct list_head lo_list;
};

static LIST_HEAD(loop_devices);

static struct loop_device *loop_find(int number)
{
	struct loop_device *lo;

	list_for_each_entry(lo, &loop_devices, lo_list)
		if (lo->lo_number == number)
			return lo;
	return NULL;
}

/* The inode whose page cache holds the backing bytes: a regular file's own, or a block
 * device's (its bd_inode; the open block special file keeps its struct block_device). */
static struct inode *loop_backing_inode(const struct file *f)
{
	if (S_ISBLK(f->f_inode->i_mode))
		return ((struct block_device *)f->private_data)->bd_inode;
	return f->f_inode;
}

/* One request against the backing file, from its thread: 0 or -errno. A write the file takes
 * only in part is -EIO; one it refuses passes its error on (-ENOSPC: the file's file system is
 * full), as today's Linux's lo_write_bvec, which says so. Sectors past the file's end read as
 * zeros (the device's size was rounded down to whole sectors, but a file can shrink under
 * it). */
static int do_req_filebacked(struct loop_device *lo, struct request *req)
{
	struct inode *ino = loop_backing_inode(lo->lo_backing_file);
	uint64_t pos = lo->lo_offset + (req->sector << SECTOR_SHIFT);
	uint64_t len = (uint64_t)req->nr_sectors << SECTOR_SHIFT;
	long n;

	if (req->cmd == WRITE) {
		if (lo->lo_flags & LO_FLAGS_READ_ONLY)
			return -EIO;
		n = kernel_write(ino, pos, req->buffer, len);
		if (n == (long)len)
			return 0;
		printk("loop%d: Write error at byte offset %lu, length %lu.\n", lo->lo_number,
		       (unsigned long)pos, (unsigned long)len);
		return n < 0 ? (int)n : -EIO;
	}
	n = kernel_read(ino, pos, req->buffer, len);
	if (n < 0)
		return -EIO;
	memset((uint8_t *)req->buffer + n, 0, len - (uint64_t)n);
	return 0;
}

/* The device's thread, from its bind to its unbind: the oldest request, done and ended, one
 * at a time; asleep when none is queued. The state is set before the test, so a request
 * queued in between makes schedule() return at once. */
static int loop_thread(void *data)
{
	struct loop_device *lo = data;
	struct request_queue *q = lo->lo_disk->queue;

	for (;;) {
		struct request *req;
		uint64_t flags;
		int err;

		if (lo->lo_thread != current)
			return 0; /* unbound: the next bind makes a thread of its own */
		spin_lock_irqsave(&q->queue_lock, flags);
		current->state = TASK_INTERRUPTIBLE;
		req = elv_next_request(q);
		if (req)
			current->state = TASK_RUNNING;
		spin_unlock_irqrestore(&q->queue_lock, flags);
		if (!req) {
			schedule();
			continue;
		}
		err = lo->lo_backing_file ? do_req_filebacked(lo, req) : -EIO;
		spin_lock_irqsave(&q->queue_lock, flags);
		end_request(req, err);
		spin_unlock_irqrestore(&q->queue_lock, flags);
	}
	return 0;
}

/* blk_rw queued a request on an idle device (queue_lock held, interrupts off): wake the
 * thread, which does the rest where it may sleep. */
static void loop_request_fn(struct request_queue *q)
{
	struct loop_device *lo = q->queuedata;

	if (lo->lo_thread)
		wake_up_process(lo->lo_thread);
}

/* The thread ends every request; a caller never has to look at the device itself. */
static void loop_poll(struct request_queue *q)
{
	loop_request_fn(q);
}

/* The device's size in sectors: the file from lo_offset on, at most lo_sizelimit bytes. */
static uint64_t loop_sectors(const struct loop_device *lo)
{
	uint64_t size = loop_backing_inode(lo->lo_backing_file)->i_size;

	size = size > lo->lo_offset ? size - lo->lo_offset : 0;
	if (lo->lo_sizelimit && lo->lo_sizelimit < size)
		size = lo->lo_sizelimit;
	return size >> SECTOR_SHIFT;
}

static void loop_clr_fd(struct loop_device *lo)
{
	struct task_struct *thread = lo->lo_thread;
	struct request_queue *q = lo->lo_disk->queue;

	/* Reads started ahead of need (blk_submit) may still be queued though no one holds the
	 * device open: the thread ends them before it goes, else their pages stay locked. */
	while (!list_empty(&q->queue_head)) {
		current->state = TASK_UNINTERRUPTIBLE;
		schedule_timeout(1);
	}

	lo->lo_thread = NULL; /* it sees that and ends (no request is left: no one has it open) */
	wake_up_process(thread);
	lo->lo_state = Lo_unbound;
	fput(lo->lo_backing_file);
	lo->lo_backing_file = NULL;
	lo->lo_offset = lo->lo_sizelimit = 0;
	lo->lo_flags = 0;
	memset(lo->lo_file_name, 0, sizeof(lo->lo_file_name));
	lo->lo_disk->logical_block_size = SECTOR_SIZE;
	set_capacity(lo->lo_disk, 0);
}

/* Offset, size limit, name and the settable flags from info (bound devices only). */
static int loop_set_status(struct loop_device *lo, const struct loop_info64 *info,
			   uint32_t settable, uint32_t clearable)
{
	if ((int64_t)info->lo_offset < 0 || (int64_t)info->lo_sizelimit < 0)
		return -EOVERFLOW;
	lo->lo_offset = info->lo_offset;
	lo->lo_sizelimit = info->lo_sizelimit;
	memcpy(lo->lo_file_name, info->lo_file_name, LO_NAME_SIZE);
	lo->lo_file_name[LO_NAME_SIZE - 1] = 0;
	lo->lo_flags &= ~clearable;
	lo->lo_flags |= info->lo_flags & settable;
	set_capacity(lo->lo_disk, loop_sectors(lo));
	return 0;
}

/* May lo be backed by f? A regular file or a block device, but not lo itself, nor a loop
 * device that is (through others) backed by lo: -EBADF, as Linux's loop_validate_file; a
 * loop device in the chain that is not bound: -EINVAL. */
static int loop_validate_file(struct loop_device *lo, struct file *f)
{
	const struct inode *ino = f->f_inode;

	while (S_ISBLK(f->f_inode->i_mode) && MAJOR(f->f_inode->i_rdev) == LOOP_MAJOR) {
		struct block_device *bdev = f->private_data;
		struct loop_device *l = bdev->bd_disk->private_data;

		if (l == lo)
			return -EBADF;
		if (l->lo_state != Lo_bound)
			return -EINVAL;
		f = l->lo_backing_file;
	}
	if (!S_ISREG(ino->i_mode) && !S_ISBLK(ino->i_mode))
		return -EINVAL;
	return 0;
}

/* Bind lo to the file open on fd (LOOP_SET_FD, LOOP_CONFIGURE): read-only if either the file
 * or the loop device is not open for writing. */
static int loop_configure(struct loop_device *lo, unsigned int mode, const struct loop_config *c)
{
	struct file *f = fget(c->fd);
	char name[16];
	int err;

	if (!f)
		return -EBADF;
	if (lo->lo_state != Lo_unbound)
		return -EBUSY;
	err = loop_validate_file(lo, f);
	if (err)
		return err;
	if (c->block_size && (c->block_size < SECTOR_SIZE || c->block_size > 4096 ||
			      (c->block_size & (c->block_size - 1))))
		return -EINVAL;
	if (c->info.lo_flags & ~(uint32_t)LOOP_CONFIGURE_SETTABLE_FLAGS)
		return -EINVAL;
	for (unsigned int i = 0; i < ARRAY_SIZE(c->reserved); i++)
		if (c->reserved[i])
			return -EINVAL;
	snprintf(name, sizeof(name), "loop%d", lo->lo_number);
	lo->lo_thread = kthread_run(loop_thread, lo, name);
	if (!lo->lo_thread)
		return -ENOMEM;
	get_file(f);
	lo->lo_backing_file = f;
	lo->lo_state = Lo_bound;
	lo->lo_flags = 0;
	if (!(f->f_mode & FMODE_WRITE) || !(mode & FMODE_WRITE))
		lo->lo_flags |= LO_FLAGS_READ_ONLY;
	lo->lo_disk->logical_block_size = c->block_size ? c->block_size : SECTOR_SIZE;
	err = loop_set_status(lo, &c->info, LOOP_CONFIGURE_SETTABLE_FLAGS, 0);
	if (err)
		loop_clr_fd(lo);
	return err;
}

static int loop_get_status(struct loop_device *lo, uint64_t arg)
{
	struct loop_info64 info = { 0 };
	struct inode *ino;

	if (lo->lo_state != Lo_bound)
		return -ENXIO;
	ino = lo->lo_backing_file->f_inode;
	info.lo_device = new_encode_dev(ino->i_sb->s_dev);
	info.lo_inode = ino->i_ino;
	info.lo_rdevice = new_encode_dev(ino->i_rdev);
	info.lo_offset = lo->lo_offset;
	info.lo_sizelimit = lo->lo_sizelimit;
	info.lo_number = (uint32_t)lo->lo_number;
	info.lo_flags = lo->lo_flags;
	memcpy(info.lo_file_name, lo->lo_file_name, LO_NAME_SIZE);
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long lo_ioctl(struct gendisk *disk, unsigned int mode, unsigned int cmd, uint64_t arg)
{
	struct loop_device *lo = disk->private_data;
	struct loop_config config = { 0 };
	struct loop_info64 info;

	switch (cmd) {
	case LOOP_SET_FD:
		config.fd = (uint32_t)arg;
		return loop_configure(lo, mode, &config);
	case LOOP_CONFIGURE:
		if (copy_from_user(&config, arg, sizeof(config)))
			return -EFAULT;
		return loop_configure(lo, mode, &config);
	case LOOP_CLR_FD: /* unbound by the last close (the caller's own, at the latest) */
		if (lo->lo_state != Lo_bound)
			return -ENXIO;
		lo->lo_flags |= LO_FLAGS_AUTOCLEAR;
		if (lo->lo_openers == 1)
			lo->lo_state = Lo_rundown;
		return 0;
	case LOOP_SET_STATUS64:
		if (copy_from_user(&info, arg, sizeof(info)))
			return -EFAULT;
		if (lo->lo_state != Lo_bound)
			return -ENXIO;
		return loop_set_status(lo, &info, LOOP_SET_STATUS_SETTABLE_FLAGS,
				       LOOP_SET_STATUS_CLEARABLE_FLAGS);
	case LOOP_GET_STATUS64:
		return loop_get_status(lo, arg);
	case LOOP_SET_CAPACITY: /* the file grew or shrank: take its size again */
		if (lo->lo_state != Lo_bound)
			return -ENXIO;
		set_capacity(disk, loop_sectors(lo));
		return 0;
	default:
		return -ENOTTY;
	}
}

static int lo_open(struct gendisk *disk)
{
	struct loop_device *lo = disk->private_data;

	lo->lo_openers++;
	return 0;
}

/* The last close of an autoclear device unbinds it (busybox's mount -o loop asks for that). */
static void lo_release(struct gendisk *disk)
{
	struct loop_device *lo = disk->private_data;

	if (--lo->lo_openers == 0 && lo->lo_backing_file && (lo->lo_flags & LO_FLAGS_AUTOCLEAR))
		loop_clr_fd(lo);
}

static bool lo_read_only(struct gendisk *disk)
{
	const struct loop_device *lo = disk->private_data;

	return lo->lo_flags & LO_FLAGS_READ_ONLY;
}

static const struct block_device_operations lo_fops = {
	.open = lo_open,
	.release = lo_release,
	.ioctl = lo_ioctl,
	.read_only = lo_read_only,
};

/* Make /dev/loopN: -EEXIST if it is there, -EINVAL past MAX_LOOP, -ENOMEM. */
static int loop_add(int number)
{
	struct loop_device *lo;
	struct gendisk *disk;

	if (number < 0 || number >= MAX_LOOP)
		return -EINVAL;
	if (loop_find(number))
		return -EEXIST;
	lo = kzalloc(sizeof(*lo));
	disk = lo ? alloc_disk(1) : NULL;
	if (disk)
		disk->queue = blk_init_queue(loop_request_fn, lo);
	if (!disk || !disk->queue) {
		kfree(disk);
		kfree(lo);
		return -ENOMEM;
	}
	disk->queue->irq = true; /* the thread ends requests: callers sleep */
	disk->queue->poll = loop_poll;
	disk->major = LOOP_MAJOR;
	disk->first_minor = (unsigned int)number;
	disk->fops = &lo_fops;
	disk->private_data = lo;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "loop%d", number);
	lo->lo_number = number;
	lo->lo_disk = disk;
	list_add_tail(&lo->lo_list, &loop_devices);
	add_disk(disk);
	return 0;
}

/* LOOP_CTL_REMOVE: an unbound, unopened device goes (its /dev name too); its memory stays,
 * since a struct block_device may still name its disk. */
static int loop_remove(int number)
{
	struct loop_device *lo = loop_find(number);
	char path[24];

	if (!lo)
		return -ENODEV;
	if (lo->lo_state != Lo_unbound || lo->lo_openers)
		return -EBUSY;
	list_del(&lo->lo_list);
	del_gendisk(lo->lo_disk);
	snprintf(path, sizeof(path), "/dev/%s", lo->lo_disk->disk_name);
	vfs_unlink(NULL, path, false);
	return number;
}

static long loop_control_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	struct loop_device *lo;
	int n, err;

	(void)f;
	switch (cmd) {
	case LOOP_CTL_ADD:
		n = (int)arg;
		if (n < 0) /* any free number */
			for (n = 0; loop_find(n); n++)
				;
		err = loop_add(n);
		return err ? err : n;
	case LOOP_CTL_REMOVE:
		return loop_remove((int)arg);
	case LOOP_CTL_GET_FREE:
		list_for_each_entry(lo, &loop_devices, lo_list)
			if (lo->lo_state == Lo_unbound)
				return lo->lo_number;
		for (n = 0; loop_find(n); n++)
			;
		err = loop_add(n);
		return err ? err : n;
	default:
		return -ENOSYS; /* Linux's answer here, not ENOTTY */
	}
}

static const struct file_operations loop_ctl_fops = {
	.ioctl = loop_control_ioctl,
};

static void loop_init(void)
{
	int err = register_chrdev_region(MISC_MAJOR, LOOP_CTRL_MINOR, 1, "loop-control",
					 &loop_ctl_fops);

	if (!err)
		err = vfs_mknod("/dev/loop-control", S_IFCHR | 0660,
				MKDEV(MISC_MAJOR, LOOP_CTRL_MINOR));
	for (int i = 0; !err && i < MIN_LOOP; i++)
		err = loop_add(i);
	if (err)
		printk("loop: cannot make the loop devices (error %d)\n", err);
}
device_initcall(loop_init);
