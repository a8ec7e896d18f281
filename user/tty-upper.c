/* tty-upper [TTY]: reads lines from its terminal (stdin, or TTY such as /dev/tty1) in
 * canonical mode and writes each back in capitals on stdout, until end of file (exit 0) or ^C
 * (SIGINT: "tty-upper: SIGINT", exit 130). It first makes the terminal its controlling one so
 * that the keys' signals reach it. It polls before each read. tests/boot/tty.sh types at it
 * through the serial port and the keyboard. Needs a person or a script typing: no runlist runs
 * it. */
#include <ctype.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void on_sigint(int sig)
{
	static const char msg[] = "tty-upper: SIGINT\n";

	(void)sig;
	write(1, msg, sizeof(msg) - 1);
	_exit(130);
}

int main(int argc, char **argv)
{
	char line[512];
	ssize_t n = -1;
	int fd;

	if (argc > 1) {
		fd = open(argv[1], O_RDWR | O_NOCTTY);
		if (fd < 0 || dup2(fd, 0) < 0) {
			perror(argv[1]);
			return 2;
		}
	}
	signal(SIGINT, on_sigint);
	if (ioctl(0, TIOCSCTTY, 0))
		perror("tty-upper: TIOCSCTTY");
	printf("tty-upper: ready, pgrp %d, foreground %d\n", (int)getpgrp(), (int)tcgetpgrp(0));
	fflush(stdout);
	/* poll first, so that the boot test also sees a line wake a poller */
	while (poll(&(struct pollfd){ .fd = 0, .events = POLLIN }, 1, -1) == 1 &&
	       (n = read(0, line, sizeof(line))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			line[i] = (char)toupper((unsigned char)line[i]);
		printf("upper: %.*s", (int)n, line);
		if (line[n - 1] != '\n')
			printf(" (no newline)\n");
		fflush(stdout);
	}
	printf("tty-upper: %s\n", n ? "read error" : "end of file");
	return n ? 1 : 0;
}
