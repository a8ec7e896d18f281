/* dup: dup, dup2, dup3 and fcntl(F_DUPFD) on a ramdisk file: the copies share one offset, the
 * lowest free descriptor is chosen, dup2 onto an open fd replaces it, dup2(fd, fd) is a no-op,
 * bad descriptors give EBADF, close-on-exec is per descriptor, and a forked child shares it all. */
#define _GNU_SOURCE
#define UTEST_NAME "dup"
#include "utest.h"
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* user/not-an-elf starts with this */
static const char head[] = "this is not an ELF file\n";

static long offset(int fd)
{
	return (long)lseek(fd, 0, SEEK_CUR);
}

/* read n bytes at fd's offset; they must be the file's bytes at want_off */
static void read_at(int fd, size_t n, long want_off)
{
	char buf[32];

	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(fd, buf, n), n);
	CHECK(memcmp(buf, head + want_off, n) == 0);
}

int main(int argc, char **argv)
{
	char path[4096];
	int fd, a, b, g, hi, st = -1;
	pid_t pid;

	(void)argc;
	utest_sibling(path, sizeof(path), argv[0], "not-an-elf");
	fd = open(path, O_RDONLY);
	if (!CHECK(fd >= 0)) {
		fprintf(stderr, "dup: open %s: %s\n", path, strerror(errno));
		return utest_done();
	}

	/* a dup shares the offset both ways */
	a = dup(fd);
	CHECK(a > fd);
	read_at(fd, 4, 0);
	CHECK_EQ(offset(a), 4);
	read_at(a, 3, 4);
	CHECK_EQ(offset(fd), 7);
	CHECK_EQ(lseek(a, 0, SEEK_SET), 0);
	CHECK_EQ(offset(fd), 0);

	/* the lowest free descriptor is taken; hi (above all of them) stays free */
	b = dup(fd);
	CHECK(b > a);
	g = open(path, O_RDONLY);
	CHECK(g > b);
	hi = g + 1;
	CHECK_EQ(close(a), 0);
	CHECK_EQ(dup(fd), a);
	CHECK_EQ(fcntl(fd, F_DUPFD, b), hi); /* F_DUPFD: lowest free at or above b */
	CHECK_EQ(close(hi), 0);

	/* dup2 onto an open descriptor closes it first: g then shares fd's offset */
	CHECK_EQ(lseek(g, 10, SEEK_SET), 10);
	CHECK_EQ(lseek(fd, 2, SEEK_SET), 2);
	CHECK_EQ(dup2(fd, g), g);
	CHECK_EQ(offset(g), 2);
	read_at(g, 5, 2);
	CHECK_EQ(offset(fd), 7);
	CHECK_EQ(dup2(fd, fd), fd); /* no-op, fd stays open */
	CHECK_EQ(offset(fd), 7);
	CHECK_EQ(close(b), 0);
	CHECK_EQ(dup2(fd, b), b); /* onto a closed descriptor */
	CHECK_EQ(offset(b), 7);

	/* close-on-exec belongs to the descriptor, not the open file */
	CHECK_EQ(fcntl(fd, F_GETFD), 0);
	CHECK_EQ(syscall(SYS_dup3, fd, b, O_CLOEXEC), b);
	CHECK_EQ(fcntl(b, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(fcntl(fd, F_GETFD), 0);
	CHECK_EQ(dup2(fd, b), b); /* dup2 clears it */
	CHECK_EQ(fcntl(b, F_GETFD), 0);
	CHECK_EQ(fcntl(b, F_SETFD, FD_CLOEXEC), 0);
	CHECK_EQ(fcntl(b, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(fcntl(fd, F_GETFD), 0);
	CHECK_EQ(fcntl(dup(b), F_GETFD), 0); /* a dup never inherits it: lands on hi */
	CHECK_EQ(close(hi), 0);
	CHECK_ERR(syscall(SYS_dup3, fd, fd, 0), EINVAL);
	CHECK_ERR(syscall(SYS_dup3, fd, b, 0x12345), EINVAL);

	/* bad descriptors */
	CHECK_ERR(dup(-1), EBADF);
	CHECK_ERR(dup(hi), EBADF); /* just closed */
	CHECK_ERR(dup2(hi, hi), EBADF);
	CHECK_ERR(dup2(hi, a), EBADF);
	CHECK_EQ(offset(a), 7); /* a failed dup2 leaves newfd alone */
	CHECK_ERR(dup2(fd, -1), EBADF);
	CHECK_ERR(fcntl(hi, F_GETFD), EBADF);
	CHECK_ERR(close(hi), EBADF);

	/* a forked child inherits the descriptors and shares the offset with its parent */
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char buf[8];

		if (offset(g) != 0 || fcntl(b, F_GETFD) != FD_CLOEXEC || read(g, buf, 8) != 8 ||
		    memcmp(buf, head, 8) != 0)
			_exit(1);
		_exit(offset(fd) == 8 ? 0 : 2);
	}
	CHECK(pid > 0);
	CHECK_EQ(wait4(pid, &st, 0, NULL), pid);
	CHECK_EQ(st, 0);
	CHECK_EQ(offset(fd), 8); /* moved by the child's read */
	read_at(a, 4, 8);
	CHECK_EQ(offset(b), 12);

	CHECK_EQ(close(a), 0);
	CHECK_EQ(close(b), 0);
	CHECK_EQ(close(g), 0);
	CHECK_EQ(offset(fd), 12); /* closing the copies leaves the original open */
	CHECK_EQ(close(fd), 0);
	CHECK_ERR(offset(fd), EBADF);
	return utest_done();
}
