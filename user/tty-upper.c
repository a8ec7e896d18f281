/* tty-upper: reads lines from its terminal (stdin, canonical mode) and writes each back in
 * capitals, until end of file (exit 0) or ^C (SIGINT: "tty-upper: SIGINT", exit 130). It
 * first makes stdin its controlling terminal so that the keys' signals reach it. The boot test
 * tests/boot/tty.sh types at it through the serial port. Needs a person or a script typing:
 * no runlist runs it. */
#include <ctype.h>
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

int main(void)
{
	char line[512];
	ssize_t n;

	signal(SIGINT, on_sigint);
	if (ioctl(0, TIOCSCTTY, 0))
		perror("tty-upper: TIOCSCTTY");
	printf("tty-upper: ready, pgrp %d, foreground %d\n", (int)getpgrp(), (int)tcgetpgrp(0));
	fflush(stdout);
	while ((n = read(0, line, sizeof(line))) > 0) {
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
