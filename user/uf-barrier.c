/* uf-barrier: a garbage collector's write barrier built from page protection (Appel and Li,
 * 1991). The heap is made read-only; the first write to each page faults, the SIGSEGV handler
 * records the page as dirty and makes it writable, and the write restarts and lands. Later
 * writes to a dirty page cost nothing. Checks that exactly the written pages are recorded,
 * each once, and that every value landed. */
#define _GNU_SOURCE
#define UTEST_NAME "uf-barrier"
#include "utest.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define NPAGES 64

static char *heap;
static volatile int dirty[NPAGES], faults, bad;

static void barrier(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	size_t page = (a - (uintptr_t)heap) / PAGE;

	(void)sig;
	(void)ctx;
	if (a < (uintptr_t)heap || page >= NPAGES || si->si_code != SEGV_ACCERR) {
		bad = 1; /* not ours: die as if no handler were there */
		signal(SIGSEGV, SIG_DFL);
		return;
	}
	faults++;
	dirty[page]++;
	mprotect(heap + page * PAGE, PAGE, PROT_READ | PROT_WRITE);
}

int main(void)
{
	struct sigaction sa;
	int written[NPAGES] = { 0 }, i, n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = barrier;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	heap = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	CHECK(heap != MAP_FAILED);
	memset(heap, 0, NPAGES * PAGE);
	CHECK_EQ(mprotect(heap, NPAGES * PAGE, PROT_READ), 0); /* start of a GC cycle */

	/* the mutator: writes to every third page, several times each */
	for (n = 0; n < 3; n++)
		for (i = 0; i < NPAGES; i += 3) {
			heap[i * PAGE + 8 * n] = (char)(i + n + 1);
			written[i] = 1;
		}
	CHECK(!bad);
	for (i = 0, n = 0; i < NPAGES; i++) {
		CHECK_EQ(dirty[i], written[i]); /* one fault per written page, none for the rest */
		n += written[i];
		if (written[i])
			CHECK_EQ(heap[i * PAGE + 16], (char)(i + 3));
	}
	CHECK_EQ(faults, n);
	printf("uf-barrier: %d of %d pages dirtied, one fault each\n", n, NPAGES);
	return utest_done();
}
