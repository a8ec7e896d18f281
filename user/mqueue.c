/* mqueue: POSIX message queues as Linux answers: mq_open's names, flags, modes and attributes,
 * priorities, O_NONBLOCK, absolute timeouts, mq_getsetattr, the mqueue file system,
 * /proc/sys/fs/mqueue and RLIMIT_MSGQUEUE (mqueue-notify: the rest). Checked natively. */
#define _GNU_SOURCE
#define UTEST_NAME "mqueue"
#include <dirent.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "utest.h"
#include "mq-common.h"

static void sysctls(void)
{
	CHECK_EQ(sysctl_get("queues_max"), 256);
	CHECK_EQ(sysctl_get("msg_max"), 10);
	CHECK_EQ(sysctl_get("msgsize_max"), 8192);
	CHECK_EQ(sysctl_get("msg_default"), 10);
	CHECK_EQ(sysctl_get("msgsize_default"), 8192);
	CHECK_EQ(sysctl_set("msg_max", "0"), EINVAL);
	CHECK_EQ(sysctl_set("msg_max", "65537"), EINVAL);
	CHECK_EQ(sysctl_set("msgsize_max", "127"), EINVAL);
	CHECK_EQ(sysctl_set("msgsize_max", "16777217"), EINVAL);
	CHECK_EQ(sysctl_set("msg_max", "11"), 0);
	CHECK_EQ(sysctl_get("msg_max"), 11);
	CHECK_EQ(sysctl_set("msg_max", "10"), 0);
	CHECK_EQ(sysctl_get("msg_max"), 10);
}

