/* procfs (kernel/fs/proc/): the kernel's state as files under /proc. */
#ifndef KERNEL_FS_PROC_PROC_H
#define KERNEL_FS_PROC_PROC_H

void proc_root_init(void); /* register the "proc" type */
/* A process was reaped (release_task): free the /proc/PID directories that no open file or
 * working directory holds, its own among them (Linux's proc_flush_task). */
void proc_flush_task(void);

#endif
