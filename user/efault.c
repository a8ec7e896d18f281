/* efault: system calls handed bad user pointers (kernel half, unmapped, non-canonical, running off
 * the end of user space) must fail with EFAULT and have no other effect. Run it with stdout on a
 * terminal, pipe or file: Linux's /dev/null never reads the buffer, so it cannot fault. */
#define UTEST_NAME "efault"
#include "utest.h"
#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define KADDR ((void *)0xffffffff80000000UL)

int main(int argc, char **argv)
{
	char path[4096], buf[16];
	off_t pos1 = lseek(1, 0, SEEK_CUR); /* -1 if stdout is a terminal or a pipe */
	long fd;

	(void)argc;
	CHECK_ERR(syscall(SYS_write, 1, KADDR, 16), EFAULT);
	CHECK_ERR(syscall(SYS_write, 1, (void *)0x1000, 16), EFAULT);
	CHECK_ERR(syscall(SYS_write, 1, NULL, 16), EFAULT);
	CHECK_ERR(syscall(SYS_write, 1, (void *)0x8000000000000000UL, 8), EFAULT);
	/* starts on the stack, but the length runs far past the end of user space */
	CHECK_ERR(syscall(SYS_write, 1, buf, 1UL << 62), EFAULT);
	CHECK_EQ(lseek(1, 0, SEEK_CUR), pos1); /* nothing was written */

	utest_sibling(path, sizeof(path), argv[0], "not-an-elf");
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_ERR(syscall(SYS_read, fd, KADDR, 16), EFAULT);
	CHECK_ERR(syscall(SYS_read, fd, buf, 1UL << 62), EFAULT);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 0); /* the file offset did not move */
	CHECK_EQ(syscall(SYS_read, fd, buf, 4), 4);
	CHECK(memcmp(buf, "this", 4) == 0);
	close(fd);

	CHECK_ERR(syscall(SYS_openat, AT_FDCWD, KADDR, O_RDONLY), EFAULT);
	CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, KADDR), EFAULT);
	CHECK_ERR(syscall(SYS_uname, KADDR), EFAULT);

	CHECK_EQ(syscall(SYS_write, 1, "efault: ok\n", 11), 11);
	return utest_done();
}
