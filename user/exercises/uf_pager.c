/* Lab uf_pager (docs/exercises.md): the user-level pager's SIGSEGV handler, to be written.
 * Linked into /bin/uf-pager in place of the answer when built with EXERCISE=uf_pager. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../uf-pager.h"

/*
 * Called for every fault in the process; si->si_addr is the address that faulted. If it is
 * inside region (NPAGES pages of PAGE bytes), page i = (addr - region) / PAGE must be made
 * readable with the contents of bytes [i * PAGE, (i + 1) * PAGE) of the file backing, then
 * the handler returns and the faulting instruction runs again. Count each page filled in
 * pageins. A fault outside region is a real bug: set bad and let it kill the process.
 *
 * Hints: the page has no access (PROT_NONE) and must be written before it can be read: which
 * mprotect calls, in which order? pread() fills memory at an offset of a file. Which calls may
 * a signal handler make at all (signal-safety(7))?
 */
void pager(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	(void)ctx;
	/* YOUR CODE HERE. Until then: the default action, so the program dies with SIGSEGV
	 * instead of faulting on the same access forever. */
	signal(SIGSEGV, SIG_DFL);
}
