/* poweroff [-r|-h]: reboot(2) with Linux's magic: power off (default), restart or halt.
 * Never run natively (it is not in user/expect.txt): on the build host it would try to turn
 * the host off. First it checks that a wrong magic number is refused with EINVAL. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int cmd = RB_POWER_OFF;
	const char *what = "power off";

	if (argc > 1 && !strcmp(argv[1], "-r"))
		cmd = RB_AUTOBOOT, what = "restart";
	else if (argc > 1 && !strcmp(argv[1], "-h"))
		cmd = RB_HALT_SYSTEM, what = "halt";
	else if (argc > 1) {
		fprintf(stderr, "usage: poweroff [-r|-h]\n");
		return 2;
	}
	if (syscall(SYS_reboot, 0xfee1deadUL, 12345UL, (unsigned long)cmd, 0UL) != -1 ||
	    errno != EINVAL) {
		printf("poweroff: a wrong magic2 was not refused with EINVAL\n");
		return 1;
	}
	printf("poweroff: wrong magic refused (EINVAL); asking the kernel to %s\n", what);
	fflush(stdout);
	sync(); /* reboot(2) writes nothing back itself: what is written to a disk gets there */
	reboot(cmd);
	printf("poweroff: reboot(2) returned: %s\n", strerror(errno));
	return 1;
}
