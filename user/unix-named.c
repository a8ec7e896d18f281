/* unix-named: AF_UNIX sockets with names, as Linux has them: bind to a path (an S_IFSOCK file,
 * EADDRINUSE once it exists) or an abstract name (no file; autobind's five hex digits),
 * listen, connect and accept between two processes (SO_PEERCRED, getsockname, getpeername),
 * the backlog, ECONNREFUSED, ENOENT and EPROTOTYPE, a connection reset by a listener that
 * closed before accepting it, and datagrams sent and received with addresses. */
#define _GNU_SOURCE
#define UTEST_NAME "unix-named"
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define D "/tmp/unix-named"

/* addr names path (a leading '@' is the abstract name's NUL): its length for bind. */
static socklen_t mkaddr(struct sockaddr_un *addr, const char *path)
{
	size_t n = strlen(path);

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	memcpy(addr->sun_path, path, n);
	if (path[0] == '@') {
		addr->sun_path[0] = '\0';
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	}
	return sizeof(*addr);
}

static int bound(int type, const char *path)
{
	struct sockaddr_un a;
	socklen_t len = mkaddr(&a, path);
	int fd = socket(AF_UNIX, type, 0);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, len) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int connect_to(int fd, const char *path)
{
	struct sockaddr_un a;
	socklen_t len = mkaddr(&a, path);

	return connect(fd, (struct sockaddr *)&a, len);
}

static int getint(int fd, int opt)
{
	int v = -1;
	socklen_t len = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, opt, &v, &len) == 0 ? v : -1;
}

static void bind_errors(void)
{
	struct sockaddr_un a;
	struct stat st;
	int fd, fd2;

	fd = bound(SOCK_STREAM, D "/s");
	if (!CHECK(fd >= 0))
		return;
	CHECK(stat(D "/s", &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0755);
	CHECK_ERR(open(D "/s", O_RDWR), ENXIO);
	fd2 = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERR(bind(fd2, (struct sockaddr *)&a, mkaddr(&a, D "/s")), EADDRINUSE);
	CHECK_ERR(bind(fd2, (struct sockaddr *)&a, mkaddr(&a, D "/no/s")), ENOENT);
	CHECK_ERR(bind(fd, (struct sockaddr *)&a, mkaddr(&a, D "/t")), EINVAL); /* bound */
	a.sun_family = AF_INET;
	CHECK_ERR(bind(fd2, (struct sockaddr *)&a, sizeof(a)), EINVAL);
	CHECK_ERR(bind(fd2, (struct sockaddr *)&a, 1), EINVAL);
	CHECK_ERR(bind(fd2, (struct sockaddr *)&a, sizeof(a) + 1), EINVAL);
	CHECK_ERR(listen(fd2, 1), EINVAL); /* unbound: nobody could connect */
	CHECK_ERR(send(fd2, "x", 1, 0), ENOTCONN);
	CHECK_ERR(recv(fd2, &a, 1, 0), EINVAL);
	CHECK_ERR(getpeername(fd2, (struct sockaddr *)&a, &(socklen_t){ sizeof(a) }), ENOTCONN);
	{
		struct pollfd p = { .fd = fd2, .events = POLLIN | POLLOUT };

		CHECK(poll(&p, 1, 0) == 1 && p.revents == (POLLOUT | POLLHUP));
	}
	/* No listener: refused; a file that is no socket, refused; no file: ENOENT. */
	CHECK_ERR(connect_to(fd2, D "/s"), ECONNREFUSED);
	CHECK_ERR(connect_to(fd2, D), ECONNREFUSED);
	CHECK_ERR(connect_to(fd2, D "/none"), ENOENT);
	CHECK_ERR(connect_to(fd2, "@unix-named-none"), ECONNREFUSED);
	close(fd);
	close(fd2);
	fd = bound(SOCK_DGRAM, D "/d");
	fd2 = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERR(connect_to(fd2, D "/d"), EPROTOTYPE);
	close(fd);
	close(fd2);
	CHECK(stat(D "/d", &st) == 0); /* the name outlives its socket */
	CHECK(unlink(D "/d") == 0 && unlink(D "/s") == 0);
}

/* A client in another process connects, talks, and checks who the server is. */
static void client_server(void)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	char buf[32];
	int lfd = bound(SOCK_STREAM, D "/srv"), fd, status;
	pid_t pid;

	if (!CHECK(lfd >= 0))
		return;
	CHECK_EQ(listen(lfd, 5), 0);
	CHECK_EQ(getint(lfd, SO_ACCEPTCONN), 1);
	/* (musl's accept4 would take EINVAL for an old kernel's and try accept instead) */
	CHECK_ERR(syscall(SYS_accept4, lfd, 0L, 0L, SOCK_NONBLOCK | 0x1), EINVAL);
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	CHECK_ERR(accept(lfd, NULL, NULL), EAGAIN);
	fcntl(lfd, F_SETFL, 0);
	pid = fork();
	if (pid == 0) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0), bad = 0;
		struct ucred sc;
		socklen_t sl = sizeof(sc);

		bad |= connect_to(c, D "/srv") != 0;
		bad |= write(c, "ping", 4) != 4;
		bad |= read(c, buf, sizeof(buf)) != 4 || memcmp(buf, "pong", 4) != 0;
		bad |= getsockopt(c, SOL_SOCKET, SO_PEERCRED, &sc, &sl) != 0 ||
		       sc.pid != getppid() || sl != sizeof(sc);
		len = sizeof(a);
		bad |= getpeername(c, (struct sockaddr *)&a, &len) != 0 ||
		       len != offsetof(struct sockaddr_un, sun_path) + sizeof(D "/srv") ||
		       strcmp(a.sun_path, D "/srv") != 0;
		bad |= connect_to(c, D "/srv") != -1 || errno != EISCONN;
		bad |= sendto(c, "x", 1, 0, (struct sockaddr *)&a, len) != -1 || errno != EISCONN;
		_exit(bad);
	}
	fd = accept(lfd, (struct sockaddr *)&a, &len);
	CHECK(fd >= 0);
	CHECK_EQ(len, offsetof(struct sockaddr_un, sun_path)); /* the client has no name */
	CHECK_EQ(read(fd, buf, sizeof(buf)), 4);
	CHECK(memcmp(buf, "ping", 4) == 0);
	CHECK_EQ(write(fd, "pong", 4), 4);
	CHECK(getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 && cred.pid == pid &&
	      cred.uid == getuid() && cred.gid == getgid());
	len = sizeof(a);
	CHECK(getsockname(fd, (struct sockaddr *)&a, &len) == 0 &&
	      strcmp(a.sun_path, D "/srv") == 0);
	len = 4; /* a short buffer: cut, and told the whole length */
	CHECK(getsockname(fd, (struct sockaddr *)&a, &len) == 0 &&
	      len == offsetof(struct sockaddr_un, sun_path) + sizeof(D "/srv"));
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0); /* the client exited */
	close(fd);
	close(lfd);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERR(connect_to(fd, D "/srv"), ECONNREFUSED); /* its file stays, its socket went */
	CHECK_ERR(getpeername(fd, (struct sockaddr *)&a, &len), ENOTCONN);
	close(fd);
	unlink(D "/srv");
}

