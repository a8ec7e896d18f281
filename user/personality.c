/* personality: personality(2) as Linux answers it: PER_LINUX at start, 0xffffffff only asks,
 * any other value is taken (its low 32 bits) and the old one returned; READ_IMPLIES_EXEC makes
 * PROT_READ mappings executable (mmap and mprotect); fork keeps the persona, exec of a 64-bit
 * program keeps ADDR_NO_RANDOMIZE and drops READ_IMPLIES_EXEC. */
#define _GNU_SOURCE
#define UTEST_NAME "personality"
#include "utest.h"
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define QUERY 0xffffffffL
#define PER_LINUX32 0x0008
#define ADDR_NO_RANDOMIZE_ 0x0040000L
#define READ_IMPLIES_EXEC_ 0x0400000L

static long persona(long p)
{
	return syscall(SYS_personality, p);
}

/* the permissions /proc/self/maps shows for the VMA at addr ("r-xp"), or "" */
static const char *perms(void *addr)
{
	static char buf[16384], out[5];
	char want[32];

	out[0] = '\0';
	snprintf(want, sizeof(want), "%08lx-", (unsigned long)addr);
	if (utest_slurp("/proc/self/maps", buf, sizeof(buf)) <= 0)
		return out;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (strncmp(l, want, strlen(want)) == 0)
			snprintf(out, sizeof(out), "%.4s", strchr(l, ' ') + 1);
	return out;
}

static void read_implies_exec(void)
{
	void *a, *b;

	CHECK_EQ(persona(READ_IMPLIES_EXEC_), 0);
	a = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(a != MAP_FAILED && b != MAP_FAILED);
	CHECK(strcmp(perms(a), "r-xp") == 0);
	CHECK(strcmp(perms(b), "rwxp") == 0);
	CHECK_EQ(mprotect(b, 4096, PROT_READ), 0);
	CHECK(strcmp(perms(b), "r-xp") == 0);
	CHECK_EQ(persona(0), READ_IMPLIES_EXEC_);
	CHECK_EQ(mprotect(b, 4096, PROT_READ), 0);
	CHECK(strcmp(perms(b), "r--p") == 0); /* the control */
	munmap(a, 4096);
	munmap(b, 4096);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "--exec") == 0) /* after the exec below */
		return persona(QUERY) == strtol(argv[2], NULL, 0) ? 0 : 1;
	CHECK_EQ(persona(QUERY), 0); /* PER_LINUX, no flags */
	CHECK_EQ(persona(QUERY), 0);
	CHECK_EQ(persona(ADDR_NO_RANDOMIZE_), 0);
	CHECK_EQ(persona(QUERY), ADDR_NO_RANDOMIZE_);
	CHECK_EQ(persona(PER_LINUX32), ADDR_NO_RANDOMIZE_);
	CHECK_EQ(persona(0x12345678), PER_LINUX32); /* anything is taken */
	CHECK_EQ(persona(0x100000000L), 0x12345678); /* an unsigned int: this is 0 */
	CHECK_EQ(persona(QUERY), 0);
	read_implies_exec();
	CHECK_EQ(persona(ADDR_NO_RANDOMIZE_ | READ_IMPLIES_EXEC_), 0);
	pid = fork();
	if (pid == 0)
		_exit(persona(QUERY) == (ADDR_NO_RANDOMIZE_ | READ_IMPLIES_EXEC_) ? 0 : 1);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pid = fork();
	if (pid == 0) {
		execl(argv[0], argv[0], "--exec", "0x40000", (char *)NULL);
		_exit(2);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(persona(0), ADDR_NO_RANDOMIZE_ | READ_IMPLIES_EXEC_);
	return utest_done();
}
