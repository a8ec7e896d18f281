/* What the page cache needs to know of the device under a file (2.6.23's struct
 * backing_dev_info): how far ahead of a reader it is worth reading. A disk's request queue
 * holds one; files in memory (ramfs, tmpfs, procfs) have none and are never read ahead. */
#ifndef MM_BACKING_DEV_H
#define MM_BACKING_DEV_H

#define VM_MAX_READAHEAD 128 /* KiB: a disk's read-ahead window at most, as Linux's default */

struct backing_dev_info {
	unsigned long ra_pages; /* pages read ahead at most (BLKRASET); 0: none */
};

#endif
