/* mqueue-notify: POSIX message queues as Linux answers, with more than one process: sleeping
 * senders and receivers (served by priority), mq_notify's signal and its end, a queue unlinked
 * while open, poll and select (mqueue: the rest). Checked natively. */
#define _GNU_SOURCE
#define UTEST_NAME "mqueue-notify"
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "utest.h"
#include "mq-common.h"

/* A receiver asleep on an empty queue gets the message sent meanwhile; a sender asleep on a
 * full one gets its message in once one is taken. */
static void blocking(void)
{
	const char *a = qname(0);
	mqd_t q = mk(a, O_RDWR, 1, 8);
	char buf[8];
	unsigned int prio;
	pid_t pid, me = getpid();
	int st;

	CHECK(q >= 0);
	pid = fork();
	if (pid == 0) {
		wait_sleeping(me);
		_exit(mq_send(q, "hi", 2, 7) ? 1 : 0);
	}
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), &prio), 2);
	CHECK(!memcmp(buf, "hi", 2) && prio == 7);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);

	CHECK_EQ(mq_send(q, "1", 1, 0), 0);
	pid = fork();
	if (pid == 0) {
		wait_sleeping(me);
		_exit(mq_receive(q, buf, sizeof(buf), NULL) == 1 && buf[0] == '1' ? 0 : 1);
	}
	CHECK_EQ(mq_send(q, "2", 1, 0), 0); /* sleeps until the child took "1" */
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	CHECK_EQ(buf[0], '2');
	mq_close(q);
	CHECK_EQ(mq_unlink(a), 0);
}

/* Receivers asleep are served the most urgent first: a SCHED_FIFO one before one that came
 * earlier. (By number: musl's sched_setscheduler is ENOSYS.) */
static void by_priority(void)
{
	const char *a = qname(0);
	mqd_t q = mk(a, O_RDWR, 2, 8);
	struct sched_param sp = { .sched_priority = 10 };
	pid_t pid[2];
	char buf[8];
	int st;

	CHECK(q >= 0);
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			if (i == 1 && syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp))
				_exit(100);
			_exit(mq_receive(q, buf, sizeof(buf), NULL) == 1 ? buf[0] : 101);
		}
		CHECK(pid[i] > 0);
		wait_sleeping(pid[i]);
	}
	CHECK_EQ(mq_send(q, "1", 1, 0), 0);
	CHECK_EQ(mq_send(q, "2", 1, 0), 0);
	CHECK(waitpid(pid[1], &st, 0) == pid[1] && WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), '1');
	CHECK(waitpid(pid[0], &st, 0) == pid[0] && WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), '2');
	mq_close(q);
	CHECK_EQ(mq_unlink(a), 0);
}

static void send_one(void *arg)
{
	mqd_t q = mq_open(arg, O_WRONLY);

	CHECK(q >= 0);
	CHECK_EQ(mq_send(q, "n", 1, 0), 0);
}

static void busy_for_other(void *arg)
{
	mqd_t q = mq_open(arg, O_RDONLY);
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };

	CHECK(q >= 0);
	CHECK_ERR(mq_notify(q, &ev), EBUSY);
	CHECK_EQ(mq_notify(q, NULL), 0); /* not its registration: nothing happens */
}

