/* exec: execve replaces a forked child's image with exec-target, passing argv and envp exactly;
 * an empty or NULL argv reaches it as {""} (today's Linux: no program starts with argc 0);
 * failing execve calls (missing file, not an ELF) return to the caller with ENOENT / ENOEXEC. */
#define UTEST_NAME "exec"
#include "utest.h"
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *const targv[] = {"exec-target", "alpha", "beta", NULL};
	char *const tenv[] = {"FAULTLINE_TEST=1", NULL};
	char path[4096];
	pid_t pid;
	int st = -1;

	(void)argc;
	utest_sibling(path, sizeof(path), argv[0], "exec-target");
	pid = fork();
	if (pid == 0) {
		execve(path, targv, tenv);
		fprintf(stderr, "exec: FAIL: execve %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	CHECK(pid > 0);
	CHECK_EQ(wait4(pid, &st, 0, NULL), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 7);
	for (int null_argv = 0; null_argv < 2; null_argv++) {
		char *const empty[] = { NULL };

		pid = fork();
		if (pid == 0) {
			execve(path, null_argv ? NULL : empty, tenv);
			_exit(127);
		}
		CHECK(pid > 0);
		CHECK_EQ(wait4(pid, &st, 0, NULL), pid);
		CHECK(WIFEXITED(st));
		CHECK_EQ(WEXITSTATUS(st), 8);
	}

	utest_sibling(path, sizeof(path), argv[0], "no-such-program");
	CHECK_ERR(execve(path, targv, tenv), ENOENT);
	utest_sibling(path, sizeof(path), argv[0], "not-an-elf");
	CHECK_ERR(execve(path, targv, tenv), ENOEXEC);
	return utest_done();
}
