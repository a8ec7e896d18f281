/* inotify: inotify_init1, inotify_add_watch and inotify_rm_watch as Linux answers them, and the
 * events a scripted series of file operations in a fresh directory of /tmp gives, in their
 * order: names and their padding, rename cookies, merging, IN_ONESHOT, IN_MASK_ADD,
 * IN_EXCL_UNLINK, IN_Q_OVERFLOW, the per-user limits, IN_UNMOUNT, poll, epoll and FIONREAD. */
#define _GNU_SOURCE
#define UTEST_NAME "inotify"
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#define OTHER_UID 4242 /* a user with no inotify instance of its own (the limits' checks) */

static char D[64];

struct ev {
	int wd;
	uint32_t mask, cookie, len;
	char name[64];
};

/* one expected event: wd, mask and name ("" for none) */
struct want {
	int wd;
	uint32_t mask;
	const char *name;
};

static const char *in(const char *dir, const char *name)
{
	static char bufs[4][160];
	static int k;

	k = (k + 1) % 4;
	snprintf(bufs[k], sizeof(bufs[k]), "%s/%s", dir, name);
	return bufs[k];
}

/* Every event queued now on the non-blocking fd into evs (at most max): how many, -1 on an
 * error or a record that does not parse. */
static int drain(int fd, struct ev *evs, int max)
{
	static char buf[8192] __attribute__((aligned(8)));
	int n = 0;

	for (;;) {
		long r = read(fd, buf, sizeof(buf));

		if (r < 0)
			return errno == EAGAIN ? n : -1;
		for (long off = 0; off < r;) {
			struct inotify_event *e = (struct inotify_event *)(buf + off);

			if (n == max || e->len >= sizeof(evs[n].name))
				return -1;
			evs[n].wd = e->wd;
			evs[n].mask = e->mask;
			evs[n].cookie = e->cookie;
			evs[n].len = e->len;
			memcpy(evs[n].name, e->name, e->len);
			evs[n].name[e->len] = '\0';
			n++;
			off += (long)sizeof(*e) + e->len;
		}
	}
}

/* The events queued on fd are exactly w[0..n) (wd, mask, name), in that order; got, if not
 * NULL, receives at most n of them (their cookies). */
static void expect_at(int line, int fd, const struct want *w, int n, struct ev *got)
{
	struct ev evs[32];
	int k, m = drain(fd, evs, 32);
	int ok = m == n;

	for (k = 0; ok && k < n; k++)
		ok = evs[k].wd == w[k].wd && evs[k].mask == w[k].mask &&
		     strcmp(evs[k].name, w[k].name) == 0;
	if (!utest_check(ok, __FILE__, line, "the events expected")) {
		for (k = 0; k < n; k++)
			fprintf(stderr, "inotify:   want wd %d mask %#x name \"%s\"\n", w[k].wd,
				w[k].mask, w[k].name);
		for (k = 0; k < m; k++)
			fprintf(stderr, "inotify:   got  wd %d mask %#x name \"%s\"\n", evs[k].wd,
				evs[k].mask, evs[k].name);
	}
	if (got) /* (the expected ones: got has room for them) */
		memcpy(got, evs, sizeof(*got) * (size_t)(m < 0 ? 0 : m < n ? m : n));
}

#define EXPECT(fd, ...)                                                                    \
	do {                                                                               \
		const struct want w_[] = { __VA_ARGS__ };                                  \
		expect_at(__LINE__, fd, w_, (int)(sizeof(w_) / sizeof(w_[0])), NULL);      \
	} while (0)
#define EXPECT_NONE(fd) expect_at(__LINE__, fd, NULL, 0, NULL)

static int newfd(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	CHECK(fd >= 0);
	return fd;
}

