/* timeout-orphan: exits at once, leaving a child that sleeps forever. The runner's time limit
 * must end the child (SIGKILL to the program's session) and report "timed out"; without it
 * the boot would wait for the orphan forever. Under faultline only (tests/ring3-faultline.txt). */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("timeout-orphan: fork");
		return 1;
	}
	if (pid == 0) {
		for (;;)
			pause(); /* an orphan of pid 1 that never ends */
	}
	printf("timeout-orphan: left child %d asleep\n", (int)pid);
	return 0;
}
