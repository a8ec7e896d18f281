/* init: the program the kernel's pid 1 runs when no runlist= and no init= is given (make run).
 * It prints /etc/motd and runs busybox's /bin/sh as a login shell on the console, in a session
 * of its own with the console as its controlling terminal. When the shell exits, init exits
 * with its status and the boot ends (docs/shell.md). Not a test program (user/lsbin.c is). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char *const shell_argv[] = { "-sh", NULL }; /* a leading '-': a login shell */
static char *const shell_envp[] = { "HOME=/",	  "PATH=/usr/bin:/bin:/sbin",
				    "TERM=vt100", "SHELL=/bin/sh",
				    "USER=root",  "LOGNAME=root",
				    NULL };

/* Copy /etc/motd to standard output; a missing file is not an error. */
static void print_motd(void)
{
	char buf[512];
	ssize_t n;
	int fd = open("/etc/motd", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(1, buf, n) != n)
			break;
	close(fd);
}

/* The shell's side of the fork: a new session whose controlling terminal is the console, the
 * console as descriptors 0-2, root's home (/) as the working directory, then exec. Returns
 * only on error. */
static void start_shell(void)
{
	int fd;

	if (setsid() < 0)
		perror("init: setsid");
	fd = open("/dev/console", O_RDWR); /* no O_NOCTTY: a session leader acquires it */
	if (fd < 0) {
		perror("init: /dev/console");
		return;
	}
	/* explicit, as getty does; a console without the tty layer answers ENOTTY */
	if (ioctl(fd, TIOCSCTTY, 0) < 0 && errno != ENOTTY && errno != EPERM)
		perror("init: TIOCSCTTY");
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
	if (chdir("/") < 0) /* root's home in /etc/passwd */
		perror("init: chdir /");
	execve("/bin/sh", shell_argv, shell_envp);
	perror("init: /bin/sh");
}

int main(void)
{
	pid_t sh, pid;
	int status = 0;

	printf("faultline init: hello from ring 3, pid %d\n", (int)getpid());
	fflush(stdout);
	print_motd();
	sh = fork();
	if (sh < 0) {
		perror("init: fork");
		return 1;
	}
	if (sh == 0) {
		start_shell();
		_exit(127);
	}
	do /* the shell's orphans are the kernel's pid 1's to reap, not ours */
		pid = waitpid(sh, &status, 0);
	while (pid < 0 && errno == EINTR);
	if (pid < 0) {
		perror("init: waitpid");
		return 1;
	}
	if (WIFSIGNALED(status)) {
		printf("init: the shell was killed by signal %d; ending the boot\n",
		       WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	printf("init: the shell exited (status %d); ending the boot\n", WEXITSTATUS(status));
	return WEXITSTATUS(status);
}
