/* init: the program the kernel's pid 1 runs when no runlist= and no init= is given (make run).
 * It runs /etc/rc (which mounts the second disk on /mnt), prints /etc/motd and runs busybox's
 * /bin/sh as a login shell on the console, in a session of its own with the console as its
 * controlling terminal, and another on the screen and keyboard (/dev/tty1) when that is not
 * the console. When the console's shell exits, init runs /etc/rc.shutdown (which unmounts
 * /mnt) and exits with the shell's status, and the boot ends (docs/shell.md). Not a test
 * program (lsbin is). */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
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

/* /etc/rc and /etc/rc.shutdown, as a Linux init runs its boot script before the logins and its
 * shutdown script at the end: /bin/sh runs it to the end on the console; a missing file is not
 * an error, and neither is a script that fails. */
static void run_rc(const char *path)
{
	char *const rc_argv[] = { "sh", (char *)path, NULL };
	int status;
	pid_t pid;

	if (access(path, R_OK) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		execve("/bin/sh", rc_argv, shell_envp);
		fprintf(stderr, "init: /bin/sh %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		perror("init: fork");
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* The shell's side of the fork: a new session whose controlling terminal is tty, the terminal
 * as descriptors 0-2, root's home (/) as the working directory, then exec. Returns only on
 * error; NOT_HERE if tty cannot be this session's terminal (no such device, or it is the
 * console's terminal already: a PC without a serial port). */
#define NOT_HERE 100
static int start_shell(const char *tty, bool motd)
{
	int fd;

	if (setsid() < 0)
		perror("init: setsid");
	fd = open(tty, O_RDWR); /* no O_NOCTTY: a session leader acquires it (not the console) */
	if (fd < 0)
		return NOT_HERE;
	/* explicit, as getty does: /dev/console is never acquired by opening it */
	if (ioctl(fd, TIOCSCTTY, 0) < 0 && errno != ENOTTY)
		return NOT_HERE;
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
	if (motd)
		print_motd();
	if (chdir("/") < 0) /* root's home in /etc/passwd */
		perror("init: chdir /");
	execve("/bin/sh", shell_argv, shell_envp);
	perror("init: /bin/sh");
	return 127;
}

/* Fork a shell on tty, the motd first if asked. Returns the child's pid or -1. */
static pid_t spawn_shell(const char *tty, bool motd)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(start_shell(tty, motd));
	if (pid < 0)
		perror("init: fork");
	return pid;
}

int main(void)
{
	pid_t sh, screen = -1, pid;
	int status = 0, ready[2];
	char c;

	printf("faultline init: hello from ring 3, pid %d\n", (int)getpid());
	fflush(stdout);
	run_rc("/etc/rc");
	print_motd();
	if (pipe2(ready, O_CLOEXEC) < 0) {
		perror("init: pipe2");
		return 1;
	}
	sh = spawn_shell("/dev/console", false);
	if (sh < 0)
		return 1;
	/* The child holds the close-on-exec write end until its exec: once the read sees the
	 * end of the pipe, the console is the shell's terminal, and tty1 cannot take it. */
	close(ready[1]);
	while (read(ready[0], &c, 1) < 0 && errno == EINTR)
		;
	close(ready[0]);
	screen = spawn_shell("/dev/tty1", true); /* the screen and keyboard, when not the console */
	for (;;) { /* the shells' orphans are the kernel's pid 1's to reap, not ours */
		pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0) {
			perror("init: waitpid");
			return 1;
		}
		if (pid == sh)
			break;
		if (pid != screen)
			continue;
		/* a shell on the screen comes back after exit, as a getty does */
		if (WIFEXITED(status) &&
		    (WEXITSTATUS(status) == NOT_HERE || WEXITSTATUS(status) == 127))
			screen = -1; /* no screen, or no shell to run */
		else
			screen = spawn_shell("/dev/tty1", true);
	}
	if (screen > 0) { /* the boot ends with the console's shell: hang up the screen's */
		kill(screen, SIGHUP);
		waitpid(screen, NULL, 0);
	}
	run_rc("/etc/rc.shutdown");
	if (WIFSIGNALED(status)) {
		printf("init: the shell was killed by signal %d; ending the boot\n",
		       WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	printf("init: the shell exited (status %d); ending the boot\n", WEXITSTATUS(status));
	return WEXITSTATUS(status);
}
