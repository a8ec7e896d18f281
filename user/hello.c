/* hello: the smallest useful program: musl start-up, stdio buffering, write(1) and exit(0). */
#include <stdio.h>

int main(void)
{
	printf("hello, world\n");
	return 0;
}
