/* Open files and the file system calls on them (kernel/file.c). A struct file is one open of
 * an inode (or the console) with its offset; descriptors are per process (struct
 * files_struct), and dup or fork make two descriptors share one struct file and its offset. */
#ifndef KERNEL_FILE_H
#define KERNEL_FILE_H

#include "kernel/fs.h"

#define NR_OPEN 64
#define O_ACCMODE 3
#define O_RDONLY 0
#define O_WRONLY 1
#define O_RDWR 2
#define O_CREAT 0100
#define O_EXCL 0200
#define O_TRUNC 01000
#define O_APPEND 02000
#define O_DIRECTORY 0200000
#define O_CLOEXEC 02000000
#define FD_CLOEXEC 1
#define AT_FDCWD (-100)
#define AT_EMPTY_PATH 0x1000

struct file {
	int f_count;    /* descriptors (in any process) that refer to it */
	bool f_console; /* reads give end of file, writes reach every console */
	struct inode *f_inode;
	unsigned int f_flags; /* open's O_ACCMODE bits, O_APPEND */
	uint64_t f_pos;
	void (*f_release)(struct file *f); /* called when the last reference goes */
};

struct files_struct {
	struct file *fd[NR_OPEN];
	bool cloexec[NR_OPEN];
};

/* The open file behind descriptor fd of current, or NULL; borrowed, no reference taken. */
struct file *fget(uint64_t fd);
void get_file(struct file *f); /* one more reference */
void fput(struct file *f);     /* one reference less; freed at zero */
/* A new struct file (count 1) for inode, or for the console when console is set. */
struct file *file_alloc(struct inode *ino, bool console);

/* A new table with 0, 1 and 2 open on the console. NULL when out of memory. */
struct files_struct *files_alloc_console(void);
struct files_struct *dup_files(struct files_struct *old); /* fork */
void put_files(struct files_struct *files);                /* exit */
void files_close_on_exec(struct files_struct *files);      /* execve */

long sys_openat(int64_t dirfd, uint64_t upath, uint64_t flags, uint64_t mode);
/* Read n bytes at pos of a file into kernel memory through the page cache: bytes or -errno. */
long kernel_read(struct inode *ino, uint64_t pos, void *buf, uint64_t n);
long sys_pread64(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t pos);
long sys_pwrite64(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t pos);
long sys_ftruncate(uint64_t fd, int64_t len);
long sys_fsync(uint64_t fd);
long sys_unlinkat(int64_t dirfd, uint64_t upath, uint64_t flags);
long sys_unlink(uint64_t upath);
long sys_mkdirat(int64_t dirfd, uint64_t upath, uint64_t mode);
long sys_mkdir(uint64_t upath, uint64_t mode);
long sys_rmdir(uint64_t upath);
long sys_close(uint64_t fd);
long sys_read(uint64_t fd, uint64_t ubuf, uint64_t n);
long sys_write(uint64_t fd, uint64_t ubuf, uint64_t n);
long sys_writev(uint64_t fd, uint64_t uiov, uint64_t cnt);
long sys_lseek(uint64_t fd, int64_t off, uint64_t whence);
long sys_fstat(uint64_t fd, uint64_t ustat);
long sys_newfstatat(int64_t dirfd, uint64_t upath, uint64_t ustat, uint64_t flags);
long sys_getdents64(uint64_t fd, uint64_t udirp, uint64_t count);
long sys_dup(uint64_t fd);
long sys_dup3(uint64_t oldfd, uint64_t newfd, uint64_t flags);
long sys_dup2(uint64_t oldfd, uint64_t newfd);
long sys_fcntl(uint64_t fd, uint64_t cmd, uint64_t arg);
long sys_ioctl(uint64_t fd, uint64_t cmd, uint64_t arg);
long sys_sendfile(uint64_t out_fd, uint64_t in_fd, uint64_t uoffset, uint64_t count);
long sys_readlink(uint64_t upath, uint64_t ubuf, uint64_t size);

#endif
