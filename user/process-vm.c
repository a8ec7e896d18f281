/* process-vm: process_vm_readv(2) and process_vm_writev(2) as Linux answers them: another
 * process's memory read and written through vectors on both sides, copy-on-write broken in
 * the other process only, partial transfers where a remote page is missing or a local buffer
 * faults, untouched pages read as zeroes, and EINVAL, EFAULT, ESRCH, EPERM (a user who is not
 * root and another user's process, or its own whose ids changed: not dumpable until it execs
 * or prctl(PR_SET_DUMPABLE) says so). Run as root. */
#define _GNU_SOURCE
#define UTEST_NAME "process-vm"
#include "utest.h"
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define PG 4096
#define NOBODY 65534

static long vm_read(pid_t pid, struct iovec *l, long nl, struct iovec *r, long nr)
{
	return syscall(SYS_process_vm_readv, pid, l, nl, r, nr, 0L);
}

static long vm_write(pid_t pid, struct iovec *l, long nl, struct iovec *r, long nr)
{
	return syscall(SYS_process_vm_writev, pid, l, nl, r, nr, 0L);
}

static char *data; /* 4 pages: 0-1 data, 2 read-only, 3 never touched */
static char *hole; /* a page unmapped in the child */

/* The child: its own copy of data, page 2 made read-only, hole unmapped; it waits for a byte
 * from the parent, then exits 0 if page 0 holds what the parent wrote */
