/* Terminals as files, as Linux's drivers/char/tty_io.c: the file_operations of every tty
 * device, /dev/tty (the caller's controlling terminal) and /dev/console (the boot console's
 * tty), the controlling terminal of a session, and the job-control checks on reads and writes. */
#include "drivers/tty/tty.h"
#include "kernel/arch/uaccess.h"
#include "kernel/arch/x86.h"
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/poll.h"
#include "kernel/initcall.h"
#include "kernel/printk/printk.h"
#include "kernel/process/pgrp.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "mm/slab.h"

#define TTYAUX_MAJOR 5
#define DEV_TTY	     MKDEV(TTYAUX_MAJOR, 0)
#define DEV_CONSOLE  MKDEV(TTYAUX_MAJOR, 1)
#define MAX_TTYS     8

static struct tty_struct *ttys[MAX_TTYS];
static struct tty_struct *console_tty;
static bool console_is_boot;

static const struct file_operations tty_fops;

void tty_register(struct tty_struct *tty, const char *name, uint32_t dev,
		  const struct tty_operations *ops, const struct ktermios *init)
{
	int i = 0;

	while (i < MAX_TTYS && ttys[i])
		i++;
	BUG_ON(i == MAX_TTYS);
	tty->name = name;
	tty->dev = dev;
	tty->ops = ops;
	tty->termios = *init;
	tty->winsize = (struct winsize){ .ws_row = 25, .ws_col = 80 };
	init_waitqueue_head(&tty->read_wait);
	init_waitqueue_head(&tty->write_wait);
	tty_buffer_init(tty);
	n_tty_open(tty);
	ttys[i] = tty;
	if (register_chrdev_region(MAJOR(dev), MINOR(dev), 1, name, &tty_fops))
		printk("tty: %s: device number %u:%u taken\n", name, MAJOR(dev), MINOR(dev));
}

/* The boot console (the serial port) wins over a screen registered before or after it. */
void tty_set_console(struct tty_struct *tty, bool boot)
{
	if (!console_tty || (boot && !console_is_boot)) {
		console_tty = tty;
		console_is_boot = boot;
	}
}

struct tty_struct *file_tty(struct file *f)
{
	return f->private_data;
}

/* ---------------------------------------------------------------- the controlling tty */

/* The tty is t's controlling terminal, in t's session; t is its session's leader. */
static void proc_set_tty(struct task_struct *t, struct tty_struct *tty)
{
	struct task_struct *w;

	tty->session = t->session;
	tty->pgrp = t->pgrp;
	for_each_thread(t, w) /* the process's terminal: every thread's */
		w->tty = tty;
}

/* No task of session sid has a controlling terminal any more. */
static void session_clear_tty(int sid)
{
	struct task_struct *t;

	list_for_each_entry(t, &all_tasks, tasks) if (t->session == sid) t->tty = NULL;
}

/* TIOCSCTTY: only a session leader without a terminal may take one; a terminal of another
 * session only with steal (arg 1; every caller here has CAP_SYS_ADMIN). */
int tiocsctty(struct tty_struct *tty, bool steal)
{
	if (current->session == current->tgid && tty->session == current->session)
		return 0;
	if (current->session != current->tgid || current->tty)
		return -EPERM;
	if (tty->session) {
		if (!steal)
			return -EPERM;
		session_clear_tty(tty->session);
	}
	proc_set_tty(current, tty);
	return 0;
}

void disassociate_ctty(bool on_exit)
{
	struct tty_struct *tty = current->tty;

	if (!tty)
		return;
	if (tty->pgrp) {
		kill_pgrp(tty->pgrp, SIGHUP);
		if (!on_exit)
			kill_pgrp(tty->pgrp, SIGCONT);
	}
	tty->session = 0;
	tty->pgrp = 0;
	session_clear_tty(current->session);
}

/* ---------------------------------------------------------------- job control */

/* Linux's is_ignored: blocked, or its action is SIG_IGN. */
static bool is_ignored(int sig)
{
	return (current->blocked & sigmask(sig)) ||
	       current->sighand->action[sig - 1].sa_handler == SIG_IGN;
}

/* No member of group pgrp has a parent in another group of the same session: nobody is left
 * to continue the group if it stops (POSIX's orphaned process group). */
static bool tty_pgrp_orphaned(int pgrp)
{
	struct task_struct *t;

	list_for_each_entry(t, &all_tasks, tasks)
	{
		if (t->pgrp != pgrp || t->state == EXIT_ZOMBIE || !t->parent)
			continue;
		if (t->parent->pgrp != pgrp && t->parent->session == t->session)
			return false;
	}
	return true;
}

/* A job-control signal for current's group, if current is in the background of tty. */
static int tty_job_signal(struct tty_struct *tty, int sig)
{
	if (current->tty != tty || !tty->pgrp || current->pgrp == tty->pgrp)
		return 0;
	if (is_ignored(sig))
		return sig == SIGTTIN ? -EIO : 0;
	if (tty_pgrp_orphaned(current->pgrp))
		return -EIO;
	kill_pgrp(current->pgrp, sig);
	return -ERESTARTSYS;
}

int tty_check_change(struct tty_struct *tty)
{
	return tty_job_signal(tty, SIGTTOU);
}

void tty_set_winsize(struct tty_struct *tty, const struct winsize *ws)
{
	bool changed = ws->ws_row != tty->winsize.ws_row || ws->ws_col != tty->winsize.ws_col ||
		       ws->ws_xpixel != tty->winsize.ws_xpixel ||
		       ws->ws_ypixel != tty->winsize.ws_ypixel;

	tty->winsize = *ws;
	if (changed && tty->pgrp)
		kill_pgrp(tty->pgrp, SIGWINCH);
}

