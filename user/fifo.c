/* fifo: named pipes and mknod as Linux has them: a FIFO's name (type, mode less the umask),
 * opens that wait for the other end (or with O_NONBLOCK do not: ENXIO for a lone writer),
 * O_RDWR that never waits, a signal ending a waiting open, bytes in order between opens, the
 * unread ones gone with the last close; mknod's other kinds (regular files, device numbers,
 * a socket's name) and refusals (EEXIST, EPERM, EINVAL). */
#define _GNU_SOURCE
#define UTEST_NAME "fifo"
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "utest.h"

#define D "/tmp/fifo-test"
#define F D "/f"

static void names(void)
{
	struct stat st;
	int fd, dir;

	umask(022);
	CHECK(mkfifo(F, 0666) == 0);
	CHECK(lstat(F, &st) == 0 && S_ISFIFO(st.st_mode) && (st.st_mode & 07777) == 0644);
	CHECK_EQ(st.st_size, 0);
	CHECK_ERR(mkfifo(F, 0600), EEXIST);
	CHECK_ERR(mknod(D "/d", S_IFDIR | 0755, 0), EPERM);
	CHECK_ERR(mknod(D "/bad", S_IFMT | 0600, 0), EINVAL);
	CHECK_ERR(stat(D "/bad", &st), ENOENT);
	CHECK(mknod(D "/reg", 0640, 0) == 0); /* no type: a regular file */
	CHECK(stat(D "/reg", &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640);
	CHECK(mknod(D "/reg2", S_IFREG | 0600, makedev(1, 3)) == 0);
	CHECK(stat(D "/reg2", &st) == 0 && S_ISREG(st.st_mode) && st.st_rdev == 0);
	/* a device number in both halves of the encoding, kept as given */
	CHECK(mknod(D "/chr", S_IFCHR | 0600, makedev(300, 70000)) == 0);
	CHECK(stat(D "/chr", &st) == 0 && S_ISCHR(st.st_mode));
	CHECK_EQ(major(st.st_rdev), 300);
	CHECK_EQ(minor(st.st_rdev), 70000);
	CHECK_ERR(open(D "/chr", O_RDONLY), ENXIO); /* no driver has that number */
	CHECK(mknod(D "/null", S_IFCHR | 0666, makedev(1, 3)) == 0); /* /dev/null's number */
	fd = open(D "/null", O_RDWR);
	CHECK(fd >= 0 && write(fd, "gone", 4) == 4 && read(fd, &st, 1) == 0);
	close(fd);
	CHECK(mknod(D "/blk", S_IFBLK | 0600, makedev(8, 1)) == 0);
	CHECK(stat(D "/blk", &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == makedev(8, 1));
	CHECK(mknod(D "/sock", S_IFSOCK | 0600, 0) == 0);
	CHECK(stat(D "/sock", &st) == 0 && S_ISSOCK(st.st_mode));
	CHECK_ERR(open(D "/sock", O_RDONLY), ENXIO);
	dir = open(D, O_RDONLY | O_DIRECTORY);
	CHECK(mknodat(dir, "at", S_IFIFO | 0600, 0) == 0);
	CHECK(stat(D "/at", &st) == 0 && S_ISFIFO(st.st_mode));
	close(dir);
}

/* Without root: FIFOs yes, devices no (but a whiteout, a character device 0:0, yes). */
static void unprivileged(void)
{
	struct stat st;
	int status = -1;
	pid_t pid;

	CHECK(mkdir(D "/pub", 0777) == 0 && chmod(D "/pub", 0777) == 0);
	pid = fork();
	if (pid == 0) {
		int bad = setgid(65534) || setuid(65534);

		bad |= mkfifo(D "/pub/f", 0600) != 0;
		bad |= mknod(D "/pub/c", S_IFCHR | 0600, makedev(1, 3)) != -1 || errno != EPERM;
		bad |= mknod(D "/pub/b", S_IFBLK | 0600, makedev(8, 0)) != -1 || errno != EPERM;
		bad |= mknod(D "/pub/w", S_IFCHR, 0) != 0;
		bad |= mkfifo(D "/nope", 0600) != -1 || errno != EACCES; /* D is root's 0755 */
		_exit(bad);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(stat(D "/pub/f", &st) == 0 && S_ISFIFO(st.st_mode) && st.st_uid == 65534);
	CHECK(stat(D "/pub/w", &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == 0);
	CHECK_ERR(stat(D "/pub/c", &st), ENOENT);
}

static void nonblocking(void)
{
	struct stat st, named;
	char buf[16];
	int r, w;

	CHECK_ERR(open(F, O_WRONLY | O_NONBLOCK), ENXIO); /* no reader */
	r = open(F, O_RDONLY | O_NONBLOCK);
	if (!CHECK(r >= 0))
		return;
	CHECK_EQ(read(r, buf, sizeof(buf)), 0); /* no writer: end of file */
	w = open(F, O_WRONLY | O_NONBLOCK);
	CHECK(w >= 0);
	CHECK_ERR(read(r, buf, 1), EAGAIN); /* a writer, nothing written */
	CHECK_EQ(write(w, "named", 5), 5);
	CHECK_EQ(read(r, buf, sizeof(buf)), 5);
	CHECK(memcmp(buf, "named", 5) == 0);
	CHECK_ERR(lseek(r, 0, SEEK_SET), ESPIPE);
	CHECK(fstat(r, &st) == 0 && stat(F, &named) == 0 && st.st_ino == named.st_ino &&
	      S_ISFIFO(st.st_mode));
	close(r);
	signal(SIGPIPE, SIG_IGN);
	CHECK_ERR(write(w, "x", 1), EPIPE); /* the last reader went */
	signal(SIGPIPE, SIG_DFL);
	close(w);
}

/* O_RDWR never waits; what no one read goes with the last close; the name may go first. */
static void rdwr(void)
{
	char buf[16];
	int fd = open(F, O_RDWR), r;

	if (!CHECK(fd >= 0))
		return;
	CHECK_EQ(write(fd, "abc", 3), 3);
	r = open(F, O_RDONLY | O_NONBLOCK); /* the same pipe */
	CHECK_EQ(read(r, buf, 2), 2);
	CHECK(memcmp(buf, "ab", 2) == 0);
	close(r);
	close(fd);
	fd = open(F, O_RDWR | O_NONBLOCK);
	CHECK_ERR(read(fd, buf, 1), EAGAIN); /* "c" went with the last close */
	CHECK_EQ(unlink(F), 0);
	CHECK_EQ(write(fd, "still", 5), 5);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 5);
	close(fd);
	CHECK(mkfifo(F, 0600) == 0);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A blocking open waits for the other end, opened later by another process; a signal whose
 * handler does not restart ends the wait with EINTR. */
static void blocking(void)
{
	volatile int *flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				  -1, 0);
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { .tv_usec = 100000 } };
	char buf[8];
	int fd, status;
	pid_t pid;

	if (!CHECK(flag != MAP_FAILED))
		return;
	for (int reader = 1; reader >= 0; reader--) {
		*flag = 0;
		pid = fork();
		if (pid == 0) {
			usleep(200000);
			*flag = 1;
			fd = open(F, reader ? O_WRONLY : O_RDONLY);
			if (reader)
				_exit(write(fd, "late", 4) != 4);
			_exit(read(fd, buf, sizeof(buf)) != 4 || memcmp(buf, "late", 4));
		}
		fd = open(F, reader ? O_RDONLY : O_WRONLY);
		CHECK(fd >= 0 && *flag == 1); /* the open returned once the other end came */
		if (reader)
			CHECK(read(fd, buf, sizeof(buf)) == 4 && memcmp(buf, "late", 4) == 0);
		else
			CHECK_EQ(write(fd, "late", 4), 4);
		close(fd);
		CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0);
	}
	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART */
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK_ERR(open(F, O_RDONLY), EINTR);
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK_ERR(open(F, O_WRONLY), EINTR);
	CHECK_ERR(open(F, O_WRONLY | O_NONBLOCK), ENXIO); /* the interrupted reader is gone */
	munmap((void *)flag, 4096);
}

/* Remove what the test makes (left by an earlier run, or made by this one). */
static void clean(void)
{
	static const char *made[] = { "/pub/f", "/pub/w", "/pub", "/at", "/sock", "/blk",
				      "/null", "/chr", "/reg2", "/reg", "/f" };

	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		char p[64];

		snprintf(p, sizeof(p), D "%s", made[i]);
		if (unlink(p))
			rmdir(p);
	}
	rmdir(D);
}

int main(void)
{
	clean();
	if (!CHECK(mkdir(D, 0755) == 0 && chmod(D, 0755) == 0))
		return utest_done();
	names();
	unprivileged();
	nonblocking();
	rdwr();
	blocking();
	clean();
	return utest_done();
}