static void opens(void)
{
	const char *a = qname(0);
	char longname[300];
	struct mq_attr attr;
	struct stat st;
	mqd_t q, q2;
	mode_t old;

	mq_unlink(a);
	CHECK_ERR(mq_open(a, O_RDWR), ENOENT);
	CHECK_ERR(mq_open("/", O_RDWR | O_CREAT, 0600, NULL), ENOENT); /* an empty name */
	CHECK_ERR(mq_open("/fl-mq/x", O_RDWR | O_CREAT, 0600, NULL), EACCES);
	/* The kernel's names have no slash; the libraries strip the leading one. */
	CHECK_ERR(syscall(SYS_mq_open, "/fl-mq-slash", O_RDWR | O_CREAT, 0600, NULL), EACCES);
	CHECK_ERR(syscall(SYS_mq_open, "..", O_RDWR | O_CREAT, 0600, NULL), EACCES);
	q = syscall(SYS_mq_open, a + 1, O_RDWR | O_CREAT | O_EXCL, 0600, NULL);
	CHECK(q >= 0);
	CHECK_ERR(mq_open(a, O_RDWR | O_CREAT | O_EXCL, 0600, NULL), EEXIST);
	close(q);
	CHECK_ERR(syscall(SYS_mq_open, a + 1, O_RDWR, 0, BAD_PTR), EFAULT);
	CHECK_ERR(syscall(SYS_mq_open, BAD_PTR, O_RDWR, 0, NULL), EFAULT);
	memset(longname, 'n', sizeof(longname));
	longname[0] = '/';
	longname[257] = '\0'; /* 256 bytes after the slash */
	CHECK_ERR(mq_open(longname, O_RDWR | O_CREAT, 0600, NULL), ENAMETOOLONG);
	CHECK_ERR(mq_unlink(longname), ENAMETOOLONG);
	longname[256] = '\0'; /* 255: NAME_MAX */
	q = mq_open(longname, O_RDWR | O_CREAT, 0600, NULL);
	CHECK(q >= 0);
	CHECK_EQ(mq_close(q), 0);
	CHECK_EQ(mq_unlink(longname), 0);

	/* No descriptor left: EMFILE, and no queue made. */
	struct rlimit nofile, one;
	int spare = dup(0);

	CHECK(spare >= 0 && getrlimit(RLIMIT_NOFILE, &nofile) == 0);
	one = (struct rlimit){ (rlim_t)spare + 1, nofile.rlim_max };
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &one), 0);
	close(spare);
	q = mq_open(qname(1), O_RDWR | O_CREAT, 0600, NULL); /* the one free: spare's */
	CHECK_EQ(q, spare);
	CHECK_ERR(mq_open(qname(2), O_RDWR | O_CREAT, 0600, NULL), EMFILE);
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &nofile), 0);
	CHECK_ERR(mq_open(qname(2), O_RDWR), ENOENT);
	mq_close(q);
	CHECK_EQ(mq_unlink(qname(1)), 0);

	/* The attributes: within the limits (root's: the hard ones) when creating only. */
	CHECK_ERR(mk(qname(1), O_RDWR, 0, 8), EINVAL);
	CHECK_ERR(mk(qname(1), O_RDWR, 8, 0), EINVAL);
	CHECK_ERR(mk(qname(1), O_RDWR, -1, 8), EINVAL);
	CHECK_ERR(mk(qname(1), O_RDWR, 65537, 8), EINVAL);
	CHECK_ERR(mk(qname(1), O_RDWR, 1, 16 * 1024 * 1024 + 1), EINVAL);
	CHECK_ERR(mq_open(qname(1), O_RDWR), ENOENT); /* none was made */
	/* Past msg_max and msgsize_max: with CAP_SYS_RESOURCE only. */
	if (have_sys_resource) {
		q = mk(qname(1), O_RDWR, 11, 8193);
		CHECK(q >= 0);
		mq_close(q);
		CHECK_EQ(mq_unlink(qname(1)), 0);
	} else {
		CHECK_ERR(mk(qname(1), O_RDWR, 11, 8192), EINVAL);
		CHECK_ERR(mk(qname(1), O_RDWR, 10, 8193), EINVAL);
	}
	q = mk(qname(1), O_RDWR, 10, 8192);
	CHECK(q >= 0);
	CHECK_EQ(mq_getattr(q, &attr), 0);
	CHECK_EQ(attr.mq_maxmsg, 10);
	CHECK_EQ(attr.mq_msgsize, 8192);
	CHECK_EQ(attr.mq_curmsgs, 0);
	CHECK_EQ(attr.mq_flags, 0);
	q2 = mk(qname(1), O_RDONLY | O_NONBLOCK, 0, 0); /* exists: the attributes do not count */
	CHECK(q2 >= 0);
	CHECK_EQ(mq_getattr(q2, &attr), 0);
	CHECK_EQ(attr.mq_maxmsg, 10);
	CHECK_EQ(attr.mq_flags, O_NONBLOCK);
	CHECK_ERR(mq_open(qname(1), O_RDWR | O_WRONLY), EINVAL);
	/* A descriptor: close-on-exec, a regular file of mode less umask, 80 bytes. */
	CHECK_EQ(fcntl(q, F_GETFD), FD_CLOEXEC);
	CHECK_EQ(fstat(q, &st), 0);
	CHECK_EQ(st.st_mode, S_IFREG | 0600);
	CHECK_EQ(st.st_size, 80);
	CHECK_EQ(mq_close(q2), 0);
	CHECK_EQ(mq_close(q), 0);
	CHECK_EQ(mq_unlink(qname(1)), 0);
	CHECK_ERR(mq_unlink(qname(1)), ENOENT);
	old = umask(027);
	q = mq_open(qname(1), O_RDWR | O_CREAT, 0666, NULL); /* the defaults: 10 of 8192 */
	umask(old);
	CHECK(q >= 0);
	CHECK_EQ(fstat(q, &st), 0);
	CHECK_EQ(st.st_mode, S_IFREG | 0640);
	CHECK_EQ(mq_getattr(q, &attr), 0);
	CHECK_EQ(attr.mq_maxmsg, 10);
	CHECK_EQ(attr.mq_msgsize, 8192);
	CHECK_EQ(mq_close(q), 0);
	CHECK_EQ(mq_unlink(qname(1)), 0);
	/* The defaults never pass the maximums. */
	CHECK_EQ(sysctl_set("msg_max", "5"), 0);
	CHECK_EQ(sysctl_set("msgsize_max", "1000"), 0);
	q = mq_open(qname(1), O_RDWR | O_CREAT, 0600, NULL);
	CHECK_EQ(sysctl_set("msg_max", "10"), 0);
	CHECK_EQ(sysctl_set("msgsize_max", "8192"), 0);
	CHECK(q >= 0);
	CHECK_EQ(mq_getattr(q, &attr), 0);
	CHECK(attr.mq_maxmsg == 5 && attr.mq_msgsize == 1000);
	CHECK_EQ(mq_close(q), 0);
	CHECK_EQ(mq_unlink(qname(1)), 0);
	CHECK_EQ(mq_unlink(a), 0);
}

