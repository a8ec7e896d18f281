/* loop: loop devices as Linux has them: /dev/loop-control hands out a free device, LOOP_SET_FD
 * and LOOP_CONFIGURE bind it to a file whose bytes then are its sectors (reads and writes
 * both ways, an offset and a size limit, read-only when the file is), LOOP_GET_STATUS64 says
 * so, LOOP_CLR_FD unbinds it; a loop device over another (a block device), never over itself;
 * and the errors of each (EBUSY, ENXIO, EBADF, EINVAL, EPERM). */
#define _GNU_SOURCE
#define UTEST_NAME "loop"
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "utest.h"

/* <linux/loop.h> and <linux/fs.h>'s numbers and structures (musl has neither header) */
#define LOOP_SET_FD 0x4C00
#define LOOP_CLR_FD 0x4C01
#define LOOP_SET_STATUS64 0x4C04
#define LOOP_GET_STATUS64 0x4C05
#define LOOP_CONFIGURE 0x4C0A
#define LOOP_CTL_ADD 0x4C80
#define LOOP_CTL_GET_FREE 0x4C82
#define LO_FLAGS_READ_ONLY 1
#define BLKROGET 0x125e
#define BLKGETSIZE64 0x80081272

struct loop_info64 {
	uint64_t lo_device, lo_inode, lo_rdevice, lo_offset, lo_sizelimit;
	uint32_t lo_number, lo_encrypt_type, lo_encrypt_key_size, lo_flags;
	uint8_t lo_file_name[64], lo_crypt_name[64], lo_encrypt_key[32];
	uint64_t lo_init[2];
};

struct loop_config {
	uint32_t fd, block_size;
	struct loop_info64 info;
	uint64_t reserved[8];
};

#define IMG "/tmp/loop-test.img"
#define SIZE (1024 * 1024)

static char pattern[SIZE], buf[8192];

static uint64_t dev_size(int fd)
{
	uint64_t size = 12345;

	CHECK(ioctl(fd, BLKGETSIZE64, &size) == 0);
	return size;
}

/* A free loop device, open with flags, its number in *n: -1 if there is none. Another
 * program may take the free one first: then ask again. */
static int get_free(int ctl, int flags, int *n)
{
	for (int tries = 0; tries < 10; tries++) {
		char path[32];
		int fd;

		*n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (*n < 0)
			return -1;
		snprintf(path, sizeof(path), "/dev/loop%d", *n);
		fd = open(path, flags);
		if (fd >= 0) {
			struct loop_info64 info;

			if (ioctl(fd, LOOP_GET_STATUS64, &info) == -1 && errno == ENXIO)
				return fd;
			close(fd);
		}
	}
	return -1;
}

/* Bound by LOOP_SET_FD: the file's bytes, both ways; then offset and size limit. */
static void set_fd(int ctl)
{
	struct loop_info64 info;
	int n, lo = get_free(ctl, O_RDWR, &n), file = open(IMG, O_RDWR), dir;
	struct stat st;

	if (!CHECK(lo >= 0 && file >= 0))
		return;
	CHECK_ERR(ioctl(lo, LOOP_GET_STATUS64, &info), ENXIO); /* unbound */
	CHECK_ERR(ioctl(lo, LOOP_CLR_FD, 0), ENXIO);
	CHECK_EQ(dev_size(lo), 0);
	CHECK_EQ(read(lo, buf, 512), 0);
	CHECK_ERR(ioctl(lo, LOOP_SET_FD, 999), EBADF);
	dir = open("/tmp", O_RDONLY | O_DIRECTORY);
	CHECK_ERR(ioctl(lo, LOOP_SET_FD, dir), EINVAL);
	close(dir);
	if (!CHECK(ioctl(lo, LOOP_SET_FD, file) == 0))
		return;
	CHECK_ERR(ioctl(lo, LOOP_SET_FD, file), EBUSY);
	CHECK_EQ(dev_size(lo), SIZE);
	CHECK(pread(lo, buf, 4096, 65536) == 4096 && memcmp(buf, pattern + 65536, 4096) == 0);
	memset(buf, 'L', 4096);
	CHECK_EQ(pwrite(lo, buf, 4096, 8192), 4096);
	CHECK_EQ(fsync(lo), 0);
	CHECK(pread(file, buf + 4096, 4096, 8192) == 4096 && memcmp(buf, buf + 4096, 4096) == 0);
	memset(buf, 'F', 512);
	CHECK_EQ(pwrite(file, buf, 512, SIZE - 512), 512); /* the file, seen by the device */
	CHECK(pread(lo, buf + 512, 512, SIZE - 512) == 512 && memcmp(buf, buf + 512, 512) == 0);
	CHECK(ioctl(lo, LOOP_GET_STATUS64, &info) == 0);
	CHECK(fstat(file, &st) == 0 && info.lo_inode == st.st_ino);
	CHECK_EQ(info.lo_number, n);
	CHECK_EQ(info.lo_offset, 0);
	CHECK_EQ(info.lo_flags & LO_FLAGS_READ_ONLY, 0);
	CHECK_EQ(info.lo_file_name[0], 0); /* LOOP_SET_FD names nothing */
	info.lo_offset = 4096;
	info.lo_sizelimit = 65536;
	strcpy((char *)info.lo_file_name, IMG);
	CHECK(ioctl(lo, LOOP_SET_STATUS64, &info) == 0);
	CHECK_EQ(dev_size(lo), 65536);
	CHECK(ioctl(lo, LOOP_GET_STATUS64, &info) == 0 && info.lo_offset == 4096 &&
	      info.lo_sizelimit == 65536 && strcmp((char *)info.lo_file_name, IMG) == 0);
	CHECK(pread(lo, buf, 512, 0) == 512 && memcmp(buf, pattern + 4096, 512) == 0);
	CHECK_EQ(pread(lo, buf, 512, 65536), 0); /* the limit is the device's end */
	/* Unbound at the last close; until then it is on its way out. */
	CHECK_EQ(ioctl(lo, LOOP_CLR_FD, 0), 0);
	CHECK_ERR(ioctl(lo, LOOP_GET_STATUS64, &info), ENXIO);
	CHECK_ERR(ioctl(lo, LOOP_CLR_FD, 0), ENXIO);
	close(lo);
	snprintf((char *)info.lo_file_name, sizeof(info.lo_file_name), "/dev/loop%d", n);
	lo = open((char *)info.lo_file_name, O_RDONLY);
	CHECK(lo >= 0 && dev_size(lo) == 0);
	CHECK_ERR(ioctl(lo, LOOP_GET_STATUS64, &info), ENXIO);
	close(file);
	close(lo);
}