static pid_t start_child(int *go)
{
	int to_child[2], ready[2];
	pid_t pid;
	char c;

	if (pipe(to_child) || pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(to_child[1]);
		for (int i = 0; i < 2 * PG; i++)
			data[i] = (char)('a' + i % 26);
		mprotect(data + 2 * PG, PG, PROT_READ);
		munmap(hole, PG);
		if (write(ready[1], "r", 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(3);
		_exit(memcmp(data + 10, "WRITTEN", 7) == 0 && data[PG + 5] == 'X' ? 0 : 1);
	}
	close(to_child[0]);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		return -1;
	close(ready[0]);
	*go = to_child[1];
	return pid;
}

static void read_write(pid_t pid)
{
	char a[5], b[PG], w[7] = "WRITTEN", x = 'X', *none;
	struct iovec l[2] = { { a, 5 }, { b, 3 } }, r[2] = { { data + 1, 4 }, { data + PG, 4 } };
	struct iovec l2, r2[2];

	CHECK_EQ(vm_read(pid, l, 2, r, 2), 8); /* 4 + 4 bytes into 5 + 3 */
	CHECK(memcmp(a, "bcdeo", 5) == 0 && memcmp(b, "pqr", 3) == 0); /* page 1: 'o' on */
	CHECK_EQ(data[1], 0); /* ours is untouched */
	/* a write: the child's copy-on-write page, not ours */
	l2 = (struct iovec){ w, 7 };
	r2[0] = (struct iovec){ data + 10, 7 };
	CHECK_EQ(vm_write(pid, &l2, 1, r2, 1), 7);
	CHECK_EQ(data[10], 0);
	l2 = (struct iovec){ &x, 1 };
	r2[0] = (struct iovec){ data + PG + 5, 1 };
	CHECK_EQ(vm_write(pid, &l2, 1, r2, 1), 1);
	/* partial: a missing remote page ends the copy; nothing at all is EFAULT */
	l2 = (struct iovec){ b, PG };
	r2[0] = (struct iovec){ data + PG, PG };
	r2[1] = (struct iovec){ hole, PG };
	CHECK_EQ(vm_read(pid, &l2, 1, r2, 2), PG);
	CHECK_ERR(vm_read(pid, &l2, 1, r2 + 1, 1), EFAULT);
	/* the read-only page: read, not written */
	r2[0] = (struct iovec){ data + 2 * PG, 8 };
	CHECK_EQ(vm_read(pid, &l2, 1, r2, 1), 8);
	CHECK_ERR(vm_write(pid, &l2, 1, r2, 1), EFAULT);
	/* a page nobody touched: zeroes */
	memset(b, 1, 16);
	r2[0] = (struct iovec){ data + 3 * PG, 16 };
	CHECK_EQ(vm_read(pid, &l2, 1, r2, 1), 16);
	CHECK(b[0] == 0 && b[15] == 0);
	/* a local buffer that faults: what came before its bad page */
	none = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(none != MAP_FAILED);
	mprotect(none + PG, PG, PROT_NONE);
	l2 = (struct iovec){ none + PG - 4, 8 };
	r2[0] = (struct iovec){ data, 8 };
	CHECK_EQ(vm_read(pid, &l2, 1, r2, 1), 4);
	l2 = (struct iovec){ none + PG, 8 };
	CHECK_ERR(vm_read(pid, &l2, 1, r2, 1), EFAULT);
	l2 = (struct iovec){ NULL, 8 };
	CHECK_ERR(vm_read(pid, &l2, 1, r2, 1), EFAULT);
	munmap(none, 2 * PG);
}

static void errors(pid_t pid, pid_t gone)
{
	static struct iovec many[1025];
	char b[8];
	struct iovec l = { b, 8 }, r = { data, 8 }, zero = { b, 0 };

	for (int i = 0; i < 1025; i++)
		many[i] = (struct iovec){ b, 1 };
	CHECK_ERR(syscall(SYS_process_vm_readv, pid, &l, 1, &r, 1, 1L), EINVAL);
	CHECK_ERR(vm_read(pid, many, 1025, &r, 1), EINVAL);
	CHECK_ERR(vm_read(pid, &l, 1, many, 1025), EINVAL);
	CHECK_ERR(vm_read(pid, (struct iovec *)8, 1, &r, 1), EFAULT);
	CHECK_ERR(vm_read(pid, &l, 1, (struct iovec *)8, 1), EFAULT);
	r.iov_len = (size_t)-1;
	CHECK_ERR(vm_read(pid, &l, 1, &r, 1), EINVAL);
	r.iov_len = 8;
	CHECK_ERR(vm_read(gone, &l, 1, &r, 1), ESRCH);
	CHECK_ERR(vm_read(0, &l, 1, &r, 1), ESRCH);
	CHECK_ERR(vm_read(-1, &l, 1, &r, 1), ESRCH);
	/* nothing to move: 0 before the process is looked for */
	CHECK_EQ(vm_read(gone, &zero, 1, &r, 1), 0);
	CHECK_EQ(vm_read(gone, &l, 1, &zero, 1), 0);
	CHECK_EQ(vm_read(gone, &l, 0, &r, 1), 0);
	/* oneself */
	data[0] = 's';
	CHECK_EQ(vm_read(getpid(), &l, 1, &r, 1), 8);
	CHECK_EQ(b[0], 's');
	data[0] = 0;
}

/* as nobody, after an exec (a process whose ids changed cannot be read until it execs: Linux's
 * dumpable rule): root's process is another user's; its own child is not */
static int as_nobody(pid_t root)
{
	char b[8], mine[8] = "nobody!";
	struct iovec l = { b, 8 }, r = { mine, 8 };
	int fails = 0, status;
	pid_t child;

	if (getuid() != NOBODY || prctl(PR_GET_DUMPABLE) != 1) /* exec made it dumpable */
		return 100;
	fails += vm_read(root, &l, 1, &r, 1) != -1 || errno != EPERM;
	fails += vm_write(root, &l, 1, &r, 1) != -1 || errno != EPERM;
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	fails += vm_read(child, &l, 1, &r, 1) != 8 || memcmp(b, "nobody!", 8) != 0;
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return fails;
}

/* nobody's child forked before and after PR_SET_DUMPABLE: read 8 bytes of it, or -errno */
static long read_child(void)
{
	char b[8], mine[8] = "child!!";
	struct iovec l = { b, 8 }, r = { mine, 8 };
	int status;
	long n;
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	n = vm_read(child, &l, 1, &r, 1);
	if (n < 0)
		n = -errno;
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return n;
}

/* root becomes nobody without an exec: not dumpable, so its own children neither */
static int setuid_dumpable(void)
{
	int fails = 0;

	if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
		return 100;
	fails += prctl(PR_GET_DUMPABLE) != 0;
	fails += read_child() != -EPERM;
	fails += prctl(PR_SET_DUMPABLE, 2) != -1 || errno != EINVAL;
	fails += prctl(PR_SET_DUMPABLE, 1) != 0;
	fails += prctl(PR_GET_DUMPABLE) != 1;
	fails += read_child() != 8;
	return fails;
}

int main(int argc, char **argv)
{
	char root[16];
	int go, status;
	pid_t pid, gone;

	if (argc > 2 && strcmp(argv[1], "--nobody") == 0)
		return as_nobody(atoi(argv[2]));
	if (geteuid() != 0) {
		fprintf(stderr, "%s: must run as root\n", UTEST_NAME);
		return 1;
	}
	data = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hole = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (data == MAP_FAILED || hole == MAP_FAILED)
		return 1;
	data[0] = 0; /* our own pages, which the child then copies */
	data[PG] = 0;
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	pid = start_child(&go);
	CHECK(pid > 0);
	if (pid > 0) {
		read_write(pid);
		errors(pid, gone);
		CHECK_EQ(write(go, "g", 1), 1); /* the child checks what we wrote */
		close(go);
		CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0);
	}
	CHECK_EQ(prctl(PR_GET_DUMPABLE), 1);
	pid = fork();
	if (pid == 0)
		_exit(setuid_dumpable());
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(root, sizeof(root), "%d", (int)getpid());
	pid = fork();
	if (pid == 0) {
		if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			_exit(101);
		execl(argv[0], argv[0], "--nobody", root, (char *)NULL);
		_exit(102);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return utest_done();
}
