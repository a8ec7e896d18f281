/* etxtbsy: a program's file and its writers exclude each other, as Linux answers (its
 * deny_write_access and the address space's exe_file): opening for writing, O_TRUNC or
 * truncate(2) of a running program's file is ETXTBSY, and so is execve of a file open for
 * writing (before its contents are looked at); both end when the other side closes or exits,
 * a forked copy of the program keeps its file busy, and an exec that replaces it or fails lets
 * it go. The program execs copies of itself. */
#define _GNU_SOURCE
#define UTEST_NAME "etxtbsy"
#include <sys/stat.h>
#include <sys/wait.h>

#include "utest.h"

#define DIR_	"/tmp/etxtbsy"
#define PROG	DIR_ "/prog"
#define PROG2	DIR_ "/prog2"
#define NOTELF	DIR_ "/notelf"
#define EXEC_OK 42

/* Ran as "hold": tell the parent on fd 1, then wait for the end of fd 0. As "fork": a forked
 * copy holds, the exec'd one exits at once. As "chain": exec PROG2 as "hold". */
static int child_mode(const char *mode)
{
	char c;

	if (!strcmp(mode, "ok"))
		return EXEC_OK;
	if (!strcmp(mode, "fork") && fork() != 0)
		return EXEC_OK;
	if (!strcmp(mode, "chain")) {
		execl(PROG2, "prog2", "hold", (char *)NULL);
		return 1;
	}
	if (write(1, "r", 1) != 1)
		return 1;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

/* Exec path with mode in a child: its exit status, or 100 + the errno its exec failed with. */
static int run(const char *path, const char *mode)
{
	int st = -1;
	pid_t p = fork();

	if (p == 0) {
		execl(path, "prog", mode, (char *)NULL);
		_exit(100 + errno);
	}
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Start path in a child with mode "hold" (or "fork", "chain"), stdin and stdout pipes to us:
 * once it has said it runs, the pid; *in ends its wait when closed, *out sees its end. */
static pid_t start(const char *path, const char *mode, int *in, int *out)
{
	int to[2], from[2];
	char c = 0;
	pid_t p;

	if (pipe(to) || pipe(from))
		return -1;
	p = fork();
	if (p == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(path, "prog", mode, (char *)NULL);
		_exit(100 + errno);
	}
	close(to[0]);
	close(from[1]);
	*in = to[1];
	*out = from[0];
	CHECK_EQ(read(from[0], &c, 1), 1);
	CHECK_EQ(c, 'r');
	return p;
}

/* Can path be opened with flags? 0, or the errno. */
static int open_err(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static long size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* execve of a file open for writing: ETXTBSY, whatever is in it; closed, it runs. */
static void exec_of_written(void)
{
	int fd = open(PROG, O_WRONLY), rd;

	CHECK(fd >= 0);
	CHECK_EQ(run(PROG, "ok"), 100 + ETXTBSY);
	close(fd);
	CHECK_EQ(run(PROG, "ok"), EXEC_OK);
	rd = open(PROG, O_RDONLY); /* a reader is no writer */
	CHECK_EQ(run(PROG, "ok"), EXEC_OK);
	close(rd);
	fd = open(NOTELF, O_RDWR);
	CHECK(fd >= 0);
	CHECK_EQ(run(NOTELF, "ok"), 100 + ETXTBSY); /* before the format is looked at */
	close(fd);
	CHECK_EQ(run(NOTELF, "ok"), 100 + ENOEXEC);
	CHECK_EQ(open_err(NOTELF, O_WRONLY), 0); /* the failed exec let it go */
}

/* Opening a running program's file for writing, or truncating it: ETXTBSY until it exits. */
static void write_of_running(void)
{
	long size = size_of(PROG);
	int in, out, st = -1;
	pid_t p = start(PROG, "hold", &in, &out);

	CHECK(size > 0);
	CHECK_EQ(open_err(PROG, O_WRONLY), ETXTBSY);
	CHECK_EQ(open_err(PROG, O_RDWR), ETXTBSY);
	CHECK_EQ(open_err(PROG, O_WRONLY | O_TRUNC), ETXTBSY);
	CHECK_EQ(open_err(PROG, O_RDONLY | O_TRUNC), ETXTBSY);
	CHECK_ERR(truncate(PROG, 0), ETXTBSY);
	CHECK_EQ(size_of(PROG), size); /* nothing was cut */
	CHECK_EQ(open_err(PROG, O_RDONLY), 0);
	CHECK_EQ(open_err(PROG2, O_WRONLY), 0); /* another file: no program runs from it */
	CHECK_EQ(run(PROG, "ok"), EXEC_OK);	/* two programs may run from one file */
	CHECK_EQ(open_err(PROG, O_WRONLY), ETXTBSY);
	close(in);
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(out);
	CHECK_EQ(open_err(PROG, O_WRONLY), 0); /* it exited: its file is free */
	CHECK_EQ(truncate(PROG, size), 0);
}

/* A forked copy of the program keeps its file busy after the exec'd one exited; an exec that
 * replaces the program lets the old file go. */
static void fork_and_chain(void)
{
	int in, out, st = -1;
	char c;
	pid_t p = start(PROG, "fork", &in, &out);

	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == EXEC_OK);
	CHECK_EQ(open_err(PROG, O_WRONLY), ETXTBSY); /* the forked copy still runs */
	close(in);
	CHECK_EQ(read(out, &c, 1), 0); /* its end: it has exited */
	close(out);
	CHECK_EQ(open_err(PROG, O_WRONLY), 0);

	p = start(PROG, "chain", &in, &out);
	CHECK_EQ(open_err(PROG2, O_WRONLY), ETXTBSY);
	CHECK_EQ(open_err(PROG, O_WRONLY), 0); /* replaced by PROG2 */
	close(in);
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(out);
	CHECK_EQ(open_err(PROG2, O_WRONLY), 0);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc == 2)
		return child_mode(argv[1]);
	mkdir(DIR_, 0755);
	utest_copy_file(argv[0], PROG, O_TRUNC, 0755);
	utest_copy_file(argv[0], PROG2, O_TRUNC, 0755);
	fd = open(NOTELF, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	CHECK(fd >= 0 && write(fd, "not a program\n", 14) == 14);
	close(fd);
	CHECK_EQ(open_err(PROG, O_WRONLY), 0);
	CHECK_EQ(run(PROG, "ok"), EXEC_OK);
	exec_of_written();
	write_of_running();
	fork_and_chain();
	unlink(PROG);
	unlink(PROG2);
	unlink(NOTELF);
	rmdir(DIR_);
	return utest_done();
}
