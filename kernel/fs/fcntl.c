/* dup, dup2, dup3 and fcntl: more descriptors for one open file, and the descriptor's and the
 * file's flags. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/locks.h"
#include "kernel/fs/pipe.h"
#include "kernel/syscalls.h"
#include "kernel/sched/sched.h"
#include "mm/memfd.h"

long sys_dup(uint64_t fd)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	get_file(f);
	return fd_install_lowest(f, 0, false);
}

long sys_dup3(uint64_t oldfd, uint64_t newfd, uint64_t flags)
{
	struct file *f = fget(oldfd);
	struct files_struct *files = current->files;
	int err;

	if (flags & ~(uint64_t)O_CLOEXEC)
		return -EINVAL;
	if (!f || newfd >= rlimit_nofile())
		return -EBADF; /* (Linux: a target at or past RLIMIT_NOFILE is EBADF) */
	if (oldfd == newfd)
		return -EINVAL;
	err = expand_files(files, (unsigned int)newfd);
	f = fget(oldfd); /* (growing the table may have slept) */
	if (err == -EMFILE || !f)
		return -EBADF; /* as Linux's dup3 */
	if (err)
		return err;
	get_file(f);
	/* dup2 onto an open descriptor closes it, once the new file is in place */
	filp_close(fd_install(files, (unsigned int)newfd, f, flags & O_CLOEXEC), files);
	return (long)newfd;
}

long sys_dup2(uint64_t oldfd, uint64_t newfd)
{
	if (oldfd == newfd) /* the one difference from dup3: a no-op on a valid descriptor */
		return fget(oldfd) ? (long)newfd : -EBADF;
	return sys_dup3(oldfd, newfd, 0);
}

#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032

/* The flags F_SETFL may change; the others (the access mode above all) stay as opened. A
 * pipe's O_DIRECT too: its packet mode (Linux's setfl lets a FIFO have it, no other file
 * here). */
#define SETFL_MASK (O_APPEND | O_NONBLOCK)
#define SETFL_PIPE_MASK (SETFL_MASK | O_DIRECT)

long sys_fcntl(uint64_t fd, uint64_t cmd, uint64_t arg)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (arg >= rlimit_nofile())
			return -EINVAL; /* (RLIMIT_NOFILE) */
		get_file(f);
		return fd_install_lowest(f, arg, cmd == F_DUPFD_CLOEXEC);
	case F_GETFD:
		return fd_is_cloexec(current->files, (unsigned int)fd) ? FD_CLOEXEC : 0;
	case F_SETFD:
		fd_set_cloexec(current->files, (unsigned int)fd, arg & FD_CLOEXEC);
		return 0;
	case F_GETFL:
		return f->f_flags;
	case F_SETFL: {
		unsigned int mask = S_ISFIFO(f->f_inode->i_mode) ? SETFL_PIPE_MASK : SETFL_MASK;

		f->f_flags = (f->f_flags & ~mask) | ((unsigned int)arg & mask);
		return 0;
	}
	case F_GETLK:
	case F_OFD_GETLK:
		return fcntl_getlk(f, (unsigned int)cmd, arg);
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		return fcntl_setlk(f, (unsigned int)cmd, arg);
	case F_ADD_SEALS:
	case F_GET_SEALS:
		return memfd_fcntl(f, cmd, arg);
	case F_SETPIPE_SZ:
	case F_GETPIPE_SZ:
		return pipe_fcntl(f, (unsigned int)cmd, arg);
	}
	return -EINVAL;
}
