/* Descriptor tables (kernel/fs/fdtable.c): per process, each slot pointing to a shared,
 * counted struct file; dup or fork make two descriptors share one file and its offset. A table
 * starts with NR_OPEN_DEFAULT slots inside its files_struct and grows (expand_files) up to
 * RLIMIT_NOFILE, which is at most fs.nr_open, as Linux's fs/file.c. */
#ifndef KERNEL_FS_FDTABLE_H
#define KERNEL_FS_FDTABLE_H

#include "kernel/fs/fs.h"

#define NR_OPEN_DEFAULT 64       /* the slots a table starts with (BITS_PER_LONG, as Linux) */
#define INR_OPEN_CUR 1024        /* RLIMIT_NOFILE at boot: soft (select's FD_SETSIZE) */
#define INR_OPEN_MAX 4096        /* and hard */
#define NR_OPEN_MAX_DEFAULT (1024 * 1024) /* fs.nr_open at boot */
#define FD_CLOEXEC 1

/* /proc/sys/fs/nr_open: no RLIMIT_NOFILE may be set above it, no table grows past it. */
extern unsigned int sysctl_nr_open;

/* The slots: fd[], with a bit each saying it is in use and one for close-on-exec, max_fds of
 * them (a multiple of 64). The open bits let fork, exit and execve visit only open slots. */
struct fdtable {
	unsigned int max_fds;
	struct file **fd;
	uint64_t *open_fds;
	uint64_t *close_on_exec;
};

struct files_struct {
	int count; /* tasks using it (CLONE_FILES shares one); put_files frees at 0 */
	unsigned int next_fd; /* no free descriptor below this one */
	struct fdtable fdt;   /* the arrays below until expand_files replaces them */
	uint64_t open_fds_init[NR_OPEN_DEFAULT / 64];
	uint64_t close_on_exec_init[NR_OPEN_DEFAULT / 64];
	struct file *fd_array[NR_OPEN_DEFAULT];
};

/* The file open on fd in files, or NULL. */
static inline struct file *fcheck_files(const struct files_struct *files, uint64_t fd)
{
	return fd < files->fdt.max_fds ? files->fdt.fd[fd] : NULL;
}
static inline bool fd_is_cloexec(const struct files_struct *files, unsigned int fd)
{
	return files->fdt.close_on_exec[fd / 64] >> (fd % 64) & 1;
}
void fd_set_cloexec(struct files_struct *files, unsigned int fd, bool on);
/* Make the table hold descriptor nr: 0, -EMFILE at fs.nr_open, -ENOMEM. It may sleep (for
 * memory): a table shared with another thread may have grown meanwhile, which is fine. */
int expand_files(struct files_struct *files, unsigned int nr);

/* A new table with 0, 1 and 2 open on /dev/console. NULL when that cannot be done. */
struct files_struct *files_open_console(void);
/* fork's copy, as big as its highest open descriptor needs; NULL without memory. */
struct files_struct *dup_files(struct files_struct *old);
void put_files(struct files_struct *files);                /* exit */
void files_close_on_exec(struct files_struct *files);      /* execve */
/* A descriptor of files referring to f is closed: the file's flush, the process's record
 * locks on the file go, then its reference (Linux's filp_close). f may be NULL. */
void filp_close(struct file *f, struct files_struct *files);
/* Install f at the lowest free descriptor >= min of current; the table takes the caller's
 * reference (dropped on error). The descriptor, -EMFILE past RLIMIT_NOFILE, or -ENOMEM. */
long fd_install_lowest(struct file *f, uint64_t min, bool cloexec);
/* Put f (a reference the table takes) on descriptor fd, known to be in the table; the file
 * that was there is returned for the caller to close. */
struct file *fd_install(struct files_struct *files, unsigned int fd, struct file *f,
			bool cloexec);
/* Take descriptor fd out of current's table: its file, for the caller to close, or NULL. */
struct file *fd_remove(unsigned int fd);

#endif
