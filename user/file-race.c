/* file-race: the truncate race that filemap_fault's i_size re-check under the page lock closes.
 * usage: file-race [K [expect-race|- [DIR]]]   (K iterations of the truncator, default 2000;
 * the file in DIR, default /tmp)
 *
 * A 4-page file (opened O_RDWR, then unlinked: the descriptor keeps it) holds, at the start of
 * each page, a 64-bit word naming the generation that last wrote it: the low half is the
 * generation g (1, 2, 3, ...: only ever increasing), the high half a hash of g, so a word read
 * while a pwrite is copying it (torn) is told apart from a real one and skipped. A word of 0 is
 * a page of zeroes (newly created after a truncate).
 *
 * The truncator (this process) runs K iterations of: ftruncate(fd, 0); ftruncate(fd, 4 pages);
 * pwrite generation k into each page. Sometimes it yields between the two ftruncates (readers
 * then touch an empty file: SIGBUS), sometimes between the extension and the pwrites, sometimes
 * after the pwrites (readers compare fresh data), and sometimes it skips one page's pwrite or
 * all of them: readers then find pages absent from the page cache, and each such fault creates
 * the page by "reading the disk" (zeroes) with the page locked meanwhile. Under faultline with
 * disk_latency_us that read sleeps, and the truncator's next ftruncate waits on the page lock:
 * the window of the race (the fault must then see the new i_size under the lock: SIGBUS).
 *
 * N readers (children) each map the file MAP_SHARED PROT_READ once and loop: readers 0..N-2
 * each over one page of their own (page id), the last one over every page. Per page, v1 = the
 * mapped word, f = the word pread() gives, v2 = the mapped word again. (A reader that keeps to
 * one page survives a stale PTE to it: touching another page of a truncated file would kill
 * it with SIGBUS, and its stale PTE with it, before anyone could see it.) A PTE still
 * mapping a page the truncate took out of the page cache (an orphan) never changes again while
 * the file moves on, so a valid v2 != 0 with v2 < f is a stale read (exit 3); so is a page that
 * keeps reading as zeroes for a long run of rounds in which pread shows ever newer data. A
 * reader killed by SIGBUS (it touched a page while the file was short) is a correct outcome:
 * the truncator counts it and starts a new reader.
 *
 * Under faultline the truncator also asks the kernel to check every PTE of every process
 * (fl_vminfo FL_CHECK) every 8 iterations while the readers have their mappings and once more
 * at the end (and a reader that sees a stale page asks for one before it exits): no PTE may
 * map a file page that is no longer in the page cache (orphans) and no page's counts may be
 * wrong. Natively there is no such check (counted as 0 orphans).
 *
 * Passes when no reader ever saw a stale page, every reader ended by SIGBUS or by the final
 * SIGKILL, the readers did compare words, and (faultline) FL_CHECK found nothing.
 *
 * expect-race turns the verdict round for a kernel that is meant to lose the race (faultline
 * booted with legacy_nopage: docs/history.md): then it passes only if a stale read or an
 * orphan PTE was seen, and fails (exit 1) on a run where the race never showed.
 *
 * On one CPU the race needs race_window_us; file-race-smp is the same race on several CPUs
 * without it.
 *
 * With DIR on a disk (ext2), the disk's own latency takes disk_latency_us's place: every
 * eighth round the truncator writes every page, fdatasyncs, drops the pages from the cache
 * (posix_fadvise DONTNEED: nobody maps them then) and yields, so the readers' faults read the
 * disk, each asleep on its page's lock until the disk's interrupt, while the truncator goes
 * on to its next ftruncate. */
#define _GNU_SOURCE
#define UTEST_NAME "file-race"
#include "utest.h"
#include "vmstat.h"
#include "filetest.h"
#include "file-race.h"
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define P	   VM_PAGE
#define NPAGES	   4
#define NREADERS   4 /* 3 on one page each, 1 on all */
#define CHECK_EVERY 8
#define ZERO_RUN   50 /* rounds in a row of "mapped zeroes, pread data": a stale zero page */

