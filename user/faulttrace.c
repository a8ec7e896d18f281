/* faulttrace: switch faultline's fault trace (a kernel log line per page fault) on or off at
 * run time through /proc/sys/vm/faulttrace, or show whether it is on.
 * usage: faulttrace [on|off] */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CTL "/proc/sys/vm/faulttrace"

int main(int argc, char **argv)
{
	const char *value = NULL;
	char buf[8] = "";
	int fd;

	if (argc == 2 && !strcmp(argv[1], "on"))
		value = "1\n";
	else if (argc == 2 && !strcmp(argv[1], "off"))
		value = "0\n";
	else if (argc != 1) {
		fprintf(stderr, "usage: faulttrace [on|off]\n");
		return 2;
	}
	fd = open(CTL, value ? O_WRONLY : O_RDONLY);
	if (fd < 0 || (value ? write(fd, value, 2) != 2 : read(fd, buf, sizeof(buf) - 1) <= 0)) {
		perror("faulttrace: " CTL);
		return 1;
	}
	if (!value)
		printf("faulttrace: %s\n", buf[0] == '1' ? "on" : "off");
	close(fd);
	return 0;
}
