/* vmstat.h: observe a process's own memory without a debugger, the same way under faultline and
 * natively on Linux. Under faultline the introspection system call 500 tells the page state and
 * the address-space counters; on Linux /proc/self/statm and /proc/self/pagemap stand in (we run
 * as root there, so pagemap shows frame numbers). /proc/self/maps and getrusage work on both.
 *
 * Nothing here allocates: maps is read with read(2) into static buffers, so observing the
 * address space does not change it (malloc could add a mapping). The one exception is Linux's
 * page_is_zero_page, whose first call maps and unmaps two probe pages. Needs no UTEST_NAME. */
#ifndef VMSTAT_H
#define VMSTAT_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define VM_PAGE 4096UL

/* ---------------------------------------------------------------- faultline's system call */
#define SYS_fl_vminfo 500
#define FL_PAGE	      0
#define FL_MM	      1
#define FL_CHECK      2 /* the kernel's walk of every process's PTEs: struct fl_check */
#define FL_FAULTS     3 /* the caller's faults from the kernel's fault ring: struct fl_faults */

#define FL_VM_READ	0x001UL
#define FL_VM_WRITE	0x002UL
#define FL_VM_EXEC	0x004UL
#define FL_VM_GROWSDOWN 0x100UL

struct fl_page {
	uint64_t present, writable, user, nx, dirty, accessed, pfn;
	uint64_t count, mapcount; /* struct page's references and the PTEs mapping it */
	uint64_t anon, zero, file;
	uint64_t in_vma, vm_flags;
};

struct fl_mm {
	uint64_t rss, nr_vmas, free_frames, pt_pages, min_flt, maj_flt;
};

/* FL_CHECK: every present user PTE of every process (ptes), those mapping file pages
 * (file_ptes), file PTEs whose page is no longer in the page cache (orphans: what the truncate
 * race leaves behind) and PTEs whose page's counts are wrong (bad_counts); past_eof counts the
 * faults since boot whose fault() op returned a locked page past the end of its file. */
struct fl_check {
	uint64_t ptes, file_ptes, orphans, bad_counts, past_eof;
};

/* FL_FAULTS: the caller's records of the kernel's ring of the last 64 faults (mm/fault.h) */
#define FL_FAULTS_MAX 64
struct fl_fault {
	uint64_t seq, pid, address, pgoff, error; /* error: the #PF error code */
	uint64_t vm_start, vm_end;
	int64_t result; /* VM_FAULT_* bits, -1 for a bad access */
	char op[16];	/* the VMA's op: anon, file, device, none */
};

struct fl_faults {
	uint64_t next, lost, count; /* the newest seq; window records lost; records in f[] */
	struct fl_fault f[FL_FAULTS_MAX];
};

/* the #PF error code's bits and the VM_FAULT_* result bits, as the kernel names them */
#define FL_PF_PROT	0x01UL
#define FL_PF_WRITE	0x02UL
#define FL_PF_USER	0x04UL
#define FL_PF_INSTR	0x10UL
#define FL_VM_FAULT_OOM	   0x0001
#define FL_VM_FAULT_SIGBUS 0x0002
#define FL_VM_FAULT_MAJOR  0x0004
#define FL_VM_FAULT_WRITE  0x0008
#define FL_VM_FAULT_NOPAGE 0x0100

/* 1 under faultline, 0 on anything else: its uname release ends in "-faultline" (the sysname
 * is Linux, as programs expect) */
static inline int on_faultline(void)
{
	static int known = -1;
	struct utsname u;
	size_t n;

	if (known < 0)
		known = uname(&u) == 0 && (n = strlen(u.release)) >= 10 &&
			strcmp(u.release + n - 10, "-faultline") == 0;
	return known;
}

/* the page containing p; all zero when the call fails. 0 or -1/errno. */
static inline int fl_page(const void *p, struct fl_page *out)
{
	memset(out, 0, sizeof(*out));
	return (int)syscall(SYS_fl_vminfo, FL_PAGE, (uintptr_t)p, out);
}