static void touch(const char *path, mode_t mode)
{
	int fd = open(path, O_CREAT | O_WRONLY, mode);

	CHECK(fd >= 0);
	close(fd);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ok = fd >= 0 && write(fd, s, strlen(s)) == (long)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static long read_num(const char *path)
{
	char buf[32];

	return utest_slurp(path, buf, sizeof(buf)) > 0 ? atol(buf) : -1;
}

static void set_num(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	CHECK_EQ(write_str(path, buf), 0);
}

/* init, init1's flags, the descriptor itself */
static void instance(void)
{
	char link[64], target[64];
	int fd, fd0;
	long n;

	CHECK_ERR(inotify_init1(0x1), EINVAL);
	CHECK_ERR(inotify_init1(IN_NONBLOCK | 0x100), EINVAL);
	fd0 = (int)syscall(SYS_inotify_init);
	CHECK(fd0 >= 0);
	CHECK_EQ(fcntl(fd0, F_GETFL), O_RDONLY);
	CHECK_EQ(fcntl(fd0, F_GETFD), 0);
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_EQ(fcntl(fd, F_GETFL), O_RDONLY | O_NONBLOCK);
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	CHECK(n > 0 && (target[n] = '\0', strcmp(target, "anon_inode:inotify") == 0));
	CHECK_ERR(read(fd, link, sizeof(link)), EAGAIN);
	CHECK_ERR(write(fd, "x", 1), EBADF);
	CHECK_EQ(ioctl(fd, FIONREAD, &n), 0);
	CHECK_EQ((int)n, 0);
	close(fd);
	close(fd0);
}

/* inotify_add_watch's and inotify_rm_watch's errors, each next to a call that succeeds */
static void errors(void)
{
	int fd = newfd(), file = open(in(D, "e1"), O_CREAT | O_RDWR, 0644);

	CHECK(file >= 0);
	CHECK_EQ(inotify_add_watch(fd, in(D, "e1"), IN_OPEN), 1);
	CHECK_ERR(inotify_add_watch(fd, in(D, "e1"), 0), EINVAL);
	CHECK_ERR(inotify_add_watch(fd, in(D, "e1"), IN_OPEN | 0x10000), EINVAL);
	CHECK_ERR(inotify_add_watch(-1, in(D, "e1"), 0), EINVAL); /* the mask comes first */
	CHECK_ERR(inotify_add_watch(-1, in(D, "e1"), IN_OPEN), EBADF);
	CHECK_ERR(inotify_add_watch(1000, in(D, "e1"), IN_OPEN), EBADF);
	CHECK_ERR(inotify_add_watch(file, in(D, "e1"), IN_OPEN), EINVAL);
	CHECK_ERR(inotify_add_watch(fd, in(D, "e1"), IN_OPEN | IN_MASK_ADD | IN_MASK_CREATE),
		  EINVAL);
	CHECK_ERR(inotify_add_watch(fd, in(D, "e1"), IN_OPEN | IN_MASK_CREATE), EEXIST);
	CHECK_ERR(inotify_add_watch(fd, in(D, "nothing"), IN_OPEN), ENOENT);
	CHECK_ERR(inotify_add_watch(fd, "", IN_OPEN), ENOENT);
	CHECK_ERR(inotify_add_watch(fd, in(D, "e1/x"), IN_OPEN), ENOTDIR);
	CHECK_ERR(inotify_add_watch(fd, in(D, "e1"), IN_OPEN | IN_ONLYDIR), ENOTDIR);
	CHECK_EQ(inotify_add_watch(fd, D, IN_OPEN | IN_ONLYDIR), 2);
	CHECK_ERR(inotify_add_watch(fd, (const char *)8, IN_OPEN), EFAULT);
	CHECK_ERR(inotify_rm_watch(fd, 3), EINVAL);
	CHECK_ERR(inotify_rm_watch(fd, -1), EINVAL);
	CHECK_ERR(inotify_rm_watch(-1, 1), EBADF);
	CHECK_ERR(inotify_rm_watch(file, 1), EINVAL);
	CHECK_EQ(inotify_rm_watch(fd, 1), 0);
	CHECK_ERR(inotify_rm_watch(fd, 1), EINVAL);
	EXPECT(fd, { 1, IN_IGNORED, "" });
	close(file);
	close(fd);
	unlink(in(D, "e1"));
}

/* wds: one per inode (the same again for a second path to it), handed out cyclically */
static void wds(void)
{
	int fd = newfd();

	touch(in(D, "w"), 0644);
	CHECK_EQ(symlink("w", in(D, "wl")), 0);
	CHECK_EQ(inotify_add_watch(fd, in(D, "w"), IN_OPEN), 1);
	CHECK_EQ(inotify_add_watch(fd, D, IN_CREATE), 2);
	CHECK_EQ(inotify_add_watch(fd, in(D, "w"), IN_CLOSE), 1);
	CHECK_EQ(inotify_add_watch(fd, in(D, "wl"), IN_CLOSE), 1); /* the link followed */
	CHECK_EQ(inotify_add_watch(fd, in(D, "wl"), IN_CLOSE | IN_DONT_FOLLOW), 3);
	CHECK_EQ(inotify_rm_watch(fd, 3), 0);
	CHECK_EQ(inotify_add_watch(fd, in(D, "wl"), IN_ATTRIB | IN_DONT_FOLLOW), 4);
	EXPECT(fd, { 3, IN_IGNORED, "" });
	close(fd);
	unlink(in(D, "wl"));
	unlink(in(D, "w"));
}

/* A directory's watch: each call's events on its children, with their names */
static void script(void)
{
	struct ev got[8];
	char buf[64];
	int fd = newfd(), wd = inotify_add_watch(fd, D, IN_ALL_EVENTS), f;
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_NOW } };

	CHECK_EQ(wd, 1);
	f = open(in(D, "a"), O_CREAT | O_WRONLY, 0644);
	CHECK_EQ(write(f, "xy", 2), 2);
	CHECK_EQ(write(f, "z", 1), 1); /* merged with the first */
	CHECK_EQ(pwrite(f, "z", 1, 0), 1);
	close(f);
	EXPECT(fd, { wd, IN_CREATE, "a" }, { wd, IN_OPEN, "a" }, { wd, IN_MODIFY, "a" },
	       { wd, IN_CLOSE_WRITE, "a" });
	f = open(in(D, "a"), O_RDONLY);
	CHECK_EQ(read(f, buf, 1), 1);
	CHECK_EQ(lseek(f, 0, SEEK_END), 3);
	CHECK_EQ(read(f, buf, 1), 0); /* nothing read: no event */
	close(f);
	EXPECT(fd, { wd, IN_OPEN, "a" }, { wd, IN_ACCESS, "a" }, { wd, IN_CLOSE_NOWRITE, "a" });
	f = open(in(D, "a"), O_RDWR);
	CHECK_EQ(write(f, "1", 1), 1);
	CHECK_EQ(pread(f, buf, 1, 0), 1);
	CHECK_EQ(write(f, "2", 1), 1); /* not merged: the last event is another */
	CHECK_EQ(ftruncate(f, 1), 0);
	close(f);
	EXPECT(fd, { wd, IN_OPEN, "a" }, { wd, IN_MODIFY, "a" }, { wd, IN_ACCESS, "a" },
	       { wd, IN_MODIFY, "a" }, { wd, IN_CLOSE_WRITE, "a" });
	CHECK_EQ(chmod(in(D, "a"), 0600), 0);
	CHECK_EQ(chown(in(D, "a"), (uid_t)-1, (gid_t)-1), 0); /* changes nothing: no event */
	CHECK_EQ(utimensat(AT_FDCWD, in(D, "a"), NULL, 0), 0);
	CHECK_EQ(utimensat(AT_FDCWD, in(D, "a"), ts, 0), 0); /* mtime alone: a change */
	CHECK_EQ(truncate(in(D, "a"), 0), 0);
	/* chmod's and utimensat's IN_ATTRIB are one, the mtime's and truncate's IN_MODIFY too */
	EXPECT(fd, { wd, IN_ATTRIB, "a" }, { wd, IN_MODIFY, "a" });
	f = open(in(D, "a"), O_WRONLY | O_TRUNC); /* opened, then cut */
	close(f);
	f = open(in(D, "new"), O_WRONLY | O_CREAT | O_TRUNC, 0644); /* made: nothing to cut */
	close(f);
	CHECK_EQ(unlink(in(D, "new")), 0);
	EXPECT(fd, { wd, IN_OPEN, "a" }, { wd, IN_MODIFY, "a" }, { wd, IN_CLOSE_WRITE, "a" },
	       { wd, IN_CREATE, "new" }, { wd, IN_OPEN, "new" }, { wd, IN_CLOSE_WRITE, "new" },
	       { wd, IN_DELETE, "new" });
	CHECK_EQ(rename(in(D, "a"), in(D, "b")), 0);
	expect_at(__LINE__, fd,
		  (const struct want[]){ { wd, IN_MOVED_FROM, "a" }, { wd, IN_MOVED_TO, "b" } }, 2,
		  got);
	CHECK(got[0].cookie != 0 && got[0].cookie == got[1].cookie);
	CHECK_EQ(rename(in(D, "b"), in(D, "a")), 0);
	expect_at(__LINE__, fd,
		  (const struct want[]){ { wd, IN_MOVED_FROM, "b" }, { wd, IN_MOVED_TO, "a" } }, 2,
		  got + 2);
	CHECK(got[2].cookie == got[3].cookie && got[2].cookie != got[0].cookie);
	CHECK_EQ(mkdir(in(D, "sub"), 0755), 0);
	f = open(in(D, "sub"), O_RDONLY | O_DIRECTORY);
	CHECK(syscall(SYS_getdents64, f, buf, sizeof(buf)) > 0);
	close(f);
	CHECK_EQ(symlink("a", in(D, "l")), 0);
	CHECK_EQ(mkfifo(in(D, "p"), 0644), 0);
	CHECK_EQ(rename(in(D, "sub"), in(D, "sub2")), 0);
	EXPECT(fd, { wd, IN_CREATE | IN_ISDIR, "sub" }, { wd, IN_OPEN | IN_ISDIR, "sub" },
	       { wd, IN_ACCESS | IN_ISDIR, "sub" }, { wd, IN_CLOSE_NOWRITE | IN_ISDIR, "sub" },
	       { wd, IN_CREATE, "l" }, { wd, IN_CREATE, "p" },
	       { wd, IN_MOVED_FROM | IN_ISDIR, "sub" }, { wd, IN_MOVED_TO | IN_ISDIR, "sub2" });
	/* a named pipe and a device: opened and closed, never read or written */
	CHECK_EQ(mknod(in(D, "n"), S_IFCHR | 0666, makedev(1, 3)), 0); /* /dev/null's */
	f = open(in(D, "p"), O_RDWR);
	CHECK_EQ(write(f, "ab", 2), 2);
	CHECK_EQ(read(f, buf, sizeof(buf)), 2);
	close(f);
	f = open(in(D, "n"), O_RDWR);
	CHECK_EQ(write(f, "ab", 2), 2);
	close(f);
	CHECK_EQ(unlink(in(D, "n")), 0);
	EXPECT(fd, { wd, IN_CREATE, "n" }, { wd, IN_OPEN, "p" }, { wd, IN_CLOSE_WRITE, "p" },
	       { wd, IN_OPEN, "n" }, { wd, IN_CLOSE_WRITE, "n" }, { wd, IN_DELETE, "n" });
	/* renameat2's exchange: two moves, each with its cookie */
	touch(in(D, "e"), 0644);
	EXPECT(fd, { wd, IN_CREATE, "e" }, { wd, IN_OPEN, "e" }, { wd, IN_CLOSE_WRITE, "e" });
	CHECK_EQ(syscall(SYS_renameat2, AT_FDCWD, in(D, "a"), AT_FDCWD, in(D, "e"),
			 RENAME_EXCHANGE),
		 0);
	expect_at(__LINE__, fd,
		  (const struct want[]){ { wd, IN_MOVED_FROM, "a" }, { wd, IN_MOVED_TO, "e" },
					 { wd, IN_MOVED_FROM, "e" }, { wd, IN_MOVED_TO, "a" } },
		  4, got);
	CHECK(got[0].cookie == got[1].cookie && got[2].cookie == got[3].cookie);
	CHECK(got[0].cookie != got[2].cookie);
	CHECK_EQ(unlink(in(D, "e")), 0);
	EXPECT(fd, { wd, IN_DELETE, "e" });
	CHECK_EQ(unlink(in(D, "l")), 0);
	CHECK_EQ(unlink(in(D, "p")), 0);
	CHECK_EQ(rmdir(in(D, "sub2")), 0);
	CHECK_EQ(unlink(in(D, "a")), 0);
	EXPECT(fd, { wd, IN_DELETE, "l" }, { wd, IN_DELETE, "p" },
	       { wd, IN_DELETE | IN_ISDIR, "sub2" }, { wd, IN_DELETE, "a" });
	close(fd);
}

