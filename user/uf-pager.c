/* uf-pager: a user-level pager. A region is mapped PROT_NONE; each first touch of a page
 * faults, and the SIGSEGV handler fills that page from a file (mprotect to writable, pread,
 * mprotect to read-only) and returns, so the access restarts and reads the file's data. What
 * the kernel's fault() does for a file mapping, done in ring 3 with signals, as distributed
 * shared memory and user-level paging did before userfaultfd. pager() is weak: the lab
 * (docs/exercises.md, EXERCISE=uf_pager) links the student's own from user/exercises/. */
#define _GNU_SOURCE
#define UTEST_NAME "uf-pager"
#include "utest.h"
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "uf-pager.h"

char *region;
int backing = -1;
volatile int pageins, bad;

__attribute__((weak)) void pager(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t)si->si_addr & ~(PAGE - 1);
	size_t page = (a - (uintptr_t)region) / PAGE;

	(void)sig;
	(void)ctx;
	if (a < (uintptr_t)region || page >= NPAGES) {
		bad = 1;
		signal(SIGSEGV, SIG_DFL);
		return;
	}
	mprotect((void *)a, PAGE, PROT_READ | PROT_WRITE);
	if (pread(backing, (void *)a, PAGE, (off_t)(page * PAGE)) != (ssize_t)PAGE)
		bad = 2;
	mprotect((void *)a, PAGE, PROT_READ);
	pageins++;
}

int main(void)
{
	char path[] = "/tmp/uf-pager.XXXXXX";
	static char buf[PAGE];
	struct sigaction sa;
	unsigned sum = 0, want = 0;
	int i, touched = 0;

	backing = mkstemp(path);
	CHECK(backing >= 0);
	for (i = 0; i < NPAGES; i++) {
		memset(buf, 'a' + i % 26, sizeof(buf));
		buf[0] = (char)i;
		CHECK_EQ(write(backing, buf, sizeof(buf)), (long)sizeof(buf));
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = pager;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	region = mmap(NULL, NPAGES * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(region != MAP_FAILED);

	for (i = 0; i < NPAGES; i += 2) { /* every other page, twice */
		sum += (unsigned char)region[i * PAGE] + (unsigned char)region[i * PAGE + 100];
		sum += (unsigned char)region[i * PAGE + 200];
		want += (unsigned)i + 2u * (unsigned)('a' + i % 26);
		touched++;
	}
	CHECK(!bad);
	CHECK_EQ(sum, want);
	CHECK_EQ(pageins, touched);
	CHECK_EQ(region[PAGE * 4 + 1], 'a' + 4); /* paged in already: no new fault */
	CHECK_EQ(pageins, touched);
	close(backing);
	unlink(path);
	printf("uf-pager: %d pages paged in by the handler, on first touch only\n", pageins);
	return utest_done();
}