struct reader_stats { /* in a shared anonymous page: the readers count, the truncator reads */
	unsigned long rounds, compares, zeroes, torn;
	struct fl_check at_stale; /* FL_CHECK by a reader that just saw a stale page */
};

static struct reader_stats *stats;
static char path[64];
static int fd;

/* a stale read: while the stale PTE is still mapped, have the kernel look for it too */
static void stale_exit(struct reader_stats *me)
{
	struct fl_check c;

	if (on_faultline() && fl_check(&c) == 0) {
		me->at_stale = c;
		fprintf(stderr, "file-race:   FL_CHECK right then: %llu orphans, %llu bad counts\n",
			(unsigned long long)c.orphans, (unsigned long long)c.bad_counts);
	}
	_exit(3);
}

static void reader(int id)
{
	volatile uint64_t *m;
	struct reader_stats *me = &stats[id];
	unsigned long zero_run[NPAGES] = { 0 };
	long zero_from[NPAGES] = { 0 };

	m = mmap(NULL, NPAGES * P, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "file-race: reader %d: mmap: %s\n", id, strerror(errno));
		_exit(2);
	}
	for (;;) {
		for (int j = 0; j < (id < NREADERS - 1 ? 1 : NPAGES); j++) {
			int i = (id + j) % NPAGES;
			volatile uint64_t *word = m + i * (P / sizeof(uint64_t));
			uint64_t w1, wf = 0, w2;
			long v1, f, v2;

			w1 = *word; /* SIGBUS here if the file is short now */
			if (pread(fd, &wf, sizeof(wf), (off_t)(i * P)) != (ssize_t)sizeof(wf))
				continue; /* the file was short: nothing to compare */
			w2 = *word;
			v1 = decode(w1);
			f = decode(wf);
			v2 = decode(w2);
			if (f < 0 || v2 < 0) {
				me->torn++;
				continue;
			}
			if (f == 0)
				continue; /* the page is not written yet */
			me->compares++;
			if (v2 != 0 && v2 < f) {
				fprintf(stderr,
					"file-race: reader %d: STALE page %d: the mapping "
					"shows generation %ld (before the pread: %ld) while "
					"the file has %ld\n", id, i, v2, v1, f);
				stale_exit(me);
			}
			if (v2 != 0) {
				zero_run[i] = 0;
				continue;
			}
			me->zeroes++;
			if (zero_run[i]++ == 0)
				zero_from[i] = f;
			if (zero_run[i] >= ZERO_RUN && f >= zero_from[i] + 3) {
				fprintf(stderr, "file-race: reader %d: STALE page %d: "
					"the mapping has read as zeroes for %lu rounds "
					"while the file went from generation %ld to %ld\n",
					id, i, zero_run[i], zero_from[i], f);
				stale_exit(me);
			}
		}
		me->rounds++;
		sched_yield(); /* one CPU (faultline): let the truncator and the others run */
	}
}

static pid_t spawn(int id)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		reader(id);
	if (pid < 0)
		fprintf(stderr, "file-race: fork: %s\n", strerror(errno));
	return pid;
}

static pid_t readers[NREADERS];
static unsigned long sigbus_deaths, stale, unexpected, respawn_failures;

/* a reader ended with status st: count it; respawn it unless the test is ending */
static void reader_ended(pid_t pid, int st, int respawn)
{
	int id;

	for (id = 0; id < NREADERS && readers[id] != pid; id++)
		;
	if (id == NREADERS)
		return; /* not ours */
	readers[id] = 0;
	if (killed_by(st, SIGBUS)) {
		sigbus_deaths++;
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == 3) {
		stale++;
	} else if (!(killed_by(st, SIGKILL) && !respawn)) {
		unexpected++;
		fprintf(stderr, "file-race: reader %d (pid %d): %s\n", id, (int)pid,
			status_str(st));
	}
	if (respawn) {
		readers[id] = spawn(id);
		if (readers[id] < 0) {
			readers[id] = 0;
			respawn_failures++;
		}
	}
}

