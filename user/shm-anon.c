/* shm-anon: shared anonymous memory (and MAP_SHARED /dev/zero) stays shared across fork, both
 * ways, even for pages never touched before the fork, after mprotect(PROT_NONE) and back and
 * after MADV_DONTNEED; MADV_REMOVE zeroes the range in every sharer; MAP_PRIVATE /dev/zero is
 * private. Checked against Linux natively.
 * usage: shm-anon [-v]   -v tells the faults and frames of the first fork's sharing
 * (user/narrate.h): the child maps the frame the parent wrote, the parent the one the child
 * wrote, and no write copies */
#define _GNU_SOURCE
#define UTEST_NAME "shm-anon"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"
#include "vmstat.h"
#include "narrate.h"

#define PG 4096
#define NP 8

/* Run fn(p) in a child; its exit status (0 when every check it made held). */
static int in_child(volatile unsigned char *p, int (*fn)(volatile unsigned char *))
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(p));
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The child writes every page (untouched ones included) and checks what the parent wrote. */
static int child_writes(volatile unsigned char *p)
{
	int bad = 1;

	STEP(p, "the child reads page 0, which the parent wrote before fork")
		bad = p[0] != 0xa1;
	STEP(p + PG, "the child writes page 1, which no one touched before")
		p[PG + 1] = 0x41;
	for (int i = 0; i < NP; i++)
		p[i * PG + 1] = (unsigned char)(0x40 + i);
	return bad;
}

static int child_reads_zero(volatile unsigned char *p)
{
	for (int i = 0; i < NP; i++)
		if (p[i * PG] || p[i * PG + 1])
			return 1;
	return 0;
}

/* One shared region p of NP pages through its life: fork both ways, mprotect, DONTNEED,
 * REMOVE. With -v and tell, its first fork is told. */
static void shared_region(volatile unsigned char *p, const char *what, int tell)
{
	narrate_only(tell);
	STEP(p, "the parent writes page 0 of %s memory", what)
		p[0] = 0xa1; /* only page 0 is touched before the fork */
	CHECK_EQ(in_child(p, child_writes), 0);
	STEP(p + PG, "the parent reads page 1, which the child wrote")
		(void)p[PG + 1];
	narrate_only(0);
	for (int i = 0; i < NP; i++)
		CHECK_EQ(p[i * PG + 1], 0x40 + i);

	CHECK_EQ(mprotect((void *)p, NP * PG, PROT_NONE), 0);
	CHECK_EQ(mprotect((void *)p, NP * PG, PROT_READ | PROT_WRITE), 0);
	CHECK_EQ(p[0], 0xa1);
	CHECK_EQ(p[3 * PG + 1], 0x43);
	p[5 * PG] = 0x55;
	CHECK_EQ(in_child(p, child_writes), 0);
	CHECK_EQ(p[5 * PG], 0x55);
	CHECK_EQ(p[5 * PG + 1], 0x45);

	/* DONTNEED drops the PTEs, not the pages: the file behind keeps them. */
	CHECK_EQ(madvise((void *)p, NP * PG, MADV_DONTNEED), 0);
	CHECK_EQ(p[0], 0xa1);
	CHECK_EQ(p[7 * PG + 1], 0x47);

	/* REMOVE punches the hole in every sharer, this one included. */
	CHECK_EQ(madvise((void *)p, NP * PG, MADV_REMOVE), 0);
	CHECK_EQ(p[0], 0);
	CHECK_EQ(in_child(p, child_reads_zero), 0);
	p[2 * PG] = 7;
	CHECK_EQ(in_child(p, child_writes), 1); /* p[0] is 0 now, the writes still land */
	CHECK_EQ(p[2 * PG + 1], 0x42);
	CHECK_EQ(p[2 * PG], 7);
}

/* The child writes a page of a shared region made PROT_NONE before the fork. */
/* 1 if /proc/self/maps names the mapping at p as name. */
static int maps_names(volatile void *p, const char *name)
{
	char line[256], want[32];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	snprintf(want, sizeof(want), "%lx-", (unsigned long)p);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)) && strstr(line, name))
			found = 1;
	if (f)
		fclose(f);
	return found;
}

static int child_unprotects(volatile unsigned char *p)
{
	if (mprotect((void *)p, NP * PG, PROT_READ | PROT_WRITE))
		return 2;
	p[PG] = 0x99;
	return 0;
}

static int child_writes_private(volatile unsigned char *p)
{
	p[0] = 0x77;
	return 0;
}

int main(int argc, char **argv)
{
	volatile unsigned char *p;
	int fd;

	narrate_opt(argc, argv);
	p = mmap(NULL, NP * PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK(maps_names(p, " rw-s 00000000 ") && maps_names(p, "/dev/zero (deleted)\n"));
		shared_region(p, "MAP_SHARED|MAP_ANONYMOUS", 1);
		CHECK_EQ(munmap((void *)p, NP * PG), 0);
	}

	/* Created PROT_NONE: nothing exists yet, the sharing still must. */
	p = mmap(NULL, NP * PG, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK_EQ(in_child(p, child_unprotects), 0);
		CHECK_EQ(mprotect((void *)p, NP * PG, PROT_READ), 0);
		CHECK_EQ(p[PG], 0x99);
		CHECK_EQ(p[0], 0);
		munmap((void *)p, NP * PG);
	}

	/* MADV_REMOVE needs a shared mapping. */
	p = mmap(NULL, NP * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	CHECK_ERR(madvise((void *)p, NP * PG, MADV_REMOVE), EINVAL);
	munmap((void *)p, NP * PG);

	/* /dev/zero: MAP_SHARED is shared memory, MAP_PRIVATE private memory. */
	fd = open("/dev/zero", O_RDWR);
	CHECK(fd >= 0);
	p = mmap(NULL, NP * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK_EQ(p[3 * PG], 0);
		shared_region(p, "/dev/zero MAP_SHARED", 0);
		munmap((void *)p, NP * PG);
	}
	p = mmap(NULL, NP * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK_EQ(p[0], 0);
		p[PG] = 3;
		CHECK_EQ(in_child(p, child_writes_private), 0);
		CHECK_EQ(p[0], 0);
		CHECK_EQ(p[PG], 3);
		munmap((void *)p, NP * PG);
	}
	close(fd);
	/* Closing the descriptor does not end a shared /dev/zero mapping. */
	fd = open("/dev/zero", O_RDONLY);
	p = mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	close(fd);
	if (p != MAP_FAILED)
		CHECK_EQ(p[0], 0);
	return utest_done();
}
