/* pid 1, the kernel's runner: after the self-tests it runs the programs of runlist=PATH one
 * after another (or init=, default /bin/init), printing one line per program, then ends the
 * boot. It also reaps every orphan handed to it. */
#include "kernel/arch/reboot.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/namei.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/string.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/process/exec.h"
#include "kernel/process/pgrp.h"
#include "kernel/runner.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscall.h"
#include "kernel/syscalls.h"
#include "kernel/test/ktest.h"
#include "kernel/time/time.h"
#include "mm/filemap.h"
#include "mm/filemap_rw.h"
#include "mm/gfp.h"
#include "mm/kcheck.h"
#include "mm/reclaim.h"
#include "mm/slab.h"
#include "mm/swap.h"

#define MAX_ARGS 32
#define LINE_MAX 256
#define RUN_TIMEOUT_DEFAULT 120 /* seconds a runlist= line may take */

static const char *const default_envp[] = { "HOME=/", "PATH=/bin", "TERM=vt100", NULL };

/* Once: guest instructions from the multiboot2 entry to the first entry to ring 3. Under QEMU
 * -icount shift=0 the TSC counts guest instructions, so make bench reports this exactly. */
static void report_boot_cost(void)
{
	extern uint64_t boot_tsc;
	static bool done;
	uint64_t now = rdtsc();

	if (done)
		return;
	done = true;
	printk("boot: tsc %lu at the kernel entry, %lu entering ring 3: %lu cycles\n", boot_tsc,
	       now, now - boot_tsc);
}

/* The first code of a program's task: exec the line's program, then enter ring 3. */
static int run_child(void *arg)
{
	char words[LINE_MAX];
	const char *argv[MAX_ARGS + 1];
	int argc = 0, err;

	strlcpy(words, arg, sizeof(words));
	for (char *p = words; *p && argc < MAX_ARGS;) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ')
			p++;
	}
	argv[argc] = NULL;
	current->files = files_open_console();
	current->fs = fs_alloc_root();
	sys_setsid(); /* each program leads its own session and group, as after a login */
	if (!current->files || !current->fs)
		return 127;
	err = do_execve(argv[0], argv, default_envp);
	if (err) {
		printk("run: %s: cannot run: %s\n", argv[0],
		       err == -ENOENT ? "no such file" : err == -ENOEXEC ? "not a program"
			: err == -EACCES ? "not a regular file" : "out of memory");
		return 127; /* what a shell says for a command it cannot run */
	}
	report_boot_cost();
	unlock_kernel(); /* ring 3 runs without the big kernel lock */
	ret_to_user(task_pt_regs(current));
}

/* A line's time limit in seconds: a leading "timeout=SECONDS " word sets it (and is removed
 * from *line; timeout=0 is none), else def. */
static unsigned long line_timeout(const char **line, unsigned long def)
{
	const char *p = *line;
	unsigned long secs = 0;

	if (strncmp(p, "timeout=", 8))
		return def;
	for (p += 8; *p >= '0' && *p <= '9'; p++)
		secs = secs * 10 + (unsigned long)(*p - '0');
	while (*p == ' ')
		p++;
	*line = p;
	return secs;
}

/* SIGKILL to everything a timed-out program left: its session (it leads one) and every
 * orphan handed to pid 1 (which may have left the session). */
static void kill_leftovers(int sid)
{
	struct list_head *pos;

	list_for_each(pos, &all_tasks) {
		struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t != current && t->state != EXIT_ZOMBIE &&
		    (t->session == sid || t->parent == current))
			send_sig(SIGKILL, t);
	}
}

/* Run one line to its end, or to its time limit (default_secs unless the line sets one; 0:
 * none); print its result. Returns its wait status (SIGKILL's when the time ran out). */
int run_line(const char *line, unsigned long default_secs)
{
	const char *prog = line;
	unsigned long secs = line_timeout(&prog, default_secs);
	uint64_t deadline = secs ? jiffies + secs * HZ : 0;
	struct task_struct *t = kernel_thread(run_child, (void *)prog, "run");
	int status = 0, tpid;
	long pid;

	if (!t) {
		printk("run: %s: cannot run: no task slot or memory\n", line);
		return 127 << 8;
	}
	tpid = t->pid;
	do {
		pid = do_wait4_deadline(-1, &status, 0, deadline); /* orphans come back too */
	} while (pid > 0 && pid != tpid);
	/* A program has ended when its orphans have too: only then are its frames all back. */
	while (pid > 0)
		pid = do_wait4_deadline(-1, &(int){ 0 }, 0, deadline);
	if (pid == 0) { /* the time is up */
		kill_leftovers(tpid);
		/* SIGKILL ends them at their next return to ring 3 or interruptible sleep */
		for (int s; do_wait4_deadline(-1, &s, 0, jiffies + 10 * HZ) > 0;)
			;
		printk("run: %s: timed out after %lu s\n", line, secs);
		return SIGKILL;
	}
	if (status & 0x7f)
		printk("run: %s: killed by %s\n", line, signal_name(status & 0x7f));
	else
		printk("run: %s: exit %d\n", line, (status >> 8) & 0xff);
	return status;
}

