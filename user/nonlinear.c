/* remap_file_pages: one shared file VMA whose pages are in any order of the file. Every byte
 * is checked after each rearrangement; natively Linux emulates the call (one VMA per run of
 * pages, since 4.0), and the results must be the same. */
#define UTEST_NAME "nonlinear"
#define _GNU_SOURCE
#include "utest.h"
#include "vmstat.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NP 16
#define PG 4096

static char path[64];

/* Byte j of file page i. */
static unsigned char val(int i, int j)
{
	return (unsigned char)(i * 16 + (j % 13) + 1);
}

/* Does mapped page slot show file page pg? */
static int shows(volatile unsigned char *p, int slot, int pg)
{
	for (int j = 0; j < PG; j++)
		if (p[slot * PG + j] != val(pg, j))
			return 0;
	return 1;
}

static int child_status(volatile unsigned char *addr)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		(void)*addr;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return status;
}

int main(void)
{
	unsigned char buf[PG];
	volatile unsigned char *p, *q;
	int fd, status, ok = 1, made_tmp;
	pid_t pid;

	made_tmp = mkdir("/tmp", 0777) == 0; /* faultline's ramdisk may have none */
	snprintf(path, sizeof(path), "/tmp/nonlinear-%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!CHECK(fd >= 0))
		return utest_done();
	for (int i = 0; i < NP; i++) {
		for (int j = 0; j < PG; j++)
			buf[j] = val(i, j);
		CHECK_EQ(write(fd, buf, PG), PG);
	}
	p = mmap(NULL, NP * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(p != MAP_FAILED))
		return utest_done();

	/* Reverse the pages. */
	for (int i = 0; i < NP; i++)
		CHECK_EQ(remap_file_pages((void *)(p + i * PG), PG, 0, NP - 1 - i, 0), 0);
	for (int i = 0; i < NP; i++)
		ok &= shows(p, i, NP - 1 - i);
	CHECK(ok);
	/* One page remapped twice: the second wins. */
	CHECK_EQ(remap_file_pages((void *)p, PG, 0, 3, 0), 0);
	CHECK_EQ(remap_file_pages((void *)p, PG, 0, 7, 0), 0);
	CHECK(shows(p, 0, 7));
	/* A write through a remapped page lands at its file offset. */
	p[1 * PG + 5] = 0xee; /* slot 1 shows file page 14 */
	CHECK_EQ(pread(fd, buf, 16, 14 * PG), 16);
	CHECK_EQ(buf[5], 0xee);
	p[1 * PG + 5] = val(14, 5);
	/* The child sees the same layout. */
	pid = fork();
	if (pid == 0)
		_exit(shows(p, 0, 7) && shows(p, 1, 14) && shows(p, 15, 0) ? 0 : 1);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* MAP_NONBLOCK: rearranged, not yet present. */
	CHECK_EQ(remap_file_pages((void *)(p + 2 * PG), PG, 0, 9, MAP_NONBLOCK), 0);
	CHECK(!page_present((void *)(p + 2 * PG)));
	CHECK(shows(p, 2, 9));
	CHECK(page_present((void *)(p + 2 * PG)));
	/* Truncate below a remapped page's offset: that page is gone (SIGBUS), the rest stays. */
	CHECK_EQ(ftruncate(fd, 12 * PG), 0);
	status = child_status(p + 1 * PG); /* slot 1 shows file page 14, now past EOF */
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
	status = child_status(p + 0 * PG); /* file page 7: still there */
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(shows(p, 0, 7));

	/* Refused: prot != 0, a range across the VMA's end, private and anonymous mappings. */
	CHECK_ERR(remap_file_pages((void *)p, PG, PROT_READ, 1, 0), EINVAL);
	CHECK_ERR(remap_file_pages((void *)(p + (NP - 1) * PG), 2 * PG, 0, 1, 0), EINVAL);
	q = mmap(NULL, 2 * PG, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(q != MAP_FAILED);
	CHECK_ERR(remap_file_pages((void *)q, PG, 0, 1, 0), EINVAL);
	munmap((void *)q, 2 * PG);
	q = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(q != MAP_FAILED);
	CHECK_ERR(remap_file_pages((void *)q, PG, 0, 1, 0), EINVAL);
	munmap((void *)q, 2 * PG);
	if (on_faultline()) { /* device memory: its op needs the address, so never nonlinear */
		int dfd = open("/dev/kmsgbuf", O_RDWR);

		q = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
		CHECK(dfd >= 0 && q != MAP_FAILED);
		CHECK_ERR(remap_file_pages((void *)q, PG, 0, 1, 0), EINVAL);
		munmap((void *)q, 2 * PG);
		close(dfd);
	}
	CHECK_EQ(munmap((void *)p, NP * PG), 0);
	close(fd);
	CHECK_EQ(unlink(path), 0);
	if (made_tmp)
		rmdir("/tmp"); /* only if this program made it: its inode's frame comes back */
	return utest_done();
}
