/* swapon(2) and swapoff(2) with their errors, /proc/swaps line by line, SwapTotal/SwapFree, and
 * corrupt swap headers refused with EINVAL (the kernel says why; tests/boot/swap.sh reads it).
 * usage: swap-area       a swap file of its own in /tmp: the whole test natively where /tmp
 *                        takes swap files (ext4, xfs); on a file system in RAM (faultline's
 *                        ramfs, Linux's ramfs and tmpfs) swapon of it is EINVAL
 *        swap-area DEV   the area DEV as mkswap left it (tests/boot/swap.sh: /dev/sda)
 * Run as root; as anyone else only the EPERM checks apply. Named swap-area, not swapon, so
 * that busybox's swapon applet keeps its name. */
#define UTEST_NAME "swap-area"
#include "utest.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/statfs.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#define PAGE 4096
#define SWAPS_HEADER "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
#define HEAD (64 * 1024) /* saved and restored: a header for 64 KiB pages reaches this far */
#define RAMFS_MAGIC 0x858458f6
#define TMPFS_MAGIC 0x01021994
#define FILE_PAGES 1024 /* the swap file of the no-argument mode: 4 MiB */
#ifndef SWAP_FLAG_DISCARD
#define SWAP_FLAG_DISCARD 0x10000
#endif

/* mkswap's page 0 (x86: little-endian) */
struct swap_info_hdr {
	char bootbits[1024];
	uint32_t version, last_page, nr_badpages;
	unsigned char uuid[16], volume[16];
	uint32_t padding[117];
	uint32_t badpages[1];
};

static long sys_swapon(const void *path, long flags)
{
	return syscall(SYS_swapon, path, flags);
}

static long sys_swapoff(const void *path)
{
	return syscall(SYS_swapoff, path);
}

/* What `mkswap -L swap-area` writes on page 0 of an area of pages pages. */
static void make_header(unsigned char *page0, uint32_t pages)
{
	struct swap_info_hdr *h = (void *)page0;

	memset(page0, 0, PAGE);
	h->version = 1;
	h->last_page = pages - 1;
	for (int i = 0; i < 16; i++)
		h->uuid[i] = (unsigned char)(i * 37 + 11);
	h->uuid[6] = (h->uuid[6] & 0x0f) | 0x40; /* a version 4 UUID, as libuuid's */
	h->uuid[8] = (h->uuid[8] & 0x3f) | 0x80;
	strcpy((char *)h->volume, "swap-area");
	memcpy(page0 + PAGE - 10, "SWAPSPACE2", 10);
}

/* A field of meminfo in kB, or -1. */
static long meminfo_kb(const char *field)
{
	static char buf[8192];
	char *p;

	if (utest_slurp("/proc/meminfo", buf, sizeof(buf)) < 0 || !(p = strstr(buf, field)))
		return -1;
	return strtol(p + strlen(field), NULL, 10);
}

/* /proc/swaps' line for path into line (empty if none); the lowest priority of the others. */
static void swaps_line(const char *path, char *line, size_t size, int *lowest_other)
{
	static char buf[16384];
	char *p, *nl;

	line[0] = '\0';
	*lowest_other = 0;
	CHECK(utest_slurp("/proc/swaps", buf, sizeof(buf)) > 0);
	CHECK(!strncmp(buf, SWAPS_HEADER, strlen(SWAPS_HEADER)));
	for (p = strchr(buf, '\n'); p && p[1]; p = nl) {
		size_t n = strcspn(p + 1, " ");
		char *last;
		int prio;

		nl = strchr(p + 1, '\n');
		if (!nl)
			break;
		last = nl;
		while (last > p + 1 && last[-1] != '\t')
			last--;
		prio = atoi(last);
		if (n == strlen(path) && !strncmp(p + 1, path, n))
			snprintf(line, size, "%.*s", (int)(nl - p), p + 1);
		else if (prio < *lowest_other)
			*lowest_other = prio;
	}
}

/* The line Linux writes for an area: the name padded to 40, type, size, used, priority. */
static void expected_line(char *buf, size_t size, const char *path, int blk, unsigned long kb,
			  int prio)
{
	int len = (int)strlen(path);

	snprintf(buf, size, "%s%*s%s\t%lu\t%s%lu\t%s%d\n", path, len < 40 ? 40 - len : 1, " ",
		 blk ? "partition" : "file\t", kb, kb < 10000000 ? "\t" : "", 0UL, "\t", prio);
}

static int fd;
static unsigned char orig[HEAD];

static void put_head(const unsigned char *buf, size_t n)
{
	CHECK_EQ(pwrite(fd, buf, n, 0), (long)n);
	CHECK(fsync(fd) == 0);
}

/* swapon of path with the header now written must fail with EINVAL: then the original back. */
static void refused(const char *path, const unsigned char *head, size_t n, const char *what)
{
	long r;

	put_head(head, n);
	errno = 0;
	r = sys_swapon(path, 0);
	if (!CHECK(r == -1 && errno == EINVAL)) {
		fprintf(stderr, "swap-area: %s: swapon gave %ld, errno %d\n", what, r, errno);
		if (r == 0)
			sys_swapoff(path);
	}
	put_head(orig, HEAD);
}

