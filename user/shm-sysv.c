/* shm-sysv: System V shared memory as Linux answers: shmget's keys, flags and size checks,
 * shmat at a chosen or free address (SHM_RND, SHM_RDONLY, alignment), shmdt, shmctl's
 * IPC_STAT/IPC_SET/IPC_RMID, shm_nattch across fork, exec and exit, and a removed segment
 * that lives until its last detach. Checked against Linux natively. */
#define _GNU_SOURCE
#define UTEST_NAME "shm-sysv"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define PG 4096

/* shm_nattch of id, or -1 if IPC_STAT fails. */
static long nattch(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) ? -1 : (long)ds.shm_nattch;
}

static sigjmp_buf env;

static void on_segv(int sig)
{
	siglongjmp(env, sig);
}

/* Write v to *p: 0, or the signal that stopped it. */
static int try_write(volatile char *p, char v)
{
	int sig = sigsetjmp(env, 1);

	if (sig)
		return sig;
	*p = v;
	return 0;
}

/* The exec'd image: its parent's attach was dropped by exec, so only the parent's is left. */
static int exec_child(int id, long want)
{
	return nattch(id) == want ? 0 : 1;
}

static void gets_and_errors(void)
{
	key_t key = 0x5eed0000 + (getpid() & 0xffff);
	int id, id2, id3;

	shmctl(shmget(key, PG, 0), IPC_RMID, NULL); /* a leftover from an earlier run */
	CHECK_ERR(shmget(key, PG, 0600), ENOENT);
	id = shmget(key, 3 * PG + 100, IPC_CREAT | IPC_EXCL | 0600);
	CHECK(id >= 0);
	CHECK_EQ(shmget(key, PG, 0), id);
	CHECK_EQ(shmget(key, 0, IPC_CREAT), id); /* size 0 is fine for an existing one */
	CHECK_ERR(shmget(key, PG, IPC_CREAT | IPC_EXCL | 0600), EEXIST);
	CHECK_ERR(shmget(key, 4 * PG, 0600), EINVAL);	 /* larger than the segment */
	CHECK_ERR(shmget(IPC_PRIVATE, 0, 0600), EINVAL); /* below SHMMIN */
	CHECK_ERR(shmget(key + 1, 0, IPC_CREAT | 0600), EINVAL);
	CHECK_ERR(shmget(IPC_PRIVATE, (size_t)-1, 0600), EINVAL); /* above SHMMAX */
	id2 = shmget(IPC_PRIVATE, PG, 0600);
	CHECK(id2 >= 0 && id2 != id);
	id3 = shmget(IPC_PRIVATE, PG, 0600);
	CHECK(id3 >= 0 && id3 != id2); /* IPC_PRIVATE: always a new one */
	CHECK_EQ(shmctl(id3, IPC_RMID, NULL), 0);
	CHECK_EQ(shmctl(id2, IPC_RMID, NULL), 0);
	CHECK_ERR(shmctl(id2, IPC_RMID, NULL), EINVAL); /* gone: nobody attached */
	CHECK_EQ(shmctl(id, IPC_RMID, NULL), 0);
	CHECK_ERR(shmget(key, PG, 0), ENOENT);
	CHECK_ERR(shmat(-1, NULL, 0), EINVAL);
	CHECK_ERR(shmat(id, NULL, 0), EINVAL);
	CHECK_ERR(shmctl(-1, IPC_STAT, NULL), EINVAL);
	CHECK_ERR(shmctl(id, IPC_STAT, NULL), EINVAL);
}

