/* creds: the user and group ids of a process and the calls that change them, as Linux
 * answers: setuid, setreuid, setresuid, setfsuid and their group twins (who may take which
 * id, EPERM and EINVAL), getgroups and setgroups, what a fork inherits and an exec keeps (and
 * the set-user-ID and set-group-ID bits change). Must start as root; each case runs in a
 * child, which then gives its privileges away. */
#define _GNU_SOURCE
#define UTEST_NAME "creds"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define DIR_ "/tmp/creds"
#define SELF DIR_ "/self"
#define SUID DIR_ "/suid"
#define NOBODY 65534
#define BAD ((void *)8) /* an unmapped user address */

static long sys(long nr, long a, long b, long c)
{
	return syscall(nr, a, b, c);
}

/* Are current's real, effective and saved ids (user, then group) these? */
static int resuid_is(unsigned r, unsigned e, unsigned s)
{
	unsigned a = ~0u, b = ~0u, c = ~0u;

	return sys(SYS_getresuid, (long)&a, (long)&b, (long)&c) == 0 && a == r && b == e &&
	       c == s;
}

static int resgid_is(unsigned r, unsigned e, unsigned s)
{
	unsigned a = ~0u, b = ~0u, c = ~0u;

	return sys(SYS_getresgid, (long)&a, (long)&b, (long)&c) == 0 && a == r && b == e &&
	       c == s;
}

static long fsuid(void) /* setfsuid(-1) changes nothing and answers the current one */
{
	return sys(SYS_setfsuid, -1, 0, 0);
}

static long fsgid(void)
{
	return sys(SYS_setfsgid, -1, 0, 0);
}

/* Run fn in a child; its checks count there, and its exit status here. */
static void in_child(void (*fn)(void))
{
	int st = -1;
	pid_t p;

	fflush(NULL);
	p = fork();
	if (p == 0) {
		utest_fails = 0; /* the child's own */
		fn();
		fflush(NULL);
		_exit(utest_fails ? 1 : 0);
	}
	CHECK(p > 0 && waitpid(p, &st, 0) == p);
	CHECK_EQ(st, 0);
}

static void root_ids(void)
{
	unsigned g[4];

	CHECK_EQ(getuid(), 0);
	CHECK_EQ(geteuid(), 0);
	CHECK(resuid_is(0, 0, 0) && resgid_is(0, 0, 0));
	CHECK_EQ(fsuid(), 0);
	CHECK_EQ(fsgid(), 0);
	CHECK_ERR(sys(SYS_getresuid, 0, (long)&g[0], (long)&g[1]), EFAULT);
	CHECK_ERR(sys(SYS_getresgid, (long)&g[0], (long)&g[1], (long)BAD), EFAULT);
	CHECK_ERR(sys(SYS_setuid, -1, 0, 0), EINVAL);
	CHECK_ERR(sys(SYS_setgid, -1, 0, 0), EINVAL);
}

static void groups(void)
{
	unsigned set[] = { 9, 3, 5, 3 }, got[8] = { 0 };

	CHECK(sys(SYS_setgroups, 4, (long)set, 0) == 0);
	CHECK_EQ(sys(SYS_getgroups, 0, 0, 0), 4);
	CHECK_EQ(sys(SYS_getgroups, 8, (long)got, 0), 4);
	CHECK(got[0] == 3 && got[1] == 3 && got[2] == 5 && got[3] == 9); /* sorted */
	CHECK_ERR(sys(SYS_getgroups, 3, (long)got, 0), EINVAL);
	CHECK_ERR(sys(SYS_getgroups, -1, (long)got, 0), EINVAL);
	CHECK_ERR(sys(SYS_getgroups, 4, (long)BAD, 0), EFAULT);
	CHECK_ERR(sys(SYS_setgroups, 65537, (long)set, 0), EINVAL);
	CHECK_ERR(sys(SYS_setgroups, -1, (long)set, 0), EINVAL);
	CHECK_ERR(sys(SYS_setgroups, 2, (long)BAD, 0), EFAULT);
	CHECK_EQ(sys(SYS_getgroups, 0, 0, 0), 4); /* a failed setgroups changed nothing */
	CHECK(sys(SYS_setgroups, 0, 0, 0) == 0);
	CHECK_EQ(sys(SYS_getgroups, 0, 0, 0), 0);
	CHECK_EQ(sys(SYS_getgroups, 4, (long)BAD, 0), 0); /* nothing to copy: no EFAULT */
	CHECK(sys(SYS_setgroups, 1, (long)set, 0) == 0);
	CHECK(sys(SYS_setuid, 1000, 0, 0) == 0);
	CHECK_ERR(sys(SYS_setgroups, 0, 0, 0), EPERM); /* CAP_SETGID is gone */
	CHECK_ERR(sys(SYS_setgroups, 65537, 0, 0), EPERM); /* EPERM comes first */
	CHECK_EQ(sys(SYS_getgroups, 1, (long)got, 0), 1);
	CHECK_EQ(got[0], 9);
}

