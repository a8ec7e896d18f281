/* Open files: per-process descriptor tables pointing to shared, counted struct files, and
 * the system calls on them. File data goes through the page cache (mm/filemap.c), the same
 * pages file mappings map, so read(), write() and mmap always agree. */
#include "drivers/console.h"
#include "kernel/errno.h"
#include "kernel/file.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/introspect.h"
#include "mm/slab.h"

struct file *fget(uint64_t fd)
{
	return fd < NR_OPEN ? current->files->fd[fd] : NULL;
}

void get_file(struct file *f)
{
	f->f_count++;
}

void fput(struct file *f)
{
	if (f && --f->f_count == 0) {
		if (f->f_release)
			f->f_release(f);
		if (f->f_inode && --f->f_inode->i_count == 0)
			iput(f->f_inode); /* frees it if it was unlinked */
		kfree(f);
	}
}

struct file *file_alloc(struct inode *ino, bool console)
{
	struct file *f = kzalloc(sizeof(*f));

	if (!f)
		return NULL;
	*f = (struct file){ .f_count = 1, .f_console = console, .f_inode = ino };
	if (ino)
		ino->i_count++;
	return f;
}

/* Install f at the lowest free descriptor >= min; the table takes the caller's reference. */
static long fd_install_lowest(struct file *f, uint64_t min, bool cloexec)
{
	struct files_struct *files = current->files;

	for (uint64_t fd = min; fd < NR_OPEN; fd++) {
		if (!files->fd[fd]) {
			files->fd[fd] = f;
			files->cloexec[fd] = cloexec;
			return (long)fd;
		}
	}
	fput(f);
	return -EMFILE;
}

struct files_struct *files_alloc_console(void)
{
	struct files_struct *files = kzalloc(sizeof(*files));
	struct file *con = file_alloc(NULL, true);

	if (!files || !con) {
		kfree(files);
		kfree(con);
		return NULL;
	}
	con->f_count = 3;
	for (int fd = 0; fd < 3; fd++)
		files->fd[fd] = con;
	return files;
}

struct files_struct *dup_files(struct files_struct *old)
{
	struct files_struct *files = kzalloc(sizeof(*files));

	if (!files)
		return NULL;
	*files = *old;
	for (int fd = 0; fd < NR_OPEN; fd++)
		if (files->fd[fd])
			files->fd[fd]->f_count++;
	return files;
}

void put_files(struct files_struct *files)
{
	if (!files)
		return;
	for (int fd = 0; fd < NR_OPEN; fd++)
		fput(files->fd[fd]);
	kfree(files);
}

void files_close_on_exec(struct files_struct *files)
{
	for (int fd = 0; fd < NR_OPEN; fd++) {
		if (files->fd[fd] && files->cloexec[fd]) {
			fput(files->fd[fd]);
			files->fd[fd] = NULL;
		}
	}
}


long sys_openat(int64_t dirfd, uint64_t upath, uint64_t flags, uint64_t mode)
{
	char path[PATH_MAX];
	struct inode *ino;
	struct file *f;
	long err;

	(void)dirfd; /* every path is resolved from the root: there is no cwd yet */
	err = path_from_user(upath, path);
	if (err)
		return err;
	/* The one file made on demand: the text of the caller's own memory map. */
	if (!strcmp(path, "/proc/self/maps")) {
		if ((flags & O_ACCMODE) != O_RDONLY)
			return -EACCES;
		f = proc_maps_open(current->mm);
		return f ? fd_install_lowest(f, 0, flags & O_CLOEXEC) : -ENOMEM;
	}
	err = ramfs_lookup(path, &ino);
	if (err == -ENOENT && (flags & O_CREAT))
		err = ramfs_mknod(path, S_IFREG | (mode & 07777), &ino);
	else if (!err && (flags & O_CREAT) && (flags & O_EXCL))
		err = -EEXIST;
	else if (!err && (flags & O_CREAT) && S_ISDIR(ino->i_mode))
		err = -EISDIR; /* even read-only: O_CREAT asks for a regular file */
	if (err)
		return err;
	if (S_ISDIR(ino->i_mode) && (flags & O_ACCMODE) != O_RDONLY)
		return -EISDIR;
	if ((flags & O_DIRECTORY) && !S_ISDIR(ino->i_mode))
		return -ENOTDIR;
	if ((flags & O_ACCMODE) == 3)
		return -EINVAL;
	if ((flags & O_TRUNC) && S_ISREG(ino->i_mode) && (flags & O_ACCMODE) != O_RDONLY &&
	    ino->i_mapping)
		vmtruncate(ino, 0);
	f = file_alloc(ino, false);
	if (!f)
		return -ENOMEM;
	f->f_flags = (unsigned int)flags;
	return fd_install_lowest(f, 0, flags & O_CLOEXEC);
}

