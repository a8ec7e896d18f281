/* Descriptor tables: made for the first process, grown by expand_files, copied by fork,
 * trimmed by execve's close-on-exec and emptied at exit (Linux's fs/file.c). */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/namei.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/slab.h"

unsigned int sysctl_nr_open = NR_OPEN_MAX_DEFAULT;

void fd_set_cloexec(struct files_struct *files, unsigned int fd, bool on)
{
	if (on)
		files->fdt.close_on_exec[fd / 64] |= 1UL << (fd % 64);
	else
		files->fdt.close_on_exec[fd / 64] &= ~(1UL << (fd % 64));
}

/* The slots a table that must hold descriptor nr gets: Linux's alloc_fdtable rounding, a power
 * of two of kilobytes of pointers, no more than fs.nr_open (rounded to a word of bits). */
static unsigned int fdtable_size(unsigned int nr)
{
	unsigned int unit = 1024 / sizeof(struct file *), n = nr / unit + 1, size = 1;

	while (size < n)
		size <<= 1;
	size *= unit;
	if (size > sysctl_nr_open)
		size = ((sysctl_nr_open - 1) | 63) + 1;
	return size;
}

static void free_fdtable(struct files_struct *files)
{
	if (files->fdt.fd != files->fd_array) {
		kfree(files->fdt.fd);
		kfree(files->fdt.open_fds); /* (close_on_exec is in the same allocation) */
	}
}

/* Move files's slots into new arrays of size slots (>= its max_fds). */
static int resize_fdtable(struct files_struct *files, unsigned int size)
{
	struct file **fd = kzalloc(size * sizeof(*fd));
	uint64_t *bits = kzalloc(2 * size / 8);
	unsigned int old;

	if (!fd || !bits || files->fdt.max_fds >= size) {
		kfree(fd);
		kfree(bits);
		/* (or grown by another thread while this one slept) */
		return fd && bits ? 0 : -ENOMEM;
	}
	old = files->fdt.max_fds;
	memcpy(fd, files->fdt.fd, old * sizeof(*fd));
	memcpy(bits, files->fdt.open_fds, old / 8);
	memcpy(bits + size / 64, files->fdt.close_on_exec, old / 8);
	free_fdtable(files);
	files->fdt = (struct fdtable){ .max_fds = size, .fd = fd, .open_fds = bits,
				       .close_on_exec = bits + size / 64 };
	return 0;
}

int expand_files(struct files_struct *files, unsigned int nr)
{
	if (nr < files->fdt.max_fds)
		return 0;
	if (nr >= sysctl_nr_open)
		return -EMFILE;
	return resize_fdtable(files, fdtable_size(nr));
}

static void init_files(struct files_struct *files)
{
	files->count = 1;
	files->fdt = (struct fdtable){ .max_fds = NR_OPEN_DEFAULT, .fd = files->fd_array,
				       .open_fds = files->open_fds_init,
				       .close_on_exec = files->close_on_exec_init };
}

struct file *fd_install(struct files_struct *files, unsigned int fd, struct file *f,
			bool cloexec)
{
	struct file *old = files->fdt.fd[fd];

	files->fdt.fd[fd] = f;
	files->fdt.open_fds[fd / 64] |= 1UL << (fd % 64);
	fd_set_cloexec(files, fd, cloexec);
	return old;
}

long fd_install_lowest(struct file *f, uint64_t min, bool cloexec)
{
	struct files_struct *files = current->files;
	uint64_t limit = rlimit_nofile(), fd = MAX(min, files->next_fd);
	int err;

	for (;; fd++) {
		uint64_t free_bits;

		if (fd < files->fdt.max_fds) { /* to the next clear bit of open_fds */
			free_bits = ~files->fdt.open_fds[fd / 64] >> (fd % 64);
			if (!free_bits) {
				fd = (fd | 63);
				continue;
			}
			fd += (uint64_t)__builtin_ctzl(free_bits);
		}
		if (fd >= limit) { /* RLIMIT_NOFILE: else EMFILE */
			err = -EMFILE;
			break;
		}
		if (fd >= files->fdt.max_fds && (err = expand_files(files, (unsigned int)fd)))
			break;
		if (!files->fdt.fd[fd]) {
			fd_install(files, (unsigned int)fd, f, cloexec);
			if (min <= files->next_fd)
				files->next_fd = (unsigned int)fd + 1;
			return (long)fd;
		}
	}
	fput(f);
	return err;
}