/* The area at path (a block device or a file), mkswap'ed: swapon, /proc/swaps, swapoff. */
static void area_checks(const char *path, int blk, uint64_t area_bytes)
{
	static unsigned char head[HEAD];
	struct swap_info_hdr *h = (void *)head;
	char line[512], want[512];
	long total0, free0, kb, total_after;
	unsigned long good;
	int lowest, prio;
	struct sysinfo si0, si1;

	fd = open(path, O_RDWR);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ(pread(fd, orig, HEAD, 0), HEAD);
	memcpy(head, orig, HEAD);
	CHECK(!memcmp(head + PAGE - 10, "SWAPSPACE2", 10) && h->version == 1);
	CHECK((uint64_t)h->last_page + 1 <= area_bytes / PAGE && h->nr_badpages == 0);
	good = h->last_page; /* every page but page 0 */
	kb = (long)good * (PAGE / 1024);

	swaps_line(path, line, sizeof(line), &lowest);
	CHECK_EQ(line[0], 0); /* not in use yet */
	total0 = meminfo_kb("SwapTotal:");
	free0 = meminfo_kb("SwapFree:");
	CHECK(sysinfo(&si0) == 0);

	/* on, with the next default priority: one below the lowest, -2 for the first area */
	CHECK(sys_swapon(path, 0) == 0);
	prio = (lowest < -1 ? lowest : -1) - 1;
	swaps_line(path, line, sizeof(line), &lowest);
	expected_line(want, sizeof(want), path, blk, (unsigned long)kb, prio);
	if (!CHECK(!strcmp(line, want)))
		fprintf(stderr, "swap-area: /proc/swaps has\n%s  instead of\n%s", line, want);
	total_after = meminfo_kb("SwapTotal:");
	CHECK_EQ(total_after - total0, kb);
	CHECK_EQ(meminfo_kb("SwapFree:") - free0, kb);
	CHECK(sysinfo(&si1) == 0);
	CHECK_EQ((si1.totalswap - si0.totalswap) * si1.mem_unit, (unsigned long)kb * 1024);
	CHECK_ERR(sys_swapon(path, 0), EBUSY);
	CHECK_ERR(sys_swapon(path, SWAP_FLAG_PREFER | 3), EBUSY);
	CHECK(sys_swapoff(path) == 0);
	swaps_line(path, line, sizeof(line), &lowest);
	CHECK_EQ(line[0], 0);
	CHECK_EQ(meminfo_kb("SwapTotal:"), total0);
	CHECK_ERR(sys_swapoff(path), EINVAL); /* not an active swap area */

	/* a priority of our own; the discard flags are accepted */
	CHECK(sys_swapon(path, SWAP_FLAG_PREFER | (7 << SWAP_FLAG_PRIO_SHIFT)) == 0);
	swaps_line(path, line, sizeof(line), &lowest);
	expected_line(want, sizeof(want), path, blk, (unsigned long)kb, 7);
	CHECK(!strcmp(line, want));
	CHECK(sys_swapoff(path) == 0);
	CHECK(sys_swapon(path, SWAP_FLAG_DISCARD) == 0);
	CHECK(sys_swapoff(path) == 0);

	/* corrupt headers, each refused (the kernel log names the reason) */
	memcpy(head + PAGE - 10, "SWAPSPACE3", 10);
	refused(path, head, PAGE, "wrong magic");
	memcpy(head + PAGE - 10, "SWAP-SPACE", 10);
	refused(path, head, PAGE, "version 0 magic");
	memcpy(head, orig, PAGE);
	h->version = 2;
	refused(path, head, PAGE, "version 2");
	memcpy(head, orig, PAGE);
	h->last_page = (uint32_t)(area_bytes / PAGE); /* one page beyond the end */
	refused(path, head, PAGE, "last_page beyond the area");
	memcpy(head, orig, PAGE);
	h->last_page = 0;
	refused(path, head, PAGE, "last_page 0");
	memcpy(head, orig, PAGE);
	h->nr_badpages = 638; /* 637 fit between badpages[] and the magic */
	refused(path, head, PAGE, "too many bad pages");
	memcpy(head, orig, PAGE);
	h->nr_badpages = 1;
	h->badpages[0] = h->last_page + 1;
	refused(path, head, PAGE, "bad page beyond last_page");
	h->badpages[0] = 0;
	refused(path, head, PAGE, "bad page 0 (the header)");
	/* as `mkswap -p 65536` writes it: the magic at the end of a 64 KiB page 0 */
	memcpy(head, orig, HEAD);
	memset(head + PAGE - 10, 0, 10);
	h->last_page = (uint32_t)(area_bytes / 65536) - 1;
	memcpy(head + HEAD - 10, "SWAPSPACE2", 10);
	refused(path, head, HEAD, "made for 64 KiB pages");

	/* listed bad pages are not slots: 2 fewer pages. (A swap file's extents cover every page:
	 * Linux refuses a bad pages list there.) */
	memcpy(head, orig, HEAD);
	h->nr_badpages = 2;
	h->badpages[0] = 3;
	h->badpages[1] = 5;
	if (!blk) {
		refused(path, head, PAGE, "bad pages in a swap file");
	} else {
		put_head(head, PAGE);
		CHECK(sys_swapon(path, SWAP_FLAG_PREFER | 1) == 0);
		swaps_line(path, line, sizeof(line), &lowest);
		expected_line(want, sizeof(want), path, blk,
			      (unsigned long)(kb - 2 * (PAGE / 1024)), 1);
		if (!CHECK(!strcmp(line, want)))
			fprintf(stderr, "swap-area: /proc/swaps has\n%s  instead of\n%s", line,
				want);
		CHECK(sys_swapoff(path) == 0);
		put_head(orig, HEAD);
	}

	/* as it was: it still works, and nothing is left on */
	CHECK(sys_swapon(path, 0) == 0);
	CHECK(sys_swapoff(path) == 0);
	swaps_line(path, line, sizeof(line), &lowest);
	CHECK_EQ(line[0], 0);
	CHECK_EQ(meminfo_kb("SwapTotal:"), total0);
	close(fd);
}

