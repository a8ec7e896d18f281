/* hello (glibc): a plain static glibc hello world, built with the host gcc -static rather than
 * musl, to show the kernel runs a glibc start-up (IRELATIVE relocs, TLS setup, its syscalls). */
#include <stdio.h>

int main(void)
{
	printf("hello from glibc\n");
	return 0;
}
