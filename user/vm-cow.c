/* vm-cow: fork is copy-on-write. Right after fork a child maps the very frames its parent had
 * (it compares against the frame numbers the parent recorded in memory before forking) and
 * sees the parent's data; its first write to a page gives it a copy of its own while the parent
 * keeps the original. Three generations (child, grandchild, great-grandchild) each write their
 * own values and see only those. Once the children are gone, the parent's writes reuse its
 * frames in place (the write fault finds no other sharer, so nothing is copied). */
#define _GNU_SOURCE
#define UTEST_NAME "vm-cow"
#include "utest.h"
#include "vmstat.h"
#include "narrate.h"
#include <sys/wait.h>

#define NP     64
#define LEVELS 3

static unsigned char *mem;
static uint64_t pfn_at_fork[NP]; /* the forking process's frames, recorded before fork */
static unsigned char val[NP];	 /* what every byte of page j holds in this process */
static int writer[NP];		 /* the generation that last wrote page j (0: the original) */

static unsigned char *page(int j)
{
	return mem + (size_t)j * VM_PAGE;
}

static void put(int j, unsigned char v, int level)
{
	memset(page(j), v, VM_PAGE);
	val[j] = v;
	writer[j] = level;
}

/* the pages hold this process's values; gives the number of bad pages */
static int bad_pages(void)
{
	int j, bad = 0;
	size_t i;

	for (j = 0; j < NP; j++) {
		for (i = 0; i < VM_PAGE && page(j)[i] == val[j]; i++)
			;
		bad += i != VM_PAGE;
	}
	return bad;
}

static void generation(int level);

/* in the child of a level-1 process, just after fork */
static void child(int level)
{
	int j, same = 0, shared = 0;

	utest_fails = utest_checks = 0; /* this process's own checks decide its exit status */
	for (j = 0; j < NP; j++)
		same += page_pfn(page(j)) == pfn_at_fork[j];
	if (!CHECK(same == NP))
		fprintf(stderr, "vm-cow:   generation %d: %d of %d frames shared after fork\n",
			level, same, NP);
	STEP(page(0), "generation %d reads what its parent wrote", level)
		CHECK_EQ(bad_pages(), 0); /* the parent's data */
	for (j = 0, same = 0; j < NP; j++) {
		same += page_pfn(page(j)) == pfn_at_fork[j]; /* reading copied nothing */
		shared += page_mapped_once(page(j)) == 0;
	}
	CHECK_EQ(same, NP);
	CHECK_EQ(shared, NP);
	if (on_faultline()) {
		for (j = 0, same = 0; j < NP; j++) {
			struct fl_page pg = fl_page_of(page(j));

			/* read-only PTEs: one per process from the writer's generation to us */
			same += pg.present && pg.anon && !pg.writable &&
				pg.mapcount == (uint64_t)(level - writer[j] + 1) &&
				pg.count >= pg.mapcount;
		}
		CHECK_EQ(same, NP);
	}

	/* our own values in page 0 and page `level`: copies; the rest stays shared */
	STEP(page(0), "generation %d writes page 0", level)
		put(0, (unsigned char)(0x40 + level), level);
	put(level, (unsigned char)(0x40 + level), level);
	CHECK(page_pfn(page(0)) != pfn_at_fork[0]);
	CHECK(page_pfn(page(level)) != pfn_at_fork[level]);
	CHECK(page_pfn(page(0)) != 0);
	CHECK_EQ(page_mapped_once(page(0)), 1);
	CHECK_EQ(page_pfn(page(NP - 1)), pfn_at_fork[NP - 1]);
	CHECK_EQ(page_mapped_once(page(NP - 1)), 0);
	if (on_faultline()) {
		struct fl_page pg = fl_page_of(page(0));

		CHECK(pg.writable && pg.anon && pg.mapcount == 1);
	}
	CHECK_EQ(bad_pages(), 0);

	if (level < LEVELS)
		generation(level);
	CHECK_EQ(bad_pages(), 0); /* what the descendants wrote is theirs */
	_exit(utest_fails ? 1 : 0);
}

/* fork the next generation from a process of this level and check it all came back */
static void generation(int level)
{
	uint64_t mine[NP];
	int j, st = -1, same = 0;
	pid_t pid;

	for (j = 0; j < NP; j++)
		mine[j] = pfn_at_fork[j] = page_pfn(page(j));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child(level + 1);
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fprintf(stderr, "vm-cow:   generation %d: status %#x\n", level + 1, st);
	CHECK_EQ(bad_pages(), 0);
	for (j = 0; j < NP; j++)
		same += page_pfn(page(j)) == mine[j];
	CHECK_EQ(same, NP); /* the children's copies never touched our page tables */
}

int main(int argc, char **argv)
{
	long flt0, flt1;
	int j, same = 0, once = 0;

	narrate_opt(argc, argv);
	mem = mmap(NULL, NP * VM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(mem != MAP_FAILED))
		return utest_done();
	STEP(page(0), "the first process writes its %d pages", NP)
		for (j = 0; j < NP; j++)
			put(j, (unsigned char)(0x80 + j), 0);
	for (j = 0; j < NP; j++) {
		CHECK(page_pfn(page(j)) != 0);
		once += page_mapped_once(page(j)) == 1;
	}
	CHECK_EQ(once, NP);

	generation(0);

	/* every child is gone: our pages are ours alone but still write-protected from fork */
	if (on_faultline()) {
		for (j = 0; j < NP; j++) {
			struct fl_page pg = fl_page_of(page(j));

			same += pg.present && pg.mapcount == 1 && !pg.writable;
		}
		CHECK_EQ(same, NP);
	}
	flt0 = minor_faults();
	STEP(page(0), "the first process writes its pages again, its children gone")
		for (j = 0; j < NP; j++)
			put(j, (unsigned char)(0xc0 + j), 0);
	flt1 = minor_faults();
	CHECK(flt1 - flt0 >= NP); /* each write still faulted once... */
	for (j = 0, same = 0, once = 0; j < NP; j++) {
		same += page_pfn(page(j)) == pfn_at_fork[j]; /* ...and kept its frame */
		once += page_mapped_once(page(j)) == 1;
		if (on_faultline()) {
			struct fl_page pg = fl_page_of(page(j));

			once -= !(pg.writable && pg.mapcount == 1);
		}
	}
	/* Reuse is decided by the map count in 2.6.23 (and faultline). Linux since 5.8 decides by
	 * the reference count, which a page still queued on a per-CPU LRU list raises, so there
	 * a few pages may be copied after all: natively, only most must be reused. */
	if (!CHECK(on_faultline() ? same == NP : same >= NP / 2))
		fprintf(stderr, "vm-cow:   %d of %d pages were copied instead of reused\n",
			NP - same, NP);
	CHECK_EQ(once, NP);
	CHECK_EQ(bad_pages(), 0);
	CHECK_EQ(munmap(mem, NP * VM_PAGE), 0);
	return utest_done();
}
