/* wx: W^X for user mappings. By default nothing is both writable and executable (text r-x;
 * data, bss, brk heap and stack rw-), so code written to the stack, heap, .data or a RW mmap
 * cannot run and the text cannot be written: each attempt kills a child with SIGSEGV. Asking
 * for PROT_EXEC|PROT_WRITE (mmap, or mprotect to R|X after writing) runs the code. */
#define _GNU_SOURCE
#define UTEST_NAME "wx"
#include "utest.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* mov $42, %eax; ret */
static const unsigned char code42[] = { 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3 };
static unsigned char data_code[64] = { 1 }; /* initialised: lives in .data */
static int bss_word;

typedef int (*fn_t)(void);

static uintptr_t opaque(uintptr_t v)
{
	__asm__ volatile("" : "+r"(v));
	return v;
}

static int call_at(void *p)
{
	return ((fn_t)opaque((uintptr_t)p))();
}

/* the /proc/self/maps permissions of the mapping holding addr ("" when none holds it);
 * and a count of mappings that are both writable and executable */
static int wx_count;
static void maps_perms(uintptr_t addr, char perms[5])
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	perms[0] = 0;
	wx_count = 0;
	if (!CHECK(f != NULL))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char p[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) != 3)
			continue;
		if (p[1] == 'w' && p[2] == 'x') {
			wx_count++;
			fprintf(stderr, "wx:   writable and executable: %s", line);
		}
		if (addr >= lo && addr < hi)
			memcpy(perms, p, 5);
	}
	fclose(f);
}

static void check_perms(const void *addr, const char *want, const char *what)
{
	char p[5];

	maps_perms((uintptr_t)addr, p);
	CHECK_EQ(wx_count, 0);
	if (!CHECK(strncmp(p, want, 3) == 0))
		fprintf(stderr, "wx:   %s at %p is \"%s\", want \"%s\"\n", what, addr, p, want);
}

/* how == 0: execute code42 copied to p; how == 1: write to p. The child must die of SIGSEGV. */
static void must_segv(void *p, int how, const char *what)
{
	pid_t pid = fork();
	int st = -1;

	if (pid == 0) {
		if (how == 0) {
			memcpy(p, code42, sizeof(code42));
			call_at(p);
		} else {
			*(volatile unsigned char *)opaque((uintptr_t)p) = 0xc3;
		}
		_exit(100);
	}
	if (!CHECK(pid > 0))
		return;
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (!CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV))
		fprintf(stderr, "wx:   %s: %s %d\n", what,
			WIFSIGNALED(st) ? "signal" : "exit status",
			WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

static void exec_on_stack(void)
{
	unsigned char buf[64];

	must_segv(buf, 0, "execute on the stack");
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char stack_byte = 0;
	unsigned char *heap, *rw, *rwx;

	/* raw brk: musl's sbrk() refuses to grow the heap */
	heap = (unsigned char *)syscall(SYS_brk, 0);
	if (!CHECK((unsigned char *)syscall(SYS_brk, heap + pg) == heap + pg))
		return utest_done();
	heap[0] = 1;
	bss_word = 1;

	/* the default layout */
	check_perms((void *)(uintptr_t)main, "r-x", "text");
	check_perms(code42, "r--", "rodata");
	check_perms(data_code, "rw-", ".data");
	check_perms(&bss_word, "rw-", ".bss");
	check_perms(heap, "rw-", "brk heap");
	check_perms(&stack_byte, "rw-", "stack");

	/* what is writable cannot run, what runs cannot be written */
	exec_on_stack();
	must_segv(heap, 0, "execute from the brk heap");
	must_segv(data_code, 0, "execute from .data");
	rw = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(rw != MAP_FAILED))
		return utest_done();
	check_perms(rw, "rw-", "mmap(PROT_READ|PROT_WRITE)");
	must_segv(rw, 0, "execute from mmap(PROT_READ|PROT_WRITE)");
	must_segv((void *)(uintptr_t)main, 1, "write to the text");
	must_segv((void *)(uintptr_t)code42, 1, "write to .rodata");

	/* asked for: a writable and executable mapping runs what is written to it */
	rwx = mmap(NULL, pg, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	if (CHECK(rwx != MAP_FAILED)) {
		memcpy(rwx, code42, sizeof(code42));
		CHECK_EQ(call_at(rwx), 42);
		rwx[1] = 7; /* mov $7, %eax: still writable, and the new code runs */
		CHECK_EQ(call_at(rwx), 7);
		CHECK_EQ(munmap(rwx, pg), 0);
	}

	/* write, then mprotect to R|X: runs; back to RW: does not run */
	memcpy(rw, code42, sizeof(code42));
	CHECK_EQ(mprotect(rw, pg, PROT_READ | PROT_EXEC), 0);
	check_perms(rw, "r-x", "mprotect(PROT_READ|PROT_EXEC)");
	CHECK_EQ(call_at(rw), 42);
	must_segv(rw, 1, "write to a R|X page");
	CHECK_EQ(mprotect(rw, pg, PROT_READ | PROT_WRITE), 0);
	check_perms(rw, "rw-", "mprotect back to PROT_READ|PROT_WRITE");
	must_segv(rw, 0, "execute after mprotect back to RW");
	CHECK_EQ(munmap(rw, pg), 0);
	return utest_done();
}
