/* What the partition table readers share (Linux's fs/partitions/check.h): the table found so
 * far, numbered as Linux numbers it, the boot line naming it, and sector reads. */
#ifndef DRIVERS_BLOCK_PARTITIONS_CHECK_H
#define DRIVERS_BLOCK_PARTITIONS_CHECK_H

#include "drivers/block/blkdev.h"

struct parsed_partitions {
	struct gendisk *disk;
	struct {
		uint64_t from, size; /* sectors; size 0: no partition of that number */
	} parts[DISK_MINORS];
	unsigned int limit; /* numbers 1 .. limit - 1 exist (DISK_MINORS) */
	char line[160];     /* " sda: sda1 sda2 < sda5 >", Linux's boot line */
	size_t len;
};

/*
 * A reader looks at the disk of state and answers 1 (its kind of table: state->parts filled
 * by put_partition), 0 (not its kind: the next reader looks) or -1 (its kind, but refused: it
 * printed why, and the disk gets no partitions).
 */
int efi_partition(struct parsed_partitions *state);   /* efi.c: GPT */
int msdos_partition(struct parsed_partitions *state); /* msdos.c: MBR and logical ones */

/* Partition n at sectors from .. from + size - 1, named on the boot line; past limit
 * ignored, as Linux does. */
void put_partition(struct parsed_partitions *state, unsigned int n, uint64_t from,
		   uint64_t size);
/* Append s to the boot line (" <", " >"). */
void pp_append(struct parsed_partitions *state, const char *s);
/* count sectors from sector of the disk into buf (physically contiguous: a page's memory):
 * 0, or -EIO also past the disk's end. */
int read_dev_sector(struct gendisk *disk, uint64_t sector, unsigned int count, void *buf);

/* At add_disk: the readers in turn, then each partition found added (add_partition), or the
 * refusal said; the whole disk is usable either way. */
void rescan_partitions(struct gendisk *disk);

#endif
