/* kaccess: ring 3 cannot touch the kernel half. Reading, writing and executing (a call
 * through a pointer) each kill a child with SIGSEGV at: the direct map (0xffff888000100000),
 * the kernel image (0xffffffff80100000), the vmap area where the kernel stacks live
 * (0xffffc90000006000: inside the first task's stack), and the non-canonical addresses
 * 0x8000000000000000 and 0x0000800000000000 (the first address past user space).
 * A system call given any of them gets EFAULT and the process lives on: read(fd, k, 16),
 * write(1, k, 16), pread, fstat and stat into it, stat/open of a path there, uname,
 * clock_gettime, getrandom, nanosleep; so does a user buffer whose length reaches into the
 * kernel half. The failed reads consume nothing: the file's first bytes still read "\177ELF". */
#define _GNU_SOURCE
#define UTEST_NAME "kaccess"
#include "utest.h"
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const struct {
	const char *name;
	uintptr_t addr;
} addrs[] = {
	{ "direct map", 0xffff888000100000UL },
	{ "kernel image", 0xffffffff80100000UL },
	{ "vmap (kernel stacks)", 0xffffc90000006000UL },
	{ "non-canonical", 0x8000000000000000UL },
	{ "first non-canonical", 0x0000800000000000UL },
};
#define NADDRS (sizeof(addrs) / sizeof(addrs[0]))

static uintptr_t opaque(uintptr_t v)
{
	__asm__ volatile("" : "+r"(v));
	return v;
}

/* how == 0 read, 1 write, 2 execute; the child must die of SIGSEGV */
static void probe(uintptr_t addr, int how, const char *name)
{
	static const char *const what[] = { "read", "write", "execute" };
	pid_t pid = fork();
	int st = -1;

	if (pid == 0) {
		volatile uint64_t *p = (volatile uint64_t *)opaque(addr);

		if (how == 0)
			(void)*p;
		else if (how == 1)
			*p = 0x6b61636365737321ULL;
		else
			((void (*)(void))opaque(addr))();
		_exit(100);
	}
	if (!CHECK(pid > 0))
		return;
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (!CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV))
		fprintf(stderr, "kaccess:   %s of %s %#lx: %s %d\n", what[how], name,
			(unsigned long)addr, WIFSIGNALED(st) ? "signal" : "exit status",
			WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

int main(int argc, char **argv)
{
	unsigned char buf[256];
	struct timespec ts = { 0, 0 };
	size_t i;
	int fd = open(argc > 0 ? argv[0] : "/proc/self/exe", O_RDONLY), how;

	if (!CHECK(fd >= 0))
		return utest_done();
	for (i = 0; i < NADDRS; i++)
		for (how = 0; how < 3; how++)
			probe(addrs[i].addr, how, addrs[i].name);

	for (i = 0; i < NADDRS; i++) {
		void *k = (void *)addrs[i].addr;

		CHECK_ERR(read(fd, k, 16), EFAULT);
		CHECK_ERR(write(1, k, 16), EFAULT);
		CHECK_ERR(write(2, k, 1), EFAULT);
		CHECK_ERR(pread(fd, k, 16, 0), EFAULT);
		/* raw: musl would copy into k itself */
		CHECK_ERR(syscall(SYS_fstat, fd, k), EFAULT);
		CHECK_ERR(syscall(SYS_stat, k, buf), EFAULT);
		CHECK_ERR(syscall(SYS_stat, argv[0], k), EFAULT);
		CHECK_ERR(open(k, O_RDONLY), EFAULT);
		CHECK_ERR(syscall(SYS_uname, k), EFAULT);
		CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, k), EFAULT);
		CHECK_ERR(syscall(SYS_getrandom, k, 16, 0), EFAULT);
		CHECK_ERR(syscall(SYS_nanosleep, k, NULL), EFAULT);
		CHECK_EQ(syscall(SYS_nanosleep, &ts, k), 0); /* rem is written only on EINTR */
	}
	/* a user buffer whose length runs into the kernel half */
	CHECK_ERR(read(fd, buf, 0xffff888000100000UL - (uintptr_t)buf), EFAULT);
	CHECK_ERR(write(1, buf, 0x0000800000000000UL - (uintptr_t)buf + 16), EFAULT);
	/* the failed reads consumed nothing, and the process still works */
	CHECK_EQ(read(fd, buf, 4), 4);
	CHECK(memcmp(buf, "\177ELF", 4) == 0);
	close(fd);
	return utest_done();
}
