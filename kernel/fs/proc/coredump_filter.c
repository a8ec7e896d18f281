/* /proc/PID/coredump_filter (Linux's proc_coredump_filter_read and _write): which kinds of a
 * process's memory its core dump holds, MMF_DUMP_* bits (kernel/fs/coredump.h), in hex. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/coredump.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "mm/mm_types.h"

static long coredump_filter_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct task_struct *task = proc_task(f->f_inode);
	char text[24];
	size_t len;

	if (!task)
		return -ESRCH;
	if (!task->mm)
		return 0; /* a kernel thread or a zombie: no memory, an empty file */
	len = (size_t)snprintf(text, sizeof(text), "%08lx\n", task->mm->coredump_filter);
	n = *pos < len ? MIN(n, len - *pos) : 0;
	if (copy_to_user(ubuf, text + *pos, n))
		return -EFAULT;
	*pos += n;
	return (long)n;
}

static int digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return 99;
}

/* An unsigned int as kstrtouint(s, 0) reads it: "0x" hex, "0" octal or decimal, an optional
 * newline at the end and nothing else (a leading '+' allowed). 0, -EINVAL or -ERANGE. */
static int kstrtouint0(const char *s, unsigned int *res)
{
	unsigned int base = 10, n = 0;
	uint64_t v = 0;
	int d;

	if (*s == '+')
		s++;
	if (s[0] == '0' && (s[1] | 0x20) == 'x' && digit(s[2]) < 16)
		base = 16, s += 2;
	else if (s[0] == '0')
		base = 8;
	for (; (d = digit(*s)) < (int)base; s++, n++) {
		v = v * base + (unsigned int)d;
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	if (!n || (*s == '\n' ? s[1] : *s))
		return -EINVAL;
	*res = (unsigned int)v;
	return 0;
}

/* The bits past the known ones are dropped; the whole write is taken. */
static long coredump_filter_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct task_struct *task = proc_task(f->f_inode);
	char buf[24] = { 0 };
	unsigned int val;
	int err;

	(void)pos;
	if (n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	err = kstrtouint0(buf, &val);
	if (err)
		return err;
	if (!task)
		return -ESRCH;
	if (task->mm)
		task->mm->coredump_filter = val & ((1UL << MMF_DUMP_FILTER_BITS) - 1);
	return (long)n;
}

const struct file_operations proc_coredump_filter_operations = {
	.read = coredump_filter_read,
	.write = coredump_filter_write,
};
