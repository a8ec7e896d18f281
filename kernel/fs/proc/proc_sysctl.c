/* /proc/sys: the kernel's tunables as files (Linux's fs/proc/proc_sysctl.c). Reading one gives
 * its value and a newline; writing a number in its range sets it (proc_dointvec_minmax). Under
 * vm/: faulttrace (1 prints a line per page fault, mm/fault.c, as the boot parameter does),
 * page-cluster (swap-in readahead reads 2^N slots, 0 turns it off: mm/swapfile.c), and the
 * periodic writeback's dirty_writeback_centisecs and dirty_expire_centisecs, and dirty_ratio
 * (mm/pdflush.c), and max_map_count (the most VMAs a process may have, mm/mmap.c). Under kernel/:
 * pid_max and threads-max (kernel/process/pid.c, fork.c), tainted (kernel/panic.c: a write
 * adds flags, as Linux's proc_taint); under fs/: nr_open (the highest
 * RLIMIT_NOFILE, kernel/fs/fdtable.c) and mqueue/'s limits of the message queues
 * (kernel/ipc/mqueue.c). */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/ipc/mqueue.h"
#include "kernel/process/pid.h"
#include "kernel/sched/sched.h"
#include "kernel/lib/string.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "mm/fault.h"
#include "mm/filemap.h"
#include "mm/vma.h"
#include "mm/swap.h"

/* One tunable: an int in [min, max], the variable data (Linux's ctl_table) or behind a getter
 * and a setter. */
struct ctl_int {
	const char *name;
	int (*get)(void);
	void (*set)(int value);
	int min, max;
	int *data;
};

static int ctl_get(const struct ctl_int *c)
{
	return c->data ? READ_ONCE(*c->data) : c->get();
}

static void ctl_set(const struct ctl_int *c, int value)
{
	if (c->data)
		WRITE_ONCE(*c->data, value);
	else
		c->set(value);
}

static int get_faulttrace(void)
{
	return faulttrace_enabled();
}

static void put_faulttrace(int on)
{
	set_faulttrace(on);
}

static int get_dirty_writeback(void)
{
	return READ_ONCE(dirty_writeback_centisecs);
}

static int get_dirty_expire(void)
{
	return READ_ONCE(dirty_expire_centisecs);
}

static void put_dirty_expire(int cs)
{
	WRITE_ONCE(dirty_expire_centisecs, cs);
}

static int get_dirty_ratio(void)
{
	return READ_ONCE(vm_dirty_ratio);
}

static void put_dirty_ratio(int ratio)
{
	WRITE_ONCE(vm_dirty_ratio, ratio);
}

static int get_tainted(void)
{
	return READ_ONCE(tainted_mask);
}

/* Linux's proc_taint: a write adds its bits; none is ever taken away */
static void put_tainted(int mask)
{
	for (unsigned int bit = 0; bit < 31; bit++)
		if (mask & (1 << bit))
			add_taint(bit);
}

static const struct ctl_int kernel_table[] = {
	{ "pid_max", .min = PID_MAX_MIN, .max = PID_MAX_LIMIT, .data = &pid_max },
	{ "tainted", get_tainted, put_tainted, 0, INT32_MAX, NULL },
	{ "threads-max", .min = 1, .max = MAX_THREADS, .data = &max_threads },
};

/* Linux's bounds: a word of bits, and what an array of pointers indexed by an int can be. */
static const struct ctl_int fs_table[] = {
	{ "nr_open", .min = 64, .max = INT32_MAX & ~63, .data = (int *)&sysctl_nr_open },
};

/* fs/mqueue (kernel/ipc/mqueue.c): Linux's bounds (ipc/mq_sysctl.c); queues_max has none. */
static const struct ctl_int mqueue_table[] = {
	{ "msg_default", .min = MIN_MSGMAX, .max = HARD_MSGMAX, .data = &mq_msg_default },
	{ "msg_max", .min = MIN_MSGMAX, .max = HARD_MSGMAX, .data = &mq_msg_max },
	{ "msgsize_default", .min = MIN_MSGSIZEMAX, .max = HARD_MSGSIZEMAX,
	  .data = &mq_msgsize_default },
	{ "msgsize_max", .min = MIN_MSGSIZEMAX, .max = HARD_MSGSIZEMAX, .data = &mq_msgsize_max },
	{ "queues_max", .min = INT32_MIN, .max = INT32_MAX, .data = &mq_queues_max },
};

