/* proc-fd: /proc/self/fd and /proc/self/fdinfo as Linux shows them: the links' targets (a
 * pipe, a file, the anonymous inode's kinds), the listings, and each fdinfo file's lines (the
 * offset, the flags with O_CLOEXEC, the inode; eventfd's count, epoll's watched files,
 * timerfd's clock and times, signalfd's set); entries of closed descriptors go. */
#define _GNU_SOURCE
#define UTEST_NAME "proc-fd"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "utest.h"

/* /proc/self/fdinfo/FD into buf; its length, or -1 */
static long fdinfo(int fd, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return utest_slurp(path, buf, size);
}

/* The common lines: pos and flags as expected, ino that of fstat; the rest of the text. */
static const char *common(int fd, const char *text, unsigned long long pos, unsigned int flags)
{
	unsigned long long p, ino;
	unsigned int fl;
	int mnt, n = 0;
	struct stat st;

	CHECK(fstat(fd, &st) == 0);
	if (!CHECK(sscanf(text, "pos:\t%llu\nflags:\t%o\nmnt_id:\t%d\nino:\t%llu\n%n", &p, &fl,
			  &mnt, &ino, &n) == 4 && n > 0))
		return "";
	CHECK_EQ(p, pos);
	CHECK_EQ(fl, flags);
	CHECK_EQ(ino, st.st_ino);
	return text + n;
}

static void links_and_listing(void)
{
	int p[2], ef = eventfd(0, 0), fd, seen = 0;
	char link[64], want[64];
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (!CHECK(pipe(p) == 0 && ef >= 0))
		return;
	fstat(p[1], &st);
	snprintf(want, sizeof(want), "pipe:[%lu]", (unsigned long)st.st_ino);
	CHECK(!strcmp(utest_fd_link(p[1], link, sizeof(link)), want));
	fd = open("/proc/self/fdinfo", O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	d = opendir("/proc/self/fdinfo");
	while (d && (e = readdir(d)))
		if (atoi(e->d_name) == ef && e->d_type == DT_REG)
			seen++;
	if (d)
		closedir(d);
	CHECK_EQ(seen, 1);
	CHECK(fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0555);
	close(fd);
	snprintf(want, sizeof(want), "/proc/self/fd/%d", ef);
	CHECK(lstat(want, &st) == 0 && S_ISLNK(st.st_mode) && (st.st_mode & 0777) == 0700);
	close(ef);
	CHECK_ERR(lstat(want, &st), ENOENT); /* closed: gone */
	snprintf(want, sizeof(want), "/proc/self/fdinfo/%d", ef);
	CHECK_ERR(open(want, O_RDONLY), ENOENT);
	close(p[0]);
	close(p[1]);
}

static void infos(const char *self)
{
	char text[1024], want[128];
	const char *rest;
	int p[2], file = open(self, O_RDONLY), ef = eventfd(5, EFD_CLOEXEC | EFD_SEMAPHORE);
	int ep = epoll_create1(0), tf = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), sf, id;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = 0x1234 };
	struct itimerspec it = { { 1, 5 }, { 100, 0 } };
	unsigned long long v[4], ino;
	unsigned int events, sdev;
	struct stat st;
	sigset_t set;

	if (!CHECK(pipe(p) == 0 && file >= 0 && ef >= 0 && ep >= 0 && tf >= 0))
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGRTMIN);
	sf = signalfd(-1, &set, 0);
	CHECK(fdinfo(p[0], text, sizeof(text)) > 0);
	CHECK(!*common(p[0], text, 0, O_RDONLY)); /* nothing more */
	CHECK(fdinfo(p[1], text, sizeof(text)) > 0);
	common(p[1], text, 0, O_WRONLY);
	CHECK_EQ(lseek(file, 100, SEEK_SET), 100);
	CHECK(fdinfo(file, text, sizeof(text)) > 0);
	common(file, text, 100, O_RDONLY | 0100000); /* O_LARGEFILE, as the kernel has it */

	CHECK(fdinfo(ef, text, sizeof(text)) > 0);
	rest = common(ef, text, 0, O_RDWR | O_CLOEXEC);
	CHECK(sscanf(rest, "eventfd-count: %llx\neventfd-id: %d\neventfd-semaphore: %llu\n",
		     &v[0], &id, &v[1]) == 3);
	CHECK(!strncmp(rest, "eventfd-count:                5\n", 31)); /* %16llx */
	CHECK_EQ(v[0], 5);
	CHECK(id >= 0);
	CHECK_EQ(v[1], 1);

	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, ef, &ev), 0);
	CHECK(fdinfo(ep, text, sizeof(text)) > 0);
	rest = common(ep, text, 0, O_RDWR);
	fstat(ef, &st);
	CHECK(sscanf(rest, "tfd: %llu events: %x data: %llx  pos:%llu ino:%llx sdev:%x\n",
		     &v[0], &events, &v[1], &v[2], &ino, &sdev) == 6);
	CHECK_EQ(v[0], ef);
	CHECK_EQ(events, EPOLLIN | EPOLLET | EPOLLERR | EPOLLHUP);
	CHECK_EQ(v[1], 0x1234);
	CHECK_EQ(ino, st.st_ino);
	snprintf(want, sizeof(want), "tfd: %8d events: %8x data: %16llx  pos:0 ino:", ef, events,
		 0x1234ULL);
	CHECK(!strncmp(rest, want, strlen(want))); /* the widths */

	CHECK_EQ(timerfd_settime(tf, 0, &it, NULL), 0);
	CHECK(fdinfo(tf, text, sizeof(text)) > 0);
	rest = common(tf, text, 0, O_RDWR | O_NONBLOCK);
	CHECK(sscanf(rest, "clockid: 1\nticks: 0\nsettime flags: 00\nit_value: (%llu, %llu)\n"
		     "it_interval: (%llu, %llu)\n", &v[0], &v[1], &v[2], &v[3]) == 4);
	CHECK(v[0] == 99 || (v[0] == 100 && !v[1]));
	CHECK(v[2] == 1 && v[3] == 5);

	CHECK(fdinfo(sf, text, sizeof(text)) > 0);
	rest = common(sf, text, 0, O_RDWR);
	CHECK(sscanf(rest, "sigmask:\t%llx\n", &v[0]) == 1);
	CHECK_EQ(v[0], (1ULL << (SIGUSR1 - 1)) | (1ULL << (SIGRTMIN - 1)));
	CHECK(strlen(rest) == strlen("sigmask:\t") + 16 + 1);
	close(p[0]);
	close(p[1]);
	close(file);
	close(ep);
	close(ef);
	close(tf);
	close(sf);
}

int main(int argc, char **argv)
{
	(void)argc;
	links_and_listing();
	infos(argv[0]);
	return utest_done();
}