static void attaches(const char *self)
{
	int id = shmget(IPC_PRIVATE, 2 * PG + 1, IPC_CREAT | 0640), st;
	struct sigaction sa = { .sa_handler = on_segv };
	struct shmid_ds ds;
	struct shminfo info;
	char *p, *q, *fixed, arg[32];
	pid_t pid;

	CHECK(id >= 0);
	CHECK_EQ(shmctl(id, IPC_STAT, &ds), 0);
	CHECK_EQ(ds.shm_segsz, 2 * PG + 1);
	CHECK_EQ(ds.shm_nattch, 0);
	CHECK_EQ(ds.shm_cpid, getpid());
	CHECK_EQ(ds.shm_lpid, 0);
	CHECK_EQ(ds.shm_atime, 0);
	CHECK_EQ(ds.shm_dtime, 0);
	CHECK(ds.shm_ctime > 0);
	CHECK_EQ(ds.shm_perm.mode & 0777, 0640);
	/* SHM_STAT takes an index and answers with the id; IPC_INFO gives the limits. */
	CHECK_EQ(shmctl(id % 32768, SHM_STAT, &ds), id);
	CHECK_EQ(ds.shm_segsz, 2 * PG + 1);
	CHECK(shmctl(0, IPC_INFO, (struct shmid_ds *)&info) >= id % 32768);
	CHECK_EQ(info.shmmin, 1);
	CHECK(info.shmmax >= 2 * PG + 1);

	p = shmat(id, NULL, 0);
	CHECK(p != (void *)-1);
	CHECK_EQ((uintptr_t)p % PG, 0);
	CHECK_EQ(nattch(id), 1);
	CHECK_EQ(p[2 * PG + 100], 0); /* the last page is mapped whole */
	p[0] = 'a';
	CHECK_EQ(shmctl(id, IPC_STAT, &ds), 0);
	CHECK_EQ(ds.shm_lpid, getpid());
	CHECK(ds.shm_atime > 0);

	/* A second attach, read-only: it sees the writes, and may not write. */
	q = shmat(id, NULL, SHM_RDONLY);
	CHECK(q != (void *)-1 && q != p);
	CHECK_EQ(nattch(id), 2);
	CHECK_EQ(q[0], 'a');
	sigaction(SIGSEGV, &sa, NULL);
	CHECK_EQ(try_write(q, 'x'), SIGSEGV);
	CHECK_ERR(mprotect(q, PG, PROT_READ | PROT_WRITE), EACCES);
	CHECK_EQ(shmdt(q), 0);
	CHECK_EQ(nattch(id), 1);

	/* At a given address: aligned, or rounded with SHM_RND; never over a mapping. */
	fixed = mmap(NULL, 8 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(fixed != MAP_FAILED);
	CHECK_ERR(shmat(id, fixed, 0), EINVAL); /* something is mapped there */
	munmap(fixed, 8 * PG);
	CHECK_ERR(shmat(id, fixed + 1, 0), EINVAL);
	q = shmat(id, fixed + 5, SHM_RND);
	CHECK(q == fixed);
	CHECK_EQ(q[0], 'a');
	CHECK_EQ(nattch(id), 2);
	CHECK_ERR(shmdt(q + PG), EINVAL); /* no attach starts there */
	CHECK_ERR(shmdt(q + 1), EINVAL);
	CHECK_EQ(shmdt(q), 0);
	CHECK_ERR(shmdt(q), EINVAL);
	CHECK_EQ(nattch(id), 1);

	/* fork counts the child's attach; exit and exec drop it. */
	pid = fork();
	if (pid == 0) {
		if (nattch(id) != 2)
			_exit(1);
		p[1] = 'c';
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(nattch(id), 1);
	CHECK_EQ(p[1], 'c');
	CHECK_EQ(shmctl(id, IPC_STAT, &ds), 0);
	CHECK_EQ(ds.shm_lpid, pid); /* the child's exit detached last */
	CHECK(ds.shm_dtime > 0);
	pid = fork();
	if (pid == 0) {
		snprintf(arg, sizeof(arg), "%d", id);
		execl(self, self, "exec-child", arg, "1", (char *)NULL);
		_exit(2);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(nattch(id), 1);

	/* IPC_SET: the permission bits change, the rest stays. */
	ds.shm_perm.mode = 0604 | 01000;
	CHECK_EQ(shmctl(id, IPC_SET, &ds), 0);
	CHECK_EQ(shmctl(id, IPC_STAT, &ds), 0);
	CHECK_EQ(ds.shm_perm.mode & 0777, 0604);
	CHECK_EQ(ds.shm_perm.mode & 01000, 0); /* SHM_DEST is not set by IPC_SET */
	CHECK_ERR(shmctl(id, 12345, &ds), EINVAL);

	/* IPC_RMID while attached: it lives on (marked SHM_DEST) until the last detach,
	 * attaches by id still work, and then the id is gone. */
	pid = fork();
	if (pid == 0) {
		/* the child keeps its attach until the parent has removed the segment */
		while (p[2] != 'r')
			usleep(1000);
		p[3] = 'k';
		_exit(0);
	}
	CHECK_EQ(shmctl(id, IPC_RMID, NULL), 0);
	CHECK_EQ(shmctl(id, IPC_STAT, &ds), 0);
	CHECK(ds.shm_perm.mode & 01000);
	CHECK_EQ(ds.shm_perm.__key, IPC_PRIVATE);
	CHECK_EQ(ds.shm_nattch, 2);
	q = shmat(id, NULL, 0);
	CHECK(q != (void *)-1);
	CHECK_EQ(nattch(id), 3);
	CHECK_EQ(shmdt(q), 0);
	CHECK_EQ(shmdt(p), 0); /* the child still holds it */
	CHECK_EQ(nattch(id), 1);
	q = shmat(id, NULL, 0);
	CHECK(q != (void *)-1);
	if (q != (void *)-1) {
		q[2] = 'r';
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		CHECK_EQ(q[3], 'k');
		CHECK_EQ(shmdt(q), 0);
	}
	CHECK_ERR(shmctl(id, IPC_STAT, &ds), EINVAL); /* destroyed with the last detach */
	CHECK_ERR(shmat(id, NULL, 0), EINVAL);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "exec-child"))
		return exec_child(atoi(argv[2]), atol(argv[3]));
	gets_and_errors();
	attaches(argv[0]);
	return utest_done();
}
