/* System call dispatch: Linux x86-64 numbers and register convention (number in %rax,
 * arguments in %rdi %rsi %rdx %r10 %r8 %r9, result in %rax, -errno on failure). This is the
 * first handful; issue 3 fills in the rest. */
#include "drivers/console.h"
#include "drivers/pic.h"
#include "kernel/errno.h"
#include "kernel/file.h"
#include "kernel/printk.h"
#include "kernel/uaccess.h"
#include "kernel/user.h"
#include "kernel/x86.h"

#define SYS_read 0
#define SYS_write 1
#define SYS_open 2
#define SYS_close 3
#define SYS_fstat 5
#define SYS_lseek 8
#define SYS_sched_yield 24
#define SYS_nanosleep 35
#define SYS_prlimit64 302
#define SYS_getrandom 318
#define SYS_openat 257
#define SYS_ioctl 16
#define SYS_writev 20
#define SYS_getpid 39
#define SYS_exit 60
#define SYS_uname 63
#define SYS_getuid 102
#define SYS_getgid 104
#define SYS_geteuid 107
#define SYS_getegid 108
#define SYS_getppid 110
#define SYS_arch_prctl 158
#define SYS_set_tid_address 218
#define SYS_exit_group 231
#define SYS_clock_gettime 228
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

/* Write n bytes of user memory at ubuf to the console, a chunk at a time. */
static long console_write_user(uint64_t ubuf, uint64_t n)
{
	char chunk[256];
	uint64_t done = 0;

	if (!access_ok(ubuf, n))
		return -EFAULT;
	while (done < n) {
		size_t c = MIN(n - done, sizeof(chunk));

		if (copy_from_user(chunk, ubuf + done, c))
			return done ? (long)done : -EFAULT;
		console_write(chunk, c);
		done += c;
	}
	return (long)done;
}

static long sys_write(uint64_t fd, uint64_t ubuf, uint64_t n)
{
	if (!file_is_console(fd))
		return -EBADF;
	return console_write_user(ubuf, n);
}

static long sys_writev(uint64_t fd, uint64_t uiov, uint64_t cnt)
{
	struct {
		uint64_t base, len;
	} iov;
	long total = 0, r;

	if (!file_is_console(fd))
		return -EBADF;
	if (cnt > 1024)
		return -EINVAL;
	for (uint64_t i = 0; i < cnt; i++) {
		if (copy_from_user(&iov, uiov + i * sizeof(iov), sizeof(iov)))
			return -EFAULT;
		r = console_write_user(iov.base, iov.len);
		if (r < 0)
			return total ? total : r;
		total += r;
	}
	return total;
}

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
	static const char fields[6][65] = { "faultline", "faultline", "0.1", "#1", "x86_64",
					    "(none)" };

	return copy_to_user(ubuf, fields, sizeof(fields));
}

/* Every clock counts from boot in timer ticks (10 ms): there is no RTC driver yet. */
static long sys_clock_gettime(uint64_t clk, uint64_t uts)
{
	uint64_t j = jiffies, ts[2] = { j / HZ, (j % HZ) * (1000000000 / HZ) };

	if (clk != 0 && clk != 1 && clk != 4 && clk != 7) /* REALTIME MONOTONIC ..RAW BOOTTIME */
		return -EINVAL;
	return copy_to_user(uts, ts, sizeof(ts));
}

/* Sleep by halting until enough timer ticks have passed (one program: nothing else to run). */
static long sys_nanosleep(uint64_t ureq)
{
	int64_t ts[2];
	uint64_t ticks, until;

	if (copy_from_user(ts, ureq, sizeof(ts)))
		return -EFAULT;
	if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000)
		return -EINVAL;
	ticks = (uint64_t)ts[0] * HZ + ((uint64_t)ts[1] + 1000000000 / HZ - 1) / (1000000000 / HZ);
	until = jiffies + ticks + 1; /* +1: the current tick is already partly gone */
	while (jiffies < until)
		asm volatile("sti; hlt" ::: "memory");
	return 0;
}

/* Not cryptographic: the TSC stirred through xorshift (enough for musl's canaries). */
static long sys_getrandom(uint64_t ubuf, uint64_t n)
{
	static uint64_t state = 0x9e3779b97f4a7c15ULL;
	uint8_t buf[256]; /* Linux too returns at most 256 bytes per call without blocking */

	n = MIN(n, sizeof(buf));
	for (uint64_t i = 0; i < n; i++) {
		state ^= rdtsc();
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		buf[i] = (uint8_t)state;
	}
	return copy_to_user(ubuf, buf, n) ? -EFAULT : (long)n;
}

/* Report (never change) the limits: an 8 MiB stack, everything else unlimited. */
static long sys_prlimit64(uint64_t pid, uint64_t res, uint64_t unew, uint64_t uold)
{
	uint64_t lim[2] = { UINT64_MAX, UINT64_MAX };

	if (pid != 0 && pid != 1)
		return -ESRCH;
	if (res > 15)
		return -EINVAL;
	if (res == 3) /* RLIMIT_STACK */
		lim[0] = lim[1] = 8UL << 20;
	if (unew)
		return -EPERM;
	return uold ? copy_to_user(uold, lim, sizeof(lim)) : 0;
}

long do_syscall(struct pt_regs *regs)
{
	uint64_t nr = regs->rax, a0 = regs->rdi, a1 = regs->rsi, a2 = regs->rdx;
	long ret;

	switch (nr) {
	case SYS_read:
		ret = file_read(a0, a1, a2);
		break;
	case SYS_open:
		ret = sys_openat(0, a0, a1);
		break;
	case SYS_openat:
		ret = sys_openat(a0, a1, a2);
		break;
	case SYS_close:
		ret = sys_close(a0);
		break;
	case SYS_lseek:
		ret = sys_lseek(a0, (int64_t)a1, a2);
		break;
	case SYS_write:
		ret = sys_write(a0, a1, a2);
		break;
	case SYS_writev:
		ret = sys_writev(a0, a1, a2);
		break;
	case SYS_ioctl:
		ret = -ENOTTY; /* the console has no terminal settings (yet) */
		break;
	case SYS_getpid:
	case SYS_set_tid_address:
		ret = 1; /* one program at a time: it is pid 1 */
		break;
	case SYS_getppid:
	case SYS_getuid:
	case SYS_geteuid:
	case SYS_getgid:
	case SYS_getegid:
		ret = 0; /* the kernel's runner is its parent; everyone is root */
		break;
	case SYS_fstat:
		ret = sys_fstat(a0, a1);
		break;
	case SYS_sched_yield:
		ret = 0;
		break;
	case SYS_nanosleep:
		ret = sys_nanosleep(a0);
		break;
	case SYS_getrandom:
		ret = sys_getrandom(a0, a1);
		break;
	case SYS_prlimit64:
		ret = sys_prlimit64(a0, a1, a2, regs->r10);
		break;
	case SYS_clock_gettime:
		ret = sys_clock_gettime(a0, a1);
		break;
	case SYS_uname:
		ret = sys_uname(a0);
		break;
	case SYS_arch_prctl:
		ret = sys_arch_prctl(a0, a1);
		break;
	case SYS_exit:
	case SYS_exit_group:
		user_leave((long)(a0 & 0xff));
	default:
		printk("syscall: %s called unknown system call %lu: -ENOSYS\n", current_program(),
		       nr);
		ret = -ENOSYS;
	}
	regs->rax = (uint64_t)ret;
	return ret;
}