/* setuid as root sets all four; as anyone else only euid and fsuid, to the real or saved. */
static void setuid_rules(void)
{
	CHECK(sys(SYS_setuid, 1000, 0, 0) == 0);
	CHECK(resuid_is(1000, 1000, 1000) && fsuid() == 1000);
	CHECK_ERR(sys(SYS_setuid, 0, 0, 0), EPERM);
	CHECK_ERR(sys(SYS_setuid, 2000, 0, 0), EPERM);
	CHECK(sys(SYS_setuid, 1000, 0, 0) == 0);
	CHECK_ERR(sys(SYS_setresuid, 0, -1, -1), EPERM);
	CHECK_ERR(sys(SYS_setreuid, -1, 0, 0), EPERM);
	CHECK_ERR(sys(SYS_setgid, 5, 0, 0), EPERM);
	CHECK_ERR(sys(SYS_setuid, -1, 0, 0), EINVAL);
}

/* Only the effective uid leaves 0: the real or saved 0 brings root back, capabilities too. */
static void seteuid_and_back(void)
{
	CHECK(sys(SYS_setresuid, -1, 1000, -1) == 0);
	CHECK(resuid_is(0, 1000, 0) && fsuid() == 1000);
	CHECK_ERR(sys(SYS_setgroups, 0, 0, 0), EPERM);
	CHECK_ERR(sys(SYS_setuid, 2000, 0, 0), EPERM);
	CHECK(sys(SYS_setuid, 0, 0, 0) == 0); /* the real uid: euid only */
	CHECK(resuid_is(0, 0, 0) && fsuid() == 0);
	CHECK(sys(SYS_setgroups, 0, 0, 0) == 0); /* capabilities back with euid 0 */
	CHECK(sys(SYS_setresuid, 1000, 1000, 0) == 0);
	CHECK(sys(SYS_setuid, 0, 0, 0) == 0); /* the saved uid */
	CHECK(resuid_is(1000, 0, 0));
	CHECK(sys(SYS_setuid, 2000, 0, 0) == 0); /* euid 0: CAP_SETUID, all of them */
	CHECK(resuid_is(2000, 2000, 2000));
}

static void setreuid_rules(void)
{
	CHECK(sys(SYS_setreuid, 1000, 2000, 0) == 0);
	CHECK(resuid_is(1000, 2000, 2000) && fsuid() == 2000); /* suid follows a new ruid */
	CHECK(sys(SYS_setreuid, -1, 1000, 0) == 0); /* euid to the real uid: suid stays */
	CHECK(resuid_is(1000, 1000, 2000) && fsuid() == 1000);
	CHECK(sys(SYS_setreuid, -1, 2000, 0) == 0); /* to the saved one: suid = new euid */
	CHECK(resuid_is(1000, 2000, 2000));
	CHECK_ERR(sys(SYS_setreuid, 3000, -1, 0), EPERM);
	CHECK_ERR(sys(SYS_setreuid, -1, 3000, 0), EPERM);
	CHECK(sys(SYS_setreuid, 2000, -1, 0) == 0); /* ruid may become the euid */
	CHECK(resuid_is(2000, 2000, 2000));
	CHECK(sys(SYS_setreuid, -1, -1, 0) == 0);
	CHECK(resuid_is(2000, 2000, 2000));
}

