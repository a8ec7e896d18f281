/* dev-files: the virtual file system as a program sees it: /dev/null, /dev/zero and
 * /dev/urandom as character devices, /dev and /proc as file systems mounted on the root (".."
 * crosses back, st_dev differs, a mount point cannot be removed), and F_GETFL's flags. */
#define UTEST_NAME "dev-files"
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "utest.h"

#ifndef O_LARGEFILE_KERNEL
#define O_LARGEFILE_KERNEL 0100000 /* the kernel's value on x86-64 (musl's O_LARGEFILE is 0) */
#endif

static void dev_null(void)
{
	char buf[16] = "abc";
	struct stat st;
	int fd = open("/dev/null", O_RDWR);

	if (!CHECK(fd >= 0))
		return;
	CHECK(fstat(fd, &st) == 0 && S_ISCHR(st.st_mode));
	CHECK_EQ(major(st.st_rdev), 1);
	CHECK_EQ(minor(st.st_rdev), 3);
	CHECK_EQ(st.st_size, 0);
	CHECK_EQ(write(fd, buf, sizeof(buf)), sizeof(buf));
	CHECK_EQ(write(fd, (void *)0x10000, 64), 64); /* never looked at */
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0);
	CHECK_EQ(pread(fd, buf, sizeof(buf), 100), 0);
	CHECK_EQ(pwrite(fd, buf, 3, 100), 3);
	CHECK_EQ(lseek(fd, 1000, SEEK_SET), 0);
	CHECK_ERR(ioctl(fd, TCGETS, &(struct termios){ 0 }), ENOTTY);
	CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == ENODEV);
	CHECK_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	CHECK(fcntl(fd, F_GETFL) & O_LARGEFILE_KERNEL);
	CHECK_EQ(fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK), 0);
	CHECK(fcntl(fd, F_GETFL) & O_APPEND);
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK_EQ(fcntl(fd, F_SETFL, 0), 0);
	CHECK(!(fcntl(fd, F_GETFL) & (O_APPEND | O_NONBLOCK)));
	close(fd);

	fd = open("/dev/null", O_RDONLY | O_CREAT | O_TRUNC, 0644); /* an existing device */
	if (CHECK(fd >= 0)) {
		CHECK_ERR(write(fd, buf, 1), EBADF);
		CHECK_EQ(fcntl(fd, F_GETFL) & (O_CREAT | O_TRUNC | O_ACCMODE), O_RDONLY);
		close(fd);
	}
	CHECK_ERR(open("/dev/null", O_RDONLY | O_DIRECTORY), ENOTDIR);
	CHECK_ERR(open("/dev/null/x", O_RDONLY), ENOTDIR);
}

/* /dev/zero reads as zeroes and takes writes; /dev/urandom and getrandom give bytes that are
 * not all the same, and never block. */
static void zero_and_random(void)
{
	unsigned char buf[300], buf2[300];
	struct stat st;
	int zero = open("/dev/zero", O_RDWR), urandom = open("/dev/urandom", O_RDONLY), same = 0;

	if (!CHECK(zero >= 0 && urandom >= 0))
		return;
	CHECK(fstat(zero, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 5));
	memset(buf, 0xa5, sizeof(buf));
	CHECK_EQ(read(zero, buf, sizeof(buf)), sizeof(buf));
	CHECK(buf[0] == 0 && buf[sizeof(buf) - 1] == 0 && !memcmp(buf, buf + 1, sizeof(buf) - 1));
	CHECK_EQ(write(zero, buf, 10), 10);
	CHECK_ERR(read(zero, (void *)8, 10), EFAULT);
	CHECK(fstat(urandom, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 9));
	CHECK_EQ(read(urandom, buf, sizeof(buf)), sizeof(buf));
	CHECK_EQ(read(urandom, buf2, sizeof(buf2)), sizeof(buf2));
	for (size_t i = 0; i < sizeof(buf); i++)
		same += buf[i] == buf2[i];
	CHECK(same < 30); /* two reads of random bytes: ~1 in 256 agree by chance */
	CHECK(stat("/dev/random", &st) == 0 && st.st_rdev == makedev(1, 8));
	CHECK_EQ(syscall(SYS_getrandom, buf, 16, 0), 16);
	CHECK_ERR(syscall(SYS_getrandom, buf, 16, 0x40), EINVAL);
	CHECK_ERR(syscall(SYS_getrandom, (void *)8, 16, 0), EFAULT);
	close(zero);
	close(urandom);
}

/* sendfile from a regular file into /dev/null: the whole file is taken. */
static void sendfile_to_null(void)
{
	const char *path = "/tmp/dev-files.txt";
	int in = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), out = open("/dev/null", O_WRONLY);
	char text[1000];

	memset(text, 'x', sizeof(text));
	if (!CHECK(in >= 0 && out >= 0))
		return;
	CHECK_EQ(write(in, text, sizeof(text)), sizeof(text));
	CHECK_EQ(lseek(in, 0, SEEK_SET), 0);
	CHECK_EQ(sendfile(out, in, NULL, 5000), sizeof(text));
	CHECK_EQ(lseek(in, 0, SEEK_CUR), sizeof(text));
	CHECK_ERR(sendfile(in, out, NULL, 10), EBADF); /* out is write-only: no reading it */
	close(in);
	close(out);
	unlink(path);
}

/* stat of path: its device and inode, or -1s. */
static void dev_ino(const char *path, dev_t *dev, ino_t *ino)
{
	struct stat st;

	*dev = (dev_t)-1;
	*ino = (ino_t)-1;
	if (stat(path, &st) == 0) {
		*dev = st.st_dev;
		*ino = st.st_ino;
	}
}

static void mounts(void)
{
	dev_t root_dev, dev, proc_dev;
	ino_t root_ino, ino, proc_ino;
	struct stat st;
	int found = 0;
	struct dirent *e;
	DIR *d;

	dev_ino("/", &root_dev, &root_ino);
	dev_ino("/proc", &proc_dev, &proc_ino);
	CHECK(stat("/proc", &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(proc_dev != root_dev); /* another file system */
	dev_ino("/proc/..", &dev, &ino);
	CHECK(dev == root_dev && ino == root_ino); /* ".." leaves it for the root */
	dev_ino("/dev/..", &dev, &ino);
	CHECK(dev == root_dev && ino == root_ino);
	dev_ino("/proc/self/maps", &dev, &ino);
	CHECK(dev == proc_dev);
	CHECK(stat("/proc/self/maps", &st) == 0 && S_ISREG(st.st_mode));
	if (geteuid() == 0) /* (as another user the answer is EACCES) */
		CHECK_ERR(rmdir("/proc"), EBUSY);
	CHECK_ERR(mkdir("/proc", 0755), EEXIST);
	d = opendir("/dev");
	if (CHECK(d != NULL)) {
		while ((e = readdir(d)))
			found += !strcmp(e->d_name, "null") && e->d_type == DT_CHR;
		closedir(d);
	}
	CHECK_EQ(found, 1);
}

int main(void)
{
	dev_null();
	zero_and_random();
	sendfile_to_null();
	mounts();
	return utest_done();
}
