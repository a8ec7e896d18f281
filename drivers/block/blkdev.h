/* The block layer: disks (struct gendisk) by name and number, the requests a caller queues
 * on a disk's request_queue and sleeps on until the driver's interrupt ends them, and each
 * disk's I/O counters (/proc/diskstats). */
#ifndef DRIVERS_BLOCK_BLKDEV_H
#define DRIVERS_BLOCK_BLKDEV_H

#include "kernel/compiler.h"
#include "kernel/lib/list.h"
#include "kernel/sched/wait.h"
#include "mm/backing-dev.h"

#define SECTOR_SHIFT 9
#define SECTOR_SIZE 512 /* the unit of sector numbers and counts, as Linux's block layer */
#define SCSI_DISK0_MAJOR 8
#define DISK_MINORS 16 /* sda 8:0, sdb 8:16, ... */

#define READ 0
#define WRITE 1

struct request_queue;

/* A transfer of nr_sectors sectors from sector to buffer (READ) or from it (WRITE). buffer
 * is kernel memory, physically contiguous (the direct map), so a driver may DMA to it. */
struct request {
	struct list_head queuelist;
	struct request_queue *q;
	struct gendisk *rq_disk; /* a queue may serve several disks (IDE master and slave) */
	int cmd; /* READ or WRITE */
	uint64_t sector;
	unsigned int nr_sectors;
	void *buffer;
	int errors; /* 0, or -errno once ended (-EIO; a loop device's file's own: -ENOSPC) */
	uint64_t start_time; /* jiffies when queued: the request's time in the disk's stats */
	bool done;
	void *special; /* the driver's, while it works on the request */
	/* An asynchronous request's (blk_submit): called by end_request, interrupts off, when
	 * it is done (error 0 or -errno); the request is freed after it. */
	void (*end_io)(struct request *req, int error);
	void *end_io_data;
	bool polled; /* its submitter polls for it and frees it */
};

/*
 * A disk's queue. request_fn starts the next request if the controller is idle (it looks at
 * elv_next_request and leaves the request queued until end_request). queue_lock (irqsave:
 * the completion interrupt ends requests and starts the next) is held around every change of
 * queue_head, request_fn and poll. Without an interrupt (irq false, or before the scheduler
 * runs) the caller drives the request itself by calling poll until it is done.
 */
struct request_queue {
	spinlock_t queue_lock;
	struct list_head queue_head;
	void (*request_fn)(struct request_queue *q);
	void (*poll)(struct request_queue *q); /* check the controller once, end what is done */
	bool irq;                              /* completions interrupt: callers sleep */
	struct wait_queue_head wait;           /* callers waiting for their request */
	unsigned int max_sectors;              /* per request */
	void *queuedata;
	const char *name; /* the disk's, for messages */
	struct backing_dev_info backing_dev_info; /* read-ahead of its files (BLKRASET) */
};

/*
 * A disk's I/O accounting, Linux's struct disk_stats (what iostat and vmstat -d read from
 * /proc/diskstats): requests and sectors completed per direction (READ, WRITE; a failed
 * request counts too, as in Linux), the milliseconds those requests took from queueing to
 * completion, the requests queued or on the device now, the milliseconds with at least one
 * of them (io_ticks) and the sum of in_flight over time (time_in_queue). Under the queue's
 * queue_lock; times in jiffies, so in steps of 1000 / HZ ms.
 */
struct disk_stats {
	unsigned long ios[2], sectors[2], ticks[2];
	unsigned long io_ticks, time_in_queue;
	unsigned int in_flight;
	uint64_t stamp; /* jiffies when io_ticks and time_in_queue were last brought up to date */
};

/* A partition (Linux's struct hd_struct): its sectors on the disk. part[0] of a gendisk is the
 * whole disk (Linux 2.6.28's part0); a partition number without sectors is not there. */
struct hd_struct {
	uint64_t start_sect, nr_sects; /* in 512-byte sectors */
	unsigned int partno;           /* 0: the whole disk */
	struct gendisk *disk;
};

/* What a block device's driver does besides requests (Linux's block_device_operations); any
 * may be NULL. open and release bracket each open file of the whole disk and each mount from
 * it; ioctl gets the calls the block layer does not answer itself (BLKGETSIZE64 and kin) with
 * the opener's FMODE_* bits, -ENOTTY for what it does not know either; read_only: writes are
 * refused (-EPERM, as Linux's for a read-only disk). */
