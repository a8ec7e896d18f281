/* vm-many: thousands of VMAs. One 4000-page mapping with every other page made read-only by
 * mprotect splits into ~4000 VMAs (one /proc/self/maps line each); every read-write page can
 * be written and every read-only page read (and not written); munmap of the whole range puts
 * maps back to the line count it had before. */
#define _GNU_SOURCE
#define UTEST_NAME "vm-many"
#include "utest.h"
#include "vmstat.h"
#include <signal.h>
#include <sys/wait.h>

#define NP 4000

struct perm_scan {
	uintptr_t lo, hi;
	int lines, wrong;
};

/* every line inside the region alternates: even pages rw-p, odd pages r--p, one page each */
static int scan_cb(const struct maps_ent *e, void *arg)
{
	struct perm_scan *s = arg;
	uintptr_t a;

	if (e->end <= s->lo || e->start >= s->hi)
		return 0;
	s->lines++;
	a = e->start > s->lo ? e->start : s->lo;
	if (strcmp(e->perms, ((a - s->lo) / VM_PAGE) % 2 ? "r--p" : "rw-p") != 0 ||
	    (e->start >= s->lo && e->end <= s->hi && e->end - e->start != VM_PAGE))
		s->wrong++;
	return 0;
}

int main(void)
{
	struct perm_scan s;
	unsigned char *p;
	long lines0, lines1, lines2, n, bad;
	int st = -1;
	pid_t pid;
	int i;

	lines0 = count_maps_lines();
	CHECK(lines0 > 0);
	p = mmap(NULL, NP * VM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return utest_done();
	CHECK_EQ(count_maps_range(p, p + NP * VM_PAGE), 1);
	for (i = 1, bad = 0; i < NP; i += 2)
		bad += mprotect(p + (size_t)i * VM_PAGE, VM_PAGE, PROT_READ) != 0;
	CHECK_EQ(bad, 0);

	n = count_maps_range(p, p + NP * VM_PAGE);
	lines1 = count_maps_lines();
	if (!CHECK(n >= NP - 1 && n <= NP))
		fprintf(stderr, "vm-many:   %ld maps lines for the region\n", n);
	CHECK(lines1 >= lines0 + NP - 2); /* the ends may merge with neighbours */
	s = (struct perm_scan){ (uintptr_t)p, (uintptr_t)(p + NP * VM_PAGE), 0, 0 };
	CHECK_EQ(maps_foreach(scan_cb, &s), 0);
	CHECK_EQ(s.lines, n);
	CHECK_EQ(s.wrong, 0);
	if (on_faultline()) {
		struct fl_mm m = fl_mm_now();

		CHECK(m.nr_vmas >= (uint64_t)lines0 + NP - 2);
		CHECK_EQ(fl_page_of(p + VM_PAGE).vm_flags & (FL_VM_READ | FL_VM_WRITE), FL_VM_READ);
	}

	for (i = 0; i < NP; i += 2) /* write every read-write page */
		p[(size_t)i * VM_PAGE + (size_t)i % VM_PAGE] = (unsigned char)(i | 1);
	for (i = 0, bad = 0; i < NP; i++) { /* read every page */
		unsigned char want = i % 2 ? 0 : (unsigned char)(i | 1);

		bad += ((volatile unsigned char *)p)[(size_t)i * VM_PAGE + (size_t)i % VM_PAGE] !=
		       want;
	}
	CHECK_EQ(bad, 0);

	/* a write to a read-only one kills a child */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		p[(NP / 2 + 1) * VM_PAGE] = 1;
		_exit(0);
	}
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);

	CHECK_EQ(munmap(p, NP * VM_PAGE), 0);
	lines2 = count_maps_lines();
	CHECK_EQ(lines2, lines0);
	CHECK_EQ(count_maps_range(p, p + NP * VM_PAGE), 0);
	printf("vm-many: maps lines %ld -> %ld with %ld for the region -> %ld after munmap\n",
	       lines0, lines1, n, lines2);
	return utest_done();
}
