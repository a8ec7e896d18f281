/* System call dispatch: Linux x86-64 numbers and register convention (number in %rax,
 * arguments in %rdi %rsi %rdx %r10 %r8 %r9, result in %rax, -errno on failure), the table made
 * from kernel/arch/syscall_64.tbl (docs/syscalls.md), and the small calls that need no file of
 * their own. */
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/printk/printk.h"
#include "kernel/time/time.h"
#include "kernel/arch/uaccess.h"
#include "kernel/process/clone.h"
#include "kernel/process/rusage.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/segment.h"
#include "kernel/signal/signal.h"
#include "kernel/lib/string.h"
#include "kernel/syscall.h"
#include "kernel/syscalls.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/arch/x86.h"
#include "mm/mm_types.h"

extern char syscall_entry[];

long sys_open(uint64_t upath, uint64_t flags, uint64_t mode)
{
	return sys_openat(AT_FDCWD, upath, flags, mode);
}

long sys_creat(uint64_t upath, uint64_t mode)
{
	return sys_openat(AT_FDCWD, upath, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

long sys_arch_prctl(uint64_t code, uint64_t addr)
{
	uint64_t fs;

	switch (code) {
	case ARCH_SET_FS:
		if (!access_ok(addr, 0))
			return -EPERM;
		wrmsr(MSR_FS_BASE, addr);
		return 0;
	case ARCH_GET_FS:
		fs = rdmsr(MSR_FS_BASE);
		return copy_to_user(addr, &fs, sizeof(fs));
	}
	return -EINVAL;
}

long sys_uname(uint64_t ubuf)
{
	/* The system is Linux to programs (sysname: some refuse to run on anything else); the
	 * release names the Linux ABI level followed (docs/processes.md), which programs compare
	 * with the kernel they need (glibc's static start-up refuses a too-old one), and its
	 * "-faultline" says which kernel this is, as a distribution's kernels name themselves. */
	static const char fields[6][65] = { "Linux", UTS_NODENAME, "6.18.0-faultline", "#1",
					    "x86_64", "(none)" };

	return copy_to_user(ubuf, fields, sizeof(fields));
}

/* The clocks faultline keeps, all advanced by the timer tick (10 ms): REALTIME, MONOTONIC,
 * the process's and the thread's CPU time, MONOTONIC_RAW,
 * REALTIME_COARSE, MONOTONIC_COARSE, BOOTTIME. Any other id is -EINVAL. */
static bool clock_known(uint64_t clk)
{
	return clk <= 7;
}

long sys_clock_gettime(uint64_t clk, uint64_t uts)
{
	struct timespec64 now;
	struct rusage_acct u = { current->utime, current->stime, 0, 0, 0, 0, 0 };

	if (!clock_known(clk))
		return -EINVAL;
	if (clk == 2) /* PROCESS_CPUTIME_ID: every thread's; THREAD_CPUTIME_ID the caller's */
		acct_group(current, &u);
	if (clk == 0 || clk == 5)
		ktime_get_real_ts64(&now);
	else if (clk == 2 || clk == 3)
		now = (struct timespec64){ (int64_t)((u.utime + u.stime) / HZ),
					   (long)((u.utime + u.stime) % HZ) * (1000000000L / HZ) };
	else
		ktime_get_ts64(&now);
	return copy_to_user(uts, &now, sizeof(now));
}

/* clock_getres: every clock moves in whole ticks, so its resolution is one tick (Linux,
 * with high-resolution timers, says 1 ns for most; programs use it only as an upper bound). */
long sys_clock_getres(uint64_t clk, uint64_t ures)
{
	struct timespec64 res = { 0, 1000000000L / HZ };

	if (!clock_known(clk))
		return -EINVAL;
	if (ures && copy_to_user(ures, &res, sizeof(res)))
		return -EFAULT;
	return 0;
}

/* Sleep until jiffies reaches until. A signal ends it early: the time left goes to *urem
 * (when given) and restart_syscall, if no handler runs, sleeps the rest (as Linux's
 * -ERESTART_RESTARTBLOCK); with a handler the call gives -EINTR. */
static long nanosleep_restart(struct restart_block *rb);

static long do_nanosleep(uint64_t until, uint64_t urem)
{
	struct restart_block *rb = &current->sigstate.restart_block;
	uint64_t left = until > jiffies ? until - jiffies : 0;

	current->state = TASK_INTERRUPTIBLE;
	if (left && !signal_pending(current))
		left = schedule_timeout(left);
	current->state = TASK_RUNNING;
	if (!left)
		return 0;
	if (urem) {
		int64_t rem[2] = { (int64_t)(left / HZ), (int64_t)(left % HZ) * (1000000000 / HZ) };

		if (copy_to_user(urem, rem, sizeof(rem)))
			return -EFAULT;
	}
	rb->fn = nanosleep_restart;
	rb->expires = until;
	rb->urem = urem;
	return -ERESTART_RESTARTBLOCK;
}

static long nanosleep_restart(struct restart_block *rb)
{
	return do_nanosleep(rb->expires, rb->urem);
}

/* A timespec as ticks, rounded up (a sleep never ends early); -EFAULT or -EINVAL. */
static long timespec_ticks(uint64_t uts, uint64_t *ticks)
{
	int64_t ts[2];

	if (copy_from_user(ts, uts, sizeof(ts)))
		return -EFAULT;
	if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	*ticks = (uint64_t)ts[0] * HZ + ((uint64_t)ts[1] + 1000000000 / HZ - 1) / (1000000000 / HZ);
	return 0;
}

long sys_nanosleep(uint64_t ureq, uint64_t urem)
{
	uint64_t ticks;
	long err = timespec_ticks(ureq, &ticks);

	if (err)
		return err;
	return do_nanosleep(jiffies + ticks + 1, urem); /* +1: this tick is partly gone */
}

#define TIMER_ABSTIME 1

/* MONOTONIC and BOOTTIME count from boot, REALTIME from the RTC's time at boot
 * (kernel/time/time.c); an absolute sleep is not "restarted with the time left" but simply runs
 * again (-ERESTARTNOHAND). */
long sys_clock_nanosleep(uint64_t clk, uint64_t flags, uint64_t ureq, uint64_t urem)
{
	uint64_t ticks;
	long err;

	if (clk != 0 && clk != 1 && clk != 7) /* REALTIME MONOTONIC BOOTTIME */
		return -EINVAL;
	err = timespec_ticks(ureq, &ticks);
	if (err)
		return err;
	if (!(flags & TIMER_ABSTIME))
		return do_nanosleep(jiffies + ticks + 1, urem);
	if (clk == 0)
		ticks = realtime_ticks_to_jiffies(ticks);
	err = do_nanosleep(ticks, 0);
	return err == -ERESTART_RESTARTBLOCK ? -ERESTARTNOHAND : err;
}

/* time(tloc): seconds since boot (there is no real-time clock driver yet). */
long sys_time(uint64_t utloc)
{
	struct timespec64 now;

	ktime_get_real_ts64(&now);
	if (utloc && copy_to_user(utloc, &now.tv_sec, sizeof(now.tv_sec)))
		return -EFAULT;
	return now.tv_sec;
}

#define PR_SET_PDEATHSIG 1
#define PR_GET_PDEATHSIG 2
#define PR_GET_DUMPABLE 3
#define PR_SET_DUMPABLE 4
#define PR_SET_NAME 15
#define PR_GET_NAME 16
#define PR_SET_TIMERSLACK 29
#define PR_GET_TIMERSLACK 30

/* prctl: the process name (what messages and /proc would show), whether the process is
 * dumpable (0 or 1: whether it dumps core, kernel/fs/coredump.c, and another user's
 * process_vm_readv may read it, mm/mm_types.h), the signal it gets when its parent thread
 * exits (kernel/process/exit.c), its timer slack. */
long sys_prctl(uint64_t option, uint64_t arg2)
{
	char name[TASK_COMM_LEN];
	int sig;
	long n;

	switch (option) {
	case PR_SET_NAME:
		n = strncpy_from_user(name, arg2, sizeof(name));
		if (n < 0)
			return n;
		name[sizeof(name) - 1] = '\0';
		memcpy(current->comm, name, sizeof(name));
		return 0;
	case PR_GET_NAME:
		return copy_to_user(arg2, current->comm, sizeof(current->comm));
	case PR_SET_PDEATHSIG:
		if (arg2 > NSIG) /* (0 turns it off) */
			return -EINVAL;
		current->pdeath_signal = (int)arg2;
		return 0;
	case PR_GET_PDEATHSIG:
		sig = current->pdeath_signal;
		return copy_to_user(arg2, &sig, sizeof(sig));
	case PR_SET_TIMERSLACK: /* 0: back to the default */
		current->timer_slack_ns = arg2 ? arg2 : current->default_timer_slack_ns;
		return 0;
	case PR_GET_TIMERSLACK:
		return (long)MIN(current->timer_slack_ns, (uint64_t)INT64_MAX);
	case PR_GET_DUMPABLE:
		return current->mm ? current->mm->dumpable : 0;
	case PR_SET_DUMPABLE:
		if (arg2 > 1)
			return -EINVAL;
		if (current->mm)
			current->mm->dumpable = (int)arg2;
		return 0;
	}
	return -EINVAL;
}

/* getpid is the thread group's id; gettid the thread's own. */
long sys_getpid(void)
{
	return current->tgid;
}

long sys_gettid(void)
{
	return current->pid;
}

long sys_getppid(void)
{
	return current->parent ? current->parent->tgid : 0;
}

long sys_sched_yield(void)
{
	sched_yield();
	return 0;
}

/* exit ends the calling thread, exit_group every thread of its process. */
long sys_exit(uint64_t code)
{
	do_exit((int)(code & 0xff) << 8);
}

long sys_exit_group(uint64_t code)
{
	do_group_exit((int)(code & 0xff) << 8);
}

long sys_fork(void)
{
	return do_fork(task_pt_regs(current), NULL);
}

/* vfork: the child shares the memory and the caller sleeps until it execs or exits. */
long sys_vfork(void)
{
	struct kernel_clone_args args = { .flags = CLONE_VFORK | CLONE_VM | SIGCHLD };

	return do_fork(task_pt_regs(current), &args);
}

/* set_tid_address(tidptr): at this thread's exit, 0 at tidptr and a futex wake there
 * (what CLONE_CHILD_CLEARTID sets at clone); returns the thread id. */
long sys_set_tid_address(uint64_t tidptr)
{
	current->clear_child_tid = tidptr;
	return current->pid;
}

typedef long (*syscall_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

struct syscall {
	syscall_fn fn;
	const char *name; /* for a reader in gdb: p sys_call_table[regs->rax].name */
};

/* The numbers kernel/arch/syscall_64.tbl gives no entry point: -ENOSYS with a console line
 * (report_unknown_syscall). Its entry point sys_ni_syscall is the same answer without the
 * line, for a call libc tries and does without. */
long sys_ni_syscall(void)
{
	return -ENOSYS;
}

/* Every handler takes the arguments it needs; the others stay in registers unread (the
 * System V calling convention makes that safe, as Linux's sys_call_table relies on). */
#define __SYSCALL(nr, name, entry, args) [nr] = { (syscall_fn)(void (*)(void))entry, #name },

static const struct syscall sys_call_table[] = {
#include "build/gen/syscalls_64.h"
};

#undef __SYSCALL

/* A line for each of a process's first few unknown calls, then one saying that the rest go
 * unreported: a fuzzer's thousands would flood the console, and draw every line on the
 * framebuffer, for nothing a reader of the log needs. */
#define UNKNOWN_SYSCALL_REPORTS 8
static void report_unknown_syscall(uint64_t nr)
{
	int n = current->signal->unknown_syscalls++;

	if (n < UNKNOWN_SYSCALL_REPORTS)
		printk("syscall: pid %d (%s) called unknown system call %lu: -ENOSYS\n",
		       current->pid, current->comm, nr);
	else if (n == UNKNOWN_SYSCALL_REPORTS)
		printk("syscall: pid %d (%s): its further unknown system calls go unreported\n",
		       current->pid, current->comm);
}

long do_syscall(struct pt_regs *regs)
{
	uint64_t nr = regs->rax;
	long ret;

	/* Every system call runs under the big kernel lock: the VFS, the process and signal
	 * lists and the ttys assume one CPU at a time (docs/locking.md). */
	lock_kernel();
	if (nr < ARRAY_SIZE(sys_call_table) && sys_call_table[nr].fn) {
		ret = sys_call_table[nr].fn(regs->rdi, regs->rsi, regs->rdx, regs->r10, regs->r8,
					    regs->r9);
	} else {
		report_unknown_syscall(nr);
		ret = -ENOSYS;
	}
	regs->rax = (uint64_t)ret;
	/* A restart code must not reach user space even if its signal is gone by now (ignored
	 * meanwhile), and rt_sigsuspend's mask must come back: do_signal sees to both. */
	if ((ret >= -ERESTART_RESTARTBLOCK && ret <= -ERESTARTSYS) ||
	    current->sigstate.restore_sigmask)
		do_signal(regs);
	unlock_kernel();
	exit_to_user_mode_prepare(regs);
	return ret;
}

void syscall_init(void)
{
	/* The x86-64 ABI promises user code SSE: CR0.MP on, CR0.EM off, CR4.OSFXSR and
	 * OSXMMEXCPT on. Each task's x87/SSE registers are saved at every switch. */
	asm volatile("mov %%cr0, %%rax; and $~4, %%rax; or $2, %%rax; mov %%rax, %%cr0\n\t"
		     "mov %%cr4, %%rax; or $0x600, %%rax; mov %%rax, %%cr4" ::: "rax", "memory");
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | 1); /* SCE: enable syscall/sysret */
	/* STAR: kernel CS in 47:32; user selectors are derived from 63:48 (user32 CS). */
	wrmsr(0xc0000081, ((uint64_t)__USER32_CS << 48) | ((uint64_t)__KERNEL_CS << 32));
	wrmsr(0xc0000082, (uint64_t)syscall_entry); /* LSTAR */
	wrmsr(0xc0000084, 0x47700);                 /* SFMASK: clear IF, TF, DF, AC, NT */
}
