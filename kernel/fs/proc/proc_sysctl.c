/* /proc/sys: the kernel's tunables as files (Linux's fs/proc/proc_sysctl.c). Reading one gives
 * its value and a newline; writing a number in its range sets it (proc_dointvec_minmax). Under
 * vm/: faulttrace (1 prints a line per page fault, mm/fault.c, as the boot parameter does),
 * page-cluster (swap-in readahead reads 2^N slots, 0 turns it off: mm/swapfile.c), and the
 * periodic writeback's dirty_writeback_centisecs and dirty_expire_centisecs, and dirty_ratio
 * (mm/pdflush.c), max_map_count (the most VMAs a process may have, mm/mmap.c), and overcommit
 * accounting's overcommit_memory, overcommit_ratio, overcommit_kbytes, user_reserve_kbytes and
 * admin_reserve_kbytes (mm/mman.h; Linux's unsigned longs, here up to INT32_MAX). Under kernel/:
 * pid_max and threads-max (kernel/process/pid.c, fork.c), tainted (kernel/panic.c: a write
 * adds flags, as Linux's proc_taint), core_pattern (a string, as proc_dostring) and
 * core_uses_pid (kernel/fs/coredump.c), shmmax, shmall and shmmni (System V shared memory's
 * limits, kernel/ipc/shm.c), sched_rt_period_us and sched_rt_runtime_us (the real-time
 * bandwidth, kernel/sched/rt.c); under fs/: nr_open (the highest RLIMIT_NOFILE,
 * kernel/fs/fdtable.c), pipe-max-size (F_SETPIPE_SZ's ceiling without CAP_SYS_RESOURCE, rounded
 * up to a power-of-two number of pages: kernel/fs/pipe_fcntl.c), suid_dumpable, inotify/'s
 * three limits (kernel/fs/inotify_user.c) and mqueue/'s limits of the message queues
 * (kernel/ipc/mqueue.c). */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/coredump.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/inotify.h"
#include "kernel/fs/pipe.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/ipc/mqueue.h"
#include "kernel/ipc/shm.h"
#include "kernel/process/pid.h"
#include "kernel/sched/rt.h"
#include "kernel/sched/sched.h"
#include "kernel/lib/string.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "mm/fault.h"
#include "mm/filemap.h"
#include "mm/mman.h"
#include "mm/vma.h"
#include "mm/swap.h"

/* One tunable: an int in [min, max], the variable data (Linux's ctl_table) or behind a getter
 * and a setter; or an unsigned long, any value, the variable ldata (proc_doulongvec_minmax).
 * valid, if there, also checks a value against the other tunables. */