/* A file's own watch next to its directory's in one instance: the directory's event first,
 * then the file's (no name); the ends of a file and of a directory */
static void self_events(void)
{
	int fd = newfd(), wdd = inotify_add_watch(fd, D, IN_ALL_EVENTS), wdf, wds, f;

	touch(in(D, "f"), 0644);
	CHECK_EQ(mkdir(in(D, "s"), 0755), 0);
	wdf = inotify_add_watch(fd, in(D, "f"), IN_ALL_EVENTS);
	wds = inotify_add_watch(fd, in(D, "s"), IN_ALL_EVENTS);
	CHECK(wdd == 1 && wdf == 2 && wds == 3);
	EXPECT(fd, { wdd, IN_CREATE, "f" }, { wdd, IN_OPEN, "f" }, { wdd, IN_CLOSE_WRITE, "f" },
	       { wdd, IN_CREATE | IN_ISDIR, "s" });
	f = open(in(D, "f"), O_RDONLY);
	close(f);
	CHECK_EQ(chmod(in(D, "f"), 0640), 0);
	CHECK_EQ(rename(in(D, "f"), in(D, "g")), 0);
	CHECK_EQ(rename(in(D, "s"), in(D, "t")), 0);
	touch(in(D, "t/x"), 0644);
	EXPECT(fd, { wdd, IN_OPEN, "f" }, { wdf, IN_OPEN, "" }, { wdd, IN_CLOSE_NOWRITE, "f" },
	       { wdf, IN_CLOSE_NOWRITE, "" }, { wdd, IN_ATTRIB, "f" }, { wdf, IN_ATTRIB, "" },
	       { wdd, IN_MOVED_FROM, "f" }, { wdd, IN_MOVED_TO, "g" }, { wdf, IN_MOVE_SELF, "" },
	       { wdd, IN_MOVED_FROM | IN_ISDIR, "s" }, { wdd, IN_MOVED_TO | IN_ISDIR, "t" },
	       { wds, IN_MOVE_SELF, "" }, { wds, IN_CREATE, "x" }, { wds, IN_OPEN, "x" },
	       { wds, IN_CLOSE_WRITE, "x" });
	CHECK_EQ(unlink(in(D, "g")), 0);
	CHECK_EQ(unlink(in(D, "t/x")), 0);
	CHECK_EQ(rmdir(in(D, "t")), 0);
	EXPECT(fd, { wdf, IN_ATTRIB, "" }, { wdf, IN_DELETE_SELF, "" }, { wdf, IN_IGNORED, "" },
	       { wdd, IN_DELETE, "g" }, { wds, IN_DELETE, "x" }, { wds, IN_DELETE_SELF, "" },
	       { wds, IN_IGNORED, "" }, { wdd, IN_DELETE | IN_ISDIR, "t" });
	CHECK_ERR(inotify_rm_watch(fd, wdf), EINVAL); /* gone with its file */
	close(fd);
}