static void reap(void)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		reader_ended(pid, st, 1);
}

/* Give the readers the CPU with every page written. Natively they have CPUs of their own: a
 * yield will do. Under faultline (one CPU) the truncator sleeps a timer tick instead: with a
 * slow disk the readers' faults and preads sleep too, so after a mere yield the truncator runs
 * again at once and truncates under them before they finish a single round. */
static void let_readers_run(void)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (on_faultline())
		nanosleep(&tick, NULL);
	else
		sched_yield();
}

/* r == 0, else one failed check with errno */
static int ok0(long r, const char *what)
{
	if (r == 0)
		return 1;
	CHECK(!"a truncator call failed");
	fprintf(stderr, "file-race:   %s: %s\n", what, strerror(errno));
	return 0;
}
#define CHECK_EQ_OK(call) ok0((long)(call), #call)


static void vm_check(void)
{
	struct fl_check c;

	if (!on_faultline())
		return; /* natively: no such check, counted as 0 orphans */
	if (fl_check_record(&c))
		return;
	if (c.orphans || c.bad_counts)
		fprintf(stderr, "file-race: FL_CHECK %lu: %llu PTEs, %llu to file pages, %llu "
			"orphans, %llu bad counts\n", nchecks, (unsigned long long)c.ptes,
			(unsigned long long)c.file_ptes, (unsigned long long)c.orphans,
			(unsigned long long)c.bad_counts);
}

