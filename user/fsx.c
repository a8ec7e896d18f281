/* fsx: a file exerciser in the style of fsx (Apple's, then Linux's xfstests): random reads,
 * writes, truncates up and down, mapped reads and mapped writes with msync, on one file, each
 * checked against a model in memory; the same seed gives the same operations on every kernel.
 * usage: fsx [-N ops] [-S seed] [-l maxlen] [-o maxop] [-R] [-W] [-u] FILE
 *   -R no mapped reads, -W no mapped writes, -u the file removed at the end. On a mismatch:
 *   the operation's number, the last operations and the differing bytes; exit 1. At the end:
 *   the size and CRC-32 of the file. */
#define _GNU_SOURCE
#define UTEST_NAME "fsx"
#include <stdint.h>
#include <sys/mman.h>

#include "utest.h"

enum { OP_READ, OP_WRITE, OP_MAPREAD, OP_MAPWRITE, OP_TRUNCATE, OP_N };
static const char *const op_name[] = { "read", "write", "mapread", "mapwrite", "truncate" };

static unsigned char *good, *temp;
static long file_size, maxlen = 256 * 1024, maxop = 64 * 1024, page;
static int fd;
static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* the last operations, for the report of a mismatch */
#define HISTORY 16
static struct {
	long n, off, len, size;
	int op;
} hist[HISTORY];

static void report(long n, long off, long len, const unsigned char *got)
{
	int shown = 0;

	fprintf(stderr, "fsx: operation %ld: mismatch in %ld bytes at %ld (file size %ld)\n", n,
		len, off, file_size);
	for (long i = n > HISTORY ? n - HISTORY + 1 : 1; i <= n; i++) {
		int h = (int)(i % HISTORY);

		if (hist[h].op == OP_TRUNCATE)
			fprintf(stderr, "fsx:   op %ld truncate to %ld, size %ld before\n",
				hist[h].n, hist[h].off, hist[h].size);
		else
			fprintf(stderr, "fsx:   op %ld %s off %ld len %ld, size %ld before\n",
				hist[h].n, op_name[hist[h].op], hist[h].off, hist[h].len,
				hist[h].size);
	}
	for (long i = 0; i < len && shown < 32; i++)
		if (got[i] != good[off + i]) {
			fprintf(stderr, "fsx:   offset %ld: 0x%02x, the model 0x%02x\n", off + i,
				got[i], good[off + i]);
			shown++;
		}
	exit(1);
}

static void check(long n, long off, long len, const unsigned char *got)
{
	if (memcmp(got, good + off, (size_t)len))
		report(n, off, len, got);
}

static void do_read(long n, long off, long len)
{
	long r = pread(fd, temp, (size_t)len, off);

	if (r != len) {
		fprintf(stderr, "fsx: operation %ld: pread(%ld at %ld) = %ld: %s\n", n, len, off, r,
			strerror(errno));
		exit(1);
	}
	check(n, off, len, temp);
}

static void do_mapread(long n, long off, long len)
{
	long pg = off % page;
	unsigned char *m = mmap(NULL, (size_t)(len + pg), PROT_READ, MAP_SHARED, fd, off - pg);

	if (m == MAP_FAILED) {
		fprintf(stderr, "fsx: operation %ld: mmap: %s\n", n, strerror(errno));
		exit(1);
	}
	check(n, off, len, m + pg);
	munmap(m, (size_t)(len + pg));
}

static void fill(long off, long len)
{
	for (long i = 0; i < len; i++)
		good[off + i] = (unsigned char)next();
}

static void do_write(long n, long off, long len)
{
	fill(off, len);
	if (pwrite(fd, good + off, (size_t)len, off) != len) {
		fprintf(stderr, "fsx: operation %ld: pwrite(%ld at %ld): %s\n", n, len, off,
			strerror(errno));
		exit(1);
	}
	if (off + len > file_size)
		file_size = off + len;
}

static void do_truncate(long n, long size)
{
	if (size < file_size)
		memset(good + size, 0, (size_t)(file_size - size));
	if (ftruncate(fd, size)) {
		fprintf(stderr, "fsx: operation %ld: ftruncate(%ld): %s\n", n, size,
			strerror(errno));
		exit(1);
	}
	file_size = size;
}

