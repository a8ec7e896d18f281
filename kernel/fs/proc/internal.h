/* Inside procfs (kernel/fs/proc/): files whose text is made when they are opened. */
#ifndef KERNEL_FS_PROC_INTERNAL_H
#define KERNEL_FS_PROC_INTERNAL_H

#include "kernel/fs/fs.h"

/* The text a procfs file generated at open, kept in f->private_data until release. */
struct proc_text {
	size_t len, cap;
	char buf[];
};

/* A proc_text of room for cap bytes (len 0), or NULL. */
struct proc_text *proc_text_alloc(size_t cap);
/* Append to t; what does not fit is cut (the caller sized t for its worst case). */
void proc_printf(struct proc_text *t, const char *fmt, ...) __printf(2, 3);
/* read and release for a file whose open() put a proc_text in private_data. */
long proc_text_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos);
/* write for a file that takes none: -EIO, Linux's procfs answer */
long proc_write_eio(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos);
void proc_text_release(struct inode *ino, struct file *f);

/* A file of /proc whose whole text one function writes: show fills t (of size bytes). */
struct proc_entry {
	const char *name;
	size_t size;
	void (*show)(struct proc_text *t);
};

extern const struct file_operations proc_maps_operations;  /* task_mmu.c: /proc/self/maps */
extern const struct proc_entry proc_meminfo, proc_uptime, proc_loadavg, proc_cpuinfo,
	proc_mounts; /* meminfo.c, uptime.c, loadavg.c, cpuinfo.c, mounts.c */

#endif
