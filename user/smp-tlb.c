/* smp-tlb: the TLB shootdown seen from ring 3. A thread reads (or writes) a page in a tight loop,
 * on another CPU when there are two, while the main thread munmaps the page or mprotects it
 * PROT_READ / PROT_NONE: once that call has returned, no access through the old translation
 * may succeed, and the access that fails gets SIGSEGV with the right siginfo. Runs natively
 * too. With one CPU the two threads take turns, which tests the local flush. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#define UTEST_NAME "smp-tlb"
#include "utest.h"

#define PAGE	  4096UL
#define ROUNDS	  2000 /* of each variant, unless argv[1] says */
#define SPIN_MIN  1000 /* accesses the loop has made to the page before the main thread acts */
#define TIMEOUT_S 30   /* a wait longer than this is a hang: fail instead */
/* A variant stops early, after at least MIN_ROUNDS, once it has run BUDGET_S seconds: under
 * QEMU's TCG with more virtual CPUs than the host has cores, a shootdown can wait long for a
 * descheduled virtual CPU. */
#define MIN_ROUNDS 20
#define BUDGET_S   3.0

enum change { UNMAP, RDONLY, NOACCESS };

static const struct variant {
	const char *name;
	enum change change;
	int write;     /* the loop writes the page (else reads it) */
	int code;      /* si_code of the fault that ends the loop */
} variants[] = {
	{ "munmap/read", UNMAP, 0, SEGV_MAPERR },
	{ "mprotect PROT_NONE/read", NOACCESS, 0, SEGV_ACCERR },
	{ "mprotect PROT_READ/write", RDONLY, 1, SEGV_ACCERR },
	{ "munmap/write", UNMAP, 1, SEGV_MAPERR }, /* last: the riskiest (see main) */
};

/* Shared between the main thread and the loop thread: the counters are read and written with
 * __atomic operations; res is the loop's, published to the main thread by done_round. */
static const struct variant *var;
static int go_round;	      /* main: round r's page is ready (target, offset set) */
static volatile uint64_t *target; /* the word the loop accesses in round go_round */
static long spins;	      /* loop: accesses that succeeded in this round so far */
static int changed;	      /* main: round r's munmap/mprotect has returned */
static int done_round;	      /* loop: round r is over, its result below is written */
static int quit;	      /* main: no more rounds */
static int yield_in_loop;     /* the two threads may share a CPU: let the main thread run */

/* The loop thread's result for one round */
static struct {
	int faulted, signo, code, tid_ok;
	void *addr;
	long stale; /* accesses that succeeded after the loop had seen the change returned */
} res;

static pid_t loop_tid;
static int loop_cpu = -1, loop_pinned;
static sigjmp_buf fault_jb;
static volatile sig_atomic_t in_loop; /* the loop thread is between sigsetjmp and its end */

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The loop's access faulted: note the siginfo and leave the loop. Any other fault is a bug
 * of this program: back to the default action, so that the retried access kills us. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (!in_loop || gettid_() != loop_tid) {
		signal(SIGSEGV, SIG_DFL);
		return;
	}
	in_loop = 0;
	res.signo = si->si_signo;
	res.code = si->si_code;
	res.addr = si->si_addr;
	res.tid_ok = 1;
	siglongjmp(fault_jb, 1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One turn of a wait: the first SPIN_ONLY turns only pause (the other thread has a CPU of its
 * own, or will soon: a system call in every turn would make the waits slow, more so with a
 * kernel that takes a lock in each), then a yield every 64 (it may share ours). -1 after
 * TIMEOUT_S: a hang. */
#define SPIN_ONLY 1024
static int backoff(unsigned i, double *t0)
{
	if (i < SPIN_ONLY || i % 64) {
		__builtin_ia32_pause();
		return 0;
	}
	if (i == SPIN_ONLY)
		*t0 = now();
	sched_yield();
	return i % 1024 == 0 && now() - *t0 > TIMEOUT_S ? -1 : 0;
}

/* Wait until *p >= want: 0, or -1 after TIMEOUT_S. */
static int wait_ge_long(long *p, long want)
{
	double t0 = 0;

	for (unsigned i = 1; __atomic_load_n(p, __ATOMIC_ACQUIRE) < want; i++)
		if (backoff(i, &t0))
			return -1;
	return 0;
}

static int wait_ge(int *p, int want)
{
	double t0 = 0;

	for (unsigned i = 1; __atomic_load_n(p, __ATOMIC_ACQUIRE) < want; i++)
		if (backoff(i, &t0))
			return -1;
	return 0;
}

/* Pin the calling thread to cpu: 1 if done, 0 if the kernel has no sched_setaffinity. */
static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == 0)
		return 1;
	if (errno != ENOSYS)
		CHECK(!"sched_setaffinity to a CPU of our own affinity mask");
	return 0;
}