struct file *fd_remove(unsigned int fd)
{
	struct files_struct *files = current->files;
	struct file *f = fcheck_files(files, fd);

	if (f) {
		files->fdt.fd[fd] = NULL;
		files->fdt.open_fds[fd / 64] &= ~(1UL << (fd % 64));
		if (fd < files->next_fd)
			files->next_fd = fd;
	}
	return f;
}

struct files_struct *files_open_console(void)
{
	struct files_struct *files = kzalloc(sizeof(*files));
	struct inode *ino;
	struct file *con;
	int err;

	if (!files)
		return NULL;
	err = path_lookup("/dev/console", &ino);
	if (!err)
		err = dentry_open(&ino->i_dentry, O_RDWR, &con);
	if (err) {
		printk("cannot open /dev/console (error %d)\n", err);
		kfree(files);
		return NULL;
	}
	init_files(files);
	con->f_count = 3;
	for (int fd = 0; fd < 3; fd++)
		files->fd_array[fd] = con;
	files->open_fds_init[0] = 7;
	files->next_fd = 3;
	return files;
}

/* One past the highest open descriptor, rounded up to 64 (Linux's count_open_files). */
static unsigned int open_files(const struct files_struct *files)
{
	unsigned int w = files->fdt.max_fds / 64;

	while (w && !files->fdt.open_fds[w - 1])
		w--;
	return w * 64;
}

/* Each open descriptor of files, in rising order: for_each_open_fd(files, fd) { ... }. The
 * body may close fd; the table must not be replaced meanwhile. */
static unsigned int next_open_fd(const struct files_struct *files, unsigned int fd)
{
	while (fd < files->fdt.max_fds) {
		uint64_t bits = files->fdt.open_fds[fd / 64] >> (fd % 64);

		if (bits)
			return fd + (unsigned int)__builtin_ctzl(bits);
		fd = (fd | 63) + 1;
	}
	return fd;
}
#define for_each_open_fd(files, fd) \
	for (fd = next_open_fd(files, 0); fd < (files)->fdt.max_fds; \
	     fd = next_open_fd(files, fd + 1))

struct files_struct *dup_files(struct files_struct *old)
{
	struct files_struct *files = kzalloc(sizeof(*files));
	unsigned int n = open_files(old), fd;

	if (!files)
		return NULL;
	init_files(files);
	if (n > NR_OPEN_DEFAULT && resize_fdtable(files, fdtable_size(n - 1))) {
		kfree(files);
		return NULL;
	}
	n = MIN(open_files(old), files->fdt.max_fds); /* (the old table may be shorter now) */
	memcpy(files->fdt.fd, old->fdt.fd, n * sizeof(struct file *));
	memcpy(files->fdt.open_fds, old->fdt.open_fds, n / 8);
	memcpy(files->fdt.close_on_exec, old->fdt.close_on_exec, n / 8);
	for_each_open_fd(files, fd)
		get_file(files->fdt.fd[fd]);
	files->next_fd = MIN(old->next_fd, n);
	return files;
}

void put_files(struct files_struct *files)
{
	unsigned int fd;

	if (!files || --files->count > 0)
		return;
	for_each_open_fd(files, fd)
		filp_close(files->fdt.fd[fd], files);
	free_fdtable(files);
	kfree(files);
}

void files_close_on_exec(struct files_struct *files)
{
	unsigned int fd;

	for_each_open_fd(files, fd) {
		struct file *f = files->fdt.fd[fd];

		if (fd_is_cloexec(files, fd)) {
			files->fdt.fd[fd] = NULL;
			files->fdt.open_fds[fd / 64] &= ~(1UL << (fd % 64));
			if (fd < files->next_fd)
				files->next_fd = fd;
			filp_close(f, files);
		}
	}
}