static void messages(void)
{
	const char *a = qname(0);
	mqd_t q = mk(a, O_RDWR, 4, 16), r, w;
	static char big[20000], back[20000];
	struct mq_attr attr, nb = { .mq_flags = O_NONBLOCK };
	char buf[64];
	unsigned int prio;
	int pfd[2];

	CHECK(q >= 0);
	CHECK_EQ(mq_send(q, "a", 1, 1), 0);
	CHECK_EQ(mq_send(q, "bb", 2, 5), 0);
	CHECK_EQ(mq_send(q, "c", 1, 1), 0);
	CHECK_EQ(mq_send(q, "dddd", 4, 5), 0);
	CHECK_EQ(mq_getattr(q, &attr), 0);
	CHECK_EQ(attr.mq_curmsgs, 4);
	want_line(a, 8, 0, 0, 0);
	/* Full: O_NONBLOCK says EAGAIN, a timeout ETIMEDOUT (a past one at once). */
	CHECK_EQ(mq_setattr(q, &nb, NULL), 0);
	CHECK_ERR(mq_send(q, "e", 1, 0), EAGAIN);
	nb.mq_flags = 0;
	CHECK_EQ(mq_setattr(q, &nb, &attr), 0);
	CHECK_EQ(attr.mq_flags, O_NONBLOCK); /* the old flags */
	struct timespec past = { 1, 0 }, soon = after_ms(20), bad = { 0, 1000000000 };
	CHECK_ERR(mq_timedsend(q, "e", 1, 0, &past), ETIMEDOUT);
	CHECK_ERR(mq_timedsend(q, "e", 1, 0, &soon), ETIMEDOUT);
	/* Highest priority first, in order within one. */
	CHECK_ERR(mq_receive(q, buf, 15, &prio), EMSGSIZE);
	CHECK_EQ(mq_receive(q, buf, 16, &prio), 2);
	CHECK(!memcmp(buf, "bb", 2) && prio == 5);
	/* An invalid timespec: EINVAL even with a message there (today's Linux checks first). */
	CHECK_ERR(mq_timedreceive(q, buf, sizeof(buf), &prio, &bad), EINVAL);
	bad = (struct timespec){ -1, 0 };
	CHECK_ERR(mq_timedreceive(q, buf, sizeof(buf), &prio, &bad), EINVAL);
	CHECK_ERR(syscall(SYS_mq_timedreceive, q, buf, sizeof(buf), &prio, BAD_PTR), EFAULT);
	CHECK_EQ(mq_timedreceive(q, buf, sizeof(buf), &prio, &past), 4); /* no wait needed */
	CHECK(!memcmp(buf, "dddd", 4) && prio == 5);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), &prio), 1);
	CHECK(buf[0] == 'a' && prio == 1);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	CHECK_EQ(buf[0], 'c');
	/* Empty: EAGAIN, ETIMEDOUT. */
	soon = after_ms(20);
	CHECK_ERR(mq_timedreceive(q, buf, sizeof(buf), &prio, &soon), ETIMEDOUT);
	CHECK_ERR(mq_timedreceive(q, buf, sizeof(buf), &prio, &past), ETIMEDOUT);
	nb.mq_flags = O_NONBLOCK;
	CHECK_EQ(mq_setattr(q, &nb, NULL), 0);
	CHECK_ERR(mq_receive(q, buf, sizeof(buf), &prio), EAGAIN);
	/* Only O_NONBLOCK may be set; the rest of mq_setattr's structure is not looked at. */
	nb.mq_flags = O_NONBLOCK | O_APPEND;
	CHECK_ERR(mq_setattr(q, &nb, NULL), EINVAL);
	nb = (struct mq_attr){ .mq_maxmsg = 100, .mq_msgsize = 1 };
	CHECK_EQ(mq_setattr(q, &nb, NULL), 0);
	CHECK_EQ(mq_getattr(q, &attr), 0);
	CHECK(attr.mq_maxmsg == 4 && attr.mq_msgsize == 16 && attr.mq_flags == 0);
	/* Sizes and priorities at their bounds. */
	CHECK_ERR(mq_send(q, buf, 17, 0), EMSGSIZE);
	CHECK_ERR(mq_send(q, buf, 1, 32768), EINVAL);
	CHECK_EQ(mq_send(q, buf, 16, 32767), 0);
	CHECK_EQ(mq_send(q, "", 0, 0), 0);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), &prio), 16);
	CHECK_EQ(prio, 32767);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), &prio), 0);
	CHECK_ERR(mq_send(q, BAD_PTR, 1, 0), EFAULT);
	CHECK_EQ(mq_getattr(q, &attr), 0);
	CHECK_EQ(attr.mq_curmsgs, 0);
	/* The wrong direction, or no queue at all. */
	r = mq_open(a, O_RDONLY);
	w = mq_open(a, O_WRONLY);
	CHECK(r >= 0 && w >= 0);
	CHECK_ERR(mq_send(r, "x", 1, 0), EBADF);
	CHECK_ERR(mq_receive(w, buf, sizeof(buf), NULL), EBADF);
	CHECK_EQ(mq_send(w, "x", 1, 0), 0);
	CHECK_EQ(mq_receive(r, buf, sizeof(buf), NULL), 1);
	CHECK_EQ(pipe(pfd), 0);
	CHECK_ERR(mq_send(pfd[1], "x", 1, 0), EBADF);
	CHECK_ERR(mq_getattr(pfd[0], &attr), EBADF);
	CHECK_ERR(mq_send(-1, "x", 1, 0), EBADF);
	CHECK_ERR(write(q, "x", 1), EINVAL); /* the file itself takes no write */
	close(pfd[0]);
	close(pfd[1]);
	mq_close(r);
	mq_close(w);
	mq_close(q);
	CHECK_EQ(mq_unlink(a), 0);

	/* A message of several pages comes back whole (msgsize_max raised for it). */
	CHECK_EQ(sysctl_set("msgsize_max", "20000"), 0);
	q = mk(a, O_RDWR, 2, sizeof(big));
	CHECK_EQ(sysctl_set("msgsize_max", "8192"), 0);
	CHECK(q >= 0);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 4096);
	CHECK_EQ(mq_send(q, big, sizeof(big), 3), 0);
	want_line(a, sizeof(big), 0, 0, 0);
	CHECK_EQ(mq_receive(q, back, sizeof(back), &prio), (long)sizeof(back));
	CHECK(!memcmp(big, back, sizeof(big)));
	mq_close(q);
	CHECK_EQ(mq_unlink(a), 0);
}

