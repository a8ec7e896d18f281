/* narrate.h: `-v` for the demos. A step marked with STEP() is told with the faults it caused,
 * read from the kernel's own counters and records taken just before and just after it; without
 * -v, STEP() only runs the step and nothing is printed, so the output stays the program's own.
 *
 *	argc = narrate_opt(argc, argv);               (takes -v out of argv)
 *	STEP(p, "the child writes page 0")            (one line before the step's statement)
 *		p[0] = 1;
 *
 * Under faultline a step is told with: each fault of this process (fl_vminfo's FL_FAULTS: the
 * kernel's fault ring) with its address, #PF error bits, VMA op and VM_FAULT_* result bits;
 * the kinds /proc/vmstat's fl_fault_* counters grew by (system-wide, so a busy machine may add
 * others' faults); getrusage's minor and major faults; and the frame mapped at the step's
 * address before and after (FL_PAGE: frame, map count, zero page). Natively, Linux tells only
 * the counts (getrusage) and the frame (/proc/self/pagemap: frame numbers need root). */
#ifndef NARRATE_H
#define NARRATE_H

#include "vmstat.h"
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <ucontext.h>

#ifndef UTEST_NAME
#error "define UTEST_NAME before including narrate.h"
#endif
#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before any include: narrate_sig reads sigcontext's REG_ERR"
#endif

/* faultline's fault kinds, as /proc/vmstat names their counters (mm/vmstat.h) */
static const char *const narrate_kind_key[] = { "fl_fault_anon", "fl_fault_zero",
	"fl_fault_file", "fl_fault_nopage", "fl_fault_nonlinear", "fl_fault_swap",
	"fl_fault_cow", "fl_fault_spurious" };
static const char *const narrate_kind_word[] = { "anonymous (a zeroed frame)", "zero page",
	"file", "nopage", "nonlinear", "swap", "COW", "spurious" };
#define NARRATE_KINDS (int)(sizeof(narrate_kind_key) / sizeof(narrate_kind_key[0]))
#define NARRATE_SHOWN 8 /* fault records listed per step; the rest are counted */

/* the page at the step's address */
struct narrate_page {
	int present, zero, file, writable, swapped, exclusive; /* exclusive: -1 unknown */
	uint64_t pfn, mapcount;				/* mapcount: 0 unknown */
};

struct narrate_snap {
	long minflt, majflt;
	long kinds[NARRATE_KINDS]; /* -1: no such counter */
	uint64_t seq;		   /* the fault ring's newest record */
	struct narrate_page page;
};

/* In a page shared with children, so that a child's steps go on numbering and a step can name
 * an earlier one, in another process, that ended with the same frame at the same address. */
#define NARRATE_SEEN 64
struct narrate_shared {
	int steps, seen;
	struct {
		uintptr_t page;
		uint64_t pfn;
		int step, pid;
	} frame[NARRATE_SEEN];
};

static struct {
	int on, opted, in, step; /* opted: -v given; in: a step is running, not told yet */
	struct narrate_shared *sh;
	const void *addr;
	char what[160];
	struct narrate_snap before;
	int sig, code; /* the signal the step raised (narrate_sig), 0 if none */
	uintptr_t sig_addr, sig_err;
} narrate;

static char narrate_vmstat_buf[16384];
static struct fl_faults narrate_ring, narrate_head; /* a step's records; the newest's seq */

static inline void narrate_kinds(long *kinds)
{
	for (int k = 0; k < NARRATE_KINDS; k++)
		kinds[k] = -1;
	if (utest_slurp("/proc/vmstat", narrate_vmstat_buf, sizeof(narrate_vmstat_buf)) <= 0)
		return;
	for (char *l = narrate_vmstat_buf; *l;) {
		char *nl = strchr(l, '\n');

		for (int k = 0; k < NARRATE_KINDS; k++) {
			size_t n = strlen(narrate_kind_key[k]);

			if (strncmp(l, narrate_kind_key[k], n) == 0 && l[n] == ' ')
				kinds[k] = atol(l + n + 1);
		}
		if (!nl)
			break;
		l = nl + 1;
	}
}

