/* procfs (kernel/fs/proc/): the kernel's state as files under /proc. */
#ifndef KERNEL_FS_PROC_PROC_H
#define KERNEL_FS_PROC_PROC_H

#include "kernel/compiler.h"

void proc_root_init(void); /* register the "proc" type */
/* A process was reaped (release_task): free the /proc/PID directories that no open file or
 * working directory holds, its own among them (Linux's proc_flush_task). */
void proc_flush_task(void);

/* The text a procfs file generated at open, kept in f->private_data until release. */
struct proc_text {
	size_t len, cap;
	char buf[];
};
/* Append to t; what does not fit is cut (the caller sized t for its worst case). */
void proc_printf(struct proc_text *t, const char *fmt, ...) __printf(2, 3);

/* A file of /proc whose whole text one function writes: show fills t (of size bytes, or of
 * what size_now answers at the open where the text grows with what it shows). */
struct proc_entry {
	const char *name;
	size_t size;
	void (*show)(struct proc_text *t);
	size_t (*size_now)(void);
};

/* A file of /proc at path ("partitions", "bus/pci/devices": missing directories are made)
 * whose text e->show writes at each open, for drivers from their device_initcall: in every
 * mount of procfs, now and later. 0 or -ENOMEM. */
int proc_create(const char *path, const struct proc_entry *e);

#endif