/* A file unlinked while open ends at its last close; one renamed over ends then */
static void late_ends(void)
{
	int fd = newfd(), wdd, wdh, wdx, f;

	touch(in(D, "h"), 0644);
	touch(in(D, "x"), 0644);
	touch(in(D, "y"), 0644);
	wdh = inotify_add_watch(fd, in(D, "h"), IN_ALL_EVENTS);
	wdx = inotify_add_watch(fd, in(D, "x"), IN_ALL_EVENTS);
	f = open(in(D, "h"), O_RDONLY);
	CHECK_EQ(unlink(in(D, "h")), 0);
	EXPECT(fd, { wdh, IN_OPEN, "" }, { wdh, IN_ATTRIB, "" });
	close(f);
	EXPECT(fd, { wdh, IN_CLOSE_NOWRITE, "" }, { wdh, IN_DELETE_SELF, "" },
	       { wdh, IN_IGNORED, "" });
	wdd = inotify_add_watch(fd, D, IN_MOVE | IN_DELETE);
	CHECK_EQ(rename(in(D, "y"), in(D, "x")), 0);
	EXPECT(fd, { wdd, IN_MOVED_FROM, "y" }, { wdd, IN_MOVED_TO, "x" }, { wdx, IN_ATTRIB, "" },
	       { wdx, IN_DELETE_SELF, "" }, { wdx, IN_IGNORED, "" });
	CHECK_EQ(unlink(in(D, "x")), 0);
	EXPECT(fd, { wdd, IN_DELETE, "x" });
	close(fd);
}

