/* sysinfo: a sweep over the simple system calls musl programs rely on: ids, uname, ioctl,
 * getrandom, clocks and sleeping, sched_yield, ENOSYS, file I/O with fstat and lseek, writev,
 * the TLS base and prlimit64. */
#define UTEST_NAME "sysinfo"
#include "utest.h"
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef ARCH_GET_FS
#define ARCH_GET_FS 0x1003
#endif

/* the exact contents of user/not-an-elf */
static const char not_an_elf[] = "this is not an ELF file\n"
				 "faultline keeps it next to the test programs:\n"
				 "execve must refuse it with ENOEXEC, and sysinfo reads it back.\n";

static __thread int tls_counter = 42;

/* CLOCK_MONOTONIC in ns, by the raw system call (musl would use the vDSO if there is one) */
static long long mono_ns(void)
{
	struct timespec ts = {0, 0};

	CHECK_EQ(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts), 0);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t len = sizeof(not_an_elf) - 1;
	struct timespec nap = {0, 20000000};
	char path[4096], buf[256];
	unsigned char rnd[32];
	struct iovec iov[3] = {
	    {"sysinfo: ", 9},
	    {"writev ", 7},
	    {"works\n", 6},
	};
	struct winsize ws;
	struct utsname u;
	struct rlimit old = {0, 0};
	struct stat sb;
	long long t0, t1, t2;
	uintptr_t fs = 0, self = 0;
	long r;
	int fd, i, any;

	(void)argc;
	/* identities */
	CHECK(getpid() > 0);
	CHECK(getppid() >= 0 && getppid() != getpid());
	CHECK_EQ(getuid(), geteuid());
	CHECK_EQ(getgid(), getegid());

	CHECK_EQ(uname(&u), 0);
	CHECK(strcmp(u.machine, "x86_64") == 0);
	CHECK(strcmp(u.sysname, "Linux") == 0); /* programs that check it run */

	errno = 0;
	r = ioctl(1, TIOCGWINSZ, &ws);
	CHECK(r == 0 || (r == -1 && errno == ENOTTY));

	memset(rnd, 0, sizeof(rnd));
	CHECK_EQ(syscall(SYS_getrandom, rnd, sizeof(rnd), 0), 32);
	for (i = 0, any = 0; i < 32; i++)
		any |= rnd[i];
	CHECK(any != 0);

	/* time goes forwards, and a 20 ms sleep takes at least 20 ms */
	t0 = mono_ns();
	t1 = mono_ns();
	CHECK(t1 >= t0);
	CHECK_EQ(syscall(SYS_nanosleep, &nap, NULL), 0);
	t2 = mono_ns();
	CHECK(t2 - t1 >= 20000000LL);

	CHECK_EQ(sched_yield(), 0);
	CHECK_ERR(syscall(1000), ENOSYS);

	/* file I/O on the data file that sits next to the programs */
	utest_sibling(path, sizeof(path), argv[0], "not-an-elf");
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(fstat(fd, &sb), 0);
	CHECK(S_ISREG(sb.st_mode));
	CHECK_EQ(sb.st_size, len);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(fd, buf, sizeof(buf)), len);
	CHECK(memcmp(buf, not_an_elf, len) == 0);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0); /* end of file */
	CHECK_EQ(lseek(fd, 5, SEEK_SET), 5);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(fd, buf, sizeof(buf)), len - 5);
	CHECK(memcmp(buf, not_an_elf + 5, len - 5) == 0);
	CHECK_EQ(lseek(fd, 0, SEEK_END), len);
	CHECK_EQ(close(fd), 0);
	CHECK_ERR(read(fd, buf, 1), EBADF);

	fflush(stdout);
	CHECK_EQ(writev(1, iov, 3), 9 + 7 + 6);

	/* musl points %fs at its thread control block; its first word points to itself */
	CHECK_EQ(syscall(SYS_arch_prctl, ARCH_GET_FS, &fs), 0);
	CHECK(fs != 0);
	__asm__ volatile("mov %%fs:0, %0" : "=r"(self));
	CHECK_EQ(self, fs);
	CHECK_EQ(tls_counter, 42);
	tls_counter++;
	CHECK_EQ(tls_counter, 43);
	CHECK((uintptr_t)&tls_counter < fs && fs - (uintptr_t)&tls_counter < 4096);

	CHECK_EQ(syscall(SYS_prlimit64, 0, RLIMIT_STACK, NULL, &old), 0);
	CHECK(old.rlim_cur > 0 && old.rlim_cur <= old.rlim_max);

	return utest_done();
}
