/* cwd: the working directory and the *at calls as Linux has them: relative paths start at the
 * working directory (or at a dirfd), getcwd's answers and errors, chdir/fchdir errors, a
 * directory removed while a process is in it, and a child's chdir leaving its parent's alone. */
#define _GNU_SOURCE
#define UTEST_NAME "cwd"
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define DIR_ "/tmp/cwd-test"

static int cwd_is(const char *want)
{
	char buf[PATH_MAX];

	return getcwd(buf, sizeof(buf)) && strcmp(buf, want) == 0;
}

static void relative(void)
{
	char buf[PATH_MAX];
	struct stat st;
	int fd;

	CHECK(chdir("/tmp") == 0 && cwd_is("/tmp"));
	CHECK_EQ(syscall(SYS_getcwd, buf, sizeof(buf)), 5); /* the length, with the NUL */
	CHECK(mkdir("cwd-test", 0755) == 0);
	CHECK(chdir("cwd-test") == 0 && cwd_is(DIR_));
	fd = open("f", O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK(stat(DIR_ "/f", &st) == 0 && S_ISREG(st.st_mode));
	CHECK(stat("../cwd-test/./f", &st) == 0);
	CHECK_ERR(chdir("f"), ENOTDIR);
	CHECK_ERR(chdir("nothing-here"), ENOENT);
	CHECK_ERR(syscall(SYS_getcwd, buf, 5), ERANGE);
	CHECK_ERR(syscall(SYS_getcwd, buf, 0), ERANGE);
	CHECK_ERR(syscall(SYS_getcwd, (char *)8, sizeof(buf)), EFAULT);
	CHECK(chdir("..") == 0 && cwd_is("/tmp"));
	CHECK(chdir("/") == 0 && cwd_is("/"));
	CHECK(chdir("/../tmp/..") == 0 && cwd_is("/"));
}

static void at_calls(void)
{
	int dir = open(DIR_, O_RDONLY | O_DIRECTORY), file = open(DIR_ "/f", O_RDONLY), fd;
	struct stat st;

	if (!CHECK(dir >= 0 && file >= 0))
		return;
	fd = openat(dir, "g", O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK(stat(DIR_ "/g", &st) == 0);
	CHECK(fstatat(dir, "g", &st, 0) == 0 && S_ISREG(st.st_mode));
	CHECK(mkdirat(dir, "d", 0755) == 0);
	CHECK(fstatat(dir, "d", &st, 0) == 0 && S_ISDIR(st.st_mode));
	CHECK(unlinkat(dir, "d", AT_REMOVEDIR) == 0);
	CHECK(unlinkat(dir, "g", 0) == 0);
	CHECK_ERR(fstatat(dir, "g", &st, 0), ENOENT);
	CHECK_ERR(openat(file, "x", O_RDONLY), ENOTDIR);
	CHECK_ERR(openat(99, "x", O_RDONLY), EBADF);
	CHECK_ERR(mkdirat(99, "x", 0755), EBADF);
	fd = openat(99, "/tmp", O_RDONLY); /* an absolute path: the dirfd is not looked at */
	CHECK(fd >= 0);
	close(fd);
	CHECK(fchdir(dir) == 0 && cwd_is(DIR_));
	CHECK_ERR(fchdir(file), ENOTDIR);
	CHECK_ERR(fchdir(99), EBADF);
	close(dir);
	close(file);
	CHECK(unlink(DIR_ "/f") == 0);
	CHECK(chdir("/") == 0);
	CHECK(rmdir(DIR_) == 0);
}

/* The working directory removed under the process: it stays, nameless and empty. */
static void removed(void)
{
	char buf[PATH_MAX];
	struct stat st;

	CHECK(mkdir("/tmp/cwd-gone", 0755) == 0);
	CHECK(chdir("/tmp/cwd-gone") == 0);
	CHECK(rmdir("/tmp/cwd-gone") == 0);
	CHECK_ERR(syscall(SYS_getcwd, buf, sizeof(buf)), ENOENT);
	CHECK_ERR(open("x", O_RDWR | O_CREAT, 0644), ENOENT);
	CHECK_ERR(mkdir("y", 0755), ENOENT);
	CHECK(stat(".", &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(chdir("/tmp") == 0 && cwd_is("/tmp"));
}

static void inherited(void)
{
	int status;
	pid_t pid;

	CHECK(chdir("/tmp") == 0);
	pid = fork();
	if (pid == 0)
		_exit(cwd_is("/tmp") && chdir("/") == 0 && cwd_is("/") ? 0 : 1);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(cwd_is("/tmp"));
}

int main(void)
{
	relative();
	at_calls();
	removed();
	inherited();
	return utest_done();
}