/* IN_ONESHOT, a mask replaced and added to, IN_EXCL_UNLINK */
static void mask_flags(void)
{
	int fd = newfd(), fd2 = newfd(), wd, wd2, wdd, f;
	char c;

	touch(in(D, "o"), 0644);
	wd = inotify_add_watch(fd, in(D, "o"), IN_OPEN | IN_ONESHOT);
	close(open(in(D, "o"), O_RDONLY));
	close(open(in(D, "o"), O_RDONLY));
	EXPECT(fd, { wd, IN_OPEN, "" }, { wd, IN_IGNORED, "" });
	wd = inotify_add_watch(fd, in(D, "o"), IN_OPEN);
	CHECK_EQ(inotify_add_watch(fd, in(D, "o"), IN_CLOSE_NOWRITE), wd); /* in its place */
	close(open(in(D, "o"), O_RDONLY));
	EXPECT(fd, { wd, IN_CLOSE_NOWRITE, "" });
	CHECK_EQ(inotify_add_watch(fd, in(D, "o"), IN_OPEN | IN_MASK_ADD), wd);
	close(open(in(D, "o"), O_RDONLY));
	EXPECT(fd, { wd, IN_OPEN, "" }, { wd, IN_CLOSE_NOWRITE, "" });
	CHECK_EQ(inotify_rm_watch(fd, wd), 0);
	EXPECT(fd, { wd, IN_IGNORED, "" });

	/* IN_EXCL_UNLINK: the file's events while it has its name, none once it has not; a
	 * watch without the flag (the other instance) still hears them */
	wdd = inotify_add_watch(fd, D, IN_MODIFY | IN_EXCL_UNLINK);
	wd = inotify_add_watch(fd, in(D, "o"), IN_MODIFY | IN_EXCL_UNLINK);
	wd2 = inotify_add_watch(fd2, in(D, "o"), IN_MODIFY | IN_ACCESS);
	f = open(in(D, "o"), O_RDWR);
	CHECK_EQ(write(f, "a", 1), 1);
	CHECK_EQ(pread(f, &c, 1, 0), 1);
	CHECK_EQ(unlink(in(D, "o")), 0);
	CHECK_EQ(write(f, "b", 1), 1);
	EXPECT(fd, { wdd, IN_MODIFY, "o" }, { wd, IN_MODIFY, "" });
	EXPECT(fd2, { wd2, IN_MODIFY, "" }, { wd2, IN_ACCESS, "" }, { wd2, IN_MODIFY, "" });
	close(f);
	EXPECT(fd, { wd, IN_IGNORED, "" });
	EXPECT(fd2, { wd2, IN_IGNORED, "" });
	close(fd2);
	close(fd);
}

