/* What a file system hands back, printed for a host to compare (tests/boot/ext2-read.sh):
 *   fsread ls DIR     each entry getdents64 gives, "ino type name", in its order, asked for
 *                     in 256-byte gulps so that the directory is resumed from f_pos many times;
 *                     then "end" or the error that stopped it (getdents: Input/output error)
 *   fsread hash FILE  the file's FNV-1a hash through mmap (its pages come in by page faults)
 *                     and then through read(): "FILE SIZE MMAPHASH READHASH"
 *   fsread bmap FILE BLOCK...  FIBMAP: the disk block holding each block of the file (0: a
 *                     hole), "FILE BLOCK DISKBLOCK"
 *   fsread same A B   are the names one file to the kernel? A write lock taken through A (an
 *                     open file description lock) is seen from B only if they share the
 *                     inode: "A B: one inode" or "A B: two inodes"
 *   fsread ra FILE    read-ahead of a file nothing has read yet (at least 1200 pages): how
 *                     many of its pages are cached (mincore) after each of: nothing, a fault
 *                     on page 0, one on page 100 (each reads the window around it), one on
 *                     page 1000 under MADV_RANDOM (that page alone), a pread of page 600 (alone:
 *                     not after the last read), then of page 601 (next: a window of 4 starts)
 *   fsread setra DEV SECTORS  the disk's read-ahead (BLKRASET, for files opened from then on),
 *                     then "DEV ra SECTORS" as BLKRAGET reads it back
 * Exit 0, or 1 when a call fails. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int ls(const char *path)
{
	char buf[256] __attribute__((aligned(8)));
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	long n;

	if (fd < 0) {
		printf("fsread: %s: open: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);

			printf("%llu %u %s\n", (unsigned long long)d->d_ino, d->d_type, d->d_name);
			off += d->d_reclen;
		}
	}
	if (n < 0)
		printf("fsread: %s: getdents: %s\n", path, strerror(errno));
	else
		printf("fsread: %s: end\n", path);
	close(fd);
	return n < 0;
}

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

#define FNV_START 0xcbf29ce484222325ULL

static int hash(const char *path)
{
	static unsigned char buf[65536];
	uint64_t hm = FNV_START, hr = FNV_START;
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *map = NULL;
	long n;

	if (fd < 0 || fstat(fd, &st)) {
		printf("fsread: %s: open: %s\n", path, strerror(errno));
		return 1;
	}
	if (st.st_size) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			printf("fsread: %s: mmap: %s\n", path, strerror(errno));
			return 1;
		}
		hm = fnv(hm, map, (size_t)st.st_size);
		munmap(map, (size_t)st.st_size);
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		hr = fnv(hr, buf, (size_t)n);
	if (n < 0) {
		printf("fsread: %s: read: %s\n", path, strerror(errno));
		return 1;
	}
	printf("%s %lld %016llx %016llx\n", path, (long long)st.st_size, (unsigned long long)hm,
	       (unsigned long long)hr);
	close(fd);
	return 0;
}

#define FIBMAP 1

static int bmap(const char *path, char **blocks)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		printf("fsread: %s: open: %s\n", path, strerror(errno));
		return 1;
	}
	for (; *blocks; blocks++) {
		int block = atoi(*blocks);

		if (ioctl(fd, FIBMAP, &block)) {
			printf("fsread: %s: FIBMAP %s: %s\n", path, *blocks, strerror(errno));
			return 1;
		}
		printf("%s %s %d\n", path, *blocks, block);
	}
	close(fd);
	return 0;
}

#ifndef F_OFD_SETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#endif

static int same(const char *a, const char *b)
{
	struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fa = open(a, O_RDWR), fb = open(b, O_RDWR);

	if (fa < 0)
		fa = open(a, O_RDONLY), lock.l_type = F_RDLCK; /* a read-only mount */
	if (fb < 0)
		fb = open(b, O_RDONLY);
	if (fa < 0 || fb < 0 || fcntl(fa, F_OFD_SETLK, &lock)) {
		printf("fsread: %s %s: %s\n", a, b, strerror(errno));
		return 1;
	}
	lock.l_type = F_WRLCK; /* a writer through b: does a's lock stand in its way? */
	if (fcntl(fb, F_OFD_GETLK, &lock)) {
		printf("fsread: %s %s: F_OFD_GETLK: %s\n", a, b, strerror(errno));
		return 1;
	}
	printf("%s %s: %s\n", a, b, lock.l_type == F_UNLCK ? "two inodes" : "one inode");
	close(fa);
	close(fb);
	return 0;
}

/* Pages of the mapping at map (pages long) that are in the page cache. */
static long resident(void *map, size_t pages)
{
	unsigned char vec[4096];
	long n = 0;

	if (pages > sizeof(vec) || mincore(map, pages << 12, vec))
		return -1;
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n;
}

static int ra(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	size_t pages;
	volatile char *map;
	char c;

	if (fd < 0 || fstat(fd, &st) || st.st_size < 1200 << 12) {
		printf("fsread: %s: %s\n", path, fd < 0 ? strerror(errno) : "too small");
		return 1;
	}
	pages = (size_t)(st.st_size + 4095) >> 12;
	pages = pages > 4096 ? 4096 : pages;
	map = mmap(NULL, pages << 12, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	printf("%s cold: %ld\n", path, resident((void *)map, pages));
	c = map[0];
	printf("%s fault 0: %ld\n", path, resident((void *)map, pages));
	c = map[100 << 12];
	printf("%s fault 100: %ld\n", path, resident((void *)map, pages));
	if (madvise((void *)(map + (1000 << 12)), 4096, MADV_RANDOM))
		return 1;
	c = map[1000 << 12];
	printf("%s random fault 1000: %ld\n", path, resident((void *)map, pages));
	if (pread(fd, &c, 1, 600 << 12) != 1)
		return 1;
	printf("%s pread 600: %ld\n", path, resident((void *)map, pages));
	if (pread(fd, &c, 1, 601 << 12) != 1)
		return 1;
	printf("%s pread 601: %ld\n", path, resident((void *)map, pages));
	munmap((void *)map, pages << 12);
	close(fd);
	return 0;
}

#ifndef BLKRASET
#define BLKRASET 0x1262
#define BLKRAGET 0x1263
#endif

static int setra(const char *dev, const char *sectors)
{
	int fd = open(dev, O_RDONLY);
	long got = -1;

	if (fd < 0 || ioctl(fd, BLKRASET, strtoul(sectors, NULL, 0)) || ioctl(fd, BLKRAGET, &got)) {
		printf("fsread: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	printf("%s ra %ld\n", dev, got);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc >= 4 && !strcmp(argv[1], "bmap"))
		return bmap(argv[2], argv + 3);
	if (argc == 4 && !strcmp(argv[1], "same"))
		return same(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "ra"))
		return ra(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "setra"))
		return setra(argv[2], argv[3]);
	if (argc < 3 || (strcmp(argv[1], "ls") && strcmp(argv[1], "hash"))) {
		fprintf(stderr, "usage: fsread ls DIR... | fsread hash FILE... | "
				"fsread bmap FILE BLOCK... | fsread same A B | fsread ra FILE | "
				"fsread setra DEV SECTORS\n");
		return 2;
	}
	for (int i = 2; i < argc; i++)
		rc |= argv[1][0] == 'l' ? ls(argv[i]) : hash(argv[i]);
	return rc;
}