static int cpu_main = -1, cpu_loop = -1; /* the CPUs to pin to, -1: no pinning */

/* The loop itself, until an access faults (the handler jumps out) or succeeds after the loop
 * knew the change had returned: the change flag is loaded FIRST, then the access made, so a
 * success after a "changed" load means the CPU used a stale translation. */
static __attribute__((noinline)) void spin(int r, volatile uint64_t *p, int write)
{
	for (long n = 1;; n++) {
		int seen = __atomic_load_n(&changed, __ATOMIC_SEQ_CST) == r;

		if (write)
			*p = (uint64_t)n;
		else
			(void)*p;
		if (seen)
			return; /* stop there: a stale write may land in a freed page */
		__atomic_store_n(&spins, n, __ATOMIC_RELAXED);
		if (yield_in_loop && n % 256 == 0)
			sched_yield();
	}
}

/* One round of the loop thread: load the translation, then spin until the fault. */
static void loop_round(int r)
{
	volatile uint64_t *p = __atomic_load_n(&target, __ATOMIC_ACQUIRE);

	res.faulted = res.signo = res.code = res.tid_ok = 0;
	res.addr = NULL;
	res.stale = 0;
	if (var->write)
		*p = 1; /* the translation is in this CPU's TLB now */
	else
		(void)*p;
	if (sigsetjmp(fault_jb, 1)) {
		res.faulted = 1;
		return;
	}
	in_loop = 1;
	spin(r, p, var->write);
	in_loop = 0;
	res.stale = 1;
}

static void *loop_thread(void *arg)
{
	(void)arg;
	loop_tid = gettid_();
	if (cpu_loop >= 0)
		loop_pinned = pin(cpu_loop);
	loop_cpu = sched_getcpu();
	for (int r = 1;; r++) {
		double t0 = 0;

		for (unsigned i = 1; __atomic_load_n(&go_round, __ATOMIC_ACQUIRE) < r; i++)
			if (__atomic_load_n(&quit, __ATOMIC_ACQUIRE) || backoff(i, &t0))
				return NULL; /* the end, or a hang the main thread reports */
		loop_round(r);
		__atomic_store_n(&done_round, r, __ATOMIC_RELEASE);
	}
}

static int nrounds = ROUNDS;

/* The rounds of one variant; gives the number of stale accesses. Round r uses page r-1 of one
 * region, so that no round reuses an address an earlier one unmapped: a CPU holding a stale
 * entry for it (the bug this looks for) would then write the old frame under the new page. */

