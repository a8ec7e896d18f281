/* procfs: the files of /proc that programs read for the state of the machine, in Linux's
 * formats: meminfo, uptime, loadavg, cpuinfo, mounts and /proc/self/maps. Each is parsed as
 * busybox and libc read it, and what it says must hold together (free <= total, ...); and
 * /proc/sys/kernel/tainted, which test suites read before and after a test (LTP's tst_taint):
 * a number and a newline. */
#define _GNU_SOURCE
#define UTEST_NAME "procfs"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utest.h"

static char text[65536];

/* The whole file into text: its length, or -1. */
static long slurp(const char *path)
{
	return utest_slurp(path, text, sizeof(text));
}

/* The number after "Label:" at the start of a line of text (meminfo: kB), or -1. */
static long meminfo_kb(const char *label)
{
	size_t n = strlen(label);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, label, n) && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	return -1;
}

static void meminfo(void)
{
	long total, free, avail;

	if (!CHECK(slurp("/proc/meminfo") > 0))
		return;
	CHECK(strncmp(text, "MemTotal:", 9) == 0); /* the first line, as on Linux */
	total = meminfo_kb("MemTotal");
	free = meminfo_kb("MemFree");
	avail = meminfo_kb("MemAvailable");
	CHECK(total > 1024 && free > 0 && free <= total && avail >= 0 && avail <= total);
	CHECK(meminfo_kb("Cached") >= 0 && meminfo_kb("SwapTotal") >= 0);
	CHECK(strstr(text, " kB\n") != NULL);
}

static void uptime_loadavg(void)
{
	double up = -1, idle = -1, l1 = -1, l5 = -1, l15 = -1;
	int running = -1, total = -1, last = -1;

	CHECK(slurp("/proc/uptime") > 0 && sscanf(text, "%lf %lf", &up, &idle) == 2);
	CHECK(up > 0 && idle >= 0);
	CHECK(slurp("/proc/loadavg") > 0 &&
	      sscanf(text, "%lf %lf %lf %d/%d %d", &l1, &l5, &l15, &running, &total, &last) == 6);
	CHECK(l1 >= 0 && l5 >= 0 && l15 >= 0);
	CHECK(running >= 1 && running <= total && last > 0); /* this process runs */
}

static void cpuinfo(void)
{
	CHECK(slurp("/proc/cpuinfo") > 0);
	CHECK(strncmp(text, "processor\t: 0\n", 14) == 0);
	CHECK(strstr(text, "\nvendor_id\t: ") != NULL);
	CHECK(strstr(text, "\nmodel name\t: ") != NULL);
	CHECK(strstr(text, "\nflags\t\t: fpu ") != NULL);
	CHECK(strstr(text, " lm") != NULL && strstr(text, " nx") != NULL);
}

static void mounts(void)
{
	struct stat st;

	CHECK(slurp("/proc/mounts") > 0);
	CHECK(strstr(text, " /proc proc ") != NULL);
	CHECK(text[0] != '\0' && text[strlen(text) - 1] == '\n');
	CHECK(slurp("/proc/self/maps") > 0 && strstr(text, "[stack]") != NULL);
	CHECK(stat("/proc/meminfo", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
	if (geteuid() == 0) { /* (as another user open is EACCES) */
		int fd = open("/proc/meminfo", O_WRONLY);

		CHECK(fd >= 0);
		/* a file with no write: Linux's procfs says EIO */
		CHECK_ERR(write(fd, "x", 1), EIO);
		close(fd);
	}
}

static void tainted(void)
{
	char *end;

	CHECK(slurp("/proc/sys/kernel/tainted") > 1 && text[strlen(text) - 1] == '\n');
	CHECK(strtol(text, &end, 10) >= 0 && *end == '\n');
}

int main(void)
{
	meminfo();
	uptime_loadavg();
	cpuinfo();
	mounts();
	tainted();
	return utest_done();
}