long sys_close(uint64_t fd)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	current->files->fd[fd] = NULL;
	fput(f);
	return 0;
}

long sys_dup(uint64_t fd)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	f->f_count++;
	return fd_install_lowest(f, 0, false);
}

long sys_dup3(uint64_t oldfd, uint64_t newfd, uint64_t flags)
{
	struct file *f = fget(oldfd);
	struct files_struct *files = current->files;

	if (flags & ~(uint64_t)O_CLOEXEC)
		return -EINVAL;
	if (!f || newfd >= NR_OPEN)
		return -EBADF;
	if (oldfd == newfd)
		return -EINVAL;
	f->f_count++;
	fput(files->fd[newfd]); /* dup2 onto an open descriptor closes it first */
	files->fd[newfd] = f;
	files->cloexec[newfd] = flags & O_CLOEXEC;
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

long sys_fcntl(uint64_t fd, uint64_t cmd, uint64_t arg)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (arg >= NR_OPEN)
			return -EINVAL;
		f->f_count++;
		return fd_install_lowest(f, arg, cmd == F_DUPFD_CLOEXEC);
	case F_GETFD:
		return current->files->cloexec[fd] ? FD_CLOEXEC : 0;
	case F_SETFD:
		current->files->cloexec[fd] = arg & FD_CLOEXEC;
		return 0;
	case F_GETFL:
		return f->f_console ? 2 /* O_RDWR */ : 0;
	case F_SETFL:
		return 0;
	}
	return -EINVAL;
}

/*
 * Copy n bytes at file offset pos to or from user memory, a page-cache page at a time (the
 * page read from the disk if it is not cached). Reads stop at the end of the file; writes
 * extend it. Returns the bytes done, or -errno if none were.
 *
 * A user copy never crosses a user page boundary: a page is readable whole or not at all,
 * so when a copy faults, everything before it was copied and nothing of it was (Linux
 * returns exactly the bytes before the bad page too). A write that stops short grows the
 * file by what it copied only, and leaves no bytes past the new end in the cache: a later
 * ftruncate up must read zeroes there.
 */
