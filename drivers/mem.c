/* /dev/null (char 1, 3), the file that takes every write and is always at its end, and
 * /dev/zero (char 1, 5), which reads as zeroes and takes every write, as Linux's
 * drivers/char/mem.c has them. A private map of /dev/zero is plain anonymous memory, a shared
 * one shmem (mmap_zero). */
#include "drivers/major.h"
#include "kernel/arch/uaccess.h"
#include "kernel/fs/namei.h"
#include "kernel/initcall.h"
#include "kernel/printk/printk.h"
#include "mm/shmem.h"
#include "mm/vma.h"

#define NULL_MINOR 3
#define ZERO_MINOR 5

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

/* Zeroes into user memory, a page at a time: the bytes done, or -EFAULT if none were. */
static long read_zero(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	static const uint8_t zeroes[256];
	uint64_t done = 0;

	(void)f, (void)pos;
	while (done < n) {
		size_t c = MIN(n - done, sizeof(zeroes));

		if (copy_to_user(ubuf + done, zeroes, c))
			return done ? (long)done : -EFAULT;
		done += c;
	}
	return (long)done;
}

/* Linux's mmap_zero: MAP_SHARED gets a new shmem file (sharers see one set of pages);
 * MAP_PRIVATE is anonymous memory (no file, no ops: zero page, then pages of its own). */
static int mmap_zero(struct file *f, struct vm_area_struct *vma)
{
	(void)f;
	if (vma->vm_flags & VM_SHARED)
		return shmem_zero_setup(vma);
	vma->vm_file = NULL;
	vma->vm_pgoff = vma->vm_start >> PAGE_SHIFT;
	return 0;
}

static const struct file_operations zero_fops = {
	.mmap = mmap_zero,
	.llseek = null_lseek,
	.read = read_zero,
	.write = write_null,
	.splice_write = splice_write_null,
};

static void mem_init(void)
{
	if (register_chrdev_region(MEM_MAJOR, NULL_MINOR, 1, "null", &null_fops) ||
	    vfs_mknod("/dev/null", S_IFCHR | 0666, MKDEV(MEM_MAJOR, NULL_MINOR)))
		printk("mem: cannot create /dev/null\n");
	if (register_chrdev_region(MEM_MAJOR, ZERO_MINOR, 1, "zero", &zero_fops) ||
	    vfs_mknod("/dev/zero", S_IFCHR | 0666, MKDEV(MEM_MAJOR, ZERO_MINOR)))
		printk("mem: cannot create /dev/zero\n");
}
device_initcall(mem_init);
