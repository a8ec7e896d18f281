/* oom-kill: whom the OOM killer chooses (mm/oom_kill.c). Under faultline only: its memory hog
 * writes until the kernel has no frame left, which must never happen to the build host. The
 * parent sets itself to oom_score_adj -1000 (never chosen). Round 1: a small child (adj 0) and
 * a hog (adj 0): the hog gets SIGKILL, the small one lives on. Round 2: the hog at -1000 and a
 * small child at +1000: the small one gets SIGKILL, and the hog, which sees it go (a pipe from
 * it reads EOF), stops and exits 0. Round 3: a hog whose memory is written by the kernel
 * (read() from /dev/zero) gets SIGKILL all the same. Each round prints its pids:
 * tests/boot/oom.sh checks that the kernel printed one "Out of memory: Killed process" line a
 * round, naming the victim. The hogs size themselves from sysinfo (twice RAM and swap), so
 * every machine runs out; above BIG_RAM only round 1 runs (each round writes all of memory: a
 * few seconds a GiB under TCG), rounds 2 and 3 being the small machines' (the 32 MiB and
 * 256 MiB ring-3 boots, tests/boot/oom.sh). */
#define _GNU_SOURCE
#define UTEST_NAME "oom-kill"
#include "utest.h"
#include "vmstat.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#define MIB (1UL << 20)
#define SMALL_SIZE (4 * MIB)
#define BIG_RAM (1024 * MIB)

static unsigned char *small_mem;

/* SIGUSR1 to a small process: is its memory as it wrote it? exit 0 if so, 1 if not */
static void small_check(int sig)
{
	(void)sig;
	for (size_t i = 0; i < SMALL_SIZE; i++)
		if (small_mem[i] != 0x5a)
			_exit(1);
	_exit(0);
}

static void set_adj(int adj)
{
	char s[16];
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);

	snprintf(s, sizeof(s), "%d", adj);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		fprintf(stderr, "oom-kill: cannot set oom_score_adj %d: %s\n", adj,
			strerror(errno));
		_exit(3);
	}
	close(fd);
}

