/* Descriptor tables: made for the first process, copied by fork, trimmed by execve's
 * close-on-exec and emptied at exit. */
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/namei.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/slab.h"

long fd_install_lowest(struct file *f, uint64_t min, bool cloexec)
{
	struct files_struct *files = current->files;

	for (uint64_t fd = min; fd < rlimit_nofile(); fd++) { /* RLIMIT_NOFILE: else EMFILE */
		if (!files->fd[fd]) {
			files->fd[fd] = f;
			files->cloexec[fd] = cloexec;
			return (long)fd;
		}
	}
	fput(f);
	return -EMFILE;
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
		err = dentry_open(ino, O_RDWR, &con);
	if (err) {
		printk("cannot open /dev/console (error %d)\n", err);
		kfree(files);
		return NULL;
	}
	files->count = 1;
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
	files->count = 1;
	for (int fd = 0; fd < NR_OPEN; fd++)
		if (files->fd[fd])
			get_file(files->fd[fd]);
	return files;
}

void put_files(struct files_struct *files)
{
	if (!files || --files->count > 0)
		return;
	for (int fd = 0; fd < NR_OPEN; fd++)
		filp_close(files->fd[fd], files);
	kfree(files);
}

void files_close_on_exec(struct files_struct *files)
{
	for (int fd = 0; fd < NR_OPEN; fd++) {
		if (files->fd[fd] && files->cloexec[fd]) {
			filp_close(files->fd[fd], files);
			files->fd[fd] = NULL;
		}
	}
}
