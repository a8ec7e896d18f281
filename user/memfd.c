/* memfd: memfd_create(2) and file seals as Linux answers them: an unlinked tmpfs file named
 * "memfd:NAME" in /proc/self/maps and /proc/self/fd, its flags and name errors,
 * F_ADD_SEALS/F_GET_SEALS with what each seal forbids (write, truncate, fallocate, chmod,
 * shared writable mappings) and F_SEAL_WRITE refused (EBUSY) while a shared mapping that may
 * write exists. By number: musl's memfd_create() is the same call. */
#define _GNU_SOURCE
#define UTEST_NAME "memfd"
#include "utest.h"
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SYS_memfd_create
#define SYS_memfd_create 319
#endif
#define MFD_CLOEXEC_ 0x1
#define MFD_ALLOW_SEALING_ 0x2
#define MFD_NOEXEC_SEAL_ 0x8
#define MFD_EXEC_ 0x10
#define ADD_SEALS 1033
#define GET_SEALS 1034
#define SEAL_SEAL 0x1
#define SEAL_SHRINK 0x2
#define SEAL_GROW 0x4
#define SEAL_WRITE 0x8
#define SEAL_FUTURE_WRITE 0x10
#define SEAL_EXEC 0x20

static int mfd(const char *name, long flags)
{
	return (int)syscall(SYS_memfd_create, name, flags);
}

/* is there a line of /proc/self/maps ending in want? */
static int in_maps(const char *want)
{
	static char buf[16384];
	size_t n = strlen(want);

	if (utest_slurp("/proc/self/maps", buf, sizeof(buf)) <= 0)
		return 0;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (strlen(l) >= n && strcmp(l + strlen(l) - n, want) == 0)
			return 1;
	return 0;
}

/* a file like any other: size, read, write, a shared mapping seen by a child */
static void basics(void)
{
	int fd = mfd("basics", 0), status;
	struct stat st;
	char buf[8] = "", link[32], target[64];
	long n;
	char *m;

	CHECK(fd >= 0);
	CHECK_EQ(fstat(fd, &st), 0);
	CHECK_EQ(st.st_mode, S_IFREG | 0777);
	CHECK_EQ(st.st_nlink, 0);
	CHECK_EQ(st.st_size, 0);
	CHECK_EQ(fcntl(fd, F_GETFD), 0);
	CHECK_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	CHECK_EQ(write(fd, "hello", 5), 5);
	CHECK_EQ(pread(fd, buf, 8, 0), 5);
	CHECK(strcmp(buf, "hello") == 0);
	CHECK_EQ(ftruncate(fd, 8192), 0);
	m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	CHECK(in_maps(" /memfd:basics (deleted)"));
	CHECK(!in_maps(" /memfd:other (deleted)")); /* the control */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	CHECK(strcmp(target, "/memfd:basics (deleted)") == 0);
	if (fork() == 0) {
		m[4096] = 'c';
		_exit(0);
	}
	wait(&status);
	CHECK_EQ(pread(fd, buf, 1, 4096), 1);
	CHECK_EQ(buf[0], 'c');
	CHECK_EQ(fcntl(fd, GET_SEALS), SEAL_SEAL); /* not sealable */
	CHECK_ERR(fcntl(fd, ADD_SEALS, SEAL_WRITE), EPERM);
	munmap(m, 8192);
	close(fd);
}

static void create_errors(void)
{
	char name[300];
	int fd;

	fd = mfd("c", MFD_CLOEXEC_);
	CHECK_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);
	close(fd);
	memset(name, 'n', sizeof(name));
	name[249] = '\0'; /* 255 bytes with "memfd:" */
	fd = mfd(name, 0);
	CHECK(fd >= 0);
	close(fd);
	name[249] = 'n';
	name[250] = '\0';
	CHECK_ERR(mfd(name, 0), EINVAL);
	CHECK_ERR(mfd("x", 0x100), EINVAL);
	CHECK_ERR(mfd("x", MFD_EXEC_ | MFD_NOEXEC_SEAL_), EINVAL);
	CHECK_ERR(mfd((const char *)8, 0), EFAULT);
	CHECK_ERR(fcntl(0, GET_SEALS), EINVAL); /* not tmpfs */
}

