/* The integer square root (Linux's lib/int_sqrt.c): the OOM killer's badness and the reclaim
 * watermarks both scale by one. */
#include "kernel/lib/int_sqrt.h"

unsigned long int_sqrt(unsigned long x)
{
	unsigned long y = 0, b, m;

	if (x <= 1)
		return x;
	m = 1UL << ((63 - __builtin_clzl(x)) & ~1); /* the highest power of 4 not above x */
	for (; m; m >>= 2) {
		b = y + m;
		y >>= 1;
		if (x >= b) {
			x -= b;
			y += m;
		}
	}
	return y;
}