struct ctl_int {
	const char *name;
	int (*get)(void);
	void (*set)(int value);
	int min, max;
	int *data;
	unsigned long *ldata;
	bool (*valid)(int value);
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

/* The real-time runtime may not exceed the period, unless it is -1 (no limit). */
static bool valid_rt_period(int period)
{
	return sched_rt_bandwidth_valid(period, READ_ONCE(sysctl_sched_rt_runtime));
}

static bool valid_rt_runtime(int runtime)
{
	return sched_rt_bandwidth_valid(READ_ONCE(sysctl_sched_rt_period), runtime);
}

/* overcommit_ratio and overcommit_kbytes: writing one sets the other to 0 (Linux's
 * overcommit_ratio_handler and overcommit_kbytes_handler) */
static int get_overcommit_ratio(void)
{
	return READ_ONCE(sysctl_overcommit_ratio);
}

static void put_overcommit_ratio(int ratio)
{
	WRITE_ONCE(sysctl_overcommit_ratio, ratio);
	WRITE_ONCE(sysctl_overcommit_kbytes, 0);
}

static int get_overcommit_kbytes(void)
{
	return (int)READ_ONCE(sysctl_overcommit_kbytes);
}

static void put_overcommit_kbytes(int kbytes)
{
	WRITE_ONCE(sysctl_overcommit_kbytes, (unsigned long)kbytes);
	WRITE_ONCE(sysctl_overcommit_ratio, 0);
}

static int get_user_reserve(void)
{
	return (int)READ_ONCE(sysctl_user_reserve_kbytes);
}

static void put_user_reserve(int kbytes)
{
	WRITE_ONCE(sysctl_user_reserve_kbytes, (unsigned long)kbytes);
}

static int get_admin_reserve(void)
{
	return (int)READ_ONCE(sysctl_admin_reserve_kbytes);
}

static void put_admin_reserve(int kbytes)
{
	WRITE_ONCE(sysctl_admin_reserve_kbytes, (unsigned long)kbytes);
}

static const struct ctl_int kernel_table[] = {
	{ "core_uses_pid", .min = INT32_MIN, .max = INT32_MAX, .data = &core_uses_pid },
	{ "pid_max", .min = PID_MAX_MIN, .max = PID_MAX_LIMIT, .data = &pid_max },
	{ "sched_rt_period_us", .min = 1, .max = INT32_MAX, .data = &sysctl_sched_rt_period,
	  .valid = valid_rt_period },
	{ "sched_rt_runtime_us", .min = -1, .max = INT32_MAX, .data = &sysctl_sched_rt_runtime,
	  .valid = valid_rt_runtime },
	{ "shmall", .ldata = &shm_ctlall },
	{ "shmmax", .ldata = &shm_ctlmax },
	{ "shmmni", .min = 0, .max = IPCMNI, .data = &shm_ctlmni },
	{ "tainted", .get = get_tainted, .set = put_tainted, .min = 0, .max = INT32_MAX },
	{ "threads-max", .min = 1, .max = MAX_THREADS, .data = &max_threads },
};

/* Linux's bounds: a word of bits, and what an array of pointers indexed by an int can be. */
static const struct ctl_int fs_table[] = {
	{ "nr_open", .min = 64, .max = INT32_MAX & ~63, .data = (int *)&sysctl_nr_open },
	{ "pipe-max-size", .get = get_pipe_max_size, .set = set_pipe_max_size, .min = 0,
	  .max = 1 << 30 },
	{ "suid_dumpable", .min = SUID_DUMP_DISABLE, .max = SUID_DUMP_ROOT,
	  .data = &suid_dumpable },
};

/* fs/inotify (kernel/fs/inotify_user.c): Linux's bounds, 0 and INT_MAX */
static const struct ctl_int inotify_table[] = {
	{ "max_queued_events", .min = 0, .max = INT32_MAX, .data = &inotify_max_queued_events },
	{ "max_user_instances", .min = 0, .max = INT32_MAX, .data = &inotify_max_user_instances },
	{ "max_user_watches", .min = 0, .max = INT32_MAX, .data = &inotify_max_user_watches },
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
	{ "admin_reserve_kbytes", .get = get_admin_reserve, .set = put_admin_reserve, .min = 0,
	  .max = INT32_MAX },
	{ "dirty_expire_centisecs", .get = get_dirty_expire, .set = put_dirty_expire, .min = 0,
	  .max = INT32_MAX },
	{ "dirty_ratio", .get = get_dirty_ratio, .set = put_dirty_ratio, .min = 0, .max = 100 },
	{ "dirty_writeback_centisecs", .get = get_dirty_writeback, .set = pdflush_set_interval,
	  .min = 0, .max = INT32_MAX },
	{ "faulttrace", .get = get_faulttrace, .set = put_faulttrace, .min = 0, .max = 1 },
	{ "max_map_count", .min = 0, .max = INT32_MAX, .data = &sysctl_max_map_count },
	{ "overcommit_kbytes", .get = get_overcommit_kbytes, .set = put_overcommit_kbytes, .min = 0,
	  .max = INT32_MAX },
	{ "overcommit_memory", .min = OVERCOMMIT_GUESS, .max = OVERCOMMIT_NEVER,
	  .data = &sysctl_overcommit_memory },
	{ "overcommit_ratio", .get = get_overcommit_ratio, .set = put_overcommit_ratio,
	  .min = INT32_MIN, .max = INT32_MAX },
	/* today's Linux's cap */
	{ "page-cluster", .get = get_page_cluster, .set = set_page_cluster, .min = 0, .max = 31 },
	{ "user_reserve_kbytes", .get = get_user_reserve, .set = put_user_reserve, .min = 0,
	  .max = INT32_MAX },
};

/* The value now, as text from *pos on: each read asks again, as Linux's proc_dointvec. */
static long sysctl_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	const struct ctl_int *c = f->f_inode->i_private;
	char text[24];
	uint64_t len;

