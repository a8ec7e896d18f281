/* The file system calls, as the system call table (kernel/syscall.c) reaches them; each
 * group is defined in the kernel/fs/ file named above it. */
#ifndef KERNEL_FS_SYSCALLS_H
#define KERNEL_FS_SYSCALLS_H

#include "kernel/compiler.h"

/* open.c */
long sys_openat(int64_t dirfd, uint64_t upath, uint64_t flags, uint64_t mode);
long sys_close(uint64_t fd);
long sys_ftruncate(uint64_t fd, int64_t len);
long sys_chdir(uint64_t upath);
long sys_fchdir(uint64_t fd);
/* read_write.c */
long sys_read(uint64_t fd, uint64_t ubuf, uint64_t n);
long sys_write(uint64_t fd, uint64_t ubuf, uint64_t n);
long sys_pread64(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t pos);
long sys_pwrite64(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t pos);
long sys_writev(uint64_t fd, uint64_t uiov, uint64_t cnt);
long sys_lseek(uint64_t fd, int64_t off, uint64_t whence);
long sys_sendfile(uint64_t out_fd, uint64_t in_fd, uint64_t uoffset, uint64_t count);
long sys_fsync(uint64_t fd);
/* namei.c */
long sys_unlinkat(int64_t dirfd, uint64_t upath, uint64_t flags);
long sys_unlink(uint64_t upath);
long sys_mkdirat(int64_t dirfd, uint64_t upath, uint64_t mode);
long sys_mkdir(uint64_t upath, uint64_t mode);
long sys_rmdir(uint64_t upath);
long sys_getcwd(uint64_t ubuf, uint64_t size);
long sys_symlinkat(uint64_t utarget, int64_t dirfd, uint64_t upath);
long sys_symlink(uint64_t utarget, uint64_t upath);
/* rename.c */
long sys_renameat2(int64_t olddirfd, uint64_t uold, int64_t newdirfd, uint64_t unew,
		   uint64_t flags);
long sys_renameat(int64_t olddirfd, uint64_t uold, int64_t newdirfd, uint64_t unew);
long sys_rename(uint64_t uold, uint64_t unew);
/* stat.c */
long sys_fstat(uint64_t fd, uint64_t ustat);
long sys_newfstatat(int64_t dirfd, uint64_t upath, uint64_t ustat, uint64_t flags);
long sys_stat(uint64_t upath, uint64_t ustat);
long sys_lstat(uint64_t upath, uint64_t ustat);
long sys_readlink(uint64_t upath, uint64_t ubuf, int64_t size);
long sys_readlinkat(int64_t dirfd, uint64_t upath, uint64_t ubuf, int64_t size);
/* readdir.c */
long sys_getdents64(uint64_t fd, uint64_t udirp, uint64_t count);
/* fcntl.c */
long sys_dup(uint64_t fd);
long sys_dup3(uint64_t oldfd, uint64_t newfd, uint64_t flags);
long sys_dup2(uint64_t oldfd, uint64_t newfd);
long sys_fcntl(uint64_t fd, uint64_t cmd, uint64_t arg);
/* pipe.c */
long sys_pipe(uint64_t ufds);
long sys_pipe2(uint64_t ufds, uint64_t flags);
/* select.c */
long sys_poll(uint64_t ufds, uint64_t nfds, int64_t timeout_ms);
long sys_ppoll(uint64_t ufds, uint64_t nfds, uint64_t uts, uint64_t umask, uint64_t size);
long sys_select(int64_t n, uint64_t uin, uint64_t uout, uint64_t uex, uint64_t utv);
long sys_pselect6(int64_t n, uint64_t uin, uint64_t uout, uint64_t uex, uint64_t uts,
		  uint64_t usig);
/* attr.c */
long sys_chmod(uint64_t upath, uint64_t mode);
long sys_fchmod(uint64_t fd, uint64_t mode);
long sys_fchmodat(int64_t dirfd, uint64_t upath, uint64_t mode);
long sys_chown(uint64_t upath, uint64_t uid, uint64_t gid);
long sys_lchown(uint64_t upath, uint64_t uid, uint64_t gid);
long sys_fchown(uint64_t fd, uint64_t uid, uint64_t gid);
long sys_fchownat(int64_t dirfd, uint64_t upath, uint64_t uid, uint64_t gid, uint64_t flags);
long sys_utimensat(int64_t dirfd, uint64_t upath, uint64_t utimes, uint64_t flags);
long sys_access(uint64_t upath, uint64_t mode);
long sys_faccessat(int64_t dirfd, uint64_t upath, uint64_t mode);
long sys_faccessat2(int64_t dirfd, uint64_t upath, uint64_t mode, uint64_t flags);
/* statfs.c */
long sys_statfs(uint64_t upath, uint64_t ubuf);
long sys_fstatfs(uint64_t fd, uint64_t ubuf);
/* ioctl.c */
long sys_ioctl(uint64_t fd, uint64_t cmd, uint64_t arg);

#endif