/* The records: a name padded with zeroes to a multiple of 16, EINVAL for a buffer too small
 * for the first one, whole records only, FIONREAD, poll, epoll, a read that waits */
static void records(void)
{
	char buf[256] __attribute__((aligned(8)));
	struct inotify_event *e = (struct inotify_event *)buf;
	struct pollfd p;
	struct epoll_event ee = { .events = EPOLLIN };
	int fd = newfd(), ep = epoll_create1(0), wd = inotify_add_watch(fd, D, IN_CREATE), n;
	pid_t pid;

	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 0), 0);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee), 0);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 0);
	touch(in(D, "n"), 0644);
	touch(in(D, "0123456789abcdef"), 0644); /* 16 bytes: 32 with its NUL, padded */
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(p.revents, POLLIN);
	CHECK_EQ(epoll_wait(ep, &ee, 1, 0), 1);
	CHECK_EQ(ee.events, EPOLLIN);
	CHECK_EQ(ioctl(fd, FIONREAD, &n), 0);
	CHECK_EQ(n, 16 + 16 + 16 + 32);
	memset(buf, 0x55, sizeof(buf));
	CHECK_ERR(read(fd, buf, 31), EINVAL);
	CHECK_EQ(read(fd, buf, 16 + 16 + 16 + 31), 32); /* the second does not fit */
	CHECK(e->wd == wd && e->mask == IN_CREATE && e->cookie == 0 && e->len == 16);
	CHECK(strcmp(e->name, "n") == 0);
	for (n = 2; n < 16 && e->name[n] == 0; n++)
		;
	CHECK_EQ(n, 16); /* zeroes to the end */
	CHECK_EQ(ioctl(fd, FIONREAD, &n), 0);
	CHECK_EQ(n, 16 + 32);
	CHECK_ERR(read(fd, buf, 47), EINVAL);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 48);
	CHECK(e->len == 32 && strcmp(e->name, "0123456789abcdef") == 0 && e->name[31] == 0);
	CHECK_EQ(poll(&p, 1, 0), 0);
	CHECK_ERR(read(fd, buf, 8), EAGAIN); /* nothing queued: not EINVAL */

	/* a blocking read waits for the event another process makes */
	CHECK_EQ(fcntl(fd, F_SETFL, 0), 0);
	pid = fork();
	if (pid == 0) {
		usleep(10000);
		touch(in(D, "late"), 0644);
		_exit(0);
	}
	n = (int)read(fd, buf, sizeof(buf));
	CHECK_EQ(n, 32);
	CHECK(e->wd == wd && e->mask == IN_CREATE && strcmp(e->name, "late") == 0);
	CHECK_EQ(waitpid(pid, NULL, 0), pid);
	close(ep);
	close(fd);
	unlink(in(D, "n"));
	unlink(in(D, "0123456789abcdef"));
	unlink(in(D, "late"));
}