static const struct ctl_int vm_table[] = {
	{ "dirty_expire_centisecs", get_dirty_expire, put_dirty_expire, 0, INT32_MAX, NULL },
	{ "dirty_ratio", get_dirty_ratio, put_dirty_ratio, 0, 100, NULL },
	{ "dirty_writeback_centisecs", get_dirty_writeback, pdflush_set_interval, 0, INT32_MAX,
	  NULL },
	{ "faulttrace", get_faulttrace, put_faulttrace, 0, 1, NULL },
	{ "max_map_count", .min = 0, .max = INT32_MAX, .data = &sysctl_max_map_count },
	/* today's Linux's cap */
	{ "page-cluster", get_page_cluster, set_page_cluster, 0, 31, NULL },
};

/* The value now, as text from *pos on: each read asks again, as Linux's proc_dointvec. */
static long sysctl_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	const struct ctl_int *c = f->f_inode->i_private;
	char text[16];
	uint64_t len = (uint64_t)snprintf(text, sizeof(text), "%d\n", ctl_get(c));

	n = *pos < len ? MIN(n, len - *pos) : 0;
	if (copy_to_user(ubuf, text + *pos, n))
		return -EFAULT;
	*pos += n;
	return (long)n;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* A write of one decimal number in the range (white space around it allowed, as
 * proc_dointvec skips it) sets the value; anything else is EINVAL. The whole write is taken. */
static long sysctl_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	const struct ctl_int *c = f->f_inode->i_private;
	char buf[24];
	size_t k = 0, len = MIN(n, sizeof(buf) - 1), digits = 0;
	bool neg = false;
	long value = 0;

	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	while (k < len && is_blank(buf[k]))
		k++;
	if (k < len && buf[k] == '-')
		neg = true, k++;
	for (; k < len && buf[k] >= '0' && buf[k] <= '9' && digits < 10; k++, digits++)
		value = value * 10 + (buf[k] - '0');
	while (k < len && is_blank(buf[k]))
		k++;
	if (!digits || k != len)
		return -EINVAL;
	value = neg ? -value : value;
	if (value < c->min || value > c->max)
		return -EINVAL;
	ctl_set(c, (int)value);
	*pos += n;
	return (long)n;
}

static const struct file_operations sysctl_operations = {
	.read = sysctl_read,
	.write = sysctl_write,
};

/* A directory of /proc/sys (or of one of its directories) with the n tunables of table: the
 * directory, or NULL. */
static struct inode *add_table(struct inode *parent, const char *name,
			       const struct ctl_int *table, size_t n)
{
	struct inode *dir = proc_add(parent, name, S_IFDIR | 0555, NULL);

	if (!dir)
		return NULL;
	for (size_t k = 0; k < n; k++) {
		struct inode *i = proc_add(dir, table[k].name, S_IFREG | 0644, &sysctl_operations);

		if (!i)
			return NULL;
		i->i_private = (void *)&table[k];
	}
	return dir;
}

int proc_sys_init(struct inode *root)
{
	struct inode *sys = proc_add(root, "sys", S_IFDIR | 0555, NULL), *fs;

	if (!sys || !(fs = add_table(sys, "fs", fs_table, ARRAY_SIZE(fs_table))) ||
	    !add_table(fs, "mqueue", mqueue_table, ARRAY_SIZE(mqueue_table)) ||
	    !add_table(sys, "kernel", kernel_table, ARRAY_SIZE(kernel_table)) ||
	    !add_table(sys, "vm", vm_table, ARRAY_SIZE(vm_table)))
		return -ENOMEM;
	return 0;
}