/* ---------------------------------------------------------------- file operations */

uint64_t tty_wait_input(struct tty_struct *tty, uint64_t timeout)
{
	struct wait_queue_entry w;

	init_wait(&w, current);
	prepare_to_wait(&tty->read_wait, &w, TASK_INTERRUPTIBLE);
	if (!n_tty_input_available(tty, false) && !signal_pending(current)) {
		if (timeout == UINT64_MAX)
			schedule();
		else
			timeout = schedule_timeout(timeout);
	}
	finish_wait(&tty->read_wait, &w);
	return timeout;
}

/* Through a kernel buffer: n_tty works on kernel memory (and so can be tested on the host). */
static long tty_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct tty_struct *tty = file_tty(f);
	size_t want = MIN(n, (uint64_t)N_TTY_BUF_SIZE);
	uint8_t *kbuf;
	long ret;

	(void)pos;
	ret = tty_job_signal(tty, SIGTTIN);
	if (ret)
		return ret;
	if (!want)
		return 0;
	kbuf = kmalloc(want);
	if (!kbuf)
		return -ENOMEM;
	ret = n_tty_read(tty, kbuf, want, f->f_flags & O_NONBLOCK);
	if (ret > 0 && copy_to_user(ubuf, kbuf, (size_t)ret))
		ret = -EFAULT;
	kfree(kbuf);
	return ret;
}

static long tty_write_checked(struct tty_struct *tty)
{
	return (tty->termios.c_lflag & TOSTOP) ? tty_check_change(tty) : 0;
}

static long tty_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct tty_struct *tty = file_tty(f);
	uint8_t chunk[256];
	uint64_t done = 0;
	long err = tty_write_checked(tty);

	(void)pos;
	if (err)
		return err;
	while (done < n) {
		size_t c = MIN(n - done, sizeof(chunk));

		if (copy_from_user(chunk, ubuf + done, c))
			return done ? (long)done : -EFAULT;
		n_tty_write(tty, chunk, c);
		done += c;
	}
	return (long)done;
}

static long tty_splice_write(struct file *f, const void *kbuf, uint64_t n, uint64_t *pos)
{
	struct tty_struct *tty = file_tty(f);
	long err = tty_write_checked(tty);

	(void)pos;
	return err ? err : n_tty_write(tty, kbuf, n);
}

static unsigned int tty_poll(struct file *f, struct poll_table_struct *pt)
{
	struct tty_struct *tty = file_tty(f);
	unsigned int mask = POLLOUT | POLLWRNORM;

	poll_wait(f, &tty->read_wait, pt);
	if (n_tty_input_available(tty, true))
		mask |= POLLIN | POLLRDNORM;
	return mask;
}

/* /dev/tty is the caller's controlling terminal (none: -ENXIO); /dev/console the boot
 * console's tty, which (as on Linux) never becomes a controlling terminal by being opened. A
 * session leader without a terminal that opens one without O_NOCTTY gets it. */
static int tty_open(struct inode *ino, struct file *f)
{
	bool noctty = f->f_flags & O_NOCTTY;
	struct tty_struct *tty = NULL;

	if (ino->i_rdev == DEV_TTY) {
		tty = current->tty;
		if (!tty)
			return -ENXIO;
		noctty = true;
	} else if (ino->i_rdev == DEV_CONSOLE) {
		tty = console_tty;
		if (!tty)
			return -ENODEV;
		noctty = true;
	} else {
		for (int i = 0; i < MAX_TTYS && ttys[i]; i++)
			if (ttys[i]->dev == ino->i_rdev)
				tty = ttys[i];
		if (!tty)
			return -ENXIO;
	}
	f->private_data = tty;
	tty->count++;
	if (!noctty && current->session == current->tgid && !current->tty && !tty->session)
		proc_set_tty(current, tty);
	return nonseekable_open(ino, f);
}

/* The last file of a terminal closed: it is no session's controlling terminal any more. */
static void tty_release(struct inode *ino, struct file *f)
{
	struct tty_struct *tty = file_tty(f);

	(void)ino;
	if (--tty->count)
		return;
	if (tty->session)
		session_clear_tty(tty->session);
	tty->session = 0;
	tty->pgrp = 0;
}

static const struct file_operations tty_fops = {
	.llseek = no_llseek,
	.read = tty_read,
	.write = tty_write,
	.splice_write = tty_splice_write,
	.ioctl = tty_ioctl,
	.poll = tty_poll,
	.open = tty_open,
	.release = tty_release,
};

/* The device files; the terminals' own appear with their drivers (tty_register). */
static void tty_init(void)
{
	static const struct {
		const char *path;
		uint32_t mode, dev;
	} nodes[] = {
		{ "/dev/tty", S_IFCHR | 0666, DEV_TTY },
		{ "/dev/console", S_IFCHR | 0600, DEV_CONSOLE },
		{ "/dev/ttyS0", S_IFCHR | 0660, MKDEV(4, 64) },
		{ "/dev/tty1", S_IFCHR | 0620, MKDEV(4, 1) },
	};
	int err = register_chrdev_region(TTYAUX_MAJOR, 0, 2, "/dev/tty", &tty_fops);

	for (size_t i = 0; !err && i < ARRAY_SIZE(nodes); i++)
		err = vfs_mknod(nodes[i].path, nodes[i].mode, nodes[i].dev);
	if (err)
		printk("tty: cannot create the device files (error %d)\n", err);
}
device_initcall(tty_init);