	if (c->ldata)
		len = (uint64_t)snprintf(text, sizeof(text), "%lu\n", READ_ONCE(*c->ldata));
	else
		len = (uint64_t)snprintf(text, sizeof(text), "%d\n", ctl_get(c));

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

/* The digits of an unsigned long tunable's write (after the blanks before them), blanks after
 * them allowed: n taken, or -EINVAL (nothing else, or a value past ULONG_MAX). */
static long sysctl_write_ulong(const struct ctl_int *c, const char *buf, size_t len, uint64_t n,
			       uint64_t *pos)
{
	unsigned long value = 0;
	size_t k = 0;

	for (; k < len && buf[k] >= '0' && buf[k] <= '9'; k++) {
		unsigned long d = (unsigned long)(buf[k] - '0');

		if (value > (~0UL - d) / 10)
			return -EINVAL;
		value = value * 10 + d;
	}
	if (!k)
		return -EINVAL;
	while (k < len && is_blank(buf[k]))
		k++;
	if (k != len)
		return -EINVAL;
	WRITE_ONCE(*c->ldata, value);
	*pos += n;
	return (long)n;
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
	if (c->ldata) /* an unsigned long: no sign, no more than fits */
		return neg ? -EINVAL : sysctl_write_ulong(c, buf + k, len - k, n, pos);
	for (; k < len && buf[k] >= '0' && buf[k] <= '9' && digits < 10; k++, digits++)
		value = value * 10 + (buf[k] - '0');
	while (k < len && is_blank(buf[k]))
		k++;
	if (!digits || k != len)
		return -EINVAL;
	value = neg ? -value : value;
	if (value < c->min || value > c->max || (c->valid && !c->valid((int)value)))
		return -EINVAL;
	ctl_set(c, (int)value);
	*pos += n;
	return (long)n;
}

static const struct file_operations sysctl_operations = {
	.read = sysctl_read,
	.write = sysctl_write,
};

/* A string tunable (Linux's proc_dostring): kernel.core_pattern. */
struct ctl_string {
	const char *name;
	char *data;
	size_t maxlen; /* with its NUL */
};

static const struct ctl_string kernel_strings[] = {
	{ "core_pattern", core_pattern, sizeof(core_pattern) },
};

static long sysctl_string_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	const struct ctl_string *c = f->f_inode->i_private;
	char text[CORENAME_MAX_SIZE + 1];
	uint64_t len = (uint64_t)snprintf(text, sizeof(text), "%s\n", c->data);

	n = *pos < len ? MIN(n, len - *pos) : 0;
	if (copy_to_user(ubuf, text + *pos, n))
		return -EFAULT;
	*pos += n;
	return (long)n;
}

/* A write replaces the string with its bytes up to a newline or NUL, cut at maxlen - 1; the
 * whole write is taken. */
static long sysctl_string_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	const struct ctl_string *c = f->f_inode->i_private;
	char buf[CORENAME_MAX_SIZE];
	size_t len = MIN(n, c->maxlen - 1), k = 0;

	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	while (k < len && buf[k] != '\n' && buf[k] != '\0')
		k++;
	memcpy(c->data, buf, k);
	c->data[k] = '\0';
	*pos += n;
	return (long)n;
}

static const struct file_operations sysctl_string_operations = {
	.read = sysctl_string_read,
	.write = sysctl_string_write,
};

/* A directory of /proc/sys (or of one of its directories) with the n tunables of table and the
 * nstr strings of strs: the directory, or NULL without memory. */
static struct inode *add_table(struct inode *parent, const char *name, const struct ctl_int *table,
			       size_t n, const struct ctl_string *strs, size_t nstr)
{
	struct inode *dir = proc_add(parent, name, S_IFDIR | 0555, NULL);

	if (!dir)
		return NULL;
	for (size_t k = 0; k < nstr; k++) {
		struct inode *i = proc_add(dir, strs[k].name, S_IFREG | 0644,
					   &sysctl_string_operations);

		if (!i)
			return NULL;
		i->i_private = (void *)&strs[k];
	}
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
	struct inode *sys = proc_add(root, "sys", S_IFDIR | 0555, NULL);
	struct inode *fs =
		sys ? add_table(sys, "fs", fs_table, ARRAY_SIZE(fs_table), NULL, 0) : NULL;

	if (!fs || !add_table(fs, "inotify", inotify_table, ARRAY_SIZE(inotify_table), NULL, 0) ||
	    !add_table(fs, "mqueue", mqueue_table, ARRAY_SIZE(mqueue_table), NULL, 0) ||
	    !add_table(sys, "kernel", kernel_table, ARRAY_SIZE(kernel_table), kernel_strings,
		       ARRAY_SIZE(kernel_strings)) ||
	    !add_table(sys, "vm", vm_table, ARRAY_SIZE(vm_table), NULL, 0))
		return -ENOMEM;
	return 0;
}
