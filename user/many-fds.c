/* many-fds: descriptor tables that grow to RLIMIT_NOFILE. EMFILE at the soft limit, 2000
 * descriptors once it is raised, dup2 and F_DUPFD far out, poll and select on high descriptors,
 * /proc/self/fd, a fork's copy of the big table, close_range, and the soft limit raised to the
 * hard one. Runs
 * natively too (the hard limit is the caller's: raising it needs CAP_SYS_RESOURCE). */
#define _GNU_SOURCE
#define UTEST_NAME "many-fds"
#include "utest.h"
#include <dirent.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define N 2000
#define SYS_close_range_ 436
#define CLOSE_RANGE_CLOEXEC_ (1U << 2)

/* Open /dev/null until EMFILE: how many opened. */
static int fill(void)
{
	int n = 0;

	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	CHECK_EQ(errno, EMFILE);
	return n;
}

/* /proc/self/fd lists every open descriptor (and the one reading it); each is a link to the
 * file's path, or pipe:[inode] for a pipe. */
static void proc_fd(int pipe_fd, int null_fd)
{
	char path[64], target[64];
	int open_now = 0, listed = 0;
	struct dirent *d;
	DIR *dir;

	for (int fd = 0; fd < N + 100; fd++)
		open_now += fcntl(fd, F_GETFD) >= 0;
	dir = opendir("/proc/self/fd");
	CHECK(dir != NULL);
	while (dir && (d = readdir(dir)))
		listed += d->d_name[0] != '.';
	if (dir)
		closedir(dir);
	CHECK_EQ(listed, open_now + 1);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", null_fd);
	memset(target, 0, sizeof(target));
	CHECK(readlink(path, target, sizeof(target) - 1) > 0 && !strcmp(target, "/dev/null"));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pipe_fd);
	memset(target, 0, sizeof(target));
	CHECK(readlink(path, target, sizeof(target) - 1) > 0 && !strncmp(target, "pipe:[", 6));
	CHECK_ERR(readlink("/proc/self/fd/99999", target, sizeof(target)), ENOENT);
}

int main(void)
{
	struct rlimit r, big;
	int p[2], status, fd;

	/* At the soft limit: EMFILE for open, pipe and dup; dup2 past it is EBADF. */
	syscall(SYS_close_range_, 3, ~0U, 0);
	CHECK(getrlimit(RLIMIT_NOFILE, &r) == 0);
	CHECK(r.rlim_max >= N + 100); /* Linux's default is 4096 */
	big = (struct rlimit){ N + 100, r.rlim_max };
	r.rlim_cur = 64;
	CHECK(setrlimit(RLIMIT_NOFILE, &r) == 0);
	CHECK_EQ(fill(), 64 - 3);
	CHECK_ERR(pipe(p), EMFILE);
	CHECK_ERR(dup(0), EMFILE);
	CHECK_ERR(dup2(0, 64), EBADF);
	CHECK_ERR(fcntl(0, F_DUPFD, 64), EINVAL);
	CHECK(syscall(SYS_close_range_, 3, ~0U, 0) == 0);
	CHECK_EQ(dup(0), 3); /* all closed: the lowest is free again */
	close(3);

	/* Raised: the table grows to hold N descriptors, up to the new limit. */
	CHECK(setrlimit(RLIMIT_NOFILE, &big) == 0);
	CHECK_EQ(fill(), N + 100 - 3);
	CHECK(syscall(SYS_close_range_, N, ~0U, 0) == 0);
	CHECK_EQ(dup(0), N); /* the lowest free one */
	close(N);
	CHECK_EQ(dup2(0, N + 99), N + 99);
	CHECK_ERR(dup2(0, N + 100), EBADF);
	close(N + 99);

	/* The highest descriptors work like the others: a pipe at N - 2, N - 1. */
	close(N - 2);
	close(N - 1);
	CHECK(pipe(p) == 0);
	CHECK_EQ(p[0], N - 2);
	CHECK_EQ(p[1], N - 1);
	CHECK_EQ(write(p[1], "x", 1), 1);
	struct pollfd pf = { .fd = p[0], .events = POLLIN };

	CHECK_EQ(poll(&pf, 1, 0), 1);
	CHECK_EQ(pf.revents, POLLIN);
	proc_fd(p[0], 3);
	/* select: fd_set holds FD_SETSIZE (1024) descriptors; 1000 is among them */
	CHECK_EQ(dup2(p[0], 1000), 1000);
	fd_set rd;

	FD_ZERO(&rd);
	FD_SET(1000, &rd);
	CHECK_EQ(select(1001, &rd, NULL, NULL, NULL), 1);
	CHECK(FD_ISSET(1000, &rd));

	/* fork copies the whole table: the child reads through descriptor N - 2. */
	pid_t pid = fork();

	if (pid == 0) {
		char c;

		_exit(read(N - 2, &c, 1) == 1 && c == 'x' && fcntl(N - 3, F_GETFD) == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* F_DUPFD far out; close_range's CLOSE_RANGE_CLOEXEC marks instead of closing. */
	close(N + 50);
	CHECK_EQ(fcntl(0, F_DUPFD, N + 50), N + 50);
	CHECK_EQ(dup2(0, N + 61), N + 61);
	CHECK(syscall(SYS_close_range_, N + 40, N + 60, CLOSE_RANGE_CLOEXEC_) == 0);
	CHECK_EQ(fcntl(N + 50, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(fcntl(N + 61, F_GETFD), 0); /* past the range */
	CHECK_ERR(syscall(SYS_close_range_, 10, 5, 0), EINVAL);
	CHECK(syscall(SYS_close_range_, 3, ~0U, 0) == 0);
	CHECK_ERR(fcntl(N - 2, F_GETFD), EBADF);

	/* fs.nr_open bounds every RLIMIT_NOFILE; the soft limit may go up to the hard one, and
	 * the table with it. */
	CHECK(utest_sysctl("/proc/sys/fs/nr_open") >= (long)r.rlim_max);
	r.rlim_cur = r.rlim_max;
	CHECK(setrlimit(RLIMIT_NOFILE, &r) == 0);
	fd = dup2(0, (int)r.rlim_max - 1);
	CHECK_EQ(fd, r.rlim_max - 1);
	close(fd);
	CHECK_ERR(dup2(0, (int)r.rlim_max), EBADF);
	r.rlim_cur = r.rlim_max + 1;
	CHECK_ERR(setrlimit(RLIMIT_NOFILE, &r), EINVAL); /* soft above hard */
	return utest_done();
}
