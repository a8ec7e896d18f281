/* vm-mprotect: mprotect(PROT_READ) keeps a page's data readable, maps shows it "r--p", and a
 * write to it then kills the process with SIGSEGV (expect.txt: killed by SIGSEGV).
 * usage: vm-mprotect [-v]   -v tells each step's faults and frames (user/narrate.h), the last
 * one's fault (a protection fault: ACCERR) and its signal before the signal kills */
#define _GNU_SOURCE
#define UTEST_NAME "vm-mprotect"
#include "utest.h"
#include "vmstat.h"
#include "narrate.h"

int main(int argc, char **argv)
{
	volatile int *p;
	const char *perms;

	narrate_opt(argc, argv);
	p = mmap(NULL, VM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return utest_done();
	STEP(p, "writes page 0 of fresh anonymous memory")
		p[0] = 42;
	perms = maps_perms((const void *)p);
	CHECK(perms && strcmp(perms, "rw-p") == 0);
	if (on_faultline())
		CHECK(fl_page_of((const void *)p).writable);

	CHECK_EQ(mprotect((void *)p, VM_PAGE, PROT_READ), 0);
	STEP(p, "reads page 0 after mprotect(PROT_READ)")
		CHECK_EQ(p[0], 42);
	perms = maps_perms((const void *)p);
	if (!CHECK(perms && strcmp(perms, "r--p") == 0))
		fprintf(stderr, "vm-mprotect:   maps says %s\n", perms ? perms : "(no line)");
	if (on_faultline()) {
		struct fl_page pg = fl_page_of((const void *)p);

		CHECK(pg.present && !pg.writable && pg.in_vma);
		CHECK((pg.vm_flags & (FL_VM_READ | FL_VM_WRITE)) == FL_VM_READ);
	} else {
		CHECK(page_present((const void *)p));
	}
	if (utest_fails)
		return utest_done(); /* exit 1: not the expected SIGSEGV */

	printf("vm-mprotect: %d checks ok; writing to the read-only page at %p\n", utest_checks,
	       (void *)p);
	fflush(stdout);
	narrate_fatal(SIGSEGV);
	STEP(p, "writes page 0, read-only now")
		p[0] = 43;
	fprintf(stderr, "vm-mprotect: FAIL: the write to a PROT_READ page did not fault (now %d)\n",
		p[0]);
	return 1;
}
