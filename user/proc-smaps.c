/* proc-smaps: /proc/self/smaps, as Linux gives it. An anonymous mapping of 16 pages with 8
 * written: Size 64 kB, Rss, Pss, Private_Dirty and Anonymous 32 kB; after a fork the same 8
 * pages are shared with the child until it writes: Shared_Dirty 32 kB and Pss 16 kB; pages only
 * read map the zero page, which no count includes; an mlocked mapping's Locked is its Pss; a
 * file's pages read through a private mapping are resident but not Anonymous; every entry
 * starts with the line /proc/self/maps has for it and ends with VmFlags. */
#define _GNU_SOURCE
#define UTEST_NAME "proc-smaps"
#include "utest.h"
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG 4096
#define NPAGES 16

static char text[1 << 16];

/* The smaps entry of the VMA starting at addr, copied into entry: 1 if found. */
static int entry_of(void *addr, char *entry, size_t cap)
{
	char head[32];
	char *p, *end;

	if (utest_slurp("/proc/self/smaps", text, sizeof(text)) <= 0)
		return 0;
	snprintf(head, sizeof(head), "%lx-", (unsigned long)addr);
	for (p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, head, strlen(head)))
			break;
	if (!p)
		return 0;
	end = strstr(p, "VmFlags:");
	end = end ? strchr(end, '\n') : NULL;
	if (!end || (size_t)(end - p + 1) >= cap)
		return 0;
	memcpy(entry, p, (size_t)(end - p + 1));
	entry[end - p + 1] = '\0';
	return 1;
}

/* The kB of the line "name:" in an entry, or -1. */
static long kb(const char *entry, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = entry; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	return -1;
}

/* The entry's VmFlags has the code flag. */
static int has_flag(const char *entry, const char *flag)
{
	const char *v = strstr(entry, "VmFlags:");
	char word[8];

	snprintf(word, sizeof(word), " %s", flag);
	for (const char *p = v; p && (p = strstr(p, word)); p++)
		if (p[3] == ' ' || p[3] == '\n')
			return 1;
	return 0;
}

static char entry[8192];

/* n pages of private anonymous memory that are a VMA of their own: a PROT_NONE page on each
 * side keeps them from merging with a neighbour */
static char *own_vma(int n)
{
	char *m = mmap(NULL, (size_t)(n + 2) * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || mprotect(m + PG, (size_t)n * PG, PROT_READ | PROT_WRITE))
		return MAP_FAILED;
	return m + PG;
}

static void anonymous(void)
{
	char *m = own_vma(NPAGES);
	int go[2], done[2];
	volatile char sink = 0;
	pid_t pid;
	char c;

	CHECK(m != MAP_FAILED);
	for (int i = 0; i < 8; i++)
		m[i * PG] = 1;
	for (int i = 8; i < 12; i++) /* read only: the zero page */
		sink += m[i * PG];
	(void)sink;
	CHECK(entry_of(m, entry, sizeof(entry)));
	CHECK_EQ(kb(entry, "Size"), 64);
	CHECK_EQ(kb(entry, "KernelPageSize"), 4);
	CHECK_EQ(kb(entry, "Rss"), 32);
	CHECK_EQ(kb(entry, "Pss"), 32);
	CHECK_EQ(kb(entry, "Pss_Dirty"), 32);
	CHECK_EQ(kb(entry, "Private_Dirty"), 32);
	CHECK_EQ(kb(entry, "Private_Clean"), 0);
	CHECK_EQ(kb(entry, "Shared_Dirty"), 0);
	CHECK_EQ(kb(entry, "Anonymous"), 32);
	CHECK_EQ(kb(entry, "Swap"), 0);
	CHECK_EQ(kb(entry, "Locked"), 0);
	CHECK(kb(entry, "Referenced") >= 0 && kb(entry, "Referenced") <= 32);
	CHECK(has_flag(entry, "rd") && has_flag(entry, "wr") && has_flag(entry, "mr") &&
	      has_flag(entry, "mw") && has_flag(entry, "me") && !has_flag(entry, "ex") &&
	      !has_flag(entry, "sh"));

	/* A child shares the 8 pages until one side writes. */
	CHECK(pipe(go) == 0 && pipe(done) == 0);
	pid = fork();
	if (pid == 0) {
		close(done[0]);
		c = 1;
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	CHECK(pid > 0 && read(done[0], &c, 1) == 1);
	CHECK(entry_of(m, entry, sizeof(entry)));
	CHECK_EQ(kb(entry, "Rss"), 32);
	CHECK_EQ(kb(entry, "Shared_Dirty"), 32);
	CHECK_EQ(kb(entry, "Private_Dirty"), 0);
	CHECK_EQ(kb(entry, "Pss"), 16);
	m[0] = 2; /* a copy of its own again */
	CHECK(entry_of(m, entry, sizeof(entry)));
	CHECK_EQ(kb(entry, "Shared_Dirty"), 28);
	CHECK_EQ(kb(entry, "Private_Dirty"), 4);
	CHECK_EQ(kb(entry, "Pss"), 18);
	CHECK(write(go[1], &c, 1) == 1);
	CHECK(waitpid(pid, NULL, 0) == pid);
	CHECK(entry_of(m, entry, sizeof(entry)));
	CHECK_EQ(kb(entry, "Private_Dirty"), 32);
	CHECK_EQ(kb(entry, "Pss"), 32);
	close(go[0]), close(go[1]), close(done[0]), close(done[1]);
	CHECK_EQ(munmap(m - PG, (NPAGES + 2) * PG), 0);
}

static void locked(void)
{
	char *m = own_vma(4);

	CHECK(m != MAP_FAILED);
	if (mlock(m, 4 * PG) != 0) {
		utest_skip("Locked of an mlocked mapping", "mlock refused (RLIMIT_MEMLOCK)");
		munmap(m - PG, 6 * PG);
		return;
	}
	m[0] = m[PG] = m[2 * PG] = m[3 * PG] = 1;
	CHECK(entry_of(m, entry, sizeof(entry)));
	CHECK_EQ(kb(entry, "Rss"), 16);
	CHECK_EQ(kb(entry, "Locked"), 16);
	CHECK(has_flag(entry, "lo"));
	CHECK_EQ(munmap(m - PG, 6 * PG), 0);
}

static void file(void)
{
	char path[64], buf[PG];
	char *m;
	int fd;

	snprintf(path, sizeof(path), "/tmp/proc-smaps-%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 4; i++)
		CHECK_EQ(write(fd, buf, sizeof(buf)), PG);
	m = mmap(NULL, 4 * PG, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED);
	for (int i = 0; i < 4; i++)
		CHECK(m[i * PG] == 'x');
	CHECK(entry_of(m, entry, sizeof(entry)));
	CHECK(strstr(entry, path) != NULL); /* the maps line names the file */
	CHECK_EQ(kb(entry, "Rss"), 16);
	CHECK_EQ(kb(entry, "Anonymous"), 0);
	/* (clean or dirty: the cache's pages may not have reached the disk, or be in memory) */
	CHECK_EQ(kb(entry, "Shared_Clean") + kb(entry, "Private_Clean") +
		 kb(entry, "Shared_Dirty") + kb(entry, "Private_Dirty"), 16);
	CHECK_EQ(munmap(m, 4 * PG), 0);
	close(fd);
	CHECK_EQ(unlink(path), 0);
}

int main(void)
{
	mkdir("/tmp", 0777);
	anonymous();
	locked();
	file();
	return utest_done();
}
