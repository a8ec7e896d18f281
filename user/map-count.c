/* map-count: vm.max_map_count, the most VMAs a process may have. As root it is lowered to 2000
 * for a moment: mprotect's splits stop at it with ENOMEM, mmap may make one more VMA (Linux's
 * test is "more than the limit"), a munmap that would split a VMA in two is refused, and one
 * that removes a whole VMA is not. The old value is put back. Runs natively too. */
#define _GNU_SOURCE
#define UTEST_NAME "map-count"
#include "utest.h"
#include <sys/mman.h>

#define MAX_MAP_COUNT "/proc/sys/vm/max_map_count"
#define LIMIT 2000
#define PAGES 8000

/* Set vm.max_map_count: 0 or an errno. */
static int write_sysctl(long value)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld\n", value);
	return utest_sysctl_write(MAX_MAP_COUNT, text);
}

/* A page of shared anonymous memory: its own object, so it never merges with a neighbour. */
static void *one_vma(void)
{
	return mmap(NULL, 4096, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

static void at_the_limit(void)
{
	char *r = mmap(NULL, PAGES * 4096L, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i, err = 0;
	void *extra;

	CHECK(r != MAP_FAILED);
	/* each page made readable in the middle of the PROT_NONE rest: two VMAs more */
	for (i = 1; i < PAGES - 1; i += 2) {
		if (mprotect(r + i * 4096L, 4096, PROT_READ)) {
			err = errno;
			break;
		}
	}
	CHECK_EQ(err, ENOMEM);
	CHECK(i < LIMIT + 2); /* (i - 1) / 2 splits of two VMAs each */
	/* Now exactly LIMIT VMAs (the refused mprotect made its first split): one more mmap is
	 * allowed, the next is not. */
	extra = one_vma();
	CHECK(extra != MAP_FAILED);
	CHECK_ERR(one_vma(), ENOMEM);
	CHECK_ERR(mprotect(r + (i + 4) * 4096L, 4096, PROT_READ), ENOMEM);
	/* a hole in the middle of the PROT_NONE rest would leave one VMA more: refused */
	CHECK_ERR(munmap(r + (i + 4) * 4096L, 4096), ENOMEM);
	/* a whole VMA goes: no split, and then there is room again */
	CHECK(munmap(extra, 4096) == 0);
	CHECK(munmap(r + 1 * 4096L, 4096) == 0);
	extra = one_vma();
	CHECK(extra != MAP_FAILED);
	munmap(extra, 4096);
	CHECK(munmap(r, PAGES * 4096L) == 0);
}

int main(void)
{
	long saved = utest_sysctl(MAX_MAP_COUNT);

	CHECK(saved > LIMIT);
	if (geteuid() != 0) {
		utest_skip("lowering vm.max_map_count", "not root");
		return utest_done();
	}
	CHECK_EQ(write_sysctl(-1), EINVAL);
	CHECK_EQ(utest_sysctl(MAX_MAP_COUNT), saved);
	CHECK_EQ(write_sysctl(LIMIT), 0);
	CHECK_EQ(utest_sysctl(MAX_MAP_COUNT), LIMIT);
	at_the_limit();
	CHECK_EQ(write_sysctl(saved), 0);
	CHECK_EQ(utest_sysctl(MAX_MAP_COUNT), saved);
	return utest_done();
}