static void setresuid_rules(void)
{
	CHECK(sys(SYS_setresuid, 1000, 2000, 3000) == 0);
	CHECK(resuid_is(1000, 2000, 3000) && fsuid() == 2000);
	CHECK(sys(SYS_setresuid, 3000, 1000, 2000) == 0); /* any of the three, anywhere */
	CHECK(resuid_is(3000, 1000, 2000) && fsuid() == 1000);
	CHECK_ERR(sys(SYS_setresuid, 4000, -1, -1), EPERM);
	CHECK_ERR(sys(SYS_setresuid, -1, -1, 0), EPERM);
	CHECK(resuid_is(3000, 1000, 2000));
	/* setfsuid: to any of the four; always the old fsuid back */
	CHECK_EQ(sys(SYS_setfsuid, 3000, 0, 0), 1000);
	CHECK_EQ(fsuid(), 3000);
	CHECK_EQ(sys(SYS_setfsuid, 5000, 0, 0), 3000);
	CHECK_EQ(fsuid(), 3000);
	CHECK(sys(SYS_setresuid, -1, -1, -1) == 0); /* a no-op keeps even the fsuid */
	CHECK_EQ(fsuid(), 3000);
	CHECK(sys(SYS_setresuid, 3000, -1, 2000) == 0); /* the same ids: still a no-op */
	CHECK_EQ(fsuid(), 3000);
	CHECK(sys(SYS_setresuid, -1, 1000, -1) == 0); /* the same euid, but not the fsuid */
	CHECK_EQ(fsuid(), 1000);
	CHECK_EQ(sys(SYS_setfsuid, 3000, 0, 0), 1000);
	CHECK(sys(SYS_setreuid, -1, -1, 0) == 0); /* setreuid always resets fsuid to euid */
	CHECK_EQ(fsuid(), 1000);
	CHECK(sys(SYS_setresuid, -1, 2000, -1) == 0);
	CHECK_EQ(fsuid(), 2000);
}

/* setfsuid as root: the file-system capabilities go with fsuid 0, CAP_SETUID stays. */
static void setfsuid_root(void)
{
	int fd = open(DIR_ "/r600", O_RDONLY);

	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(sys(SYS_setfsuid, 1000, 0, 0), 0);
	CHECK_ERR(open(DIR_ "/r600", O_RDONLY), EACCES);
	CHECK_ERR(chown(DIR_ "/r600", 1, 1), EPERM);
	CHECK(sys(SYS_setgroups, 0, 0, 0) == 0); /* not a file-system capability */
	CHECK_EQ(sys(SYS_setfsuid, 0, 0, 0), 1000);
	fd = open(DIR_ "/r600", O_RDONLY);
	CHECK(fd >= 0);
	close(fd);
	/* Back to fsuid 0 through seteuid: the ids say root, the effective capabilities do not
	 * (euid never left 0, so nothing raised them): a 0600 file of another is refused. */
	CHECK_EQ(sys(SYS_setfsuid, 1000, 0, 0), 0);
	CHECK(sys(SYS_setreuid, -1, 0, 0) == 0);
	CHECK_EQ(fsuid(), 0);
	CHECK_ERR(open(DIR_ "/u600", O_RDONLY), EACCES);
	fd = open(DIR_ "/r600", O_RDONLY); /* its owner */
	CHECK(fd >= 0);
	close(fd);
}

static void gid_rules(void)
{
	CHECK(sys(SYS_setgid, 100, 0, 0) == 0);
	CHECK(resgid_is(100, 100, 100) && fsgid() == 100);
	CHECK(sys(SYS_setregid, 200, 300, 0) == 0);
	CHECK(resgid_is(200, 300, 300) && fsgid() == 300);
	CHECK(sys(SYS_setresgid, 1, 2, 3) == 0);
	CHECK(resgid_is(1, 2, 3) && fsgid() == 2);
	CHECK_EQ(sys(SYS_setfsgid, 7, 0, 0), 2); /* root: any */
	CHECK_EQ(fsgid(), 7);
	CHECK(sys(SYS_setuid, 1000, 0, 0) == 0); /* CAP_SETGID goes with the uid */
	CHECK(resgid_is(1, 2, 3) && fsgid() == 7);
	CHECK(sys(SYS_setgid, 3, 0, 0) == 0); /* the saved gid: egid and fsgid only */
	CHECK(resgid_is(1, 3, 3) && fsgid() == 3);
	CHECK_ERR(sys(SYS_setgid, 2, 0, 0), EPERM);
	CHECK_ERR(sys(SYS_setgid, -1, 0, 0), EINVAL);
	CHECK_ERR(sys(SYS_setregid, 9, -1, 0), EPERM);
	CHECK_ERR(sys(SYS_setregid, -1, 9, 0), EPERM);
	CHECK(sys(SYS_setregid, 3, -1, 0) == 0); /* rgid to the egid */
	CHECK(resgid_is(3, 3, 3));
	CHECK_ERR(sys(SYS_setresgid, -1, 1, -1), EPERM);
	CHECK_EQ(sys(SYS_setfsgid, 9, 0, 0), 3);
	CHECK_EQ(fsgid(), 3);
	CHECK(sys(SYS_setresgid, -1, -1, -1) == 0);
}

