/* memview: a process's memory as /proc shows it, page by page: each VMA of /proc/PID/maps,
 * then for each present page its frame (pagemap), how many PTEs map that frame (kpagecount:
 * more than one is shared, e.g. copy-on-write after fork) and its flags (kpageflags). Runs
 * under faultline and natively on Linux (as root: otherwise frame numbers read 0).
 * --svg draws the same as a picture on stdout: a band per VMA with its range, permissions and
 * name, a cell per page (or per group of pages in a large VMA) coloured by what is there.
 * usage: memview [--svg] PID|self [START-END]   (hexadecimal addresses, as maps prints them) */
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

/* ---------------------------------------------------------------- --svg */
/* What a page (or, in a cell of several pages, the most telling of them) is, in the order a
 * cell shows them: shared beats present beats the zero page beats swapped beats absent; an
 * anonymous frame shared (copy-on-write after fork) beats a file page shared. */
enum pstate { P_ABSENT, P_SWAP, P_ZERO, P_FILE, P_ANON, P_SHARED_FILE, P_SHARED_ANON,
	      NR_PSTATES };
static const char *const pstate_class[] = { "absent", "swap", "zero", "file", "anon",
					    "shared file", "shared anon" };
static const char *const pstate_fill[] = { "#ffffff", "#c5b0d5", "#d9d9d9", "#b7e4a7",
					   "#9ecae1", "#2ca02c", "#fd8d3c" };
static const char *const pstate_words[] = {
	"not present", "in swap", "the zero page", "a file page only this PTE maps",
	"an anonymous page only this PTE maps", "a file page other PTEs map too",
	"an anonymous page other PTEs map too (copy-on-write)" };

#define SVG_W	    1000
#define SVG_LABEL   10	/* x of the labels */
#define SVG_CELLS_X 380 /* x of the first cell */
#define SVG_CELLS   120 /* cells per band at most: a larger VMA puts several pages in a cell */
#define SVG_CELL_W  5
#define SVG_ROW	    34
#define SVG_TOP	    52

static enum pstate page_state(uint64_t va)
{
	uint64_t e = read_entry(pagemap_fd, va / 4096), pfn = PM_PFN(e), count = 0;

	if (!(e & PM_PRESENT))
		return (e & PM_SWAP) ? P_SWAP : P_ABSENT;
	if (pfn && kflags_fd >= 0 && (read_entry(kflags_fd, pfn) >> 24 & 1))
		return P_ZERO;
	if (pfn && kcount_fd >= 0)
		count = read_entry(kcount_fd, pfn);
	if (pfn ? count > 1 : !(e & PM_EXCLUSIVE))
		return (e & PM_FILE) ? P_SHARED_FILE : P_SHARED_ANON;
	return (e & PM_FILE) ? P_FILE : P_ANON;
}

/* s with XML's special characters escaped, into one of four static buffers in turn (a printf
 * may take up to four) */