/* backlog + 1 connections wait for accept, the next finds the queue full; a listener that
 * closes resets those it never accepted. */
static void backlog(void)
{
	int lfd = bound(SOCK_STREAM, "@unix-named-backlog"), c[3], fd;
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	char buf[8];

	if (!CHECK(lfd >= 0))
		return;
	CHECK_EQ(listen(lfd, 1), 0);
	CHECK_EQ(poll(&p, 1, 0), 0);
	for (int i = 0; i < 3; i++)
		c[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	CHECK_EQ(connect_to(c[0], "@unix-named-backlog"), 0);
	CHECK_EQ(connect_to(c[1], "@unix-named-backlog"), 0);
	CHECK_ERR(connect_to(c[2], "@unix-named-backlog"), EAGAIN);
	CHECK_EQ(poll(&p, 1, 0), 1);
	CHECK_EQ(write(c[0], "early", 5), 5); /* before accept */
	fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	CHECK(fd >= 0 && (fcntl(fd, F_GETFL) & O_NONBLOCK) && fcntl(fd, F_GETFD) == FD_CLOEXEC);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 5);
	CHECK_EQ(connect_to(c[2], "@unix-named-backlog"), 0); /* room again */
	close(lfd);
	CHECK_ERR(read(c[1], buf, sizeof(buf)), ECONNRESET);
	CHECK_EQ(read(c[1], buf, sizeof(buf)), 0);
	for (int i = 0; i < 3; i++)
		close(c[i]);
	close(fd);
}

