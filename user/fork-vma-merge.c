/* fork-vma-merge: a new anonymous mapping beside one inherited through fork, as Linux merges
 * them (/proc/self/maps): not with an inherited VMA that had an anon_vma at fork (touched in
 * the parent), whether the child touched it or not; with one that had none, touched in the
 * child or not; and, the control, in the parent with its own touched VMA. */
#define _GNU_SOURCE
#define UTEST_NAME "fork-vma-merge"
#include "utest.h"
#include <sys/mman.h>
#include <sys/wait.h>

#define PAGES 4

static long page;

/* The start of the VMA /proc/self/maps shows holding addr, or 0. */
static unsigned long vma_start(const void *addr)
{
	static char buf[65536];
	unsigned long start, end, a = (unsigned long)addr;

	if (utest_slurp("/proc/self/maps", buf, sizeof(buf)) <= 0)
		return 0;
	for (char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : 0)
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 && start <= a && a < end)
			return start;
	return 0;
}

/* A mapping of PAGES pages with a hole of PAGES pages after it (where B goes). */
static char *map_a(void)
{
	char *a = mmap(NULL, 2 * PAGES * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED)
		return NULL;
	munmap(a, 2 * PAGES * page);
	if (mmap(a, PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != a)
		return NULL;
	return a;
}

/* B, right after a: the VMAs the two are in (1: merged), or -1. */
static int map_b(char *a)
{
	char *b = mmap(a + PAGES * page, PAGES * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (b != a + PAGES * page || !vma_start(a) || !vma_start(b))
		return -1;
	return vma_start(a) == vma_start(b) ? 1 : 2;
}

/* A made (and touched in the parent or not) before a fork; the child touches it or not, then
 * maps B: the VMAs it sees. */
static void fork_case(int parent_touch, int child_touch, int want)
{
	char *a = map_a();
	pid_t pid;
	int st;

	if (!CHECK(a))
		return;
	if (parent_touch)
		a[0] = 1;
	pid = fork();
	if (pid == 0) {
		if (child_touch)
			a[page] = 2;
		_exit(map_b(a) == want ? 0 : 1);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fprintf(stderr, "%s:   parent touch %d, child touch %d: not %d VMAs\n", UTEST_NAME,
			parent_touch, child_touch, want);
	munmap(a, 2 * PAGES * page);
}

int main(void)
{
	char *a;

	page = sysconf(_SC_PAGESIZE);
	fork_case(1, 0, 2);
	fork_case(1, 1, 2);
	fork_case(0, 0, 1);
	fork_case(0, 1, 1);
	/* the controls in the parent: its own touched VMA merges, untouched too */
	a = map_a();
	if (CHECK(a)) {
		a[0] = 1;
		CHECK_EQ(map_b(a), 1);
		munmap(a, 2 * PAGES * page);
	}
	a = map_a();
	if (CHECK(a)) {
		CHECK_EQ(map_b(a), 1);
		munmap(a, 2 * PAGES * page);
	}
	return utest_done();
}