/* max_queued_events: past it one IN_Q_OVERFLOW (wd -1), nothing more until the queue drains */
static void overflow(void)
{
	const char *path = "/proc/sys/fs/inotify/max_queued_events";
	long old = read_num(path);
	int fd, wd;

	CHECK(old > 0);
	set_num(path, 3);
	fd = newfd();
	set_num(path, old);
	wd = inotify_add_watch(fd, D, IN_CREATE | IN_DELETE);
	for (int k = 0; k < 5; k++)
		touch(in(D, (const char *[]){ "q0", "q1", "q2", "q3", "q4" }[k]), 0644);
	EXPECT(fd, { wd, IN_CREATE, "q0" }, { wd, IN_CREATE, "q1" }, { wd, IN_CREATE, "q2" },
	       { -1, IN_Q_OVERFLOW, "" });
	CHECK_EQ(unlink(in(D, "q0")), 0);
	EXPECT(fd, { wd, IN_DELETE, "q0" });
	for (int k = 1; k < 5; k++)
		unlink(in(D, (const char *[]){ "q0", "q1", "q2", "q3", "q4" }[k]));
	close(fd);
}

/* max_user_instances and max_user_watches, for a user holding none (a child that became
 * OTHER_UID); read permission for a watch */
static void limits(void)
{
	const char *inst = "/proc/sys/fs/inotify/max_user_instances";
	const char *watches = "/proc/sys/fs/inotify/max_user_watches";
	long old_inst = read_num(inst), old_watches = read_num(watches);
	int status;
	pid_t pid;

	CHECK(old_inst > 0 && old_watches > 0);
	touch(in(D, "r0"), 0600);
	touch(in(D, "r1"), 0644);
	touch(in(D, "r2"), 0644);
	touch(in(D, "r3"), 0644);
	set_num(inst, 2);
	set_num(watches, 2);
	pid = fork();
	if (pid == 0) {
		int a, b, ok = 1;

		if (setresuid(OTHER_UID, OTHER_UID, OTHER_UID))
			_exit(2);
		a = inotify_init1(IN_NONBLOCK);
		b = inotify_init1(IN_NONBLOCK);
		ok &= a >= 0 && b >= 0;
		ok &= inotify_init1(IN_NONBLOCK) == -1 && errno == EMFILE;
		close(b);
		b = inotify_init1(IN_NONBLOCK); /* room again */
		ok &= b >= 0;
		ok &= inotify_add_watch(a, in(D, "r0"), IN_OPEN) == -1 && errno == EACCES;
		ok &= inotify_add_watch(a, in(D, "r1"), IN_OPEN) > 0;
		ok &= inotify_add_watch(b, in(D, "r2"), IN_OPEN) > 0;
		ok &= inotify_add_watch(a, in(D, "r3"), IN_OPEN) == -1 && errno == ENOSPC;
		ok &= inotify_add_watch(b, in(D, "r2"), IN_CLOSE) > 0; /* no new watch */
		close(b); /* its watch goes with it */
		ok &= inotify_add_watch(a, in(D, "r3"), IN_OPEN) > 0;
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	set_num(inst, old_inst);
	set_num(watches, old_watches);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int k = 0; k < 4; k++)
		unlink(in(D, (const char *[]){ "r0", "r1", "r2", "r3" }[k]));
}