/* LOOP_CONFIGURE: all at once; a file open read-only makes a read-only device. */
static void configure(int ctl)
{
	struct loop_config c;
	int n, lo = get_free(ctl, O_RDWR, &n), file = open(IMG, O_RDONLY), ro = -1;

	if (!CHECK(lo >= 0 && file >= 0))
		return;
	memset(&c, 0, sizeof(c));
	c.fd = (unsigned int)file;
	c.block_size = 1000;
	CHECK_ERR(ioctl(lo, LOOP_CONFIGURE, &c), EINVAL);
	c.block_size = 0;
	c.info.lo_offset = 512;
	if (!CHECK(ioctl(lo, LOOP_CONFIGURE, &c) == 0))
		return;
	CHECK_EQ(dev_size(lo), SIZE - 512);
	CHECK(ioctl(lo, BLKROGET, &ro) == 0 && ro == 1);
	CHECK(pread(lo, buf, 1024, 0) == 1024 && memcmp(buf, pattern + 512, 1024) == 0);
	CHECK_ERR(pwrite(lo, buf, 512, 0), EPERM);
	CHECK_EQ(ioctl(lo, LOOP_CLR_FD, 0), 0);
	close(file);
	close(lo);
}

/* A device over a device: lo2's sectors are lo1's, which are the file's; lo2 cannot be backed
 * by itself (EBADF). */
static void stacked(int ctl)
{
	struct loop_info64 info;
	int n1, n2, lo1 = get_free(ctl, O_RDWR, &n1), lo2 = -1, file = open(IMG, O_RDWR);
	struct stat st;

	if (!CHECK(lo1 >= 0 && file >= 0) || !CHECK(ioctl(lo1, LOOP_SET_FD, file) == 0))
		return;
	lo2 = get_free(ctl, O_RDWR, &n2);
	if (!CHECK(lo2 >= 0 && n2 != n1))
		return;
	CHECK_ERR(ioctl(lo2, LOOP_SET_FD, lo2), EBADF);
	if (!CHECK(ioctl(lo2, LOOP_SET_FD, lo1) == 0))
		return;
	CHECK_EQ(dev_size(lo2), SIZE);
	CHECK(pread(lo2, buf, 4096, 12288) == 4096 && memcmp(buf, pattern + 12288, 4096) == 0);
	memset(buf, 'S', 4096);
	CHECK_EQ(pwrite(lo2, buf, 4096, 16384), 4096);
	CHECK(fsync(lo2) == 0 && fsync(lo1) == 0);
	CHECK(pread(file, buf + 4096, 4096, 16384) == 4096 && memcmp(buf, buf + 4096, 4096) == 0);
	CHECK(ioctl(lo2, LOOP_GET_STATUS64, &info) == 0 && fstat(lo1, &st) == 0);
	CHECK_EQ(info.lo_rdevice, st.st_rdev);
	CHECK_EQ(info.lo_inode, st.st_ino);
	CHECK_EQ(ioctl(lo2, LOOP_CLR_FD, 0), 0);
	CHECK_EQ(ioctl(lo1, LOOP_CLR_FD, 0), 0);
	close(lo2);
	close(lo1);
	close(file);
}

int main(void)
{
	int ctl = open("/dev/loop-control", O_RDWR), fd, n;

	if (ctl < 0) {
		utest_skip("loop devices", "no /dev/loop-control here");
		return utest_done();
	}
	for (int i = 0; i < SIZE; i++)
		pattern[i] = (char)(i * 7 + i / 4096);
	fd = open(IMG, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, pattern, SIZE) == SIZE);
	close(fd);
	set_fd(ctl);
	configure(ctl);
	stacked(ctl);
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	CHECK(n >= 0);
	CHECK_ERR(ioctl(ctl, LOOP_CTL_ADD, n), EEXIST);
	CHECK_ERR(ioctl(ctl, 0x4C99, 0), ENOSYS); /* Linux's answer there */
	unlink(IMG);
	close(ctl);
	return utest_done();
}
