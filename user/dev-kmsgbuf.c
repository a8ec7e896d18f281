/* Device memory mapped with VM_PFNMAP: /dev/kmsgbuf's frames have no struct page in use, its
 * fault() op installs the PTE itself (VM_FAULT_NOPAGE). What ring 3 writes the kernel reads
 * back; fork shares the frames (no copy-on-write); no reference count ever moves. Under
 * faultline only: Linux has no /dev/kmsgbuf. */
#define UTEST_NAME "dev-kmsgbuf"
#include "utest.h"
#include "vmstat.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define KMSGBUF_SUM 0x4b01
#define KMSGBUF_REFS 0x4b02
#define KMSGBUF_SIZE 0x4b03
#define VM_PFNMAP 0x400UL
#define VM_IO 0x4000UL

static uint64_t ask(int fd, unsigned long cmd)
{
	uint64_t v = 0;

	CHECK_EQ(ioctl(fd, cmd, &v), 0);
	return v;
}

static uint64_t fnv(const volatile uint8_t *p, size_t n)
{
	uint64_t v = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		v = (v ^ p[i]) * 0x100000001b3ULL;
	return v;
}

int main(void)
{
	int fd = open("/dev/kmsgbuf", O_RDWR), status;
	uint64_t size, refs;
	volatile uint8_t *p;
	long flt;
	pid_t pid;
	char c;

	if (!CHECK(on_faultline()) || !CHECK(fd >= 0))
		return utest_done();
	size = ask(fd, KMSGBUF_SIZE);
	refs = ask(fd, KMSGBUF_REFS);
	CHECK_EQ(size, 65536);
	CHECK_ERR(read(fd, &c, 1), EINVAL); /* device memory is reached through mmap only */
	CHECK(mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED);
	/* Twice the device's size: the second half is past its end. */
	p = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(p != MAP_FAILED))
		return utest_done();
	CHECK(!page_present((const void *)p)); /* nothing until the first touch */
	flt = minor_faults();
	for (uint64_t i = 0; i < size; i++)
		p[i] = (uint8_t)(i * 7 + (i >> 12));
	CHECK(minor_faults() - flt >= (long)(size / VM_PAGE)); /* one NOPAGE fault a page */
	CHECK_EQ(ask(fd, KMSGBUF_SUM), fnv(p, size)); /* the kernel sees what we wrote */
	{
		struct fl_page pg = fl_page_of((const void *)p);

		CHECK(pg.present && pg.writable && pg.pfn != 0);
		CHECK((pg.vm_flags & (VM_PFNMAP | VM_IO)) == (VM_PFNMAP | VM_IO));
		CHECK(!pg.anon && pg.count == 0 && pg.mapcount == 0); /* no struct page in use */
		CHECK_EQ(fl_page_of((const void *)(p + VM_PAGE)).pfn, pg.pfn + 1);
	}
	/* Past the device's end: SIGBUS. */
	pid = fork();
	if (pid == 0) {
		c = p[size];
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
	/* fork shares the frames: the child's write is the parent's. */
	pid = fork();
	if (pid == 0) {
		int ok = fl_page_of((const void *)p).pfn == fl_page_of((const void *)p).pfn &&
			 p[5] == (uint8_t)35;
		p[0] = 0xab;
		_exit(ok ? 0 : 1);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(p[0], 0xab);
	CHECK_EQ(ask(fd, KMSGBUF_SUM), fnv(p, size));
	/* Read-only, then writable again: written in place, never copied. */
	CHECK_EQ(mprotect((void *)p, size, PROT_READ), 0);
	CHECK_EQ(mprotect((void *)p, size, PROT_READ | PROT_WRITE), 0);
	p[1] = 0xcd;
	CHECK_EQ(ask(fd, KMSGBUF_SUM), fnv(p, size));
	CHECK_EQ(munmap((void *)p, 2 * size), 0);
	CHECK_EQ(ask(fd, KMSGBUF_REFS), refs); /* fork, mprotect, munmap, exit: no count moved */
	close(fd);
	return utest_done();
}