static const char *xml(const char *s)
{
	static char bufs[4][1024];
	static int turn;
	char *out = bufs[turn++ % 4];
	size_t n = 0;

	for (; *s && n < sizeof(bufs[0]) - 7; s++) {
		const char *r = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;"
			      : *s == '"' ? "&quot;" : NULL;

		if (r) {
			memcpy(out + n, r, strlen(r));
			n += strlen(r);
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
	return out;
}

/* One VMA's band: its label, then its cells, runs of one state drawn as one rectangle. */
static void svg_vma(int row, uint64_t start, uint64_t end, const char *perms, const char *name,
		    uint64_t lo, uint64_t hi, uint64_t *tot_present, uint64_t *tot_shared)
{
	uint64_t from = start > lo ? start : lo, to = end < hi ? end : hi;
	uint64_t pages = (to - from) / 4096, per = (pages + SVG_CELLS - 1) / SVG_CELLS, cells;
	uint64_t count[NR_PSTATES] = { 0 };
	int y = SVG_TOP + row * SVG_ROW, run = -1, run_from = 0, c;

	if (!per)
		per = 1;
	cells = (pages + per - 1) / per;
	printf("<g class=\"vma\" data-start=\"%llx\" data-end=\"%llx\" data-perms=\"%s\" "
	       "data-name=\"%s\">\n", (unsigned long long)start, (unsigned long long)end,
	       xml(perms), xml(name));
	printf("<rect class=\"band\" x=\"%d\" y=\"%d\" width=\"%llu\" height=\"16\" fill=\"none\" "
	       "stroke=\"#999999\"/>\n", SVG_CELLS_X - 1, y - 1,
	       (unsigned long long)(cells * SVG_CELL_W + 2));
	for (c = 0; c <= (int)cells; c++) {
		enum pstate st = P_ABSENT;

		if (c < (int)cells) {
			for (uint64_t k = 0; k < per; k++) {
				uint64_t va = from + ((uint64_t)c * per + k) * 4096;
				enum pstate s;

				if (va >= to)
					break;
				s = page_state(va);
				count[s]++;
				if (s > st)
					st = s;
			}
		}
		if (run >= 0 && (c == (int)cells || (int)st != run)) {
			if (run != P_ABSENT)
				printf("<rect class=\"page %s\" x=\"%d\" y=\"%d\" width=\"%d\" "
				       "height=\"14\" fill=\"%s\"/>\n", pstate_class[run],
				       SVG_CELLS_X + run_from * SVG_CELL_W, y,
				       (c - run_from) * SVG_CELL_W, pstate_fill[run]);
			run = -1;
		}
		if (c < (int)cells && run < 0) {
			run = (int)st;
			run_from = c;
		}
	}
	printf("<text x=\"%d\" y=\"%d\">%llx-%llx %s %s</text>\n", SVG_LABEL, y + 6,
	       (unsigned long long)start, (unsigned long long)end, xml(perms), xml(name));
	printf("<text x=\"%d\" y=\"%d\" fill=\"#555555\">%llu of %llu pages present", SVG_LABEL,
	       y + 19, (unsigned long long)(pages - count[P_ABSENT] - count[P_SWAP]),
	       (unsigned long long)pages);
	if (count[P_SHARED_FILE] + count[P_SHARED_ANON])
		printf(", %llu shared", (unsigned long long)(count[P_SHARED_FILE] +
							    count[P_SHARED_ANON]));
	if (count[P_ZERO])
		printf(", %llu on the zero page", (unsigned long long)count[P_ZERO]);
	if (count[P_SWAP])
		printf(", %llu in swap", (unsigned long long)count[P_SWAP]);
	if (per > 1)
		printf("; a cell is %llu pages", (unsigned long long)per);
	printf("</text>\n</g>\n");
	*tot_present += pages - count[P_ABSENT] - count[P_SWAP];
	*tot_shared += count[P_SHARED_FILE] + count[P_SHARED_ANON];
}

/* The maps line at *p (moving *p past it) if it is a VMA within [lo, hi): 1 and its fields,
 * else 0; -1 at the end of text */
static int next_vma(const char **p, uint64_t lo, uint64_t hi, unsigned long long *start,
		    unsigned long long *end, char *perms, char *name, size_t name_size)
{
	const char *nl = strchr(*p, '\n');
	char line[512];
	int at = 0;

	if (!**p || !nl)
		return -1;
	snprintf(line, sizeof(line), "%.*s", (int)(nl - *p), *p);
	*p = nl + 1;
	perms[0] = name[0] = '\0';
	if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", start, end, perms, &at) < 3 ||
	    *end <= lo || *start >= hi)
		return 0;
	snprintf(name, name_size, "%s", at > 0 && line[at] ? line + at : "(anonymous)");
	return 1;
}

/* The picture of every VMA of text (maps' lines) within [lo, hi). */
static void svg(const char *who, const char *text, uint64_t lo, uint64_t hi)
{
	uint64_t present = 0, shared = 0;
	unsigned long long start, end;
	char comm[64] = "", path[64], perms[8], name[256];
	int rows = 0, row = 0, fd, r;
	const char *p;
	ssize_t n;

	for (p = text; (r = next_vma(&p, lo, hi, &start, &end, perms, name, sizeof(name))) >= 0;)
		rows += r;
	snprintf(path, sizeof(path), "/proc/%s/comm", who);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
	if (fd >= 0)
		close(fd);
	comm[n > 0 ? n : 0] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	       "font-family=\"monospace\" font-size=\"11\">\n", SVG_W,
	       SVG_TOP + rows * SVG_ROW + 10 + (NR_PSTATES + 1) / 2 * 18);
	printf("<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	for (p = text; (r = next_vma(&p, lo, hi, &start, &end, perms, name, sizeof(name))) >= 0;)
		if (r)
			svg_vma(row++, start, end, perms, name, lo, hi, &present, &shared);
	printf("<text x=\"%d\" y=\"22\" font-size=\"14\">memview --svg: pid %s (%s): %d VMAs, "
	       "%llu pages present, %llu of them shared</text>\n", SVG_LABEL, xml(who), xml(comm),
	       row, (unsigned long long)present, (unsigned long long)shared);
	printf("<text x=\"%d\" y=\"40\" fill=\"#555555\">a band per VMA (/proc/%s/maps), a cell "
	       "per page (/proc/%s/pagemap); shared: /proc/kpagecount says more than one PTE maps "
	       "its frame</text>\n", SVG_LABEL, xml(who), xml(who));
	for (int s = NR_PSTATES - 1; s >= 0; s--) { /* the legend: two columns */
		int k = NR_PSTATES - 1 - s, x = SVG_LABEL + (k % 2) * 420;
		int y = SVG_TOP + row * SVG_ROW + 10 + (k / 2) * 18;

		printf("<rect class=\"legend %s\" x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" "
		       "fill=\"%s\" stroke=\"#999999\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
		       pstate_class[s], x, y, pstate_fill[s], x + 14, y + 9, xml(pstate_words[s]));
	}
	printf("</svg>\n");
}

int main(int argc, char **argv)
{
	char path[64];
	uint64_t lo = 0, hi = UINT64_MAX;
	const char *who;
	static char text[1 << 16];
	int maps_fd, as_svg = argc > 1 && !strcmp(argv[1], "--svg");
	size_t n = 0;
	ssize_t r;

	if (as_svg) {
		argv++;
		argc--;
	}
	who = argc > 1 ? argv[1] : "self";
	if (argc > 3 || (argc > 1 && !strcmp(argv[1], "-h"))) {
		fprintf(stderr, "usage: memview [--svg] PID|self [START-END]\n");
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
	if (as_svg) {
		svg(who, text, lo, hi);
		return 0;
	}
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
