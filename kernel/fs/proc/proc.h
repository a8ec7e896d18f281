/* procfs (kernel/fs/proc/): the kernel's state as files under /proc. */
#ifndef KERNEL_FS_PROC_PROC_H
#define KERNEL_FS_PROC_PROC_H

void proc_root_init(void); /* register the "proc" type */
/* A process was reaped (release_task): free the /proc/PID directories that no open file or
 * working directory holds, its own among them (Linux's proc_flush_task). */
void proc_flush_task(void);

struct proc_entry;
/* A file of /proc at path ("partitions", "bus/pci/devices": missing directories are made)
 * whose text e->show writes at each open (kernel/fs/proc/internal.h), for drivers from their
 * device_initcall (procfs is mounted by then). 0, -ENOENT (no procfs yet) or -ENOMEM. */
int proc_create(const char *path, const struct proc_entry *e);

#endif