static long file_rw(struct inode *ino, uint64_t ubuf, uint64_t n, uint64_t pos, bool write,
		    void *kbuf)
{
	uint64_t done = 0;

	if (!kbuf && !access_ok(ubuf, n))
		return -EFAULT;
	if (ino->i_dev)
		return -EINVAL; /* device memory is reached through mmap */
	if (!ino->i_mapping) { /* a generated file (/proc/self/maps): its bytes in memory */
		if (write)
			return -EBADF;
		n = pos < ino->i_size ? MIN(n, ino->i_size - pos) : 0;
		if (kbuf)
			memcpy(kbuf, ino->i_disk + pos, n);
		else if (copy_to_user(ubuf, ino->i_disk + pos, n))
			return -EFAULT;
		return (long)n;
	}
	if (write && pos + n > (1ULL << 40))
		return -EFBIG;
	while (done < n) {
		uint64_t off = (pos + done) & ~PAGE_MASK, chunk = MIN(n - done, PAGE_SIZE - off);
		struct page *page;
		bool major;
		long r;

		if (!write && pos + done >= ino->i_size)
			break;
		if (!write)
			chunk = MIN(chunk, ino->i_size - (pos + done));
		if (!kbuf)
			chunk = MIN(chunk, PAGE_SIZE - ((ubuf + done) & ~PAGE_MASK));
		page = find_or_read_page(ino->i_mapping, (pos + done) >> PAGE_SHIFT, &major);
		if (!page)
			return done ? (long)done : -ENOMEM;
		if (kbuf) { /* kernel_read */
			memcpy((uint8_t *)kbuf + done, (uint8_t *)page_address(page) + off, chunk);
			r = 0;
		} else if (write) {
			r = copy_from_user((uint8_t *)page_address(page) + off, ubuf + done, chunk);
			if (!r) {
				SetPageFlag(page, PG_dirty);
				ino->i_size = MAX(ino->i_size, pos + done + chunk);
			}
		} else {
			r = copy_to_user(ubuf + done, (uint8_t *)page_address(page) + off, chunk);
		}
		put_page(page);
		if (r) {
			/* The page may be new, past the end, or hold bytes of a copy cut short:
			 * drop it, or zero it from the end of the file on. */
			if (write && pos + done + chunk > ino->i_size)
				truncate_inode_pages(ino, ino->i_size, pos + done + chunk);
			return done ? (long)done : -EFAULT;
		}
		done += chunk;
	}
	return (long)done;
}

long kernel_read(struct inode *ino, uint64_t pos, void *buf, uint64_t n)
{
	return file_rw(ino, 0, n, pos, false, buf);
}

static bool readable(const struct file *f)
{
	return (f->f_flags & O_ACCMODE) != O_WRONLY;
}

static bool writable(const struct file *f)
{
	return (f->f_flags & O_ACCMODE) != O_RDONLY;
}

long sys_read(uint64_t fd, uint64_t ubuf, uint64_t n)
{
	struct file *f = fget(fd);
	long r;

	if (!f)
		return -EBADF;
	if (f->f_console)
		return 0; /* no keyboard yet: the console reads as end of file */
	if (S_ISDIR(f->f_inode->i_mode))
		return -EISDIR;
	if (!readable(f))
		return -EBADF;
	r = file_rw(f->f_inode, ubuf, n, f->f_pos, false, NULL);
	if (r > 0)
		f->f_pos += (uint64_t)r;
	return r;
}

long sys_pread64(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t pos)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if (f->f_console)
		return -ESPIPE;
	if (S_ISDIR(f->f_inode->i_mode))
		return -EISDIR;
	if (!readable(f))
		return -EBADF;
	if (pos < 0)
		return -EINVAL;
	return file_rw(f->f_inode, ubuf, n, (uint64_t)pos, false, NULL);
}

long sys_pwrite64(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t pos)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if (f->f_console)
		return -ESPIPE;
	if (!writable(f))
		return -EBADF;
	if (pos < 0)
		return -EINVAL;
	return file_rw(f->f_inode, ubuf, n, (uint64_t)pos, true, NULL);
}

/* Write n bytes of user memory at ubuf to the console, a chunk at a time. */
static long console_write_user(uint64_t ubuf, uint64_t n)
{
	char chunk[256];
	uint64_t done = 0;

	if (!access_ok(ubuf, n))
		return -EFAULT;
	while (done < n) {
		size_t c = MIN(n - done, sizeof(chunk));

		if (copy_from_user(chunk, ubuf + done, c))
			return done ? (long)done : -EFAULT;
		console_write(chunk, c);
		done += c;
	}
	return (long)done;
}

long sys_write(uint64_t fd, uint64_t ubuf, uint64_t n)
{
	struct file *f = fget(fd);
	long r;

	if (!f || (!f->f_console && !writable(f)))
		return -EBADF;
	if (f->f_console)
		return console_write_user(ubuf, n);
	if (f->f_flags & O_APPEND)
		f->f_pos = f->f_inode->i_size;
	r = file_rw(f->f_inode, ubuf, n, f->f_pos, true, NULL);
	if (r > 0)
		f->f_pos += (uint64_t)r;
	return r;
}

