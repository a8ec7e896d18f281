/* Character devices: a driver registers a range of (major, minor) numbers with its
 * file_operations; a device file holds only its number, and opening it swaps in the
 * driver's table, as Linux's chrdev_open does. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"

#define MAX_CHRDEVS 32

static struct char_device_struct {
	unsigned int major, first, count;
	const char *name;
	const struct file_operations *fops;
} chrdevs[MAX_CHRDEVS];
static int nr_chrdevs;

int register_chrdev_region(unsigned int major, unsigned int first, unsigned int count,
			   const char *name, const struct file_operations *fops)
{
	for (int i = 0; i < nr_chrdevs; i++) {
		const struct char_device_struct *cd = &chrdevs[i];

		if (cd->major == major && first < cd->first + cd->count &&
		    cd->first < first + count)
			return -EBUSY;
	}
	if (nr_chrdevs == MAX_CHRDEVS)
		return -EBUSY;
	chrdevs[nr_chrdevs++] = (struct char_device_struct){ major, first, count, name, fops };
	return 0;
}

/* Linux answers -ENXIO for a device file whose number no driver has. */
static int chrdev_open(struct inode *inode, struct file *f)
{
	for (int i = 0; i < nr_chrdevs; i++) {
		const struct char_device_struct *cd = &chrdevs[i];

		if (cd->major == MAJOR(inode->i_rdev) && MINOR(inode->i_rdev) >= cd->first &&
		    MINOR(inode->i_rdev) < cd->first + cd->count) {
			f->f_op = cd->fops;
			return f->f_op->open ? f->f_op->open(inode, f) : 0;
		}
	}
	return -ENXIO;
}

const struct file_operations def_chr_fops = {
	.open = chrdev_open,
};