/* The queues as files: listed, read, made by open(2), removed by unlink(2). */
static void files(void)
{
	const char *a = qname(0);
	char path[96], buf[128];
	struct mq_attr attr;
	struct stat st;
	struct dirent *d;
	DIR *dir;
	int fd, found = 0;

	CHECK_EQ(stat("/dev/mqueue", &st), 0);
	CHECK_EQ(st.st_mode, S_IFDIR | 01777);
	snprintf(path, sizeof(path), "/dev/mqueue%s", a);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(mq_getattr(fd, &attr), 0); /* a queue like any other: the default attributes */
	CHECK(attr.mq_maxmsg == 10 && attr.mq_msgsize == 8192);
	CHECK_EQ(mq_send(fd, "hello", 5, 0), 0);
	CHECK_EQ(read(fd, buf, 6), 6); /* a read is the line, from the file offset */
	CHECK(!memcmp(buf, "QSIZE:", 6));
	CHECK_EQ(read(fd, buf, sizeof(buf)), 54);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0);
	want_line(a, 5, 0, 0, 0);
	dir = opendir("/dev/mqueue");
	CHECK(dir != NULL);
	while (dir && (d = readdir(dir)))
		found += !strcmp(d->d_name, a + 1) && d->d_type == DT_REG;
	if (dir)
		closedir(dir);
	CHECK_EQ(found, 1);
	snprintf(buf, sizeof(buf), "/dev/mqueue%s-dir", a);
	CHECK_ERR(mkdir(buf, 0700), EPERM);
	close(fd);
	CHECK_EQ(unlink(path), 0);
	CHECK_ERR(mq_unlink(a), ENOENT);
}