long sys_writev(uint64_t fd, uint64_t uiov, uint64_t cnt)
{
	struct {
		uint64_t base, len;
	} iov;
	struct file *f = fget(fd);
	long total = 0, r;

	if (!f || (!f->f_console && !writable(f)))
		return -EBADF;
	if (cnt > 1024)
		return -EINVAL;
	for (uint64_t i = 0; i < cnt; i++) {
		if (copy_from_user(&iov, uiov + i * sizeof(iov), sizeof(iov)))
			return -EFAULT;
		r = f->f_console ? console_write_user(iov.base, iov.len)
				 : sys_write(fd, iov.base, iov.len);
		if (r < 0)
			return total ? total : r;
		total += r;
	}
	return total;
}

long sys_lseek(uint64_t fd, int64_t off, uint64_t whence)
{
	struct file *f = fget(fd);
	int64_t base;

	if (!f)
		return -EBADF;
	if (f->f_console)
		return -ESPIPE;
	switch (whence) {
	case 0: base = 0; break;
	case 1: base = (int64_t)f->f_pos; break;
	case 2: base = (int64_t)f->f_inode->i_size; break;
	default: return -EINVAL;
	}
	if (base + off < 0)
		return -EINVAL;
	f->f_pos = (uint64_t)(base + off);
	return (long)f->f_pos;
}

#define TCGETS 0x5401
#define TIOCGWINSZ 0x5413

/* The console is a terminal of 80x25 with no settings that can change. */
long sys_ioctl(uint64_t fd, uint64_t cmd, uint64_t arg)
{
	struct file *f = fget(fd);
	uint16_t ws[4] = { 25, 80, 0, 0 };

	if (!f)
		return -EBADF;
	if (f->f_inode && f->f_inode->i_dev && f->f_inode->i_dev->ioctl)
		return f->f_inode->i_dev->ioctl(f->f_inode, cmd, arg);
	if (!f->f_console)
		return -ENOTTY;
	if (cmd == TIOCGWINSZ)
		return copy_to_user(arg, ws, sizeof(ws));
	return -ENOTTY; /* TCGETS too: no termios, so isatty() says no and stdio buffers fully */
}

/* sendfile(out, in, offset, count): file to console through a kernel buffer. */
long sys_sendfile(uint64_t out_fd, uint64_t in_fd, uint64_t uoffset, uint64_t count)
{
	struct file *out = fget(out_fd), *in = fget(in_fd);
	uint64_t pos, n = 0;
	char chunk[256];
	long r;

	if (!out || !in || !out->f_console || in->f_console || !readable(in))
		return -EBADF;
	if (S_ISDIR(in->f_inode->i_mode))
		return -EISDIR;
	pos = in->f_pos;
	if (uoffset && copy_from_user(&pos, uoffset, sizeof(pos)))
		return -EFAULT;
	while (n < count && (r = kernel_read(in->f_inode, pos, chunk, MIN(sizeof(chunk),
							     count - n))) > 0) {
		console_write(chunk, (size_t)r);
		n += (uint64_t)r;
		pos += (uint64_t)r;
	}
	if (uoffset)
		return copy_to_user(uoffset, &pos, sizeof(pos)) ? -EFAULT : (long)n;
	in->f_pos = pos;
	return (long)n;
}


long sys_ftruncate(uint64_t fd, int64_t len)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if (f->f_console || !S_ISREG(f->f_inode->i_mode) || !f->f_inode->i_mapping)
		return -EINVAL;
	if (!writable(f))
		return -EINVAL; /* Linux: EINVAL for a descriptor not open for writing */
	if (len < 0)
		return -EINVAL;
	return vmtruncate(f->f_inode, (uint64_t)len);
}

/* The page cache is the only copy and is never dropped: there is nothing to write back. */
long sys_fsync(uint64_t fd)
{
	return fget(fd) ? 0 : -EBADF;
}