/* A fork copies every id and the groups; an exec keeps them. */
static void fork_inherits(void)
{
	unsigned g[] = { 42, 7 };
	pid_t p;
	int st = -1;

	CHECK(sys(SYS_setgroups, 2, (long)g, 0) == 0);
	CHECK(sys(SYS_setresgid, 10, 20, 30) == 0);
	CHECK(sys(SYS_setresuid, 1000, 2000, 3000) == 0);
	CHECK_EQ(sys(SYS_setfsuid, 3000, 0, 0), 2000);
	fflush(NULL);
	p = fork();
	if (p == 0) {
		unsigned got[4] = { 0 };

		_exit(!(resuid_is(1000, 2000, 3000) && resgid_is(10, 20, 30) && fsuid() == 3000 &&
			fsgid() == 20 && sys(SYS_getgroups, 4, (long)got, 0) == 2 &&
			got[0] == 7 && got[1] == 42));
	}
	CHECK(p > 0 && waitpid(p, &st, 0) == p);
	CHECK_EQ(st, 0);
	execl(SELF, "creds", "exec-child", "1000 2000 2000 10 20 20", (char *)NULL);
	CHECK(!"exec failed");
}

/* An exec of a set-user-ID file owned by 1000 (and set-group-ID, group 1001). */
static void suid_exec(void)
{
	CHECK(sys(SYS_setgroups, 0, 0, 0) == 0);
	CHECK(sys(SYS_setresgid, NOBODY, NOBODY, NOBODY) == 0);
	CHECK(sys(SYS_setresuid, NOBODY, NOBODY, NOBODY) == 0);
	execl(SUID, "creds", "exec-child", "65534 1000 1000 65534 1001 1001", (char *)NULL);
	CHECK(!"exec failed");
}

/* The same file set-group-ID but without group execution: egid stays (a locking mark). */
static void sgid_noexec(void)
{
	CHECK(sys(SYS_setresgid, 5, 5, 5) == 0);
	CHECK(sys(SYS_setresuid, NOBODY, NOBODY, NOBODY) == 0);
	execl(SUID, "creds", "exec-child", "65534 65534 65534 5 5 5", (char *)NULL);
	CHECK(!"exec failed");
}

/* After an exec: are the ids those in want ("ruid euid suid rgid egid sgid")? */
static int exec_child(const char *want)
{
	unsigned w[6];

	if (sscanf(want, "%u %u %u %u %u %u", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5]) != 6)
		return 2;
	if (!resuid_is(w[0], w[1], w[2]) || !resgid_is(w[3], w[4], w[5]) || fsuid() != w[1] ||
	    fsgid() != w[4]) {
		unsigned r, e, s, gr, ge, gs;

		syscall(SYS_getresuid, &r, &e, &s);
		syscall(SYS_getresgid, &gr, &ge, &gs);
		fprintf(stderr, "creds: FAIL after exec: ids %u %u %u %u %u %u (fs %ld %ld)",
			r, e, s, gr, ge, gs, fsuid(), fsgid());
		fprintf(stderr, ", want %s\n", want);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int fd;

	if (argc == 3 && !strcmp(argv[1], "exec-child"))
		return exec_child(argv[2]);
	if (getuid() != 0) {
		fprintf(stderr, "creds: must start as root\n");
		return 1;
	}
	unlink(SELF);
	unlink(SUID);
	unlink(DIR_ "/r600");
	unlink(DIR_ "/u600");
	rmdir(DIR_);
	CHECK(mkdir(DIR_, 0755) == 0);
	fd = open(DIR_ "/r600", O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	close(fd);
	fd = open(DIR_ "/u600", O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && fchown(fd, 1000, 1000) == 0);
	close(fd);
	utest_copy_file(argv[0], SELF, O_TRUNC, 0755);
	utest_copy_file(argv[0], SUID, O_TRUNC, 0755);
	CHECK(chown(SUID, 1000, 1001) == 0);
	CHECK(chmod(SUID, 06755) == 0);

	in_child(root_ids);
	in_child(groups);
	in_child(setuid_rules);
	in_child(seteuid_and_back);
	in_child(setreuid_rules);
	in_child(setresuid_rules);
	in_child(setfsuid_root);
	in_child(gid_rules);
	in_child(fork_inherits);
	in_child(suid_exec);
	CHECK(chmod(SUID, 02745) == 0);
	in_child(sgid_noexec);
	root_ids(); /* the children changed nothing here */

	CHECK(unlink(SELF) == 0 && unlink(SUID) == 0);
	CHECK(unlink(DIR_ "/r600") == 0 && unlink(DIR_ "/u600") == 0);
	CHECK(rmdir(DIR_) == 0);
	return utest_done();
}