static long run_variant(const struct variant *v, int *rounds_done)
{
	pthread_t th;
	long stale = 0;
	int bad = 0, r;
	double slow[3] = { 0, 0, 0 }, t[4]; /* the longest wait of each step, in seconds */
	double t_start = now();
	char *region = mmap(NULL, nrounds * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	*rounds_done = 0;
	if (!CHECK(region != MAP_FAILED))
		return 0;

	var = v;
	go_round = changed = done_round = quit = 0;
	spins = 0;
	loop_cpu = -1;
	CHECK_EQ(pthread_create(&th, NULL, loop_thread, NULL), 0);
	for (r = 1; r <= nrounds && (r <= MIN_ROUNDS || now() - t_start < BUDGET_S); r++) {
		char *page = region + (r - 1) * PAGE;
		volatile uint64_t *word;
		int ret;

		word = (volatile uint64_t *)(page + (r * 8 % PAGE)); /* si_addr varies */
		*word = 0x1234; /* a frame of its own, not the zero page */
		t[0] = now();
		__atomic_store_n(&spins, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&target, word, __ATOMIC_RELEASE);
		__atomic_store_n(&go_round, r, __ATOMIC_RELEASE);
		if (!CHECK(wait_ge_long(&spins, SPIN_MIN) == 0)) {
			fprintf(stderr, "smp-tlb: %s round %d: the loop never spun\n", v->name, r);
			break;
		}
		t[1] = now();
		switch (v->change) {
		case UNMAP:
			ret = munmap(page, PAGE);
			break;
		case RDONLY:
			ret = mprotect(page, PAGE, PROT_READ);
			break;
		default:
			ret = mprotect(page, PAGE, PROT_NONE);
			break;
		}
		__atomic_store_n(&changed, r, __ATOMIC_SEQ_CST);
		t[2] = now();
		CHECK_EQ(ret, 0);
		if (!CHECK(wait_ge(&done_round, r) == 0)) {
			fprintf(stderr, "smp-tlb: %s round %d: the loop never ended\n", v->name, r);
			break;
		}
		t[3] = now();
		for (int k = 0; k < 3; k++)
			if (t[k + 1] - t[k] > slow[k])
				slow[k] = t[k + 1] - t[k];
		stale += res.stale;
		if (res.stale) {
			if (bad++ < 5)
				fprintf(stderr, "smp-tlb: %s round %d: stale access to %p after %s "
					"returned\n", v->name, r, (void *)word,
					v->change == UNMAP ? "munmap" : "mprotect");
		} else if (!res.faulted || res.signo != SIGSEGV || res.code != v->code ||
			   res.addr != (void *)word || !res.tid_ok) {
			if (bad++ < 5)
				fprintf(stderr, "smp-tlb: %s round %d: fault %d signo %d code %d "
					"(want %d) addr %p (want %p) on the loop thread %d\n",
					v->name, r, res.faulted, res.signo, res.code, v->code,
					res.addr, (void *)word, res.tid_ok);
			CHECK(!"the access faulted with SIGSEGV, right si_code and si_addr");
		}
		if (v->change != UNMAP)
			CHECK_EQ(munmap(page, PAGE), 0);
	}
	*rounds_done = r - 1;
	__atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CHECK_EQ(munmap(region, nrounds * PAGE), 0); /* what is left of it */
	printf("smp-tlb: %s: main on CPU %d, loop on CPU %d%s; %d rounds%s, %ld stale\n",
	       v->name, sched_getcpu(), loop_cpu, loop_pinned ? " (pinned)" : "", *rounds_done,
	       *rounds_done < nrounds ? " (time's up)" : "", stale);
	/* a scheduler that leaves a runnable thread waiting shows here */
	printf("smp-tlb: %s: longest waits %.1f ms for the loop to spin, %.1f ms in the call, "
	       "%.1f ms for the fault\n", v->name, slow[0] * 1e3, slow[1] * 1e3, slow[2] * 1e3);
	return stale;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), stale[2] = { 0, 0 };
	int rounds[2] = { 0, 0 }, main_pinned = 0;
	double t0 = now();
	cpu_set_t set;

	if (argc > 1)
		nrounds = atoi(argv[1]);
	/* Two CPUs of those we may run on; without sched_getaffinity, no pinning. */
	if (ncpu >= 2 && sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (int c = 0; c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, &set))
				continue;
			if (cpu_main < 0)
				cpu_main = c;
			else if (cpu_loop < 0)
				cpu_loop = c;
		}
		if (cpu_loop < 0)
			cpu_main = -1;
	}
	if (cpu_main >= 0)
		main_pinned = pin(cpu_main);
	printf("smp-tlb: %ld CPUs online, main thread %s\n", ncpu,
	       main_pinned ? "pinned" : "not pinned");

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	CHECK_EQ(sigaction(SIGSEGV, &sa, NULL), 0);

	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		const struct variant *v = &variants[i];
		int k = v->change != UNMAP, n;

		/* Once stale translations were seen the kernel is known broken, and more
		 * rounds risk worse: a stale write after munmap lands in a frame the kernel
		 * has freed and may have reused, and with the local flush missing too the
		 * next variant's pages may alias the last one's stale entries. */
		if (stale[0] + stale[1]) {
			printf("smp-tlb: %s: skipped after the stale accesses above\n", v->name);
			continue;
		}

		/* sharing one CPU, the loop must let the main thread in, or each round waits
		 * for a timer tick; pinned apart, it spins without a system call */
		yield_in_loop = !(main_pinned && cpu_loop >= 0);
		stale[k] += run_variant(v, &n);
		rounds[k] += n;
	}
	printf("smp-tlb: munmap %d rounds, %ld stale; mprotect %d rounds, %ld stale (%.1f s)\n",
	       rounds[0], stale[0], rounds[1], stale[1], now() - t0);
	CHECK_EQ(stale[0], 0);
	CHECK_EQ(stale[1], 0);
	return utest_done();
}