static inline void narrate_page_of(const void *p, struct narrate_page *pg)
{
	uint64_t e;

	memset(pg, 0, sizeof(*pg));
	pg->exclusive = -1;
	if (on_faultline()) {
		struct fl_page f = fl_page_of(p);

		pg->present = f.present != 0;
		pg->pfn = f.pfn;
		pg->zero = f.zero != 0;
		pg->file = f.file != 0;
		pg->writable = f.writable != 0;
		pg->mapcount = f.mapcount;
		if (f.present && f.mapcount)
			pg->exclusive = f.mapcount == 1;
		else if (!f.present) /* faultline's pagemap tells swap entries too */
			pg->swapped = (linux_pagemap(p) >> 62) & 1;
		return;
	}
	e = linux_pagemap(p);
	pg->present = (e & PM_PRESENT) != 0;
	pg->swapped = (e >> 62) & 1;
	pg->file = (e >> 61) & 1; /* a file page or shared anonymous memory */
	pg->pfn = pg->present ? e & PM_PFN_MASK : 0;
	if (pg->present)
		pg->exclusive = (e & PM_EXCLUSIVE) != 0;
	if (pg->pfn) { /* the zero page is never "exclusive": ask only then, and only if shared */
		uint64_t zero;

		pg->zero = !pg->exclusive && linux_zero_page(&zero) == 1 && pg->pfn == zero;
	}
}

static inline void narrate_snap(struct narrate_snap *s, const void *addr)
{
	struct rusage ru;

	narrate_kinds(s->kinds);
	s->seq = 0;
	if (on_faultline() && fl_faults(UINT64_MAX, &narrate_head) == 0)
		s->seq = narrate_head.next;
	memset(&ru, 0, sizeof(ru));
	getrusage(RUSAGE_SELF, &ru);
	s->minflt = ru.ru_minflt;
	s->majflt = ru.ru_majflt;
	narrate_page_of(addr, &s->page);
}

/* Write to every page a snapshot writes to: after a fork they are copy-on-write in both
 * processes, and their first write is a fault that belongs to no step. */
static inline void narrate_touch(void)
{
	volatile char *bufs[] = { narrate_vmstat_buf, (char *)&narrate_ring, (char *)&narrate_head,
				  (char *)&narrate };
	size_t sizes[] = { sizeof(narrate_vmstat_buf), sizeof(narrate_ring),
			   sizeof(narrate_head), sizeof(narrate) };

	for (size_t b = 0; b < sizeof(sizes) / sizeof(sizes[0]); b++) {
		for (size_t i = 0; i < sizes[b]; i += VM_PAGE / 2)
			bufs[b][i] = bufs[b][i];
		bufs[b][sizes[b] - 1] = bufs[b][sizes[b] - 1];
	}
}

/* The stack a step's telling goes down to (printf's), faulted in before the first step: a
 * program measuring its rss around a step must not see the narrator's stack grow. */
static __attribute__((noinline)) void narrate_stack(void)
{
	volatile char deep[16384];

	for (size_t i = 0; i < sizeof(deep); i += 512)
		deep[i] = 0;
}

/* Every page of the program's read-only segments (its code and constants) read once: the
 * narrator's own code runs first after a step, and a file fault on it there would add a page
 * to the rss that programs measure around their steps. */
static int narrate_text_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = (info->dlpi_addr + ph->p_vaddr) & ~(VM_PAGE - 1);

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		for (; a < info->dlpi_addr + ph->p_vaddr + ph->p_memsz; a += VM_PAGE)
			(void)*(volatile const char *)a;
	}
	return 1; /* the program itself is the first object: that is all */
}

