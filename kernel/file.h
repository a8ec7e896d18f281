/* Open files and the file system calls on them (kernel/file.c). */
#ifndef KERNEL_FILE_H
#define KERNEL_FILE_H

#include "kernel/fs.h"

struct file {
	bool f_used;
	bool f_console; /* descriptors 0-2: reads give EOF, writes reach every console */
	struct inode *f_inode;
	uint64_t f_pos;
};

void files_reset(void); /* a new program: only 0, 1, 2 open */
long sys_openat(uint64_t dirfd, uint64_t upath, uint64_t flags);
long sys_close(uint64_t fd);
long file_read(uint64_t fd, uint64_t ubuf, uint64_t n);
long sys_lseek(uint64_t fd, int64_t off, uint64_t whence);
bool file_is_console(uint64_t fd);
long sys_fstat(uint64_t fd, uint64_t ustat);

#endif