int main(int argc, char **argv)
{
	long k, iterations = argc > 1 ? atol(argv[1]) : 2000;
	int expect_race = argc > 2 && strcmp(argv[2], "expect-race") == 0;
	const char *dir = argc > 3 ? argv[3] : NULL;
	unsigned long compares = 0, rounds = 0, zeroes = 0, torn = 0, dropped_rounds = 0;
	int i, st;
	pid_t pid;

	if (iterations <= 0 || (argc > 2 && !expect_race && strcmp(argv[2], "-")) || argc > 4) {
		fprintf(stderr, "usage: file-race [iterations [expect-race|- [DIR]]]\n");
		return 2;
	}
	stats = mmap(NULL, P, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(stats != MAP_FAILED))
		return utest_done();
	memset(stats, 0, P);
	if (dir)
		snprintf(path, sizeof(path), "%s/fltest-race-%d", dir, (int)getpid());
	else if (tmp_setup())
		return 1;
	else
		tmp_path(path, sizeof(path), "race");
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (!CHECK(fd >= 0))
		return utest_done();
	/* Only the descriptor is needed (the readers inherit it): a run killed half way leaves
	 * no file behind. */
	CHECK_EQ(unlink(path), 0);
	CHECK_EQ(ftruncate(fd, NPAGES * P), 0);
	for (i = 0; i < NPAGES; i++) {
		uint64_t w = encode(1);

		CHECK_EQ(pwrite(fd, &w, sizeof(w), (off_t)(i * P)), sizeof(w));
	}
	for (i = 0; i < NREADERS; i++)
		readers[i] = spawn(i);

	for (k = 2; k < iterations + 2; k++) {
		uint64_t w = encode((uint32_t)k);

		if (!CHECK_EQ_OK(ftruncate(fd, 0)))
			break;
		if (k % 8 == 1)
			sched_yield(); /* readers touch the empty file: SIGBUS */
		if (!CHECK_EQ_OK(ftruncate(fd, NPAGES * P)))
			break;
		if (k % 2 == 0)
			sched_yield(); /* readers find the pages absent: each fault creates one,
					* reading the disk with the page locked (and asleep) */
		/* k % 8 == 6: no pwrite at all, so the next ftruncate(fd, 0) comes at once, maybe
		 * while a reader's fault still holds a page locked: the race */
		for (i = 0; i < NPAGES && k % 8 != 6; i++) {
			/* this page stays absent until a reader or the next round */
			if (k % 8 == 3 && i == (k / 8) % NPAGES)
				continue;
			if (!CHECK_EQ_OK(pwrite(fd, &w, sizeof(w), (off_t)(i * P)) -
					 (ssize_t)sizeof(w)))
				break;
			if (k % 16 == 5)
				sched_yield(); /* a reader may catch a page half way through */
		}
		if (dir && k % 8 == 7) {
			/* On the disk and out of the cache: the readers' next faults read the
			 * disk, and the next ftruncate comes while they wait for it. */
			if (!CHECK_EQ_OK(fdatasync(fd)) ||
			    !CHECK_EQ_OK(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)))
				break;
			dropped_rounds++;
			sched_yield();
			continue;
		}
		reap(); /* new readers for the dead ones first... */
		if (k % 4 == 3)
			let_readers_run(); /* ...then they compare the mapping with the new data */
		if (k % CHECK_EVERY == 0) {
			sched_yield(); /* the readers map their pages again first */
			vm_check();
		}
	}
	reap();
	vm_check(); /* the readers still have their mappings */

	for (i = 0; i < NREADERS; i++)
		if (readers[i] > 0)
			kill(readers[i], SIGKILL);
	while ((pid = waitpid(-1, &st, 0)) > 0)
		reader_ended(pid, st, 0);
	for (i = 0; i < NREADERS; i++) {
		compares += stats[i].compares;
		rounds += stats[i].rounds;
		zeroes += stats[i].zeroes;
		torn += stats[i].torn;
		if (stats[i].at_stale.orphans > worst.orphans)
			worst.orphans = stats[i].at_stale.orphans;
		if (stats[i].at_stale.bad_counts > worst.bad_counts)
			worst.bad_counts = stats[i].at_stale.bad_counts;
	}
	if (expect_race) {
		CHECK(stale > 0 || worst.orphans > 0); /* the race showed */
	} else {
		CHECK_EQ(stale, 0);
		CHECK_EQ(worst.orphans, 0);
	}
	CHECK_EQ(unexpected, 0);
	CHECK_EQ(respawn_failures, 0);
	CHECK(compares > 0); /* the readers did compare */
	CHECK_EQ(worst.bad_counts, 0);
	if (on_faultline()) {
		CHECK(nchecks > 0 && last.file_ptes > 0);
		CHECK_EQ(fl_check(&at_end), 0); /* past_eof counts since boot: all of them */
		CHECK_EQ(at_end.past_eof, 0);
	}

	printf("file-race: %ld iterations, %d readers: %lu SIGBUS deaths, %lu stale reads, %lu "
	       "rounds, %lu compares (%lu zero pages, %lu torn words skipped)\n",
	       iterations, NREADERS, sigbus_deaths, stale, rounds, compares, zeroes, torn);
	if (on_faultline())
		printf("file-race: FL_CHECK x%lu: max %llu orphans, max %llu bad counts, %llu "
		       "faults past EOF (last: %llu PTEs, %llu file PTEs)\n", nchecks,
		       (unsigned long long)worst.orphans, (unsigned long long)worst.bad_counts,
		       (unsigned long long)at_end.past_eof, (unsigned long long)last.ptes,
		       (unsigned long long)last.file_ptes);
	else
		printf("file-race: FL_CHECK: not available natively (taken as 0 orphans)\n");
	if (expect_race)
		printf("file-race: expect-race: the race %s (%lu stale reads, max %llu orphans)\n",
		       stale > 0 || worst.orphans > 0 ? "showed" : "did NOT show", stale,
		       (unsigned long long)worst.orphans);

	if (dir)
		printf("file-race: %s: %lu rounds with the pages dropped to the disk\n", dir,
		       dropped_rounds);
	CHECK_EQ(close(fd), 0);
	CHECK_EQ(munmap(stats, P), 0);
	if (!dir)
		tmp_cleanup();
	return utest_done();
}
