/* /proc/sys: the kernel's tunables as files (Linux's fs/proc/proc_sysctl.c). Reading one gives
 * its value and a newline; writing a number sets it. Only vm/faulttrace so far: 1 prints a
 * line per page fault (mm/fault.c), as the faulttrace boot parameter does. */
#include "kernel/errno.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/uaccess.h"
#include "mm/fault.h"

/* One tunable: a 0/1 value behind a getter and a setter. */
struct ctl_bool {
	const char *name;
	bool (*get)(void);
	void (*set)(bool on);
};

static const struct ctl_bool vm_table[] = {
	{ "faulttrace", faulttrace_enabled, set_faulttrace },
};

/* The value now, as text from *pos on: each read asks again, as Linux's proc_dointvec. */
static long sysctl_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	const struct ctl_bool *c = f->f_inode->i_private;
	char text[4] = { c->get() ? '1' : '0', '\n', '\0' };

	n = *pos < 2 ? MIN(n, 2 - *pos) : 0;
	if (copy_to_user(ubuf, text + *pos, n))
		return -EFAULT;
	*pos += n;
	return (long)n;
}

/* A write of "0" or "1" (white space around it allowed, as proc_dointvec skips it) sets the
 * value; anything else is EINVAL. The whole write is taken. */
static long sysctl_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	const struct ctl_bool *c = f->f_inode->i_private;
	char buf[16];
	size_t k = 0, len = MIN(n, sizeof(buf) - 1);
	int value;

	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	while (k < len && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\n'))
		k++;
	if (k == len || (buf[k] != '0' && buf[k] != '1'))
		return -EINVAL;
	value = buf[k++] - '0';
	while (k < len && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\n'))
		k++;
	if (k != len)
		return -EINVAL;
	c->set(value);
	*pos += n;
	return (long)n;
}

static const struct file_operations sysctl_operations = {
	.read = sysctl_read,
	.write = sysctl_write,
};

int proc_sys_init(struct inode *root)
{
	struct inode *sys = proc_add(root, "sys", S_IFDIR | 0555, NULL);
	struct inode *vm = sys ? proc_add(sys, "vm", S_IFDIR | 0555, NULL) : NULL;

	if (!vm)
		return -ENOMEM;
	for (size_t k = 0; k < ARRAY_SIZE(vm_table); k++) {
		struct inode *i =
			proc_add(vm, vm_table[k].name, S_IFREG | 0644, &sysctl_operations);

		if (!i)
			return -ENOMEM;
		i->i_private = (void *)&vm_table[k];
	}
	return 0;
}
