/* unix-rights: descriptors and credentials passed over AF_UNIX sockets (sendmsg, recvmsg) as
 * Linux has them: SCM_RIGHTS to another process (a pipe's end, a socket), MSG_CMSG_CLOEXEC,
 * MSG_CTRUNC when the control buffer is short (the files that do not fit are closed), a read
 * ended by a message that carries files, MSG_PEEK's own copies, the errors of bad control
 * messages, and SCM_CREDENTIALS for a reader with SO_PASSCRED. */
#define _GNU_SOURCE
#define UTEST_NAME "unix-rights"
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

/* Send byte c with the n descriptors fds (SCM_RIGHTS): sendmsg's answer. (The system call
 * itself: musl's sendmsg refuses more than 1024 bytes of control messages with ENOMEM.) */
static long send_fds(int sock, char c, const int *fds, int n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 256)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { &c, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (n) {
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
	}
	return syscall(SYS_sendmsg, sock, &msg, 0);
}

/* Receive a byte and up to room descriptors into fds (-1 where none came): the bytes read;
 * *flags the msg_flags. */
static long recv_fds(int sock, int *fds, int room, int flags, int *mflags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} u;
	char c[8];
	struct iovec iov = { c, sizeof(c) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = room ? CMSG_LEN(sizeof(int) * room) : 0 };
	long r;

	for (int i = 0; i < 8; i++)
		fds[i] = -1;
	if (!room)
		msg.msg_control = NULL;
	r = recvmsg(sock, &msg, flags);
	*mflags = msg.msg_flags;
	for (struct cmsghdr *cm = r >= 0 && room ? CMSG_FIRSTHDR(&msg) : NULL; cm;
	     cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(fds, CMSG_DATA(cm), cm->cmsg_len - CMSG_LEN(0));
	return r;
}

/* A pipe's read end and a socket end go to a child, which reads the one and answers on the
 * other. */
static void to_another_process(void)
{
	int sv[2], p[2], talk[2], fds[8], mf, status;
	char buf[16];
	pid_t pid;

	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0))
		return;
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		close(sv[0]);
		bad |= recv_fds(sv[1], fds, 2, 0, &mf) != 1 || fds[0] < 0 || fds[1] < 0;
		bad |= read(fds[0], buf, 5) != 5 || memcmp(buf, "piped", 5) != 0;
		bad |= write(fds[1], "over", 4) != 4;
		_exit(bad);
	}
	close(sv[1]);
	CHECK(pipe(p) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, talk) == 0);
	CHECK_EQ(send_fds(sv[0], 'x', (int[]){ p[0], talk[1] }, 2), 1);
	close(p[0]); /* the child has its own now */
	close(talk[1]);
	CHECK_EQ(write(p[1], "piped", 5), 5);
	CHECK_EQ(read(talk[0], buf, sizeof(buf)), 4);
	CHECK(memcmp(buf, "over", 4) == 0);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	CHECK_EQ(read(talk[0], buf, sizeof(buf)), 0); /* the child's copy closed at its exit */
	close(p[1]);
	close(talk[0]);
	close(sv[0]);
}

static void flags_and_truncation(void)
{
	int sv[2], p[2], fds[8], mf;
	struct stat a, b;
	char c;

	if (!CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0 && pipe(p) == 0))
		return;
	CHECK_EQ(send_fds(sv[0], 'a', p, 1), 1);
	CHECK_EQ(recv_fds(sv[1], fds, 1, MSG_CMSG_CLOEXEC, &mf), 1);
	CHECK_EQ(mf & MSG_CTRUNC, 0);
	CHECK(fds[0] > p[1] && fcntl(fds[0], F_GETFD) == FD_CLOEXEC);
	CHECK(fstat(fds[0], &a) == 0 && fstat(p[0], &b) == 0 && a.st_ino == b.st_ino);
	close(fds[0]);
	/* Room for one of two: the write end that did not fit is closed. */
	CHECK_EQ(send_fds(sv[0], 'b', (int[]){ p[0], p[1] }, 2), 1);
	close(p[0]);
	CHECK_EQ(recv_fds(sv[1], fds, 1, 0, &mf), 1);
	CHECK_EQ(mf, MSG_CTRUNC);
	CHECK(fds[0] >= 0 && fds[1] == -1);
	close(p[1]); /* the last writer: the received read end sees end of file */
	CHECK_EQ(read(fds[0], &c, 1), 0);
	/* No control buffer at all: the file is dropped, the byte read. */
	CHECK_EQ(send_fds(sv[0], 'c', fds, 1), 1);
	CHECK_EQ(recv_fds(sv[1], fds + 1, 0, 0, &mf), 1);
	CHECK_EQ(mf, MSG_CTRUNC);
	close(fds[0]);
	close(sv[0]);
	close(sv[1]);
}

