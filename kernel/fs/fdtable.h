/* Descriptor tables (kernel/fs/fdtable.c): per process, each slot pointing to a shared,
 * counted struct file; dup or fork make two descriptors share one file and its offset. */
#ifndef KERNEL_FS_FDTABLE_H
#define KERNEL_FS_FDTABLE_H

#include "kernel/fs/fs.h"

#define NR_OPEN 64
#define FD_CLOEXEC 1

struct files_struct {
	int count; /* tasks using it (CLONE_FILES shares one); put_files frees at 0 */
	struct file *fd[NR_OPEN];
	bool cloexec[NR_OPEN];
};

/* A new table with 0, 1 and 2 open on /dev/console. NULL when that cannot be done. */
struct files_struct *files_open_console(void);
struct files_struct *dup_files(struct files_struct *old); /* fork */
void put_files(struct files_struct *files);                /* exit */
void files_close_on_exec(struct files_struct *files);      /* execve */
/* A descriptor of files referring to f is closed: the process's record locks on the file go,
 * then its reference (Linux's filp_close). f may be NULL. */
void filp_close(struct file *f, struct files_struct *files);
/* Install f at the lowest free descriptor >= min of current; the table takes the caller's
 * reference (dropped on -EMFILE). The descriptor or -EMFILE. */
long fd_install_lowest(struct file *f, uint64_t min, bool cloexec);

#endif
