/* fs-sync: fsync, fdatasync, sync and syncfs as Linux answers them: 0 for files and
 * directories of any file system, EINVAL for what cannot be synced (a pipe, /dev/null, a /proc
 * file), EBADF for a descriptor that is not open. */
#define _GNU_SOURCE
#define UTEST_NAME "fs-sync"
#include <sys/syscall.h>

#include "utest.h"

#define F "/tmp/fs-sync-test"

int main(void)
{
	int p[2], fd = open(F, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int dir = open("/tmp", O_RDONLY | O_DIRECTORY);
	int null = open("/dev/null", O_RDWR), proc = open("/proc/meminfo", O_RDONLY);
	int shm = open("/dev/shm/fs-sync-test", O_RDWR | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0 && dir >= 0 && null >= 0 && proc >= 0 && shm >= 0 && pipe(p) == 0);
	CHECK_EQ(write(fd, "data", 4), 4);
	CHECK_EQ(fsync(fd), 0);
	CHECK_EQ(fdatasync(fd), 0);
	CHECK_EQ(fsync(dir), 0);
	CHECK_EQ(fsync(shm), 0);
	CHECK_ERR(fsync(p[0]), EINVAL);
	CHECK_ERR(fdatasync(p[1]), EINVAL);
	CHECK_ERR(fsync(null), EINVAL);
	CHECK_ERR(fsync(proc), EINVAL);
	CHECK_ERR(fsync(999), EBADF);
	CHECK_ERR(fdatasync(-1), EBADF);
	sync();
	CHECK_EQ(syncfs(fd), 0);
	CHECK_EQ(syncfs(shm), 0);
	CHECK_EQ(syncfs(p[0]), 0);
	CHECK_ERR(syncfs(999), EBADF);
	CHECK_EQ(syscall(SYS_sync), 0);
	unlink(F);
	unlink("/dev/shm/fs-sync-test");
	return utest_done();
}
