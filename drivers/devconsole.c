/* /dev/console (char 5, 1): the consoles as a file, what every process's descriptors 0, 1 and
 * 2 start on. Writes reach every console (serial and screen); with no keyboard driver yet,
 * reads give end of file. A terminal cannot seek. */
#include "drivers/console.h"
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/initcall.h"
#include "kernel/printk.h"
#include "kernel/uaccess.h"

#define TTYAUX_MAJOR 5

static long console_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)ubuf, (void)n, (void)pos;
	return 0;
}

/* User memory to the consoles, a chunk at a time (the range was checked by vfs_write). */
static long console_write_user(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	char chunk[256];
	uint64_t done = 0;

	(void)f, (void)pos;
	while (done < n) {
		size_t c = MIN(n - done, sizeof(chunk));

		if (copy_from_user(chunk, ubuf + done, c))
			return done ? (long)done : -EFAULT;
		console_write(chunk, c);
		done += c;
	}
	return (long)done;
}

static long console_splice_write(struct file *f, const void *kbuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)pos;
	console_write(kbuf, n);
	return (long)n;
}

#define TIOCGWINSZ 0x5413

/* A terminal of 80x25 with no settings that can change: TCGETS is -ENOTTY, so isatty() says
 * no and stdio buffers fully (the tty layer will give it termios). */
static long console_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	uint16_t ws[4] = { 25, 80, 0, 0 };

	(void)f;
	if (cmd == TIOCGWINSZ)
		return copy_to_user(arg, ws, sizeof(ws));
	return -ENOTTY;
}

static const struct file_operations console_fops = {
	.llseek = no_llseek,
	.read = console_read,
	.write = console_write_user,
	.splice_write = console_splice_write,
	.ioctl = console_ioctl,
	.open = nonseekable_open,
};

static void console_dev_init(void)
{
	int err = register_chrdev_region(TTYAUX_MAJOR, 1, 1, "console", &console_fops);

	if (!err)
		err = vfs_mknod("/dev/console", S_IFCHR | 0600, MKDEV(TTYAUX_MAJOR, 1));
	if (err)
		printk("console: cannot create /dev/console (error %d)\n", err);
}
device_initcall(console_dev_init);
