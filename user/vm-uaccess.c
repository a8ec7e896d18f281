/* The kernel's own accesses to user memory demand-page too: system calls that read or write
 * pages the program never touched succeed, and only a bad pointer gives EFAULT. */
#define UTEST_NAME "vm-uaccess"
#include "utest.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define PG 4096

int main(int argc, char **argv)
{
	char *m = mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *none = mmap(NULL, PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(argc > 0 ? argv[0] : "/bin/vm-uaccess", O_RDONLY);

	CHECK(m != MAP_FAILED && ro != MAP_FAILED && none != MAP_FAILED);
	CHECK(fd >= 0);
	if (m == MAP_FAILED || ro == MAP_FAILED || none == MAP_FAILED || fd < 0)
		return utest_done();

	/* copy_to_user into a page never touched: read() fills it from the file. */
	CHECK_EQ(read(fd, m + PG + 100, 4), 4);
	CHECK(memcmp(m + PG + 100, "\177ELF", 4) == 0);
	/* ... across a page boundary into another untouched page. */
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
	CHECK_EQ(read(fd, m + 3 * PG - 2, 4), 4);
	CHECK(memcmp(m + 3 * PG - 2, "\177ELF", 4) == 0);
	/* The kernel writes results into untouched pages: uname, clock_gettime (the system
	 * call itself: libc's vDSO path would write from user mode). */
	CHECK_EQ(uname((struct utsname *)(m + 4 * PG)), 0);
	CHECK(((struct utsname *)(m + 4 * PG))->sysname[0] != '\0');
	CHECK_EQ(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, m + 5 * PG), 0);
	/* copy_from_user from an untouched page: it reads as zeroes, a zero-length sleep. */
	CHECK_EQ(nanosleep((struct timespec *)(m + 6 * PG), NULL), 0);
	CHECK_EQ(m[6 * PG], 0);

	/* A read-only page can be read from, not written into. */
	CHECK_EQ(nanosleep((struct timespec *)ro, NULL), 0);
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
	CHECK_ERR(read(fd, ro, 4), EFAULT);
	CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, ro), EFAULT); /* not the vDSO */
	/* PROT_NONE: neither. */
	CHECK_ERR(read(fd, none, 4), EFAULT);
	CHECK_ERR(nanosleep((struct timespec *)none, NULL), EFAULT);
	/* An unmapped page: EFAULT, and the process lives on. */
	CHECK_EQ(munmap(m + 7 * PG, PG), 0);
	CHECK_ERR(read(fd, m + 7 * PG, 4), EFAULT);
	CHECK_ERR(uname((struct utsname *)(m + 7 * PG)), EFAULT);
	close(fd);
	return utest_done();
}
