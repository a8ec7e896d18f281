/* Inside procfs (kernel/fs/proc/): files whose text is made when they are opened. */
#ifndef KERNEL_FS_PROC_INTERNAL_H
#define KERNEL_FS_PROC_INTERNAL_H

#include "kernel/fs/fs.h"

/* The text a procfs file generated at open, kept in f->private_data until release. */
struct proc_text {
	size_t len;
	char buf[];
};

/* A proc_text of room for cap bytes (len 0), or NULL. */
struct proc_text *proc_text_alloc(size_t cap);
/* read and release for a file whose open() put a proc_text in private_data. */
long proc_text_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos);
void proc_text_release(struct inode *ino, struct file *f);

extern const struct file_operations proc_maps_operations; /* task_mmu.c: /proc/self/maps */

#endif
