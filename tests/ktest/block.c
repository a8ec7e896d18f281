/* Self-tests of the block layer with a disk in RAM whose driver only completes requests when
 * polled (no interrupt): the range checks, the bytes moving both ways, queued requests ending
 * in order, a failing sector reaching the caller as -EIO, and the disk's I/O counters. */
#include "drivers/block/blkdev.h"
#include "kernel/errno.h"
#include "kernel/lib/string.h"
#include "kernel/test/ktest.h"
#include "mm/slab.h"

#define KT_SECTORS 16
#define KT_BAD_SECTOR 9

static uint8_t kt_disk[KT_SECTORS * SECTOR_SIZE];

static void kt_request_fn(struct request_queue *q)
{
	(void)q; /* everything happens at the next poll */
}

/* The oldest request moves, as an interrupt handler would end it. */
static void kt_poll(struct request_queue *q)
{
	struct request *req = elv_next_request(q);
	uint8_t *disk;
	size_t bytes;

	if (!req)
		return;
	if (req->sector <= KT_BAD_SECTOR && KT_BAD_SECTOR < req->sector + req->nr_sectors) {
		end_request(req, -EIO);
		return;
	}
	disk = kt_disk + req->sector * SECTOR_SIZE;
	bytes = (size_t)req->nr_sectors * SECTOR_SIZE;
	if (req->cmd == WRITE)
		memcpy(disk, req->buffer, bytes);
	else
		memcpy(req->buffer, disk, bytes);
	end_request(req, 0);
}

KTEST(block_requests_polled)
{
	struct request_queue *q = blk_init_queue(kt_request_fn, NULL);
	struct gendisk disk = { .disk_name = "kt0", .capacity = KT_SECTORS, .queue = q };
	uint8_t *buf = kmalloc(4 * SECTOR_SIZE);

	KT_CHECK(q && buf);
	if (!q || !buf)
		goto out;
	q->poll = kt_poll;
	for (size_t i = 0; i < sizeof(kt_disk); i++)
		kt_disk[i] = (uint8_t)(i / SECTOR_SIZE);
	KT_CHECK(blk_rw(&disk, READ, 2, 3, buf) == 0);
	KT_CHECK(buf[0] == 2 && buf[SECTOR_SIZE] == 3 && buf[3 * SECTOR_SIZE - 1] == 4);
	memset(buf, 0xaa, SECTOR_SIZE);
	KT_CHECK(blk_rw(&disk, WRITE, 15, 1, buf) == 0);
	KT_CHECK(kt_disk[15 * SECTOR_SIZE] == 0xaa && kt_disk[14 * SECTOR_SIZE] == 14);
	KT_CHECK(blk_rw(&disk, READ, 8, 2, buf) == -EIO);
	KT_CHECK(blk_rw(&disk, READ, 10, 1, buf) == 0 && buf[0] == 10);
	KT_CHECK(blk_rw(&disk, READ, 15, 2, buf) == -EIO); /* past the end */
	KT_CHECK(blk_rw(&disk, READ, 16, 1, buf) == -EIO);
	KT_CHECK(blk_rw(&disk, READ, 0, 0, buf) == -EINVAL);
	KT_CHECK(blk_rw(&disk, READ, 0, q->max_sectors + 1, buf) == -EINVAL);
	KT_CHECK(elv_next_request(q) == NULL); /* every request left the queue */
	/* /proc/diskstats' counters: every request that was queued, the failed one too (as
	 * Linux counts it); the ones refused before queueing not at all */
	KT_CHECK(disk.dkstats.ios[READ] == 3 && disk.dkstats.sectors[READ] == 6);
	KT_CHECK(disk.dkstats.ios[WRITE] == 1 && disk.dkstats.sectors[WRITE] == 1);
	KT_CHECK(disk.dkstats.in_flight == 0);
out:
	kfree(buf);
	kfree(q);
}
