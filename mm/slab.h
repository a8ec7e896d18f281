/* kmalloc and kfree: the kernel's general-purpose allocator for objects of any size
 * (mm/slab.c). Small objects share frames; big ones get whole blocks of frames. */
#ifndef MM_SLAB_H
#define MM_SLAB_H

#include "kernel/compiler.h"

#define KMALLOC_MIN_SIZE 16	     /* smallest size class; also the minimum alignment */
#define KMALLOC_MAX_CACHE_SIZE 2048 /* biggest size class; larger requests take whole frames */

/*
 * size bytes aligned to at least 16 (to their size class up to 2048 bytes, to a page above),
 * or NULL when out of memory or size is more than the buddy allocator's largest block
 * (4 MiB). kmalloc(0) returns a valid 16-byte object. The contents are undefined.
 */
void *kmalloc(size_t size);
/* kmalloc, with the size bytes zeroed. */
void *kzalloc(size_t size);
/* Free what kmalloc returned. kfree(NULL) does nothing; any other pointer panics. */
void kfree(void *p);
/* printk, for each size class, its pages and objects in use, and the large allocations. */
void kmalloc_stats(void);

#endif
