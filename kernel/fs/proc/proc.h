/* procfs (kernel/fs/proc/): the kernel's state as files under /proc. */
#ifndef KERNEL_FS_PROC_PROC_H
#define KERNEL_FS_PROC_PROC_H

void proc_root_init(void); /* register the "proc" type */

#endif