static void notify(void)
{
	const char *a = qname(0);
	mqd_t q = mk(a, O_RDWR, 4, 8), q2;
	int lf = qfile(a); /* the line is read through it: no close while registered */
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	struct timespec zero = { 0, 0 };
	char buf[8], cookie[32];
	siginfo_t si;
	sigset_t set;
	pid_t me = getpid();
	int pfd[2], sv[2];

	CHECK(q >= 0 && lf >= 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ev.sigev_value.sival_int = 77;
	CHECK_EQ(mq_notify(q, &ev), 0);
	CHECK_ERR(mq_notify(q, &ev), EBUSY);
	want_line_fd(lf, 0, SIGEV_SIGNAL, SIGUSR1, me);
	in_child(busy_for_other, (void *)a);
	/* The first message into the empty queue: one signal, from the sender. */
	in_child(send_one, (void *)a);
	CHECK_EQ(sigtimedwait(&set, &si, &zero), SIGUSR1);
	CHECK_EQ(si.si_code, SI_MESGQ_);
	CHECK_EQ(si.si_value.sival_int, 77);
	CHECK(si.si_pid != me && si.si_pid > 0);
	CHECK_EQ(si.si_uid, 0);
	want_line_fd(lf, 1, 0, 0, 0); /* the registration went with it */
	/* Registered on a queue that is not empty: the next message says nothing. */
	CHECK_EQ(mq_notify(q, &ev), 0);
	CHECK_EQ(mq_send(q, "x", 1, 0), 0);
	CHECK_ERR(sigtimedwait(&set, &si, &zero), EAGAIN);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	CHECK_EQ(mq_send(q, "y", 1, 0), 0);
	CHECK_EQ(sigtimedwait(&set, &si, &zero), SIGUSR1);
	CHECK_EQ(si.si_pid, me);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	/* mq_notify(NULL) and a close of any descriptor of the queue take it away. */
	CHECK_EQ(mq_notify(q, &ev), 0);
	CHECK_EQ(mq_notify(q, NULL), 0);
	want_line_fd(lf, 0, 0, 0, 0);
	CHECK_EQ(mq_send(q, "z", 1, 0), 0);
	CHECK_ERR(sigtimedwait(&set, &si, &zero), EAGAIN);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	q2 = mq_open(a, O_RDONLY);
	CHECK(q2 >= 0);
	CHECK_EQ(mq_notify(q, &ev), 0);
	want_line_fd(lf, 0, SIGEV_SIGNAL, SIGUSR1, me);
	mq_close(q2);
	want_line_fd(lf, 0, 0, 0, 0);
	/* SIGEV_NONE: registered, and gone after the message, with no signal. */
	ev.sigev_notify = SIGEV_NONE;
	CHECK_EQ(mq_notify(q, &ev), 0);
	want_line_fd(lf, 0, SIGEV_NONE, 0, me);
	CHECK_EQ(mq_send(q, "w", 1, 0), 0);
	want_line_fd(lf, 1, 0, 0, 0);
	CHECK_ERR(sigtimedwait(&set, &si, &zero), EAGAIN);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	/* The checks of the sigevent. */
	ev.sigev_notify = 99;
	CHECK_ERR(mq_notify(q, &ev), EINVAL);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = 65;
	CHECK_ERR(mq_notify(q, &ev), EINVAL);
	ev.sigev_signo = 0; /* accepted; nothing is sent */
	CHECK_EQ(mq_notify(q, &ev), 0);
	CHECK_EQ(mq_notify(q, NULL), 0);
	CHECK_ERR(syscall(SYS_mq_notify, q, BAD_PTR), EFAULT);
	CHECK_ERR(mq_notify(-1, NULL), EBADF);
	/* SIGEV_THREAD in the kernel: a cookie sent to a netlink socket (what the libraries'
	 * helper thread reads); any other descriptor is refused. */
	CHECK_EQ(pipe(pfd), 0);
	CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	memset(cookie, 0, sizeof(cookie));
	ev = (struct sigevent){ .sigev_notify = SIGEV_THREAD, .sigev_signo = pfd[0] };
	ev.sigev_value.sival_ptr = cookie;
	CHECK_ERR(syscall(SYS_mq_notify, q, &ev), ENOTSOCK);
	ev.sigev_signo = sv[0];
	CHECK_ERR(syscall(SYS_mq_notify, q, &ev), EINVAL);
	ev.sigev_signo = -1;
	CHECK_ERR(syscall(SYS_mq_notify, q, &ev), EBADF);
	ev.sigev_value.sival_ptr = BAD_PTR;
	CHECK_ERR(syscall(SYS_mq_notify, q, &ev), EFAULT);
	want_line_fd(lf, 0, 0, 0, 0);
	/* A close by the registered process, even of the file opened by its path, ends it. */
	ev = (struct sigevent){ .sigev_notify = SIGEV_NONE };
	CHECK_EQ(mq_notify(q, &ev), 0);
	want_line_fd(lf, 0, SIGEV_NONE, 0, me);
	want_line(a, 0, SIGEV_NONE, 0, me);
	want_line_fd(lf, 0, 0, 0, 0);
	close(lf);
	close(pfd[0]);
	close(pfd[1]);
	close(sv[0]);
	close(sv[1]);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	mq_close(q);
	CHECK_EQ(mq_unlink(a), 0);
}

/* Unlinked while open: the name goes, the queue stays for its descriptors; poll and select. */
static void unlinked_and_polled(void)
{
	const char *a = qname(0);
	mqd_t q = mk(a, O_RDWR, 2, 8), q2;
	struct pollfd p = { .fd = q, .events = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM };
	struct timeval tv = { 0, 0 };
	struct mq_attr attr;
	struct stat st;
	fd_set rd, wr;
	char buf[8], path[96];
	pid_t pid, me = getpid();
	int st2;

	CHECK(q >= 0);
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(p.revents, POLLOUT | POLLWRNORM);
	CHECK_EQ(mq_send(q, "a", 1, 0), 0);
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(p.revents, POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM);
	CHECK_EQ(mq_send(q, "b", 1, 0), 0);
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(p.revents, POLLIN | POLLRDNORM);
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(q, &rd);
	FD_SET(q, &wr);
	CHECK_EQ(select(q + 1, &rd, &wr, NULL, &tv), 1);
	CHECK(FD_ISSET(q, &rd) && !FD_ISSET(q, &wr));
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	/* poll asleep on the empty queue wakes for a message. */
	pid = fork();
	if (pid == 0) {
		wait_sleeping(me);
		_exit(mq_send(q, "c", 1, 0) ? 1 : 0);
	}
	p.events = POLLIN;
	CHECK_EQ(poll(&p, 1, 5000), 1);
	CHECK_EQ(p.revents, POLLIN);
	CHECK(waitpid(pid, &st2, 0) == pid && WIFEXITED(st2) && WEXITSTATUS(st2) == 0);

	snprintf(path, sizeof(path), "/dev/mqueue%s", a);
	CHECK_EQ(stat(path, &st), 0);
	CHECK_EQ(mq_unlink(a), 0);
	CHECK_ERR(stat(path, &st), ENOENT);
	CHECK_ERR(mq_open(a, O_RDWR), ENOENT);
	CHECK_ERR(mq_unlink(a), ENOENT);
	q2 = mk(a, O_RDWR | O_EXCL, 2, 8); /* the name is free: a new, empty queue */
	CHECK(q2 >= 0);
	CHECK_EQ(mq_getattr(q2, &attr), 0);
	CHECK_EQ(attr.mq_curmsgs, 0);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1); /* the old one still has "c" */
	CHECK_EQ(buf[0], 'c');
	CHECK_EQ(mq_send(q, "d", 1, 0), 0);
	CHECK_EQ(mq_receive(q, buf, sizeof(buf), NULL), 1);
	mq_close(q);
	mq_close(q2);
	CHECK_EQ(mq_unlink(a), 0);
}

int main(void)
{
	setup_fs();
	blocking();
	by_priority();
	notify();
	unlinked_and_polled();
	teardown_fs();
	return utest_done();
}