struct block_device_operations {
	int (*open)(struct gendisk *disk);
	void (*release)(struct gendisk *disk);
	long (*ioctl)(struct gendisk *disk, unsigned int mode, unsigned int cmd, uint64_t arg);
	bool (*read_only)(struct gendisk *disk);
};

struct gendisk {
	char disk_name[32];  /* "sda" */
	unsigned int major, first_minor;
	unsigned int minors; /* numbers it has: 1 (no partitions: loop) to DISK_MINORS */
	const struct block_device_operations *fops; /* NULL: no ioctls of its own */
	uint64_t capacity;   /* in 512-byte sectors (get_capacity) */
	unsigned int logical_block_size; /* bytes: what BLKSSZGET answers */
	struct request_queue *queue;
	void *private_data;  /* the driver's */
	struct list_head list;
	struct disk_stats dkstats; /* under queue->queue_lock */
	struct hd_struct part[DISK_MINORS]; /* [0] the disk, [N] sdaN (set by add_disk) */
};

/* genhd.c */
/* A new disk with minors device numbers (1: no partitions), named and numbered by its
 * driver; NULL without memory. */
struct gendisk *alloc_disk(unsigned int minors);
/* A new disk named by the next free sd letter ("sda", "sdb", ...): major 8, 16 minors each.
 * NULL without memory. */
struct gendisk *alloc_disk_sd(void);
/* The disk now has sectors sectors (a loop device bound to a file, or unbound: 0); its block
 * devices' page caches are emptied (invalidate_disk_bdevs). */
void set_capacity(struct gendisk *disk, uint64_t sectors);
/* Make disk visible: /dev/NAME (a block special file) and, while it has sectors, a line of
 * /proc/partitions; then, for a disk with more than one minor, its partition table is read
 * (partitions/check.c) and each partition made visible the same way. Reads the disk: its
 * queue must work (blk_rw polls while interrupts are off, as in the initcalls). */
void add_disk(struct gendisk *disk);
/* disk goes: no longer found by get_gendisk nor listed (a loop device removed). Its memory
 * stays, as a struct block_device may still point at it. */
void del_gendisk(struct gendisk *disk);
/* The disk holding device number dev (MKDEV(major, minor)), its partition number in *partno
 * (0: the whole disk), or NULL, also for a partition number the table did not fill. */
struct gendisk *get_gendisk(uint32_t dev, unsigned int *partno);
/* Make partition partno of disk (sectors start to start + sectors - 1) visible: /dev/sdaN
 * and its /proc/partitions line. */
void add_partition(struct gendisk *disk, unsigned int partno, uint64_t start,
		   uint64_t sectors);
/* fn(disk, arg) for every disk added, in the order they were (disks are never removed). */
void disk_for_each(void (*fn)(struct gendisk *disk, void *arg), void *arg);
static inline uint64_t get_capacity(const struct gendisk *disk)
{
	return disk->capacity;
}

/* blk-core.c */
/* A queue that calls request_fn; NULL without memory. */
struct request_queue *blk_init_queue(void (*request_fn)(struct request_queue *q), void *data);
/* The request the driver should work on now (the oldest), still queued; NULL if none.
 * Call with interrupts off (from request_fn or the interrupt handler). */
struct request *elv_next_request(struct request_queue *q);
/* The driver is done with req: error 0 or -errno (-EIO). Dequeues it, wakes its caller (or
 * calls its end_io) and calls request_fn for the next one. Call with interrupts off. */
void end_request(struct request *req, int error);
/* Read or write count sectors at sector of disk to or from buf (kernel memory, physically
 * contiguous), sleeping until the driver is done: 0, -EIO (a device error, or beyond the
 * disk's end), the driver's own -errno (a loop device's file's -ENOSPC) or -EINVAL (count 0
 * or above the queue's max_sectors). */
int blk_rw(struct gendisk *disk, int cmd, uint64_t sector, unsigned int count, void *buf);
/* The same without waiting (2.6.23's submit_bio): end_io(req, error) is called with
 * end_io_data in req when the driver is done, from its completion interrupt (interrupts
 * off: it may wake sleepers, not sleep). A queue that only polls, or a caller with
 * interrupts off, waits here and end_io runs before the return. 0 once submitted (end_io
 * will be called), or -EINVAL, -EIO, -ENOMEM at once (it will not). */
int blk_submit(struct gendisk *disk, int cmd, uint64_t sector, unsigned int count, void *buf,
	       void (*end_io)(struct request *req, int error), void *end_io_data);
/* A copy of disk's counters, brought up to now. */
void disk_stats_read(struct gendisk *disk, struct disk_stats *out);

#endif
