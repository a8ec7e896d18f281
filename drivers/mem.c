/* /dev/null (char 1, 3): the file that takes every write and is always at its end, as
 * Linux's drivers/char/mem.c has it. */
#include "kernel/fs/namei.h"
#include "kernel/initcall.h"
#include "kernel/printk.h"

#define MEM_MAJOR 1
#define NULL_MINOR 3

static long read_null(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)ubuf, (void)n, (void)pos;
	return 0;
}

/* Everything written is taken, unread: the buffer is not even looked at (Linux neither). */
static long write_null(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)ubuf, (void)pos;
	return (long)n;
}

static long splice_write_null(struct file *f, const void *kbuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)kbuf, (void)pos;
	return (long)n;
}

/* Any offset is accepted and the position stays 0, as Linux's null_lseek. */
static int64_t null_lseek(struct file *f, int64_t off, int whence)
{
	(void)off, (void)whence;
	return (int64_t)(f->f_pos = 0);
}

static const struct file_operations null_fops = {
	.llseek = null_lseek,
	.read = read_null,
	.write = write_null,
	.splice_write = splice_write_null,
};

static void null_init(void)
{
	if (register_chrdev_region(MEM_MAJOR, NULL_MINOR, 1, "null", &null_fops) ||
	    vfs_mknod("/dev/null", S_IFCHR | 0666, MKDEV(MEM_MAJOR, NULL_MINOR)))
		printk("mem: cannot create /dev/null\n");
}
device_initcall(null_init);