/* Run every non-empty line of the ramdisk file path. Returns how many did not exit 0. */
static int run_list(const char *path)
{
	static char line[LINE_MAX];
	struct inode *ino;
	int bad = 0;
	bool stats = cmdline_has("runstats"), check = cmdline_has("kcheck");
	char *list;
	long size;

	if (path_lookup(path, &ino) || !S_ISREG(ino->i_mode)) {
		printk("run: %s: no such file in the ramdisk\n", path);
		return 1;
	}
	list = kmalloc(ino->i_size + 1);
	size = list ? kernel_read(ino, 0, list, ino->i_size) : -ENOMEM;
	if (size < 0) {
		printk("run: %s: cannot read it (%ld)\n", path, size);
		kfree(list);
		return 1;
	}
	for (uint64_t pos = 0; pos < (uint64_t)size;) {
		uint64_t len = 0, before;

		reclaim_settle();
		before = nr_free_pages() + nr_pagecache;

		while (pos + len < (uint64_t)size && list[pos + len] != '\n')
			len++;
		memcpy(line, list + pos, MIN(len, sizeof(line) - 1));
		line[MIN(len, sizeof(line) - 1)] = '\0';
		pos += len + 1;
		for (char *p = line + strlen(line); p > line && (p[-1] == ' ' || p[-1] == '\r');)
			*--p = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		bad += run_line(line, (unsigned long)cmdline_get_long("runtimeout",
								     RUN_TIMEOUT_DEFAULT)) != 0;
		if (stats) {
			reclaim_settle();
			printk("frames: %lu free or cached before, %lu after\n", before,
			       nr_free_pages() + nr_pagecache);
		}
		if (check && kcheck()) /* (after the count: kcheck's own buffer is freed by then) */
			bad++;
	}
	kfree(list);
	printk("run: done\n");
	return bad;
}

int kernel_init(void *unused)
{
	char arg[128];
	int bad;

	(void)unused;
	/* kmain makes kswapd after this task: on several CPUs it may still be at it, and its
	 * frames would go missing from the first program's count. */
	kswapd_wait_started();
	if (ktest_run())
		return 0;
	swap_setup_boot(); /* the first disk with a swap signature (docs/swap.md) */
	if (cmdline_get("runlist", arg, sizeof(arg))) {
		qemu_exit_enabled = true;
		bad = run_list(arg);
		printk("faultline: boot complete\n");
		qemu_exit(bad ? QEMU_EXIT_FAILURE : QEMU_EXIT_SUCCESS);
	} else {
		if (!cmdline_get("init", arg, sizeof(arg)))
			strlcpy(arg, "/bin/init", sizeof(arg));
		for (char *p = arg; *p; p++) /* init=PROG,ARG: commas separate the arguments */
			if (*p == ',')
				*p = ' ';
		run_line(arg, 0); /* an interactive program has no time limit */
		printk("faultline: boot complete\n");
		qemu_exit(QEMU_EXIT_SUCCESS);
	}
	/* Still running: no isa-debug-exit device (real hardware), or qemu_exit not asked for.
	 * By default the machine stays on, so a lab PC keeps its results on the screen;
	 * the poweroff parameter turns it off through ACPI instead (halting if that fails). */
	if (cmdline_has("poweroff")) {
		printk("faultline: done; powering off (kernel parameter poweroff)\n");
		kernel_power_off();
	}
	if (qemu_exit_enabled)
		printk("faultline: done; no isa-debug-exit device here, so the machine stays on\n");
	for (;;) { /* pid 1 never exits: it reaps orphans until the machine stops */
		if (do_wait4(-1, &bad, 0) < 0) {
			current->state = TASK_INTERRUPTIBLE;
			schedule_timeout(HZ);
		}
	}
}