/* The errors that need no area. */
static void error_checks(void)
{
	pid_t pid;
	int status;

	CHECK_ERR(sys_swapon((void *)1, 0), EFAULT);
	CHECK_ERR(sys_swapoff((void *)1), EFAULT);
	CHECK_ERR(sys_swapon("", 0), ENOENT);
	CHECK_ERR(sys_swapon("/no/such/file", 0), ENOENT);
	CHECK_ERR(sys_swapoff("/no/such/file"), ENOENT);
	CHECK_ERR(sys_swapon("/", 0), EISDIR); /* opened for reading and writing */
	CHECK_ERR(sys_swapoff("/"), EISDIR);
	CHECK_ERR(sys_swapon("/dev/null", 0), EINVAL); /* neither a block device nor a file */
	CHECK_ERR(sys_swapoff("/dev/null"), EINVAL);   /* not a swap area */
	CHECK_ERR(sys_swapon("/dev/null", 0x100000), EINVAL); /* an unknown flag */
	/* without CAP_SYS_ADMIN: EPERM before the path is even looked at */
	pid = fork();
	if (pid == 0) {
		if (setuid(65534))
			_exit(2);
		CHECK_ERR(sys_swapon("/dev/null", 0), EPERM);
		CHECK_ERR(sys_swapon("/no/such/file", 0), EPERM);
		CHECK_ERR(sys_swapoff("/no/such/file"), EPERM);
		_exit(utest_fails ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* No argument: a swap file of our own in /tmp. */
static void file_checks(void)
{
	static unsigned char page[PAGE];
	char path[64];
	struct statfs sfs;
	long r;
	int f;

	snprintf(path, sizeof(path), "/tmp/swap-area.%d", (int)getpid());
	f = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(f >= 0);
	if (f < 0)
		return;
	make_header(page, FILE_PAGES);
	CHECK_EQ(write(f, page, PAGE), PAGE);
	memset(page, 0, PAGE);
	for (int i = 1; i < FILE_PAGES; i++) /* no holes: every block written */
		CHECK_EQ(write(f, page, PAGE), PAGE);
	CHECK(fsync(f) == 0);
	close(f);
	CHECK(statfs("/tmp", &sfs) == 0);
	if (sfs.f_type == RAMFS_MAGIC || sfs.f_type == TMPFS_MAGIC) {
		/* its pages are the page cache itself: no block to write them to */
		errno = 0;
		r = sys_swapon(path, 0);
		if (sfs.f_type == RAMFS_MAGIC || r == -1) {
			CHECK(r == -1 && errno == EINVAL);
		} else {
			utest_skip("swap file on tmpfs", "this kernel takes one");
			sys_swapoff(path);
		}
		utest_skip("swapon of a swap file",
			   "/tmp is in RAM; tests/boot/swap.sh uses a disk");
	} else {
		errno = 0;
		r = sys_swapon(path, 0);
		if (r == -1 && errno == EINVAL) {
			utest_skip("swapon of a swap file",
				   "/tmp's file system takes no swap files");
		} else {
			CHECK(r == 0);
			CHECK(sys_swapoff(path) == 0);
			area_checks(path, 0, (uint64_t)FILE_PAGES * PAGE);
		}
	}
	CHECK(unlink(path) == 0);
}

int main(int argc, char **argv)
{
	struct stat st;

	if (geteuid() != 0) {
		CHECK_ERR(sys_swapon("/dev/null", 0), EPERM);
		CHECK_ERR(sys_swapoff("/dev/null"), EPERM);
		utest_skip("swapon and swapoff", "not root");
		return utest_done();
	}
	error_checks();
	if (argc < 2) {
		file_checks();
		return utest_done();
	}
	CHECK(stat(argv[1], &st) == 0 && S_ISBLK(st.st_mode));
	fd = open(argv[1], O_RDONLY);
	if (CHECK(fd >= 0)) {
		off_t size = lseek(fd, 0, SEEK_END);

		close(fd);
		area_checks(argv[1], 1, (uint64_t)size);
	}
	return utest_done();
}