/* A stream read stops after bytes that brought files; a peek gets copies of its own. */
static void stream_boundaries(void)
{
	int sv[2], fds[8], fds2[8], mf;
	char buf[8];

	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0))
		return;
	CHECK_EQ(write(sv[0], "12", 2), 2);
	CHECK_EQ(send_fds(sv[0], '3', (int[]){ 0 }, 1), 1);
	CHECK_EQ(write(sv[0], "45", 2), 2);
	CHECK_EQ(recv_fds(sv[1], fds, 1, MSG_PEEK, &mf), 3);
	CHECK(fds[0] >= 0);
	CHECK_EQ(recv_fds(sv[1], fds2, 1, 0, &mf), 3);
	CHECK(fds2[0] >= 0 && fds2[0] != fds[0]);
	CHECK_EQ(read(sv[1], buf, sizeof(buf)), 2);
	close(fds[0]);
	close(fds2[0]);
	/* Files left unread in a socket that closes are closed with it. */
	CHECK_EQ(send_fds(sv[0], 'z', (int[]){ 1, 2 }, 2), 1);
	close(sv[0]);
	close(sv[1]);
}

/* A control buffer, aligned for its headers. */
union control {
	char buf[CMSG_SPACE(sizeof(struct ucred))];
	struct cmsghdr align;
};

/* A message of the one byte iov points at, with len bytes of control in u. */
static struct msghdr one_byte(struct iovec *iov, union control *u, size_t len)
{
	return (struct msghdr){ .msg_iov = iov, .msg_iovlen = 1, .msg_control = u->buf,
				.msg_controllen = len };
}

static void bad_messages(void)
{
	int sv[2], many[254], fds[8], mf;
	union control u;
	char c = 'x';
	struct iovec iov = { &c, 1 };
	struct msghdr msg = one_byte(&iov, &u, CMSG_SPACE(sizeof(int)));
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	if (!CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0))
		return;
	CHECK_ERR(send_fds(sv[0], 'x', (int[]){ 0x7000 }, 1), EBADF);
	for (int i = 0; i < 254; i++)
		many[i] = 0;
	CHECK_ERR(send_fds(sv[0], 'x', many, 254), EINVAL); /* past SCM_MAX_FD */
	CHECK_EQ(send_fds(sv[0], 'x', many, 253), 1);
	CHECK_EQ(recv_fds(sv[1], fds, 8, 0, &mf), 1);
	CHECK_EQ(mf, MSG_CTRUNC);
	for (int i = 0; i < 8; i++)
		close(fds[i]);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = msg.msg_controllen + 8; /* past the buffer */
	CHECK_ERR(sendmsg(sv[0], &msg, 0), EINVAL);
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	cm->cmsg_type = 99;
	CHECK_ERR(sendmsg(sv[0], &msg, 0), EINVAL);
	cm->cmsg_level = 6; /* another level: not the socket's to read */
	CHECK_EQ(sendmsg(sv[0], &msg, 0), 1);
	msg.msg_iovlen = 1025;
	CHECK_ERR(sendmsg(sv[0], &msg, 0), EMSGSIZE);
	close(sv[0]);
	close(sv[1]);
}

static void credentials(void)
{
	int sv[2], on = 1;
	union control u;
	char c = 'x';
	struct iovec iov = { &c, 1 };
	struct msghdr msg = one_byte(&iov, &u, CMSG_SPACE(sizeof(struct ucred)));
	struct cmsghdr *cm;
	struct ucred uc;

	if (!CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0))
		return;
	CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)), 0);
	CHECK_EQ(send(sv[0], "c", 1, 0), 1);
	CHECK_EQ(recvmsg(sv[1], &msg, 0), 1);
	cm = CMSG_FIRSTHDR(&msg);
	CHECK(cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS &&
	      cm->cmsg_len == CMSG_LEN(sizeof(uc)));
	if (cm)
		memcpy(&uc, CMSG_DATA(cm), sizeof(uc));
	CHECK(cm && uc.pid == getpid() && uc.uid == geteuid() && uc.gid == getegid());
	/* Sent explicitly: one's own ids. */
	msg.msg_controllen = CMSG_SPACE(sizeof(uc));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_CREDENTIALS;
	cm->cmsg_len = CMSG_LEN(sizeof(uc));
	uc = (struct ucred){ getpid(), getuid(), getgid() };
	memcpy(CMSG_DATA(cm), &uc, sizeof(uc));
	CHECK_EQ(sendmsg(sv[0], &msg, 0), 1);
	cm->cmsg_len = CMSG_LEN(sizeof(uc) - 4);
	CHECK_ERR(sendmsg(sv[0], &msg, 0), EINVAL);
	msg.msg_controllen = CMSG_SPACE(sizeof(uc));
	memset(&u, 0, sizeof(u));
	CHECK_EQ(recvmsg(sv[1], &msg, 0), 1);
	cm = CMSG_FIRSTHDR(&msg);
	CHECK(cm && cm->cmsg_type == SCM_CREDENTIALS &&
	      ((struct ucred *)CMSG_DATA(cm))->pid == getpid());
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	to_another_process();
	flags_and_truncation();
	stream_boundaries();
	bad_messages();
	credentials();
	return utest_done();
}