/* argv without "-v" (the count it has now); -v turns narration on */
static inline int narrate_opt(int argc, char **argv)
{
	int i, j;

	for (i = j = 1; i < argc; i++)
		if (strcmp(argv[i], "-v") == 0)
			narrate.on = 1;
		else
			argv[j++] = argv[i];
	argv[j] = NULL;
	if (!narrate.on)
		return j;
	narrate.opted = 1;
	narrate.sh = mmap(NULL, sizeof(*narrate.sh), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (narrate.sh == MAP_FAILED) {
		static struct narrate_shared own;

		narrate.sh = &own;
	}
	memset(narrate.sh, 0, sizeof(*narrate.sh));
	/* Fault in now whatever a snapshot touches (its buffers, the code, the stack below it,
	 * natively the zero-page probe), so that no step is told the narrator's own faults. */
	memset(narrate_vmstat_buf, 0, sizeof(narrate_vmstat_buf));
	memset(&narrate_ring, 0, sizeof(narrate_ring));
	memset(&narrate_head, 0, sizeof(narrate_head));
	if (!on_faultline())
		linux_zero_page(NULL);
	narrate_stack();
	dl_iterate_phdr(narrate_text_cb, NULL);
	narrate_snap(&narrate.before, &narrate);
	printf("%s -v: %s\n", UTEST_NAME, on_faultline() ?
	       "each step with its faults (fl_vminfo's fault ring, /proc/vmstat's fl_fault_* "
	       "kinds, getrusage) and the frame at its address" :
	       "each step with the faults getrusage counted (Linux tells a process neither "
	       "their kinds nor their addresses) and the frame at its address "
	       "(/proc/self/pagemap)");
	fflush(stdout);
	return j;
}

static inline const char *narrate_result(int64_t r, char *buf, size_t n)
{
	if (r < 0)
		return "a bad access (a signal)";
	snprintf(buf, n, "%s%s%s%s%s%s",
		 r & FL_VM_FAULT_MAJOR ? "VM_FAULT_MAJOR" : "VM_FAULT_MINOR",
		 r & FL_VM_FAULT_WRITE ? "|VM_FAULT_WRITE" : "",
		 r & FL_VM_FAULT_NOPAGE ? "|VM_FAULT_NOPAGE" : "",
		 r & FL_VM_FAULT_SIGBUS ? "|VM_FAULT_SIGBUS" : "",
		 r & FL_VM_FAULT_OOM ? "|VM_FAULT_OOM" : "",
		 r & ~(int64_t)(FL_VM_FAULT_MAJOR | FL_VM_FAULT_WRITE | FL_VM_FAULT_NOPAGE |
				FL_VM_FAULT_SIGBUS | FL_VM_FAULT_OOM) ? "|..." : "");
	return buf;
}

/* "0x1a2b3 (2 PTEs)", "the zero page 0x1a2b3", "none" */
static inline const char *narrate_frame(const struct narrate_page *pg, char *buf, size_t n)
{
	const char *share = pg->exclusive == 1 ? " (exclusive)" : pg->exclusive == 0 ? " (shared)"
										    : "";
	char maps[32] = "";

	if (!pg->present)
		return pg->swapped ? "none (in swap)" : "none";
	if (!pg->pfn)
		return "present, frame unknown (pagemap shows frame numbers only to root)";
	if (pg->mapcount)
		snprintf(maps, sizeof(maps), " (%llu PTE%s)", (unsigned long long)pg->mapcount,
			 pg->mapcount == 1 ? "" : "s");
	snprintf(buf, n, "%s%#llx%s%s", pg->zero ? "the zero page " : "",
		 (unsigned long long)pg->pfn, pg->mapcount ? maps : share,
		 !on_faultline() ? "" : pg->writable ? ", writable" : ", read-only");
	return buf;
}

/* what the frame change means */
static inline const char *narrate_change(const struct narrate_page *a,
					 const struct narrate_page *b, int major, char *buf,
					 size_t n)
{
	if (!a->present && !b->present)
		return "";
	if (!b->present)
		return ": unmapped";
	if (!b->pfn)
		return "";
	if (!a->present && a->swapped)
		return major ? ": read back from the swap disk"
			     : ": from the swap cache (read back before: no disk read)";
	if (!a->present)
		return b->zero ? ": mapped read-only (every page only read so far maps it)"
		       : b->file ? ": the page cache's page, mapped"
				 : ": a zeroed frame of its own, mapped";
	if (a->pfn == b->pfn)
		return a->writable == b->writable || !on_faultline() ? ": the same frame"
			: ": the same frame, now writable (no one else mapped it: reused)";
	if (a->zero)
		return ": a frame of its own instead of the zero page";
	if (a->mapcount > 1)
		snprintf(buf, n, ": a copy (the %llu other PTE%s keep%s %#llx)",
			 (unsigned long long)a->mapcount - 1, a->mapcount == 2 ? "" : "s",
			 a->mapcount == 2 ? "s" : "", (unsigned long long)a->pfn);
	else
		snprintf(buf, n, ": a copy (whoever else maps %#llx keeps it)",
			 (unsigned long long)a->pfn);
	return buf;
}

/* "; the frame step 3 (pid 12) ended with" when a frame came in that an earlier step of another
 * process ended with at the same address: one page seen by both, not a copy */
static inline const char *narrate_seen(const struct narrate_page *a,
				       const struct narrate_page *b, char *buf, size_t n)
{
	uintptr_t page = (uintptr_t)narrate.addr & ~(uintptr_t)(VM_PAGE - 1);

	if (!b->present || !b->pfn || (a->present && a->pfn == b->pfn))
		return "";
	for (int i = narrate.sh->seen - 1; i >= 0; i--)
		if (narrate.sh->frame[i].page == page && narrate.sh->frame[i].pfn == b->pfn &&
		    narrate.sh->frame[i].pid != getpid()) {
			snprintf(buf, n, "; the frame step %d (pid %d) ended with",
				 narrate.sh->frame[i].step, narrate.sh->frame[i].pid);
			return buf;
		}
	return "";
}

static inline void narrate_saw(const struct narrate_page *b)
{
	int i = narrate.sh->seen;

	if (!b->present || !b->pfn || i >= NARRATE_SEEN)
		return;
	narrate.sh->frame[i].page = (uintptr_t)narrate.addr & ~(uintptr_t)(VM_PAGE - 1);
	narrate.sh->frame[i].pfn = b->pfn;
	narrate.sh->frame[i].step = narrate.step;
	narrate.sh->frame[i].pid = getpid();
	narrate.sh->seen = i + 1;
}

/* the signal the step's fault became, as the handler was told it (siginfo and sigcontext) */
static inline void narrate_tell_sig(void)
{
	static const char *const segv[] = { "", "SEGV_MAPERR (no VMA there)",
					    "SEGV_ACCERR (the VMA forbids the access)" };
	static const char *const bus[] = { "", "BUS_ADRALN",
					   "BUS_ADRERR (past the end of the file)", "BUS_OBJERR" };
	const char *code = "";

	if (!narrate.sig)
		return;
	if (narrate.sig == SIGSEGV && narrate.code >= 1 && narrate.code <= 2)
		code = segv[narrate.code];
	else if (narrate.sig == SIGBUS && narrate.code >= 1 && narrate.code <= 3)
		code = bus[narrate.code];
	printf("%s -v:   signal %s, si_code %d %s, si_addr %#lx, #PF error %#lx (%s %s %s)\n",
	       UTEST_NAME, narrate.sig == SIGSEGV ? "SIGSEGV" : narrate.sig == SIGBUS ? "SIGBUS"
			   : strsignal(narrate.sig), narrate.code, code,
	       (unsigned long)narrate.sig_addr, (unsigned long)narrate.sig_err,
	       narrate.sig_err & FL_PF_PROT ? "protection" : "not-present",
	       narrate.sig_err & FL_PF_WRITE ? "write" : "read",
	       narrate.sig_err & FL_PF_USER ? "user" : "kernel");
	narrate.sig = 0;
}

static inline void narrate_tell(const struct narrate_snap *a, const struct narrate_snap *b)
{
	char fa[96], fb[96], res[96], change[96], seen[64];
	int k, n = 0;

	if (on_faultline()) {
		for (uint64_t i = 0; i < narrate_ring.count; i++) {
			const struct fl_fault *f = &narrate_ring.f[i];

			if (n++ >= NARRATE_SHOWN)
				continue;
			printf("%s -v:   fault at %#llx: %s %s %s%s, vma %s", UTEST_NAME,
			       (unsigned long long)f->address,
			       f->error & FL_PF_PROT ? "protection" : "not-present",
			       f->error & FL_PF_WRITE ? "write" : "read",
			       f->error & FL_PF_USER ? "user" : "kernel",
			       f->error & FL_PF_INSTR ? " fetch" : "", f->op);
			if (strcmp(f->op, "anon") != 0 && strcmp(f->op, "none") != 0)
				printf(" pgoff %llu", (unsigned long long)f->pgoff);
			printf(" -> %s\n", narrate_result(f->result, res, sizeof(res)));
		}
		if (n > NARRATE_SHOWN)
			printf("%s -v:   ... and %d more faults\n", UTEST_NAME, n - NARRATE_SHOWN);
		if (!n)
			printf("%s -v:   no fault\n", UTEST_NAME);
		if (narrate_ring.lost)
			printf("%s -v:   (%llu faults of the step left the ring of %d unread)\n",
			       UTEST_NAME, (unsigned long long)narrate_ring.lost, FL_FAULTS_MAX);
		printf("%s -v:   kinds (/proc/vmstat):", UTEST_NAME);
		for (k = 0, n = 0; k < NARRATE_KINDS; k++)
			if (a->kinds[k] >= 0 && b->kinds[k] > a->kinds[k])
				printf("%s %ld %s", n++ ? "," : "", b->kinds[k] - a->kinds[k],
				       narrate_kind_word[k]);
		printf("%s; getrusage counts %ld minor, %ld major\n", n ? "" : " none",
		       b->minflt - a->minflt, b->majflt - a->majflt);
	} else {
		printf("%s -v:   getrusage counts %ld minor, %ld major\n", UTEST_NAME,
		       b->minflt - a->minflt, b->majflt - a->majflt);
	}
	narrate_tell_sig();
	printf("%s -v:   frame %s -> %s%s%s\n", UTEST_NAME, narrate_frame(&a->page, fa, sizeof(fa)),
	       narrate_frame(&b->page, fb, sizeof(fb)),
	       narrate_change(&a->page, &b->page, b->majflt > a->majflt, change, sizeof(change)),
	       narrate_seen(&a->page, &b->page, seen, sizeof(seen)));
}

/* STEP's halves: 1 (run the step), then 0 (the loop ends) */
static inline __attribute__((format(printf, 2, 3))) int narrate_begin(const void *addr,
								       const char *fmt, ...)
{
	va_list ap;

	if (!narrate.on)
		return 1;
	va_start(ap, fmt);
	vsnprintf(narrate.what, sizeof(narrate.what), fmt, ap);
	va_end(ap);
	narrate.addr = addr;
	narrate_touch();
	narrate.step = ++narrate.sh->steps;
	narrate.sig = 0;
	printf("%s -v: step %d: %s (%p)\n", UTEST_NAME, narrate.step, narrate.what, addr);
	fflush(stdout);
	narrate_snap(&narrate.before, addr);
	narrate.in = 1;
	__asm__ volatile("" ::: "memory"); /* the step's accesses stay between the snapshots */
	return 1;
}

static inline int narrate_end(void)
{
	struct narrate_snap after;

	if (!narrate.on || !narrate.in)
		return 0; /* not narrating, or told already (by a signal handler) */
	narrate.in = 0;
	__asm__ volatile("" ::: "memory");
	/* the ring first: the records of this step, then the counters */
	if (on_faultline() && fl_faults(narrate.before.seq, &narrate_ring) != 0)
		memset(&narrate_ring, 0, sizeof(narrate_ring));
	narrate_snap(&after, narrate.addr);
	narrate_tell(&narrate.before, &after);
	narrate_saw(&after.page);
	fflush(stdout); /* a child may _exit */
	return 0;
}

/* From a handler of the signal a step's fault raised (SA_SIGINFO): the step is told with it.
 * A handler that does not return into the step (siglongjmp, _exit) calls narrate_end() next. */
static inline void narrate_sig(int sig, const siginfo_t *si, const void *ctx)
{
	const ucontext_t *uc = ctx;

	if (!narrate.on || !narrate.in)
		return;
	narrate.sig = sig;
	narrate.code = si->si_code;
	narrate.sig_addr = (uintptr_t)si->si_addr;
	narrate.sig_err = (uintptr_t)uc->uc_mcontext.gregs[REG_ERR];
}

static void narrate_fatal_handler(int sig, siginfo_t *si, void *ctx)
{
	narrate_sig(sig, si, ctx);
	narrate_end();
	signal(sig, SIG_DFL); /* the access runs again, faults again and the signal kills */
}

/* With -v, a step whose fault kills the process by sig is told before it dies. */
static inline void narrate_fatal(int sig)
{
	struct sigaction sa;

	if (!narrate.on)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = narrate_fatal_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(sig, &sa, NULL);
}

/* a line of the last step's telling that the program adds (what only it knows) */
static inline __attribute__((format(printf, 1, 2))) void narrate_say(const char *fmt, ...)
{
	va_list ap;

	if (!narrate.on)
		return;
	printf("%s -v:   ", UTEST_NAME);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* narration off (0), or back on (1) if -v was given: steps run again later, on another kind
 * of mapping, are told once */
static inline void narrate_only(int on)
{
	narrate.on = on && narrate.opted;
}

/* STEP(ADDR, FORMAT, ...) STATEMENT: run STATEMENT as a step at ADDR, told with -v. Without -v
 * it calls nothing: the narrator's code, wherever the linker put it, is not a page a program
 * measuring its rss around the step would see come in. */
#define STEP(addr, ...)                                                                            \
	for (int narrate_once_ = !narrate.on || narrate_begin((const void *)(addr), __VA_ARGS__);  \
	     narrate_once_; narrate_once_ = narrate.on && narrate_end())

#endif