/* As another user: the permission bits, the sysctl maximums, queues_max, RLIMIT_MSGQUEUE. */
static void as_other(void *arg)
{
	const char **n = arg;
	/* Linux's cost of 10 messages of 8192 bytes: the bytes, a msg_msg and a tree node each */
	const rlim_t cost = 10 * 8192 + 10 * 48 + 10 * 48;
	struct rlimit rl = { cost - 1, cost };
	mqd_t q, q2;

	CHECK_EQ(setrlimit(RLIMIT_MSGQUEUE, &rl), 0);
	CHECK_EQ(setuid(OTHER_UID), 0);
	CHECK_ERR(mq_open(n[0], O_RDONLY), EACCES); /* 0600, root's */
	q = mq_open(n[1], O_RDONLY); /* 0644 */
	CHECK(q >= 0);
	mq_close(q);
	CHECK_ERR(mq_open(n[1], O_WRONLY), EACCES);
	CHECK_ERR(mk(n[2], O_RDWR, 11, 8), EINVAL); /* past msg_max */
	CHECK_ERR(mk(n[2], O_RDWR, 8, 8193), EINVAL);
	CHECK_ERR(mk(n[2], O_RDWR, 10, 8192), EMFILE); /* one byte short */
	rl.rlim_cur = cost;
	CHECK_EQ(setrlimit(RLIMIT_MSGQUEUE, &rl), 0);
	q = mk(n[2], O_RDWR, 10, 8192);
	CHECK(q >= 0);
	CHECK_ERR(mk(n[3], O_RDWR, 1, 1), EMFILE);
	CHECK_EQ(mq_unlink(n[2]), 0);
	CHECK_ERR(mk(n[3], O_RDWR, 1, 1), EMFILE); /* open still: it counts */
	mq_close(q);
	q2 = mk(n[3], O_RDWR, 1, 1);
	CHECK(q2 >= 0);
	mq_close(q2);
	CHECK_EQ(mq_unlink(n[3]), 0);
}

static void queues_max_other(void *arg)
{
	CHECK_EQ(setuid(OTHER_UID), 0);
	CHECK_ERR(mk(arg, O_RDWR, 1, 1), ENOSPC);
}

static void other_user(void)
{
	const char *n[4] = { qname(4), qname(5), qname(6), qname(7) };
	mqd_t q0 = mk(n[0], O_RDWR, 1, 8), q1, q2;
	int err;

	q1 = mq_open(n[1], O_RDWR | O_CREAT, 0644, NULL);
	CHECK(q0 >= 0 && q1 >= 0);
	in_child(as_other, n);
	/* queues_max binds all but CAP_SYS_RESOURCE. */
	CHECK_EQ(sysctl_set("queues_max", "0"), 0);
	in_child(queues_max_other, (void *)n[2]);
	q2 = mk(n[2], O_RDWR, 1, 1);
	err = errno;
	CHECK_EQ(sysctl_set("queues_max", "256"), 0);
	if (have_sys_resource) {
		CHECK(q2 >= 0);
		mq_close(q2);
		CHECK_EQ(mq_unlink(n[2]), 0);
	} else {
		CHECK(q2 == (mqd_t)-1 && err == ENOSPC);
	}
	mq_close(q0);
	mq_close(q1);
	CHECK_EQ(mq_unlink(n[1]), 0);
	CHECK_EQ(mq_unlink(n[0]), 0);
}

int main(void)
{
	setup_fs();
	sysctls();
	opens();
	messages();
	files();
	other_user();
	teardown_fs();
	return utest_done();
}