/* A watched inode of a file system unmounted: IN_UNMOUNT, then IN_IGNORED */
static void unmount(void)
{
	const char *m = in(D, "m");
	int fd = newfd(), wdm, wdf;

	CHECK_EQ(mkdir(m, 0755), 0);
	CHECK_EQ(mount("none", m, "tmpfs", 0, NULL), 0);
	touch(in(m, "f"), 0644);
	wdm = inotify_add_watch(fd, m, IN_CREATE);
	wdf = inotify_add_watch(fd, in(m, "f"), IN_OPEN);
	CHECK_EQ(umount(m), 0);
	EXPECT(fd, { wdf, IN_UNMOUNT, "" }, { wdf, IN_IGNORED, "" },
	       { wdm, IN_UNMOUNT | IN_ISDIR, "" }, { wdm, IN_IGNORED, "" });
	CHECK_EQ(rmdir(m), 0);
	close(fd);
}

int main(void)
{
	strcpy(D, "/tmp/inotify.XXXXXX");
	if (!mkdtemp(D)) {
		perror("inotify: mkdtemp");
		return 1;
	}
	CHECK_EQ(chmod(D, 0755), 0);
	instance();
	errors();
	wds();
	script();
	self_events();
	late_ends();
	mask_flags();
	records();
	overflow();
	limits();
	unmount();
	CHECK_EQ(rmdir(D), 0);
	return utest_done();
}
