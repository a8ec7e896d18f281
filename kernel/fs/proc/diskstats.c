/* /proc/diskstats: one line per disk with its I/O counters (drivers/block/blk-core.c), in the
 * format of Linux 4.18 and later, what iostat and vmstat -d read: major, minor, name, then
 * reads, merged, sectors, ms; writes, merged, sectors, ms; in flight, ms busy, weighted ms;
 * discards (4 fields) and flushes (2). faultline merges no requests and has no discard or
 * flush command, so those fields are 0. Partitions are not listed: faultline counts I/O per disk
 * only. */
#include "drivers/block/blkdev.h"
#include "kernel/fs/proc/internal.h"

static void diskstats_line(struct gendisk *disk, void *arg)
{
	struct proc_text *t = arg;
	struct disk_stats s;

	disk_stats_read(disk, &s);
	proc_printf(t, "%4u %7u %s %lu %lu %lu %u %lu %lu %lu %u %u %u %u %lu %lu %lu %u %lu %u\n",
		    disk->major, disk->first_minor, disk->disk_name, s.ios[READ], 0UL,
		    s.sectors[READ], (unsigned int)s.ticks[READ], s.ios[WRITE], 0UL,
		    s.sectors[WRITE], (unsigned int)s.ticks[WRITE], s.in_flight,
		    (unsigned int)s.io_ticks, (unsigned int)s.time_in_queue, 0UL, 0UL, 0UL, 0U,
		    0UL, 0U);
}

static void diskstats_show(struct proc_text *t)
{
	disk_for_each(diskstats_line, t);
}

/* 26 disks (sda..sdz) of at most ~200 bytes each */
const struct proc_entry proc_diskstats = { "diskstats", 8192, diskstats_show, NULL };
