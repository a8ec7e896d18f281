/* iowait.h: what swapbench.c and extbench.c share to count instructions across disk waits
 * under -icount: the spinner whose own time comes off the TSC, and /proc/diskstats' counters
 * of one disk (docs/bench.md, "Swap" and "Files on a disk"). */
#ifndef IOWAIT_H
#define IOWAIT_H
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SPIN_GAP    200  /* a turn of the spinner's loop is ~10 instructions */
#define YIELD_GAP   4000 /* a sched_yield that switched to no one (faultline: ~500) */
#define YIELD_TURNS 2000 /* turns between two yields when there is no SCHED_IDLE */
#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif

/* The spinner's time, in a shared page: total and mode written by the spinner only, steps by
 * the measured process only (spin_step, once per timed step). */
struct spin {
	volatile uint64_t total;
	volatile int mode; /* 0 starting, 1 SCHED_IDLE, 2 yield */
	volatile uint64_t steps;
	volatile uint64_t alone; /* its shortest yield that no one else ran in (yield mode) */
};

static struct spin *spin;
static const char *const spin_mode_name[] = { "none", "SCHED_IDLE", "sched_yield" };

static inline uint64_t rdtsc_plain(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* The calling process's context switches so far, voluntary and not */
static long own_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * A CPU waiting for the disk in hlt runs no instructions, but under -icount sleep=off QEMU
 * then jumps the clock to the next timer, so the TSC across a wait counts host-dependent
 * time. The spinner keeps the CPU busy whenever nothing else wants it and adds up the gaps
 * short enough to be its own loop: TSC less its total is everyone else's instructions. It
 * runs as SCHED_IDLE where the kernel has it (a woken task preempts it at once); else it
 * yields every YIELD_TURNS turns, and a yield that came back quickly counts as its time too,
 * unless the measured process took a step meanwhile: a woken reader that reads a page and
 * sleeps again on the next may take less than YIELD_GAP. Nor if the yield switched to another
 * task (the spinner's context switches, getrusage): a writer woken by the disk's interrupt
 * that started the next page's write and slept again took no step of its own. Such a yield
 * still holds the spinner's own calls (the two getrusage, the yield): as much as the shortest
 * yield that was all its own (alone) counts as its time. SB_SPIN=yield: the yielding one even
 * where SCHED_IDLE exists.
 */
static void __attribute__((noreturn)) spinner(void)
{
	struct sched_param sp = { 0 };
	uint64_t total = 0, last, now, steps, alone = YIELD_GAP;
	long switches;
	int yielding, ran;

	/* the system call itself: musl's sched_setscheduler is a stub that says ENOSYS */
	yielding = (getenv("SB_SPIN") && strcmp(getenv("SB_SPIN"), "yield") == 0) ||
		   syscall(SYS_sched_setscheduler, 0, SCHED_IDLE, &sp) != 0;
	spin->mode = yielding ? 2 : 1;
	last = rdtsc_plain();
	for (unsigned int turn = 1;; turn++) {
		now = rdtsc_plain();
		if (now - last < SPIN_GAP) {
			total += now - last;
			spin->total = total;
		}
		last = now;
		if (!yielding || turn % YIELD_TURNS)
			continue;
		steps = spin->steps;
		switches = own_switches();
		sched_yield();
		ran = own_switches() != switches;
		now = rdtsc_plain();
		if (now - last < YIELD_GAP && spin->steps == steps && !ran) {
			total += now - last;
			if (now - last < alone)
				spin->alone = alone = now - last;
		} else if (alone < YIELD_GAP) { /* its own calls, around the others' turn */
			total += now - last < alone ? now - last : alone;
		}
		spin->total = total;
		last = now;
	}
}

/* The measured process took one more step (a touch, a read): see spinner() */
static inline void spin_step(void)
{
	spin->steps++;
}

/* Pin this process to one CPU (the spinner inherits it) and fork the spinner; its pid once it
 * runs, -1 on failure (with a message). */
static pid_t start_spinner(const char *prog)
{
	cpu_set_t one;
	pid_t sp;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() > 0 ? sched_getcpu() : 0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	spin = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (spin == MAP_FAILED) {
		fprintf(stderr, "%s: mmap of the shared page failed\n", prog);
		return -1;
	}
	fflush(stdout);
	sp = fork();
	if (sp < 0) {
		fprintf(stderr, "%s: fork of the spinner failed\n", prog);
		return -1;
	}
	if (sp == 0)
		spinner();
	while (!spin->mode)
		sched_yield();
	return sp;
}

static char filebuf[65536];

/* The whole of a small file in filebuf (NUL-terminated); its length, -1 if unreadable. */
static long slurp(const char *path)
{
	long len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (len < (long)sizeof(filebuf) - 1 &&
	       (n = read(fd, filebuf + len, sizeof(filebuf) - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	filebuf[len] = 0;
	return len;
}

/* Disk name's reads and writes completed and their sectors, from /proc/diskstats ("major
 * minor name reads merged sectors ms writes merged sectors ms ..."): 0, or -1 with all four
 * -1 when there is no such line. Uses filebuf. */
static int disk_counts(const char *name, long *rd_ios, long *rd_sect, long *wr_ios,
		       long *wr_sect)
{
	*rd_ios = *rd_sect = *wr_ios = *wr_sect = -1;
	if (!name[0] || slurp("/proc/diskstats") <= 0)
		return -1;
	for (char *l = filebuf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char dev[32];
		long f[8];

		if (sscanf(l, "%*u %*u %31s %ld %ld %ld %ld %ld %ld %ld %ld", dev, &f[0], &f[1],
			   &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) == 9 &&
		    strcmp(dev, name) == 0) {
			*rd_ios = f[0], *rd_sect = f[2];
			*wr_ios = f[4], *wr_sect = f[6];
			return 0;
		}
	}
	return -1;
}

#endif
