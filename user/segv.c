/* segv: a ring-3 store to a kernel address must kill the process with SIGSEGV (a page fault with
 * the user bit set), not crash or corrupt the kernel. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	printf("segv: writing to a kernel address\n");
	fflush(stdout);
	*(volatile int *)0xffffffff80100000UL = 0x5e6f;
	fprintf(stderr, "segv: FAIL: the write to 0xffffffff80100000 did not fault\n");
	return 1;
}
