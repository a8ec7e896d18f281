/* vm-nomap: a read from an address no VMA covers (1 TiB, after maps confirms nothing is near it)
 * kills the process with SIGSEGV (expect.txt: killed by SIGSEGV). */
#define UTEST_NAME "vm-nomap"
#include "utest.h"
#include "vmstat.h"

#define FAR ((const volatile unsigned long *)0x10000000000UL)

int main(void)
{
	const unsigned char *a = (const unsigned char *)FAR;
	int n;

	/* nothing within 1 MiB either side of it */
	n = count_maps_range(a - (1UL << 20), a + (1UL << 20));
	if (!CHECK(n == 0))
		fprintf(stderr, "vm-nomap:   %d maps lines near %p\n", n, (const void *)a);
	CHECK(count_maps_lines() > 0);
	CHECK(maps_perms(a) == NULL);
	if (on_faultline()) {
		struct fl_page pg = fl_page_of(a);

		CHECK(!pg.in_vma && !pg.present);
	} else {
		CHECK(!page_present(a));
	}
	if (utest_fails)
		return utest_done(); /* exit 1: not the expected SIGSEGV */

	printf("vm-nomap: %d checks ok; reading unmapped %p\n", utest_checks, (const void *)a);
	fflush(stdout);
	n = (int)*FAR;
	fprintf(stderr, "vm-nomap: FAIL: the read of %p did not fault (read %d)\n", (const void *)a,
		n);
	return 1;
}