static void abstract_names(void)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	int s = bound(SOCK_STREAM, "@unix-named-abs"), d, t;
	struct stat st;

	if (!CHECK(s >= 0))
		return;
	CHECK(getsockname(s, (struct sockaddr *)&a, &len) == 0 &&
	      len == offsetof(struct sockaddr_un, sun_path) + strlen("@unix-named-abs") &&
	      a.sun_path[0] == '\0' && memcmp(a.sun_path + 1, "unix-named-abs", 14) == 0);
	CHECK_ERR(bound(SOCK_STREAM, "@unix-named-abs"), EADDRINUSE);
	d = bound(SOCK_DGRAM, "@unix-named-abs"); /* each type has its own abstract names */
	CHECK(d >= 0);
	CHECK_ERR(stat("unix-named-abs", &st), ENOENT);
	t = socket(AF_UNIX, SOCK_DGRAM, 0);
	CHECK_EQ(bind(t, (struct sockaddr *)&a, offsetof(struct sockaddr_un, sun_path)), 0);
	len = sizeof(a);
	CHECK(getsockname(t, (struct sockaddr *)&a, &len) == 0 &&
	      len == offsetof(struct sockaddr_un, sun_path) + 6 && a.sun_path[0] == '\0' &&
	      strspn(a.sun_path + 1, "0123456789abcdef") >= 5);
	close(s);
	close(d);
	close(t);
}

/* Datagrams by name: the reader learns the sender's name and answers it; a full queue. */
static void datagrams(void)
{
	struct sockaddr_un a, from;
	socklen_t flen = sizeof(from);
	int srv = bound(SOCK_DGRAM, D "/dsrv"), cli = bound(SOCK_DGRAM, D "/dcli");
	int anon = socket(AF_UNIX, SOCK_DGRAM, 0), n = 0;
	socklen_t alen = mkaddr(&a, D "/dsrv");
	char buf[16];

	if (!CHECK(srv >= 0 && cli >= 0))
		return;
	CHECK_EQ(sendto(cli, "hi", 2, 0, (struct sockaddr *)&a, alen), 2);
	CHECK_EQ(recvfrom(srv, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen), 2);
	CHECK(flen == offsetof(struct sockaddr_un, sun_path) + sizeof(D "/dcli") &&
	      strcmp(from.sun_path, D "/dcli") == 0);
	CHECK_EQ(sendto(srv, "yo", 2, 0, (struct sockaddr *)&from, flen), 2);
	CHECK_EQ(recv(cli, buf, sizeof(buf), 0), 2);
	CHECK_EQ(sendto(anon, "?", 1, 0, (struct sockaddr *)&a, alen), 1);
	flen = sizeof(from);
	CHECK_EQ(recvfrom(srv, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen), 1);
	CHECK_EQ(flen, 0); /* an unbound sender */
	CHECK_ERR(send(anon, "x", 1, 0), ENOTCONN);
	/* A sender that passes its credentials gets a name of its own first (autobind). */
	CHECK_EQ(setsockopt(anon, SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)), 0);
	CHECK_EQ(sendto(anon, "!", 1, 0, (struct sockaddr *)&a, alen), 1);
	flen = sizeof(from);
	CHECK_EQ(recvfrom(srv, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen), 1);
	CHECK(flen == offsetof(struct sockaddr_un, sun_path) + 6 && from.sun_path[0] == '\0');
	/* The reader's queue holds max_dgram_qlen + 1 datagrams of other senders. */
	while (sendto(anon, "q", 1, MSG_DONTWAIT, (struct sockaddr *)&a, alen) == 1)
		n++;
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(n, 11);
	while (recv(srv, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		n--;
	CHECK_EQ(n, 0);
	/* Connected to cli, srv takes datagrams from cli alone. */
	CHECK_EQ(connect_to(srv, D "/dcli"), 0);
	CHECK_ERR(sendto(anon, "x", 1, 0, (struct sockaddr *)&a, alen), EPERM);
	CHECK_EQ(send(srv, "c", 1, 0), 1);
	CHECK_EQ(recv(cli, buf, sizeof(buf), 0), 1);
	a.sun_family = AF_UNSPEC;
	CHECK_EQ(connect(srv, (struct sockaddr *)&a, sizeof(a.sun_family)), 0); /* undone */
	CHECK_ERR(send(srv, "c", 1, 0), ENOTCONN);
	close(srv);
	close(cli);
	close(anon);
	unlink(D "/dsrv");
	unlink(D "/dcli");
}

int main(void)
{
	umask(022);
	mkdir("/tmp", 01777);
	mkdir(D, 0755);
	bind_errors();
	client_server();
	backlog();
	abstract_names();
	datagrams();
	rmdir(D);
	return utest_done();
}