static inline int fl_mm(struct fl_mm *out)
{
	memset(out, 0, sizeof(*out));
	return (int)syscall(SYS_fl_vminfo, FL_MM, 0, out);
}

static inline struct fl_page fl_page_of(const void *p)
{
	struct fl_page pg;

	if (fl_page(p, &pg) != 0)
		memset(&pg, 0, sizeof(pg));
	return pg;
}

static inline struct fl_mm fl_mm_now(void)
{
	struct fl_mm m;

	if (fl_mm(&m) != 0)
		memset(&m, 0, sizeof(m));
	return m;
}

/* Print the free frames of m0 (before) and m1 (after) and say whether they agree within slack
 * (the caller's own page tables and stack may still hold a few): 1 if so. */
static inline int frames_back(const char *who, struct fl_mm m0, struct fl_mm m1, uint64_t slack)
{
	printf("%s: free frames %lu before, %lu after\n", who, (unsigned long)m0.free_frames,
	       (unsigned long)m1.free_frames);
	if (m1.free_frames + slack >= m0.free_frames && m1.free_frames <= m0.free_frames + slack)
		return 1;
	fprintf(stderr, "%s:   %ld frames not given back\n", who,
		(long)m0.free_frames - (long)m1.free_frames);
	return 0;
}

/* the caller's faults whose seq is above since (0: all the ring holds): 0 or -1/errno */
static inline int fl_faults(uint64_t since, struct fl_faults *out)
{
	return (int)syscall(SYS_fl_vminfo, FL_FAULTS, since, out);
}

/* FL_CHECK over all processes: 0 or -1/errno. Linux has no such check: natively out is left
 * all zero and 0 is returned, i.e. "no orphans, no bad counts" (nothing was checked), so a
 * test can require orphans == 0 on both sides without branching. */
static inline int fl_check(struct fl_check *out)
{
	memset(out, 0, sizeof(*out));
	if (!on_faultline())
		return 0;
	return (int)syscall(SYS_fl_vminfo, FL_CHECK, 0, out);
}

/* ---------------------------------------------------------------- Linux's /proc files */
/* the 64-bit /proc/self/pagemap entry for p, or 0 if it cannot be read. Opened on every call:
 * an fd opened before fork would go on describing the parent's address space. */
static inline uint64_t linux_pagemap(const void *p)
{
	uint64_t ent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &ent, sizeof(ent), (off_t)((uintptr_t)p / VM_PAGE * sizeof(ent))) !=
	    (ssize_t)sizeof(ent))
		ent = 0;
	close(fd);
	return ent;
}

#define PM_PRESENT   (1ULL << 63)
#define PM_EXCLUSIVE (1ULL << 56) /* the page is mapped by exactly one PTE */
#define PM_PFN_MASK  ((1ULL << 55) - 1)