/* A small process: adj, SMALL_SIZE written, then one byte on ready (closed), then asleep. */
static void small(int adj, int ready)
{
	unsigned char *p;

	set_adj(adj);
	p = mmap(NULL, SMALL_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	memset(p, 0x5a, SMALL_SIZE);
	small_mem = p;
	signal(SIGUSR1, small_check);
	if (write(ready, "r", 1) != 1)
		_exit(3);
	close(ready);
	for (;;)
		pause();
}

/* A region twice RAM and swap, and 64 MiB more: more than any memory there is to give it
 * (MAP_NORESERVE: Linux refuses one mapping beyond RAM + swap). Exits 3 if it cannot map. */
static unsigned char *map_hog(size_t *size)
{
	struct sysinfo si;
	unsigned char *p;

	if (sysinfo(&si) != 0)
		_exit(3);
	*size = ((size_t)si.totalram + si.totalswap) * si.mem_unit * 2 + 64 * MIB;
	p = mmap(NULL, *size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	return p;
}

/* The hog: adj, then twice all the memory there is (RAM and swap) mapped without reserve and
 * written page by page. With watch >= 0 (non-blocking), it stops and exits 0 once that pipe
 * reads EOF; 4 if it wrote everything (no OOM killer). */
static void hog(int adj, int watch)
{
	size_t size, off;
	unsigned char *p;
	char c;

	set_adj(adj);
	p = map_hog(&size);
	for (off = 0; off < size; off += 4096) {
		p[off] = 1;
		if (watch >= 0 && (off & 0x3fff) == 0 && read(watch, &c, 1) == 0)
			_exit(0);
	}
	_exit(4);
}

/* A hog that fills its memory through read() from /dev/zero: the kernel's copy to the fresh
 * pages faults in ring 0, and the OOM killer runs from there. A read that fails (-EFAULT: the
 * fault found no frame, and the killer chose nobody yet) is tried again. */
static void kernel_hog(void)
{
	size_t size, off = 0, chunk = 256 * 1024;
	int zero = open("/dev/zero", O_RDONLY), fails = 0;
	unsigned char *p;
	ssize_t r;

	set_adj(0);
	if (zero < 0)
		_exit(3);
	p = map_hog(&size);
	while (off + chunk <= size) {
		r = read(zero, p + off, chunk);
		if (r > 0) {
			off += (size_t)r;
			fails = 0;
		} else if (++fails > 10000) {
			_exit(5);
		}
	}
	_exit(4);
}

static pid_t start_small(int adj, int *alive)
{
	int ready[2], live[2];
	pid_t pid;
	char c;

	if (!CHECK(pipe(ready) == 0 && pipe(live) == 0))
		exit(utest_done());
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(live[0]); /* live[1] stays open until it dies */
		small(adj, ready[1]);
	}
	close(ready[1]);
	close(live[1]);
	CHECK_EQ(read(ready[0], &c, 1), 1);
	close(ready[0]);
	*alive = live[0];
	return pid;
}

static int status_of(pid_t pid)
{
	int st = -1;

	CHECK_EQ(waitpid(pid, &st, 0), pid);
	return st;
}

static void report(const char *who, int st, int want_sig, int want_code)
{
	int ok = want_sig ? WIFSIGNALED(st) && WTERMSIG(st) == want_sig
			  : WIFEXITED(st) && WEXITSTATUS(st) == want_code;

	if (!CHECK(ok))
		fprintf(stderr, "oom-kill:   the %s ended with status %#x (%s %d)\n", who, st,
			WIFSIGNALED(st) ? "signal" : "exit",
			WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

int main(void)
{
	struct sysinfo si;
	pid_t s, h;
	int alive, st;

	if (!on_faultline()) {
		printf("oom-kill: refused: it exhausts the machine's memory; faultline only\n");
		return 2;
	}
	if (!CHECK(sysinfo(&si) == 0))
		return utest_done();
	printf("oom-kill: %lu MiB of RAM, %lu MiB of swap to exhaust\n",
	       (unsigned long)(si.totalram * si.mem_unit / MIB),
	       (unsigned long)(si.totalswap * si.mem_unit / MIB));
	set_adj(-1000);
	fflush(stdout);

	/* Round 1: the hog goes, the small process stays. */
	s = start_small(0, &alive);
	fflush(stdout);
	h = fork();
	if (h == 0) {
		close(alive);
		hog(0, -1);
	}
	printf("oom-kill: round 1: hog %d, small %d\n", (int)h, (int)s);
	fflush(stdout);
	report("hog (round 1)", status_of(h), SIGKILL, 0);
	CHECK_EQ(waitpid(s, &st, WNOHANG), 0); /* still running */
	CHECK_EQ(kill(s, SIGUSR1), 0);
	report("small process (round 1), its memory checked,", status_of(s), 0, 0);
	close(alive);
	if ((unsigned long)si.totalram * si.mem_unit > BIG_RAM) {
		printf("oom-kill: more than %lu MiB of RAM: round 1 only\n", BIG_RAM / MIB);
		return utest_done();
	}

	/* Round 2: +1000 on the small process, -1000 on the hog: the small one goes. */
	s = start_small(1000, &alive);
	fflush(stdout);
	h = fork();
	if (h == 0) {
		fcntl(alive, F_SETFL, O_NONBLOCK);
		hog(-1000, alive);
	}
	close(alive);
	printf("oom-kill: round 2: hog %d, small %d\n", (int)h, (int)s);
	fflush(stdout);
	report("small process (round 2)", status_of(s), SIGKILL, 0);
	report("hog (round 2)", status_of(h), 0, 0);
	/* Round 3: the faults come from the kernel's copy (read from /dev/zero). */
	fflush(stdout);
	h = fork();
	if (h == 0)
		kernel_hog();
	printf("oom-kill: round 3: hog %d\n", (int)h);
	fflush(stdout);
	report("hog (round 3)", status_of(h), SIGKILL, 0);
	printf("oom-kill: done\n");
	return utest_done();
}
