/* memview: a process's memory as /proc shows it, page by page: each VMA of /proc/PID/maps,
 * then for each present page its frame (pagemap), how many PTEs map that frame (kpagecount:
 * more than one is shared, e.g. copy-on-write after fork) and its flags (kpageflags). Runs
 * under faultline and natively on Linux (as root: otherwise frame numbers read 0).
 * usage: memview PID|self [START-END]   (hexadecimal addresses, as maps prints them) */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PM_PRESENT   (1ULL << 63)
#define PM_SWAP	     (1ULL << 62)
#define PM_FILE	     (1ULL << 61)
#define PM_EXCLUSIVE (1ULL << 56)
#define PM_PFN(e)    ((e) & ((1ULL << 55) - 1))
#define MAX_PAGES    4096 /* pages listed per VMA; the rest is summed up */

/* Linux's KPF_* names, by bit number (include/uapi/linux/kernel-page-flags.h). */
static const char *const kpf_names[] = {
	[0] = "LOCKED",		[1] = "ERROR",	    [2] = "REFERENCED",	  [3] = "UPTODATE",
	[4] = "DIRTY",		[5] = "LRU",	    [6] = "ACTIVE",	  [7] = "SLAB",
	[8] = "WRITEBACK",	[9] = "RECLAIM",    [10] = "BUDDY",	  [11] = "MMAP",
	[12] = "ANON",		[13] = "SWAPCACHE", [14] = "SWAPBACKED",  [15] = "COMPOUND_HEAD",
	[16] = "COMPOUND_TAIL", [17] = "HUGE",	    [18] = "UNEVICTABLE", [19] = "HWPOISON",
	[20] = "NOPAGE",	[21] = "KSM",	    [22] = "THP",	  [23] = "OFFLINE",
	[24] = "ZERO_PAGE",	[25] = "IDLE",	    [26] = "PGTABLE",	  [32] = "RESERVED",
};

static int pagemap_fd, kcount_fd, kflags_fd;

static uint64_t read_entry(int fd, uint64_t index)
{
	uint64_t v = 0;

	if (fd < 0 || pread(fd, &v, 8, (off_t)(index * 8)) != 8)
		return 0;
	return v;
}

static void print_flags(uint64_t flags)
{
	const char *sep = "";

	for (unsigned int b = 0; b < sizeof(kpf_names) / sizeof(kpf_names[0]); b++)
		if ((flags >> b & 1) && kpf_names[b]) {
			printf("%s%s", sep, kpf_names[b]);
			sep = ",";
		}
}

/* One VMA's pages within [lo, hi): a line for each present page, a count of the others. */
static void show_pages(uint64_t start, uint64_t end, uint64_t lo, uint64_t hi)
{
	uint64_t from = start > lo ? start : lo, to = end < hi ? end : hi, absent = 0, shown = 0;

	for (uint64_t va = from; va < to; va += 4096) {
		uint64_t e = read_entry(pagemap_fd, va / 4096), pfn = PM_PFN(e), count;

		if (!(e & PM_PRESENT)) {
			absent++;
			continue;
		}
		if (++shown > MAX_PAGES)
			continue;
		printf("  %012llx present pfn %#llx", (unsigned long long)va,
		       (unsigned long long)pfn);
		printf(" %s", (e & PM_FILE) ? "file" : "anon");
		if (e & PM_EXCLUSIVE)
			printf(" exclusive");
		if (pfn && kcount_fd >= 0) {
			count = read_entry(kcount_fd, pfn);
			printf(" mapcount %llu%s", (unsigned long long)count,
			       count > 1 ? " shared" : "");
		}
		if (pfn && kflags_fd >= 0) {
			printf(" flags ");
			print_flags(read_entry(kflags_fd, pfn));
		}
		printf("\n");
	}
	if (shown > MAX_PAGES)
		printf("  ... %llu more present pages\n", (unsigned long long)(shown - MAX_PAGES));
	if (absent)
		printf("  %llu pages not present\n", (unsigned long long)absent);
}

int main(int argc, char **argv)
{
	char path[64];
	uint64_t lo = 0, hi = UINT64_MAX;
	const char *who = argc > 1 ? argv[1] : "self";
	static char text[1 << 16];
	int maps_fd;
	size_t n = 0;
	ssize_t r;

	if (argc > 3 || (argc > 1 && !strcmp(argv[1], "-h"))) {
		fprintf(stderr, "usage: memview PID|self [START-END]\n");
		return 2;
	}
	if (argc == 3 && sscanf(argv[2], "%llx-%llx", (unsigned long long *)&lo,
				(unsigned long long *)&hi) != 2) {
		fprintf(stderr, "memview: %s: not a range START-END in hexadecimal\n", argv[2]);
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%s/maps", who);
	maps_fd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%s/pagemap", who);
	pagemap_fd = open(path, O_RDONLY);
	if (maps_fd < 0 || pagemap_fd < 0) {
		fprintf(stderr, "memview: cannot read /proc/%s/maps and pagemap\n", who);
		return 1;
	}
	/* all of maps first, with read(2) into a static buffer: nothing memview maps later */
	while (n < sizeof(text) - 1 && (r = read(maps_fd, text + n, sizeof(text) - 1 - n)) > 0)
		n += (size_t)r;
	close(maps_fd);
	text[n] = '\0';
	kcount_fd = open("/proc/kpagecount", O_RDONLY);
	kflags_fd = open("/proc/kpageflags", O_RDONLY);
	for (char *p = text, *nl; *p; p = nl + 1) {
		unsigned long long start, end;

		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (sscanf(p, "%llx-%llx", &start, &end) != 2 || end <= lo || start >= hi)
			continue;
		printf("%s\n", p);
		show_pages(start, end, lo, hi);
	}
	return 0;
}
