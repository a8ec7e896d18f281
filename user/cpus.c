/* cpus: the CPUs as /proc/cpuinfo and /proc/stat list them must agree: one cpuinfo block per
 * CPU numbered from 0, each with its vendor, model name, apicid and flags, and one cpuN line
 * in /proc/stat for each. Prints "cpus: N" (tests/boot/smp.sh reads it). */
#define UTEST_NAME "cpus"
#include "utest.h"
#include <stdlib.h>

static char text[1 << 20];

int main(void)
{
	int n = 0, stat_n = 0, apicids = 0;
	char *p, want[32];

	CHECK(utest_slurp("/proc/cpuinfo", text, sizeof(text)) > 0);
	for (p = text; (p = strstr(p, "processor\t: ")) != NULL; p++) {
		CHECK(p == text || p[-1] == '\n');
		CHECK_EQ(atoi(p + 12), n); /* numbered 0, 1, 2... in order */
		n++;
	}
	for (p = text; (p = strstr(p, "\napicid\t\t: ")) != NULL; p++)
		apicids++;
	CHECK(n >= 1);
	CHECK_EQ(apicids, n);
	CHECK(strstr(text, "\nvendor_id\t: ") != NULL && strstr(text, "\nmodel name\t: ") != NULL);
	CHECK(strstr(text, "\nflags\t\t: fpu ") != NULL);
	CHECK(utest_slurp("/proc/stat", text, sizeof(text)) > 0);
	CHECK(strncmp(text, "cpu  ", 5) == 0);
	for (int i = 0; i < 4096; i++) {
		snprintf(want, sizeof(want), "\ncpu%d ", i);
		if (!strstr(text, want))
			break;
		stat_n++;
	}
	CHECK_EQ(stat_n, n);
	printf("cpus: %d\n", n);
	return utest_done();
}
