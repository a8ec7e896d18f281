/* crash1000: COUNT children (argv[1], default 1000) in a row, each dying of a fault, the
 * kinds in turn; the parent checks each one's signal:
 *   NULL write, kernel-address read, write to a read-only page, execute from a
 *   non-executable page (a `ret` written into PROT_READ|PROT_WRITE memory), a call through a
 *   non-canonical pointer (0x8000000000000000): SIGSEGV;  ud2: SIGILL;  int3: SIGTRAP;
 *   divide by zero: SIGFPE;  a read past the end of a file mapping: SIGBUS.
 * Under faultline the free frames after the last child equal those before the first (+-8):
 * a thousand deaths by fault give everything back. The kernel prints one line per crash. */
#define _GNU_SOURCE
#define UTEST_NAME "crash1000"
#include "utest.h"
#include "vmstat.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

static volatile unsigned char *ro_page, *nx_page, *file_map;

/* the compiler must not know the value (a known NULL or kernel pointer could become ud2) */
static uintptr_t opaque(uintptr_t v)
{
	__asm__ volatile("" : "+r"(v));
	return v;
}

static void null_write(void) { *(volatile int *)opaque(0) = 1; }
static void kernel_read(void) { (void)*(volatile int *)opaque(0xffffffff80100000UL); }
static void ro_write(void) { ro_page[opaque(8)] = 1; }
static void do_ud2(void) { __asm__ volatile("ud2"); }
static void do_int3(void) { __asm__ volatile("int3"); }

static void div_zero(void)
{
	unsigned int zero = (unsigned int)opaque(0), lo = 1, hi = 0;

	__asm__ volatile("divl %2" : "+a"(lo), "+d"(hi) : "r"(zero));
}

static void noncanonical_call(void) { ((void (*)(void))opaque(0x8000000000000000UL))(); }
static void nx_exec(void) { ((void (*)(void))opaque((uintptr_t)nx_page))(); }
static void past_eof(void) { (void)file_map[opaque(4096 + 16)]; }

static const struct kind {
	const char *name;
	void (*fn)(void);
	int sig;
} kinds[] = {
	{ "NULL write", null_write, SIGSEGV },
	{ "kernel-address read", kernel_read, SIGSEGV },
	{ "read-only page write", ro_write, SIGSEGV },
	{ "ud2", do_ud2, SIGILL },
	{ "int3", do_int3, SIGTRAP },
	{ "divide by zero", div_zero, SIGFPE },
	{ "non-canonical call", noncanonical_call, SIGSEGV },
	{ "NX page execute", nx_exec, SIGSEGV },
	{ "past EOF of a file mapping", past_eof, SIGBUS },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 1000, i, bad[NKINDS] = { 0 }, reported = 0;
	char path[64];
	struct fl_mm m0, m1;
	int fd, st, tmp_made = mkdir("/tmp", 0777) == 0;
	pid_t pid;

	ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	nx_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	snprintf(path, sizeof(path), "/tmp/crash1000-%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!CHECK(ro_page != MAP_FAILED && nx_page != MAP_FAILED && fd >= 0))
		return utest_done();
	CHECK_EQ(write(fd, "one hundred bytes of file, then nothing", 100), 100);
	file_map = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (!CHECK(file_map != MAP_FAILED))
		return utest_done();
	(void)ro_page[0];
	(void)file_map[0];
	nx_page[0] = 0xc3; /* ret */

	/* one plain child first: the parent's own first writes after a fork take frames */
	pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	m0 = fl_mm_now();

	for (i = 0; i < count; i++) {
		const struct kind *k = &kinds[i % NKINDS];

		pid = fork();
		if (pid == 0) {
			k->fn();
			_exit(100); /* survived */
		}
		if (!CHECK(pid > 0))
			break;
		st = -1;
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != k->sig) {
			bad[i % NKINDS]++;
			if (reported++ < 10)
				fprintf(stderr,
					"crash1000: FAIL child %ld (%s): %s %d, expected %s\n",
					i, k->name, WIFSIGNALED(st) ? "killed by signal" : "exit",
					WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
					strsignal(k->sig));
		}
	}
	m1 = fl_mm_now();
	for (size_t j = 0; j < NKINDS; j++)
		if (!CHECK(bad[j] == 0))
			fprintf(stderr, "crash1000:   %s: %ld of %ld children died otherwise\n",
				kinds[j].name, bad[j],
				count / (long)NKINDS + ((long)j < count % (long)NKINDS));
	printf("crash1000: %ld children, each killed by its fault; %ld otherwise\n", i, reported);
	if (on_faultline())
		CHECK(frames_back("crash1000", m0, m1, 8));
	munmap((void *)file_map, 2 * 4096);
	close(fd);
	CHECK_EQ(unlink(path), 0);
	if (tmp_made)
		rmdir("/tmp");
	return utest_done();
}
