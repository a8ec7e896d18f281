/* Requests: a caller queues one on the disk's request_queue, the driver's request_fn starts
 * it when the controller is free, the completion interrupt ends it (end_request) and wakes
 * the caller, asleep in blk_rw; without an interrupt the caller polls the controller. Each
 * disk counts its requests on the way (disk_stats, /proc/diskstats). */
#include "drivers/block/blkdev.h"
#include "kernel/arch/x86.h"
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/vmstat.h"

#define X86_EFLAGS_IF 0x200 /* interrupts were on */
#define BLK_IRQ_TIMEOUT HZ

/* The interrupt handler sets done behind the compiler's back. */
static inline bool request_done(const struct request *req)
{
	return *(const volatile bool *)&req->done;
}

struct request_queue *blk_init_queue(void (*request_fn)(struct request_queue *q), void *data)
{
	struct request_queue *q = kzalloc(sizeof(*q));

	if (!q)
		return NULL;
	spin_lock_init(&q->queue_lock);
	INIT_LIST_HEAD(&q->queue_head);
	init_waitqueue_head(&q->wait);
	q->request_fn = request_fn;
	q->queuedata = data;
	q->max_sectors = 128;
	q->backing_dev_info.ra_pages = VM_MAX_READAHEAD * 1024 / PAGE_SIZE;
	return q;
}

struct request *elv_next_request(struct request_queue *q)
{
	if (list_empty(&q->queue_head))
		return NULL;
	return list_entry(q->queue_head.next, struct request, queuelist);
}

static unsigned long jiffies_to_msecs(uint64_t j)
{
	return (unsigned long)(j * 1000 / HZ);
}

/* Linux's part_round_stats: the time since the last update was busy time if a request was
 * in flight, and counts once per request in flight in time_in_queue. queue_lock held. */
static void disk_round_stats(struct disk_stats *s)
{
	uint64_t now = jiffies;

	if (now == s->stamp)
		return;
	if (s->in_flight) {
		s->io_ticks += jiffies_to_msecs(now - s->stamp);
		s->time_in_queue += s->in_flight * jiffies_to_msecs(now - s->stamp);
	}
	s->stamp = now;
}

void disk_stats_read(struct gendisk *disk, struct disk_stats *out)
{
	uint64_t flags;

	spin_lock_irqsave(&disk->queue->queue_lock, flags);
	disk_round_stats(&disk->dkstats);
	*out = disk->dkstats;
	spin_unlock_irqrestore(&disk->queue->queue_lock, flags);
}

void end_request(struct request *req, int error)
{
	struct request_queue *q = req->q;
	struct disk_stats *s = &req->rq_disk->dkstats;

	BUG_ON(req->done);
	/* counted at completion, failed or not, as Linux's blk_account_io_done */
	disk_round_stats(s);
	s->in_flight--;
	s->ios[req->cmd]++;
	s->sectors[req->cmd] += req->nr_sectors;
	s->ticks[req->cmd] += jiffies_to_msecs(jiffies - req->start_time);
	list_del(&req->queuelist);
	req->errors = error;
	if (req->end_io) { /* nobody sleeps on it: its owner hears of it now */
		bool polled = req->polled;

		req->end_io(req, error);
		req->done = true;
		if (!polled)
			kfree(req); /* (a polling submitter frees it once it sees done) */
	} else {
		req->done = true;
		wake_up(&q->wait);
	}
	if (!list_empty(&q->queue_head))
		q->request_fn(q);
}

/* Sleep until req is done; every completion on the queue wakes all its waiters, and each
 * looks at its own request. Uninterruptible: the buffer belongs to the device until then. */
static void blk_wait_request(struct request_queue *q, struct request *req)
{
	struct wait_queue_entry w;

	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(&q->wait, &w, TASK_UNINTERRUPTIBLE);
		if (request_done(req))
			break;
		if (schedule_timeout(BLK_IRQ_TIMEOUT) == 0 && !request_done(req)) {
			/* No interrupt for a whole second: look at the controller ourselves,
			 * as libata does for a lost interrupt, rather than hang forever. */
			uint64_t flags;

			printk("%s: no completion interrupt in 1 s: polled\n", q->name);
			spin_lock_irqsave(&q->queue_lock, flags);
			q->poll(q);
			spin_unlock_irqrestore(&q->queue_lock, flags);
		}
	}
	finish_wait(&q->wait, &w);
}

/* Check req's sectors against its disk, account it and queue it, starting the driver if the
 * queue was idle: 0, or -EINVAL, -EIO. The flags of the interrupts before, in *flags. */
static int blk_queue_request(struct request *req, uint64_t *flags)
{
	struct request_queue *q = req->q;
	struct gendisk *disk = req->rq_disk;
	bool idle;

	if (!req->nr_sectors || req->nr_sectors > q->max_sectors)
		return -EINVAL;
	if (req->sector >= disk->capacity || req->nr_sectors > disk->capacity - req->sector)
		return -EIO;
	/* as Linux's submit_bio */
	count_vm_events(req->cmd == WRITE ? PGPGOUT : PGPGIN, req->nr_sectors);
	spin_lock_irqsave(&q->queue_lock, *flags);
	disk_round_stats(&disk->dkstats);
	disk->dkstats.in_flight++;
	req->start_time = jiffies;
	idle = list_empty(&q->queue_head);
	list_add_tail(&req->queuelist, &q->queue_head);
	if (idle)
		q->request_fn(q);
	spin_unlock_irqrestore(&q->queue_lock, *flags);
	return 0;
}

/* Wait for req, sleeping until its interrupt, or polling the controller where no interrupt
 * will come (a polling queue, or interrupts off as in the initcalls). */
static void blk_wait(struct request_queue *q, struct request *req, uint64_t flags)
{
	if (q->irq && (flags & X86_EFLAGS_IF)) {
		blk_wait_request(q, req);
		return;
	}
	while (!request_done(req)) {
		uint64_t f;

		spin_lock_irqsave(&q->queue_lock, f);
		q->poll(q);
		spin_unlock_irqrestore(&q->queue_lock, f);
		asm volatile("pause");
	}
}

int blk_rw(struct gendisk *disk, int cmd, uint64_t sector, unsigned int count, void *buf)
{
	struct request req = {
		.q = disk->queue, .rq_disk = disk, .cmd = cmd,
		.sector = sector, .nr_sectors = count, .buffer = buf,
	};
	uint64_t flags;
	int err = blk_queue_request(&req, &flags);

	if (err)
		return err;
	blk_wait(disk->queue, &req, flags);
	return req.errors;
}

int blk_submit(struct gendisk *disk, int cmd, uint64_t sector, unsigned int count, void *buf,
	       void (*end_io)(struct request *req, int error), void *end_io_data)
{
	struct request *req = kzalloc(sizeof(*req));
	uint64_t flags;
	bool polled;
	int err;

	if (!req)
		return -ENOMEM;
	*req = (struct request){
		.q = disk->queue, .rq_disk = disk, .cmd = cmd, .sector = sector,
		.nr_sectors = count, .buffer = buf, .end_io = end_io, .end_io_data = end_io_data,
	};
	/* Known before it is queued: once it is, another CPU may end it and free it at once. */
	polled = req->polled = !disk->queue->irq || irqs_disabled();
	err = blk_queue_request(req, &flags);
	if (err) {
		kfree(req);
		return err;
	}
	if (polled) { /* nobody will take an interrupt for it: finish it here */
		blk_wait(disk->queue, req, flags);
		kfree(req);
	}
	return 0;
}