/* resident pages: faultline's FL_MM rss; Linux's second field of /proc/self/statm. -1 on error. */
static inline long rss_pages(void)
{
	char buf[128];
	long size = -1, rss = -1;
	ssize_t n;
	int fd;

	if (on_faultline()) {
		struct fl_mm m;

		return fl_mm(&m) == 0 ? (long)m.rss : -1;
	}
	fd = open("/proc/self/statm", O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%ld %ld", &size, &rss) != 2)
		return -1;
	return rss;
}

/* 1 if a PTE maps the page containing p, else 0 */
static inline int page_present(const void *p)
{
	if (on_faultline())
		return fl_page_of(p).present != 0;
	return (linux_pagemap(p) & PM_PRESENT) != 0;
}

/* the frame mapped at p, 0 if none or unknown */
static inline uint64_t page_pfn(const void *p)
{
	uint64_t ent;

	if (on_faultline())
		return fl_page_of(p).pfn;
	ent = linux_pagemap(p);
	return (ent & PM_PRESENT) ? ent & PM_PFN_MASK : 0;
}

/* 1 if exactly one PTE maps the frame at p, 0 if more do, -1 if unknown (not present).
 * faultline: mapcount == 1; Linux: pagemap's "exclusively mapped" bit 56. */
static inline int page_mapped_once(const void *p)
{
	uint64_t ent;

	if (on_faultline()) {
		struct fl_page pg = fl_page_of(p);

		return pg.present ? pg.mapcount == 1 : -1;
	}
	ent = linux_pagemap(p);
	if (!(ent & PM_PRESENT))
		return -1;
	return (ent & PM_EXCLUSIVE) != 0;
}

/* Linux only: keep transparent huge pages out of a test region (its faults should be 4 KiB
 * ones, as faultline's are); faultline has no huge pages, so nothing is asked of it. */
static inline void vm_no_thp(void *p, size_t len)
{
#ifdef MADV_NOHUGEPAGE
	if (!on_faultline())
		madvise(p, len, MADV_NOHUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}

/* The shared zero page's frame on Linux: read two fresh private anonymous pages and compare
 * the frames they got (then unmap them, so the address space is as it was). A Linux that maps
 * the zero page gives both the same frame; one that does not (a host booted without it, e.g. a
 * hypervisor's pvm_no_zero_page=1) gives each its own zeroed frame. 1 and *pfn set if it maps
 * one, 0 if it does not, -1 if frames cannot be seen (pagemap shows none without privilege). */
static inline int linux_zero_page(uint64_t *pfn)
{
	static int state = -2;
	static uint64_t zero;
	volatile unsigned char *q;
	uint64_t a, b;

	if (state == -2) {
		q = mmap(NULL, 2 * VM_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			return -1;
		vm_no_thp((void *)q, 2 * VM_PAGE);
		(void)q[0];
		(void)q[VM_PAGE];
		a = page_pfn((const void *)q);
		b = page_pfn((const void *)(q + VM_PAGE));
		munmap((void *)q, 2 * VM_PAGE);
		state = !a || !b ? -1 : a == b;
		zero = state == 1 ? a : 0;
	}
	if (pfn)
		*pfn = zero;
	return state;
}

/* 1 if the page at p is the shared zero page, 0 if not (or this Linux has none), -1 if it
 * cannot be told */
static inline int page_is_zero_page(const void *p)
{
	uint64_t pfn, zero;
	int has;

	if (on_faultline()) {
		struct fl_page pg = fl_page_of(p);

		return pg.present ? pg.zero != 0 : 0;
	}
	pfn = page_pfn(p);
	if (!pfn)
		return page_present(p) ? -1 : 0;
	has = linux_zero_page(&zero);
	return has < 0 ? -1 : has && pfn == zero;
}

/* ---------------------------------------------------------------- fault counts */
static inline long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : -1;
}

static inline long major_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_majflt : -1;
}

/* ---------------------------------------------------------------- /proc/self/maps */
/* "start-end perms offset dev inode path" */
struct maps_ent {
	uintptr_t start, end;
	char perms[8];
	unsigned long offset, inode;
	char dev[16];
	char path[256];
};

static inline uintptr_t maps_hex(const char **s)
{
	uintptr_t v = 0;
	int d;

	for (;; (*s)++) {
		char c = **s;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return v;
		v = v * 16 + (uintptr_t)d;
	}
}

/* parse one line (no newline); 0 on success, -1 if it is not a maps line */
static inline int maps_parse(const char *s, struct maps_ent *e)
{
	const char *t;
	size_t n;

	memset(e, 0, sizeof(*e));
	t = s;
	e->start = maps_hex(&s);
	if (s == t || *s++ != '-')
		return -1;
	t = s;
	e->end = maps_hex(&s);
	if (s == t || *s++ != ' ')
		return -1;
	for (n = 0; *s && *s != ' ' && n < sizeof(e->perms) - 1; n++)
		e->perms[n] = *s++;
	if (*s++ != ' ')
		return -1;
	e->offset = maps_hex(&s);
	if (*s++ != ' ')
		return -1;
	for (n = 0; *s && *s != ' ' && n < sizeof(e->dev) - 1; n++)
		e->dev[n] = *s++;
	if (*s++ != ' ')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		e->inode = e->inode * 10 + (unsigned long)(*s - '0');
	while (*s == ' ')
		s++;
	snprintf(e->path, sizeof(e->path), "%s", s);
	return 0;
}

/* call fn(entry, arg) for every line of /proc/self/maps until it returns non-zero; gives that
 * value, 0 at the end, -1 if maps cannot be read or a line does not parse. Reads 4 KiB at a
 * time, as a program reading a long file would. */
static inline int maps_foreach(int (*fn)(const struct maps_ent *, void *), void *arg)
{
	char chunk[4096], line[4352]; /* on the stack: threads may read their maps at once */
	struct maps_ent e;
	size_t len = 0;
	ssize_t n, i;
	int fd = open("/proc/self/maps", O_RDONLY), r = 0;

	if (fd < 0)
		return -1;
	while (r == 0 && (n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			r = -1;
			break;
		}
		for (i = 0; i < n && r == 0; i++) {
			if (chunk[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = chunk[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			if (maps_parse(line, &e) != 0) {
				fprintf(stderr, "vmstat: bad /proc/self/maps line: %s\n", line);
				r = -1;
			} else {
				r = fn(&e, arg);
			}
		}
	}
	if (r == 0 && len) { /* a last line without a newline */
		line[len] = '\0';
		r = maps_parse(line, &e) == 0 ? fn(&e, arg) : -1;
	}
	close(fd);
	return r;
}

struct maps_query {
	uintptr_t lo, hi;
	const char *name;
	long count;
	struct maps_ent *out;
};

static inline int maps_count_cb(const struct maps_ent *e, void *arg)
{
	struct maps_query *q = arg;

	if (e->start < q->hi && e->end > q->lo)
		q->count++;
	return 0;
}

/* lines of /proc/self/maps, -1 on error */
static inline int count_maps_lines(void)
{
	struct maps_query q = { 0, UINTPTR_MAX, NULL, 0, NULL };

	return maps_foreach(maps_count_cb, &q) == 0 ? (int)q.count : -1;
}

/* lines of /proc/self/maps that overlap [lo, hi), -1 on error */
static inline int count_maps_range(const void *lo, const void *hi)
{
	struct maps_query q = { (uintptr_t)lo, (uintptr_t)hi, NULL, 0, NULL };

	return maps_foreach(maps_count_cb, &q) == 0 ? (int)q.count : -1;
}

static inline int maps_find_cb(const struct maps_ent *e, void *arg)
{
	struct maps_query *q = arg;

	if (q->name ? strcmp(e->path, q->name) == 0 : (e->start <= q->lo && q->lo < e->end)) {
		*q->out = *e;
		return 1;
	}
	return 0;
}

/* the line whose range contains addr: 1 (and *e filled), 0 if none, -1 on error */
static inline int maps_find(const void *addr, struct maps_ent *e)
{
	struct maps_query q = { (uintptr_t)addr, 0, NULL, 0, e };

	memset(e, 0, sizeof(*e));
	return maps_foreach(maps_find_cb, &q);
}

/* the first line whose path is name (e.g. "[stack]"): 1, 0 if none, -1 on error */
static inline int maps_find_name(const char *name, struct maps_ent *e)
{
	struct maps_query q = { 0, 0, name, 0, e };

	memset(e, 0, sizeof(*e));
	return maps_foreach(maps_find_cb, &q);
}

/* the permission string ("rw-p") of the line containing addr; NULL if no line does. The string
 * lives in a static buffer until the next call. */
static inline const char *maps_perms(const void *addr)
{
	static struct maps_ent e;

	return maps_find(addr, &e) == 1 ? e.perms : NULL;
}

#endif
