/* vm-stack: the stack grows down on demand. Recursing 4 MiB deep in ~1 KiB frames works, every
 * frame keeps its data, rss grows by about 1024 pages and the [stack] line of maps starts ~4 MiB
 * lower. A child recursing 7 MiB deep is fine; one recursing without bound dies by SIGSEGV at
 * the 8 MiB stack limit.
 * usage: vm-stack [-v]   -v tells, after the 4 MiB, a frame placed just below the [stack] VMA:
 * the fault that grows it (user/narrate.h), and the same depth again: no fault */
#define _GNU_SOURCE
#define UTEST_NAME "vm-stack"
#include "utest.h"
#include "vmstat.h"
#include "narrate.h"
#include <signal.h>
#include <sys/wait.h>

#define MIB   (1UL << 20)
#define FRAME 1000

static uintptr_t top;			  /* where the recursion started */
static volatile uintptr_t target;	  /* how deep it goes (bytes below top) */
static long deep_rss = -1;		  /* rss at the deepest point */
static struct maps_ent deep_stack;	  /* [stack] at the deepest point */
static uintptr_t deep_addr = UINTPTR_MAX; /* the lowest frame reached */
static struct fl_page deep_page;

/* at the deepest frame (out of line, so recurse's own frame stays small) */
static __attribute__((noinline)) void look_around(const volatile unsigned char *buf)
{
	deep_addr = (uintptr_t)buf;
	if (target < (64UL << 20)) { /* not in the unbounded child */
		deep_rss = rss_pages();
		maps_find_name("[stack]", &deep_stack);
		if (on_faultline())
			fl_page((const void *)buf, &deep_page);
	}
}

/* returns the number of frames whose data came back intact (all of them, if all is well) */
static __attribute__((noinline)) long recurse(long depth)
{
	volatile unsigned char buf[FRAME];
	long ok, i;

	for (i = 0; i < FRAME; i += 97)
		buf[i] = (unsigned char)(depth * 31 + i);
	buf[FRAME - 1] = (unsigned char)depth;
	if (top - (uintptr_t)buf < target) {
		ok = recurse(depth + 1);
	} else {
		look_around(buf);
		ok = 0;
	}
	for (i = 0; i < FRAME; i += 97)
		if (buf[i] != (unsigned char)(depth * 31 + i))
			return ok;
	return ok + (buf[FRAME - 1] == (unsigned char)depth);
}

/* -v: recurse until a frame lies below start; its first write there faults below the VMA */
static __attribute__((noinline)) void below(uintptr_t start)
{
	volatile unsigned char buf[FRAME];

	buf[0] = 1;
	if ((uintptr_t)buf >= start)
		below(start);
	buf[1] = 2; /* after the call: no tail call, every frame stays */
}

/* -v: the step below the [stack] VMA and [stack] before and after it */
static void tell_growth(void)
{
	struct maps_ent a, b;

	if (!narrate.on || maps_find_name("[stack]", &a) != 1)
		return;
	STEP(a.start - 1, "a frame just below the [stack] VMA")
		below(a.start);
	if (maps_find_name("[stack]", &b) == 1)
		narrate_say("[stack] %#lx-%#lx -> %#lx-%#lx: grown by %lu page%s",
			    (unsigned long)a.start, (unsigned long)a.end, (unsigned long)b.start,
			    (unsigned long)b.end, (unsigned long)((a.start - b.start) / VM_PAGE),
			    a.start - b.start == VM_PAGE ? "" : "s");
	STEP(a.start - 1, "the same frames again")
		below(a.start);
}

static int child_status(uintptr_t bytes)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl;
		long want;

		/* natively the limit is the host's: make sure it is 8 MiB, not unlimited */
		if (!on_faultline() && getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur > 8 * MIB) {
			rl.rlim_cur = 8 * MIB;
			if (setrlimit(RLIMIT_STACK, &rl) != 0)
				_exit(3);
		}
		top = (uintptr_t)__builtin_frame_address(0);
		target = bytes;
		want = recurse(0);
		_exit(want > 0 ? 0 : 1);
	}
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	return st;
}

int main(int argc, char **argv)
{
	struct maps_ent s0, s1;
	long rss0, frames;
	int st;

	narrate_opt(argc, argv);
	CHECK_EQ(maps_find_name("[stack]", &s0), 1);
	rss0 = rss_pages();
	CHECK((uintptr_t)&s0 >= s0.start && (uintptr_t)&s0 < s0.end);

	top = (uintptr_t)__builtin_frame_address(0);
	target = 4 * MIB;
	frames = recurse(0);
	CHECK(frames > 3500 && frames <= (long)(4 * MIB / FRAME) + 1); /* 4 MiB of ~1 KiB frames */
	CHECK(top - deep_addr >= 4 * MIB);
	if (!CHECK(deep_rss - rss0 >= 900 && deep_rss - rss0 <= 1200))
		fprintf(stderr, "vm-stack:   rss %ld -> %ld at 4 MiB deep\n", rss0, deep_rss);
	CHECK(strcmp(deep_stack.path, "[stack]") == 0);
	CHECK_EQ(deep_stack.end, s0.end);     /* it grew at the bottom only */
	CHECK(deep_stack.start <= deep_addr); /* and covers the deepest frame */
	CHECK(deep_addr < s0.start);	      /* which was below the stack at first */
	if (!CHECK(s0.start - deep_stack.start >= 3 * MIB))
		fprintf(stderr, "vm-stack:   [stack] started at %#lx, then %#lx\n",
			(unsigned long)s0.start, (unsigned long)deep_stack.start);
	CHECK(strcmp(deep_stack.perms, "rw-p") == 0);
	if (on_faultline()) {
		CHECK(deep_page.present && deep_page.writable && deep_page.anon &&
		      deep_page.in_vma);
		CHECK(deep_page.vm_flags & FL_VM_GROWSDOWN);
	}
	/* the grown stack stays (Linux never shrinks it) */
	CHECK_EQ(maps_find_name("[stack]", &s1), 1);
	/* (maps was read at the deepest point, before the parsing there went a little deeper) */
	CHECK(s1.start <= deep_stack.start && deep_stack.start - s1.start <= 64 * 1024);
	CHECK(rss_pages() >= deep_rss - 8);
	tell_growth(); /* before the forks: after them every page of the stack is copy-on-write */

	/* 7 MiB is within the 8 MiB limit */
	st = child_status(7 * MIB);
	if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fprintf(stderr, "vm-stack:   7 MiB deep child: status %#x\n", st);
	/* without bound: SIGSEGV at the limit */
	st = child_status(1UL << 40);
	if (!CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV))
		fprintf(stderr, "vm-stack:   unbounded child: status %#x\n", st);

	printf("vm-stack: %ld frames; rss %ld -> %ld; [stack] %#lx-%#lx -> %#lx-%#lx\n", frames,
	       rss0, deep_rss, (unsigned long)s0.start, (unsigned long)s0.end,
	       (unsigned long)deep_stack.start, (unsigned long)deep_stack.end);
	return utest_done();
}
