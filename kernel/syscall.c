/* System call dispatch: Linux x86-64 numbers and register convention (number in %rax,
 * arguments in %rdi %rsi %rdx %r10 %r8 %r9, result in %rax, -errno on failure), and the
 * small calls that need no file of their own. */
#include "drivers/console.h"
#include "drivers/random.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/syscalls.h"
#include "kernel/futex.h"
#include "kernel/ipc/shm.h"
#include "kernel/process/pgrp.h"
#include "kernel/printk.h"
#include "kernel/arch/reboot.h"
#include "kernel/process/resource.h"
#include "kernel/time/time.h"
#include "kernel/arch/uaccess.h"
#include "kernel/process/clone.h"
#include "kernel/process/exec.h"
#include "kernel/process/rusage.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/segment.h"
#include "kernel/signal/signal.h"
#include "kernel/lib/string.h"
#include "kernel/syscall.h"
#include "kernel/process/sysinfo.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/arch/x86.h"
#include "mm/introspect.h"
#include "mm/mmap.h"
#include "mm/swap.h"
#include "mm/syscalls.h"

extern char syscall_entry[];

static long sys_open(uint64_t upath, uint64_t flags, uint64_t mode)
{
	return sys_openat(AT_FDCWD, upath, flags, mode);
}

static long sys_creat(uint64_t upath, uint64_t mode)
{
	return sys_openat(AT_FDCWD, upath, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

static long sys_arch_prctl(uint64_t code, uint64_t addr)
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

static long sys_uname(uint64_t ubuf)
{
	/* The release names the Linux ABI level followed (docs/processes.md): programs compare
	 * it with the kernel they need (glibc's static start-up refuses a too-old one). */
	static const char fields[6][65] = { "faultline", "faultline", "6.18.0-faultline", "#1",
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

static long sys_clock_gettime(uint64_t clk, uint64_t uts)
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
static long sys_clock_getres(uint64_t clk, uint64_t ures)
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

static long sys_nanosleep(uint64_t ureq, uint64_t urem)
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
static long sys_clock_nanosleep(uint64_t clk, uint64_t flags, uint64_t ureq, uint64_t urem)
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
static long sys_time(uint64_t utloc)
{
	struct timespec64 now;

	ktime_get_real_ts64(&now);
	if (utloc && copy_to_user(utloc, &now.tv_sec, sizeof(now.tv_sec)))
		return -EFAULT;
	return now.tv_sec;
}

#define PR_SET_NAME 15
#define PR_GET_NAME 16

/* prctl: only the process name (what messages and /proc would show). */
static long sys_prctl(uint64_t option, uint64_t arg2)
{
	char name[TASK_COMM_LEN];
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
	}
	return -EINVAL;
}

/* getpid is the thread group's id; gettid the thread's own. */
static long sys_getpid(void)
{
	return current->tgid;
}

static long sys_gettid(void)
{
	return current->pid;
}

static long sys_getppid(void)
{
	return current->parent ? current->parent->tgid : 0;
}

static long sys_sched_yield(void)
{
	schedule();
	return 0;
}

/* exit ends the calling thread, exit_group every thread of its process. */
static long sys_exit(uint64_t code)
{
	do_exit((int)(code & 0xff) << 8);
}

static long sys_exit_group(uint64_t code)
{
	do_group_exit((int)(code & 0xff) << 8);
}

static long sys_fork(void)
{
	return do_fork(task_pt_regs(current), NULL);
}

/* vfork: the child shares the memory and the caller sleeps until it execs or exits. */
static long sys_vfork(void)
{
	struct kernel_clone_args args = { .flags = CLONE_VFORK | CLONE_VM | SIGCHLD };

	return do_fork(task_pt_regs(current), &args);
}

/* set_tid_address(tidptr): at this thread's exit, 0 at tidptr and a futex wake there
 * (what CLONE_CHILD_CLEARTID sets at clone); returns the thread id. */
static long sys_set_tid_address(uint64_t tidptr)
{
	current->clear_child_tid = tidptr;
	return current->pid;
}

#define SYS_rseq 334

typedef long (*syscall_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

struct syscall {
	syscall_fn fn;
	const char *name;
};

/* Every handler takes the arguments it needs; the others stay in registers unread (the
 * System V calling convention makes that safe, as Linux's sys_call_table relies on). */
#define SYSCALL(nr, name, fn) [nr] = { (syscall_fn)(void (*)(void))(fn), name }

static const struct syscall sys_call_table[] = {
	SYSCALL(0, "read", sys_read),
	SYSCALL(1, "write", sys_write),
	SYSCALL(2, "open", sys_open),
	SYSCALL(3, "close", sys_close),
	SYSCALL(4, "stat", sys_stat),
	SYSCALL(5, "fstat", sys_fstat),
	SYSCALL(6, "lstat", sys_lstat),
	SYSCALL(8, "lseek", sys_lseek),
	SYSCALL(9, "mmap", sys_mmap),
	SYSCALL(10, "mprotect", sys_mprotect),
	SYSCALL(11, "munmap", sys_munmap),
	SYSCALL(12, "brk", sys_brk),
	SYSCALL(25, "mremap", sys_mremap),
	SYSCALL(26, "msync", sys_msync),
	SYSCALL(28, "madvise", sys_madvise),
	SYSCALL(27, "mincore", sys_mincore),
	SYSCALL(149, "mlock", sys_mlock),
	SYSCALL(150, "munlock", sys_munlock),
	SYSCALL(151, "mlockall", sys_mlockall),
	SYSCALL(152, "munlockall", sys_munlockall),
	SYSCALL(325, "mlock2", sys_mlock2),
	SYSCALL(13, "rt_sigaction", sys_rt_sigaction),
	SYSCALL(14, "rt_sigprocmask", sys_rt_sigprocmask),
	SYSCALL(15, "rt_sigreturn", sys_rt_sigreturn),
	SYSCALL(16, "ioctl", sys_ioctl),
	SYSCALL(17, "pread64", sys_pread64),
	SYSCALL(18, "pwrite64", sys_pwrite64),
	SYSCALL(20, "writev", sys_writev),
	SYSCALL(24, "sched_yield", sys_sched_yield),
	SYSCALL(32, "dup", sys_dup),
	SYSCALL(33, "dup2", sys_dup2),
	SYSCALL(34, "pause", sys_pause),
	SYSCALL(35, "nanosleep", sys_nanosleep),
	SYSCALL(36, "getitimer", sys_getitimer),
	SYSCALL(37, "alarm", sys_alarm),
	SYSCALL(38, "setitimer", sys_setitimer),
	SYSCALL(39, "getpid", sys_getpid),
	SYSCALL(40, "sendfile", sys_sendfile),
	SYSCALL(56, "clone", sys_clone),
	SYSCALL(57, "fork", sys_fork),
	SYSCALL(58, "vfork", sys_vfork),
	SYSCALL(59, "execve", sys_execve),
	SYSCALL(60, "exit", sys_exit),
	SYSCALL(61, "wait4", sys_wait4),
	SYSCALL(62, "kill", sys_kill),
	SYSCALL(63, "uname", sys_uname),
	SYSCALL(72, "fcntl", sys_fcntl),
	SYSCALL(74, "fsync", sys_fsync),
	SYSCALL(75, "fdatasync", sys_fsync),
	SYSCALL(77, "ftruncate", sys_ftruncate),
	SYSCALL(83, "mkdir", sys_mkdir),
	SYSCALL(84, "rmdir", sys_rmdir),
	SYSCALL(85, "creat", sys_creat),
	SYSCALL(87, "unlink", sys_unlink),
	SYSCALL(89, "readlink", sys_readlink),
	SYSCALL(98, "getrusage", sys_getrusage),
	SYSCALL(100, "times", sys_times),
	SYSCALL(102, "getuid", sys_getuid),
	SYSCALL(104, "getgid", sys_getgid),
	SYSCALL(107, "geteuid", sys_geteuid),
	SYSCALL(108, "getegid", sys_getegid),
	SYSCALL(105, "setuid", sys_setuid),
	SYSCALL(106, "setgid", sys_setgid),
	SYSCALL(113, "setreuid", sys_setreuid),
	SYSCALL(114, "setregid", sys_setregid),
	SYSCALL(115, "getgroups", sys_getgroups),
	SYSCALL(116, "setgroups", sys_setgroups),
	SYSCALL(117, "setresuid", sys_setresuid),
	SYSCALL(118, "getresuid", sys_getresuid),
	SYSCALL(119, "setresgid", sys_setresgid),
	SYSCALL(120, "getresgid", sys_getresgid),
	SYSCALL(122, "setfsuid", sys_setfsuid),
	SYSCALL(123, "setfsgid", sys_setfsgid),
	SYSCALL(110, "getppid", sys_getppid),
	SYSCALL(109, "setpgid", sys_setpgid),
	SYSCALL(111, "getpgrp", sys_getpgrp),
	SYSCALL(112, "setsid", sys_setsid),
	SYSCALL(121, "getpgid", sys_getpgid),
	SYSCALL(124, "getsid", sys_getsid),
	SYSCALL(127, "rt_sigpending", sys_rt_sigpending),
	SYSCALL(128, "rt_sigtimedwait", sys_rt_sigtimedwait),
	SYSCALL(129, "rt_sigqueueinfo", sys_rt_sigqueueinfo),
	SYSCALL(130, "rt_sigsuspend", sys_rt_sigsuspend),
	SYSCALL(131, "sigaltstack", sys_sigaltstack),
	SYSCALL(157, "prctl", sys_prctl),
	SYSCALL(158, "arch_prctl", sys_arch_prctl),
	SYSCALL(167, "swapon", sys_swapon),
	SYSCALL(168, "swapoff", sys_swapoff),
	SYSCALL(169, "reboot", sys_reboot),
	SYSCALL(186, "gettid", sys_gettid),
	SYSCALL(200, "tkill", sys_tkill),
	SYSCALL(201, "time", sys_time),
	SYSCALL(96, "gettimeofday", sys_gettimeofday),
	SYSCALL(21, "access", sys_access),
	SYSCALL(82, "rename", sys_rename),
	SYSCALL(88, "symlink", sys_symlink),
	SYSCALL(264, "renameat", sys_renameat),
	SYSCALL(266, "symlinkat", sys_symlinkat),
	SYSCALL(267, "readlinkat", sys_readlinkat),
	SYSCALL(316, "renameat2", sys_renameat2),
	SYSCALL(90, "chmod", sys_chmod),
	SYSCALL(91, "fchmod", sys_fchmod),
	SYSCALL(92, "chown", sys_chown),
	SYSCALL(93, "fchown", sys_fchown),
	SYSCALL(94, "lchown", sys_lchown),
	SYSCALL(95, "umask", sys_umask),
	SYSCALL(99, "sysinfo", sys_sysinfo),
	SYSCALL(137, "statfs", sys_statfs),
	SYSCALL(138, "fstatfs", sys_fstatfs),
	SYSCALL(260, "fchownat", sys_fchownat),
	SYSCALL(268, "fchmodat", sys_fchmodat),
	SYSCALL(269, "faccessat", sys_faccessat),
	SYSCALL(280, "utimensat", sys_utimensat),
	SYSCALL(439, "faccessat2", sys_faccessat2),
	SYSCALL(216, "remap_file_pages", sys_remap_file_pages),
	SYSCALL(217, "getdents64", sys_getdents64),
	SYSCALL(218, "set_tid_address", sys_set_tid_address),
	SYSCALL(219, "restart_syscall", sys_restart_syscall),
	SYSCALL(228, "clock_gettime", sys_clock_gettime),
	SYSCALL(229, "clock_getres", sys_clock_getres),
	SYSCALL(230, "clock_nanosleep", sys_clock_nanosleep),
	SYSCALL(231, "exit_group", sys_exit_group),
	SYSCALL(234, "tgkill", sys_tgkill),
	SYSCALL(247, "waitid", sys_waitid),
	SYSCALL(297, "rt_tgsigqueueinfo", sys_rt_tgsigqueueinfo),
	SYSCALL(257, "openat", sys_openat),
	SYSCALL(258, "mkdirat", sys_mkdirat),
	SYSCALL(262, "newfstatat", sys_newfstatat),
	SYSCALL(263, "unlinkat", sys_unlinkat),
	SYSCALL(292, "dup3", sys_dup3),
	SYSCALL(22, "pipe", sys_pipe),
	SYSCALL(293, "pipe2", sys_pipe2),
	SYSCALL(7, "poll", sys_poll),
	SYSCALL(79, "getcwd", sys_getcwd),
	SYSCALL(80, "chdir", sys_chdir),
	SYSCALL(81, "fchdir", sys_fchdir),
	SYSCALL(23, "select", sys_select),
	SYSCALL(270, "pselect6", sys_pselect6),
	SYSCALL(271, "ppoll", sys_ppoll),
	SYSCALL(273, "set_robust_list", sys_set_robust_list),
	SYSCALL(274, "get_robust_list", sys_get_robust_list),
	SYSCALL(302, "prlimit64", sys_prlimit64),
	SYSCALL(97, "getrlimit", sys_getrlimit),
	SYSCALL(160, "setrlimit", sys_setrlimit),
	SYSCALL(318, "getrandom", sys_getrandom),
	SYSCALL(29, "shmget", sys_shmget),
	SYSCALL(30, "shmat", sys_shmat),
	SYSCALL(31, "shmctl", sys_shmctl),
	SYSCALL(67, "shmdt", sys_shmdt),
	SYSCALL(202, "futex", sys_futex),
	SYSCALL(203, "sched_setaffinity", sys_sched_setaffinity),
	SYSCALL(204, "sched_getaffinity", sys_sched_getaffinity),
	SYSCALL(309, "getcpu", sys_getcpu),
	SYSCALL(SYS_fl_vminfo, "fl_vminfo", sys_fl_vminfo),
};

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
	} else if (nr == SYS_rseq) {
		ret = -ENOSYS; /* not built: libc copes quietly */
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