/* the file grows first (a store past the end would be SIGBUS), then the stores and msync */
static void do_mapwrite(long n, long off, long len)
{
	long pg = off % page;
	unsigned char *m;

	if (off + len > file_size)
		do_truncate(n, off + len);
	m = mmap(NULL, (size_t)(len + pg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off - pg);
	if (m == MAP_FAILED) {
		fprintf(stderr, "fsx: operation %ld: mmap: %s\n", n, strerror(errno));
		exit(1);
	}
	fill(off, len);
	memcpy(m + pg, good + off, (size_t)len);
	if (msync(m, (size_t)(len + pg), MS_SYNC)) {
		fprintf(stderr, "fsx: operation %ld: msync: %s\n", n, strerror(errno));
		exit(1);
	}
	munmap(m, (size_t)(len + pg));
}

int main(int argc, char **argv)
{
	long ops = 10000, seed = 1, count[OP_N] = { 0 };
	int c, no_mapread = 0, no_mapwrite = 0, remove_file = 0;
	struct stat st;

	while ((c = getopt(argc, argv, "N:S:l:o:RWu")) != -1) {
		switch (c) {
		case 'N': ops = atol(optarg); break;
		case 'S': seed = atol(optarg); break;
		case 'l': maxlen = atol(optarg); break;
		case 'o': maxop = atol(optarg); break;
		case 'R': no_mapread = 1; break;
		case 'W': no_mapwrite = 1; break;
		case 'u': remove_file = 1; break;
		default: optind = argc + 1;
		}
	}
	if (optind != argc - 1 || maxlen < 2 || maxop < 1) {
		fprintf(stderr, "usage: fsx [-N ops] [-S seed] [-l maxlen] [-o maxop] [-R] [-W] "
				"[-u] FILE\n");
		return 2;
	}
	page = sysconf(_SC_PAGESIZE);
	rng = (uint64_t)seed * 0x9e3779b97f4a7c15ULL + 1;
	good = calloc((size_t)maxlen, 1);
	temp = malloc((size_t)maxlen);
	fd = open(argv[optind], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (!good || !temp || fd < 0) {
		fprintf(stderr, "fsx: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	for (long n = 1; n <= ops; n++) {
		int op = (int)(next() % OP_N);
		long off = (long)(next() % (uint64_t)maxlen);
		long len = (long)(next() % (uint64_t)maxop) + 1;
		int h = (int)(n % HISTORY);

		if ((op == OP_MAPREAD && no_mapread) || (op == OP_MAPWRITE && no_mapwrite))
			op = op == OP_MAPREAD ? OP_READ : OP_WRITE;
		if (op == OP_READ || op == OP_MAPREAD) {
			if (file_size == 0)
				continue;
			off %= file_size;
			len = len < file_size - off ? len : file_size - off;
		} else if (op != OP_TRUNCATE) {
			len = len < maxlen - off ? len : maxlen - off;
		}
		hist[h].n = n, hist[h].op = op, hist[h].off = off, hist[h].len = len;
		hist[h].size = file_size;
		count[op]++;
		switch (op) {
		case OP_READ: do_read(n, off, len); break;
		case OP_WRITE: do_write(n, off, len); break;
		case OP_MAPREAD: do_mapread(n, off, len); break;
		case OP_MAPWRITE: do_mapwrite(n, off, len); break;
		case OP_TRUNCATE: do_truncate(n, off); break;
		}
		if (fstat(fd, &st) || st.st_size != file_size) {
			fprintf(stderr, "fsx: operation %ld (%s): st_size %lld, the model %ld\n", n,
				op_name[op], (long long)st.st_size, file_size);
			exit(1);
		}
	}
	if (file_size)
		do_read(ops + 1, 0, file_size);
	CHECK_EQ(fsync(fd), 0);
	CHECK_EQ(close(fd), 0);
	printf("fsx: %ld operations (%ld reads, %ld writes, %ld mapped reads, %ld mapped writes, "
	       "%ld truncates), seed %ld\n", ops, count[OP_READ], count[OP_WRITE],
	       count[OP_MAPREAD], count[OP_MAPWRITE], count[OP_TRUNCATE], seed);
	printf("fsx: %s: size %ld, crc32 %08x\n", argv[optind], file_size,
	       utest_crc32(0, good, (size_t)file_size));
	if (remove_file)
		CHECK_EQ(unlink(argv[optind]), 0);
	return utest_done();
}