/* each seal and what it forbids */
static void seals(void)
{
	int fd = mfd("seals", MFD_ALLOW_SEALING_), ro;
	struct stat st;

	CHECK_EQ(fcntl(fd, GET_SEALS), 0);
	CHECK_EQ(ftruncate(fd, 10), 0);
	CHECK_ERR(fcntl(fd, ADD_SEALS, 0x40), EINVAL);
	CHECK_EQ(fcntl(fd, ADD_SEALS, SEAL_GROW), 0);
	CHECK_ERR(pwrite(fd, "0123456789abc", 13, 0), EPERM); /* the page would grow it */
	CHECK_ERR(pwrite(fd, "x", 1, 10), EPERM);
	CHECK_EQ(pwrite(fd, "x", 1, 9), 1);
	CHECK_ERR(ftruncate(fd, 20), EPERM);
	CHECK_EQ(ftruncate(fd, 5), 0);
	CHECK_ERR(fallocate(fd, 0, 0, 100), EPERM);
	CHECK_EQ(fallocate(fd, 0, 0, 5), 0);
	CHECK_EQ(fcntl(fd, ADD_SEALS, SEAL_SHRINK), 0);
	CHECK_ERR(ftruncate(fd, 3), EPERM);
	CHECK_EQ(ftruncate(fd, 5), 0);
	CHECK_EQ(fcntl(fd, GET_SEALS), SEAL_GROW | SEAL_SHRINK);
	CHECK_EQ(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 2), 0);
	CHECK_EQ(fcntl(fd, ADD_SEALS, SEAL_FUTURE_WRITE), 0);
	CHECK_ERR(write(fd, "a", 1), EPERM);
	CHECK_ERR(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 2), EPERM);
	CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == EPERM);
	/* the seals are the file's, whichever descriptor asks */
	ro = dup(fd);
	CHECK_EQ(fcntl(ro, GET_SEALS), SEAL_GROW | SEAL_SHRINK | SEAL_FUTURE_WRITE);
	close(ro);
	CHECK_EQ(fcntl(fd, ADD_SEALS, SEAL_SEAL), 0);
	CHECK_ERR(fcntl(fd, ADD_SEALS, SEAL_WRITE), EPERM);
	CHECK_ERR(fcntl(fd, ADD_SEALS, 0), EPERM);
	close(fd);
	/* F_SEAL_EXEC: the mode's exec bits fixed; on an executable file, the contents too */
	fd = mfd("exec", MFD_ALLOW_SEALING_);
	CHECK_EQ(fcntl(fd, ADD_SEALS, SEAL_EXEC), 0);
	CHECK_EQ(fcntl(fd, GET_SEALS), 0x3e);
	CHECK_ERR(fchmod(fd, 0666), EPERM);
	CHECK_EQ(fchmod(fd, 0755), 0);
	close(fd);
	fd = mfd("noexec", MFD_NOEXEC_SEAL_);
	CHECK_EQ(fstat(fd, &st), 0);
	CHECK_EQ(st.st_mode, S_IFREG | 0666);
	CHECK_EQ(fcntl(fd, GET_SEALS), SEAL_EXEC);
	CHECK_ERR(fchmod(fd, 0777), EPERM);
	CHECK_EQ(fchmod(fd, 0600), 0);
	CHECK_EQ(write(fd, "w", 1), 1);
	close(fd);
}

/* F_SEAL_WRITE: EBUSY while a shared mapping may write (even a read-only one of a read-write
 * descriptor: mprotect could make it writable); then no write, no writable shared mapping, a
 * read-only one that mprotect cannot make writable, private copies allowed */
static void seal_write(void)
{
	int fd = mfd("sealw", MFD_ALLOW_SEALING_);
	char *m, *p;

	CHECK_EQ(ftruncate(fd, 4096), 0);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	m[0] = 'm';
	CHECK_ERR(fcntl(fd, ADD_SEALS, SEAL_WRITE), EBUSY);
	CHECK_EQ(munmap(m, 4096), 0);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK_ERR(fcntl(fd, ADD_SEALS, SEAL_WRITE), EBUSY);
	CHECK_EQ(munmap(m, 4096), 0);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK_EQ(fcntl(fd, ADD_SEALS, SEAL_WRITE), 0); /* a private mapping is no obstacle */
	CHECK_EQ(fcntl(fd, GET_SEALS), SEAL_WRITE);
	m[1] = 'p'; /* its own copy */
	CHECK_EQ(munmap(m, 4096), 0);
	CHECK_ERR(write(fd, "a", 1), EPERM);
	CHECK_ERR(pwrite(fd, "a", 1, 100), EPERM);
	CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	      errno == EPERM);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK_EQ(p[0], 'm');
		CHECK_EQ(p[1], 0);
		CHECK_ERR(mprotect(p, 4096, PROT_READ | PROT_WRITE), EACCES);
		munmap(p, 4096);
	}
	CHECK_EQ(ftruncate(fd, 8192), 0); /* the size is not the write seal's */
	close(fd);
}

int main(void)
{
	basics();
	create_errors();
	seals();
	seal_write();
	return utest_done();
}
