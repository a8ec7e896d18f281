/* brk: the raw brk system call: grow the heap by 1 MiB, use all of it, shrink and regrow it
 * (regrown pages are zero again), and refuse breaks below the heap or in the kernel half. */
#define UTEST_NAME "brk"
#include "utest.h"
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIB (1UL << 20)

extern char _start[], _end[];

static uintptr_t sys_brk(uintptr_t addr)
{
	return (uintptr_t)syscall(SYS_brk, addr);
}

int main(void)
{
	uintptr_t b0 = sys_brk(0), kept;
	unsigned char *p = (unsigned char *)b0;
	size_t i, bad;

	CHECK(b0 >= (uintptr_t)_end); /* the heap starts after the program's .bss */
	CHECK_EQ(sys_brk(0), b0);
	CHECK_EQ(sys_brk(b0 + MIB), b0 + MIB);
	CHECK_EQ(sys_brk(0), b0 + MIB);
	for (i = 0, bad = 0; i < MIB; i++)
		bad += p[i] != 0;
	CHECK_EQ(bad, 0); /* fresh heap memory is zero */
	for (i = 0; i < MIB; i++)
		p[i] = (unsigned char)(i * 7 + 3);
	for (i = 0, bad = 0; i < MIB; i++)
		bad += p[i] != (unsigned char)(i * 7 + 3);
	CHECK_EQ(bad, 0);

	CHECK_EQ(sys_brk(b0 + 4096), b0 + 4096);
	CHECK_EQ(sys_brk(b0 + MIB), b0 + MIB);
	for (i = 0, bad = 0; i < 4096; i++)
		bad += p[i] != (unsigned char)(i * 7 + 3);
	CHECK_EQ(bad, 0); /* the part that was kept still holds its data */
	kept = ((b0 + 4096 + 4095) & ~4095UL) - b0; /* the page with the break may keep data */
	for (i = kept, bad = 0; i < MIB; i++)
		bad += p[i] != 0;
	CHECK_EQ(bad, 0); /* the part that was given back and regrown is zero */

	/* refused requests leave the break where it was and return it */
	CHECK_EQ(sys_brk((uintptr_t)_start), b0 + MIB);
	CHECK_EQ(sys_brk(4096), b0 + MIB);
	CHECK_EQ(sys_brk(0xffffffff80000000UL), b0 + MIB);
	CHECK_EQ(sys_brk(0), b0 + MIB);

	CHECK_EQ(sys_brk(b0), b0);
	return utest_done();
}
