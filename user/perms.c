/* perms: who may do what to a file, as Linux answers: as nobody (uid and gid 65534) open,
 * create, unlink, rename, chmod, chown, utimensat, access, exec and kill get EACCES or EPERM
 * exactly where Linux gives them (owner, group and other bits, search permission on every
 * directory walked, the sticky bit, set-group-ID directories), and root overrides all but an
 * exec with no x bit. Must start as root; the files live in a scratch directory under /tmp. */
#define _GNU_SOURCE
#define UTEST_NAME "perms"
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#define D "/tmp/perms"
#define NOBODY 65534

static const char *self; /* argv[0] */

static struct stat st_of(const char *path)
{
	struct stat st;

	memset(&st, 0xff, sizeof(st));
	lstat(path, &st);
	return st;
}

/* Make a file (root's unless changed later) with mode, holding "data". */
static void mkfile(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	CHECK(fd >= 0 && write(fd, "data", 4) == 4);
	CHECK(fchown(fd, uid, gid) == 0 && fchmod(fd, mode) == 0);
	close(fd);
}

static void mkdir_as(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	CHECK(mkdir(path, 0700) == 0);
	CHECK(chown(path, uid, gid) == 0 && chmod(path, mode) == 0);
}

static int can_open(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Become uid/gid with these supplementary groups (the real, effective and saved ids). */
static void become(uid_t uid, gid_t gid, int ngroups, const gid_t *groups)
{
	if (syscall(SYS_setgroups, ngroups, groups) || syscall(SYS_setresgid, gid, gid, gid) ||
	    syscall(SYS_setresuid, uid, uid, uid)) {
		fprintf(stderr, "perms: cannot become %u\n", (unsigned)uid);
		_exit(2);
	}
}

static pid_t start(void (*fn)(void))
{
	pid_t p;

	fflush(NULL);
	p = fork();
	if (p == 0) {
		utest_fails = 0;
		fn();
		fflush(NULL);
		_exit(utest_fails ? 1 : 0);
	}
	return p;
}

static void finish(pid_t p, int want)
{
	int st = -1;

	CHECK(p > 0 && waitpid(p, &st, 0) == p);
	CHECK_EQ(st, want);
}

/* Run fn in a child as nobody (in group 100 too if in_100); its checks count there, its exit
 * status here. */
static void as_nobody_in(void (*fn)(void), bool in_100)
{
	gid_t g = 100;
	pid_t p;

	fflush(NULL);
	p = fork();
	if (p == 0) {
		utest_fails = 0;
		become(NOBODY, NOBODY, in_100, &g);
		fn();
		fflush(NULL);
		_exit(utest_fails ? 1 : 0);
	}
	finish(p, 0);
}

static void as_nobody(void (*fn)(void))
{
	as_nobody_in(fn, false);
}

/* The owner's bits for the owner, the group's for the group, the others' for the rest; no
 * class falls through to another. */
static void open_bits(void)
{
	CHECK_ERR(open(D "/r600", O_RDONLY), EACCES);
	CHECK(can_open(D "/r644", O_RDONLY));
	CHECK_ERR(open(D "/r644", O_WRONLY), EACCES);
	CHECK_ERR(open(D "/r644", O_RDWR), EACCES);
	CHECK_ERR(open(D "/r644", O_RDONLY | O_TRUNC), EACCES); /* truncating writes */
	CHECK(can_open(D "/w666", O_RDWR | O_TRUNC));
	CHECK(can_open(D "/w622", O_WRONLY));
	CHECK_ERR(open(D "/w622", O_RDONLY), EACCES);
	CHECK_ERR(open(D "/mine077", O_RDONLY), EACCES); /* the owner's bits are 0 */
	CHECK(can_open(D "/g604", O_RDONLY)); /* not in group 100: the others' bits */
	CHECK_ERR(open(D "/g640", O_RDONLY), EACCES);
	CHECK(can_open(D "/r644", O_RDONLY | O_CREAT)); /* it exists: a plain open */
}

/* Group 100 as a supplementary group: the group's bits apply. */
static void open_group(void)
{
	CHECK(can_open(D "/g640", O_RDONLY));
	CHECK_ERR(open(D "/g640", O_WRONLY), EACCES);
	CHECK_ERR(open(D "/g604", O_RDONLY), EACCES); /* group 100's bits are 0 */
}

/* Every directory walked needs x; listing needs r; making and removing names w and x. */
static void directories(void)
{
	struct stat st;
	int fd;

	CHECK_ERR(open(D "/d700/f", O_RDONLY), EACCES);
	CHECK_ERR(stat(D "/d700/f", &st), EACCES);
	CHECK_ERR(stat(D "/d700/nothing", &st), EACCES); /* EACCES before ENOENT */
	CHECK_ERR(stat(D "/d700/.", &st), EACCES);
	CHECK(stat(D "/d700", &st) == 0); /* the directory itself: its parent's x only */
	CHECK_ERR(chdir(D "/d700"), EACCES);
	CHECK_ERR(open(D "/d711", O_RDONLY | O_DIRECTORY), EACCES); /* no r: no listing */
	CHECK(stat(D "/d711/f", &st) == 0 && can_open(D "/d711/f", O_RDONLY));
	CHECK(can_open(D "/d755", O_RDONLY | O_DIRECTORY));
	CHECK_ERR(open(D "/d755/new", O_WRONLY | O_CREAT, 0644), EACCES);
	CHECK_ERR(open(D "/d755/f", O_WRONLY | O_CREAT | O_EXCL, 0644), EEXIST);
	CHECK_ERR(mkdir(D "/d755/new", 0755), EACCES);
	CHECK_ERR(mkdir(D "/d755/f", 0755), EEXIST); /* EEXIST comes first */
	CHECK_ERR(symlink("x", D "/d755/link"), EACCES);
	CHECK_ERR(unlink(D "/d755/f"), EACCES);
	CHECK_ERR(unlink(D "/d755/nothing"), ENOENT);
	CHECK_ERR(rmdir(D "/d777"), EACCES); /* D itself is root's 0755 */
	CHECK_ERR(rename(D "/d755/f", D "/d777/f"), EACCES);
	CHECK_ERR(rename(D "/d755/f", D "/d755/dir"), EACCES); /* before EISDIR */
	CHECK_ERR(rename(D "/d755/dir", D "/d755/f"), EACCES); /* before ENOTDIR */
	CHECK_ERR(rename(D "/d755/f/", D "/d755/g"), ENOTDIR); /* the slash before EACCES */
	CHECK_ERR(rename(D "/d777/x", D "/d777/y"), ENOENT);
	/* d777: anyone may make names, and what is made is the maker's */
	fd = open(D "/d777/mine", O_RDWR | O_CREAT | O_EXCL, 0);
	CHECK(fd >= 0); /* mode 0, yet open for writing: the open that made it */
	close(fd);
	CHECK_EQ(st_of(D "/d777/mine").st_uid, NOBODY);
	CHECK_EQ(st_of(D "/d777/mine").st_gid, NOBODY);
	CHECK_ERR(open(D "/d777/mine", O_RDONLY), EACCES);
	CHECK(mkdir(D "/d777/sub", 0700) == 0 && st_of(D "/d777/sub").st_uid == NOBODY);
	CHECK(rename(D "/d777/mine", D "/d777/sub/mine") == 0);
	CHECK(unlink(D "/d777/sub/mine") == 0 && rmdir(D "/d777/sub") == 0);
	CHECK(unlink(D "/d777/rootf") == 0); /* no sticky bit: anyone's name goes */
	CHECK(rename(D "/d777/rootdir", D "/d777/rootdir2") == 0); /* same parent: no w needed */
	CHECK_ERR(rename(D "/d777/rootdir2", D "/d777/sub2/rootdir"), ENOENT);
	CHECK(mkdir(D "/d777/sub2", 0777) == 0);
	/* moving a directory to another parent rewrites its "..": w on it (root's 0755) */
	CHECK_ERR(rename(D "/d777/rootdir2", D "/d777/sub2/rootdir"), EACCES);
	CHECK(rename(D "/d777/rootdir2", D "/d777/rootdir") == 0);
	CHECK(rmdir(D "/d777/sub2") == 0);
}

/* The sticky bit: in dsticky (root's 01777) only the file's or the directory's owner
 * removes or renames a name. */
static void sticky(void)
{
	int fd = open(D "/dsticky/mine", O_WRONLY | O_CREAT | O_EXCL, 0666);

	CHECK(fd >= 0);
	close(fd);
	CHECK_ERR(unlink(D "/dsticky/rootf"), EPERM);
	CHECK_ERR(rename(D "/dsticky/rootf", D "/dsticky/x"), EPERM);
	CHECK_ERR(rename(D "/dsticky/mine", D "/dsticky/rootf"), EPERM); /* replacing it too */
	CHECK_ERR(rmdir(D "/dsticky/rootd"), EPERM);
	CHECK(can_open(D "/dsticky/rootf", O_RDWR)); /* writing it is another matter */
	CHECK(rename(D "/dsticky/mine", D "/dsticky/mine2") == 0);
	CHECK(unlink(D "/dsticky/mine2") == 0);
	CHECK_ERR(unlink(D "/dsticky/nothing"), ENOENT);
	/* in a sticky directory nobody owns, its owner removes anyone's names */
	CHECK(unlink(D "/dnob/rootf") == 0);
}

/* chmod: the owner only; a set-group-ID bit for a group one is not in is dropped. */
static void chmod_rules(void)
{
	CHECK_ERR(chmod(D "/r644", 0666), EPERM);
	CHECK_ERR(chmod(D "/w666", 0666), EPERM); /* write permission is not enough */
	CHECK(chmod(D "/nobf", 0640) == 0 && (st_of(D "/nobf").st_mode & 07777) == 0640);
	CHECK(chmod(D "/nobf", 04755) == 0 && (st_of(D "/nobf").st_mode & 07777) == 04755);
	CHECK(chmod(D "/nob0", 02755) == 0); /* group 0: not ours */
	CHECK_EQ(st_of(D "/nob0").st_mode & 07777, 0755);
	CHECK(chmod(D "/nobf", 02755) == 0); /* its group: ours */
	CHECK_EQ(st_of(D "/nobf").st_mode & 07777, 02755);
	CHECK(chmod(D "/nob100", 02755) == 0);
	CHECK_EQ(st_of(D "/nob100").st_mode & 07777, 0755);
}

static void chmod_group(void) /* in group 100 as a supplementary group */
{
	CHECK(chmod(D "/nob100", 02755) == 0);
	CHECK_EQ(st_of(D "/nob100").st_mode & 07777, 02755);
}

/* chown: only root gives a file away; the owner may pick one of its groups. */
static void chown_rules(void) /* in group 100 too */
{
	int fd;

	CHECK_ERR(chown(D "/nobf", 1000, -1), EPERM);
	CHECK_ERR(chown(D "/r644", NOBODY, -1), EPERM);
	CHECK_ERR(chown(D "/r644", -1, NOBODY), EPERM);
	CHECK(chown(D "/r644", -1, -1) == 0); /* nothing asked: allowed to anyone */
	CHECK(chown(D "/nobf", NOBODY, -1) == 0); /* to itself */
	CHECK(chown(D "/nobf", -1, 100) == 0 && st_of(D "/nobf").st_gid == 100);
	CHECK_ERR(chown(D "/nobf", -1, 0), EPERM);
	CHECK(lchown(D "/nobf", -1, NOBODY) == 0 && st_of(D "/nobf").st_gid == NOBODY);
	CHECK(chown(D "/nobf", -1, NOBODY) == 0); /* its own group again */
	fd = open(D "/nobf", O_RDONLY);
	CHECK(fd >= 0);
	CHECK_ERR(fchown(fd, 0, -1), EPERM);
	CHECK(fchown(fd, -1, 100) == 0);
	close(fd);
	CHECK_ERR(fchownat(AT_FDCWD, D "/r644", -1, 100, 0), EPERM);
	/* a set-user-ID file the owner regroups loses the bit */
	CHECK(chmod(D "/nobf", 04755) == 0);
	CHECK(chown(D "/nobf", -1, NOBODY) == 0);
	CHECK_EQ(st_of(D "/nobf").st_mode & 07777, 0755);
}

/* A write or truncate by someone else drops the set-user-ID and set-group-ID bits. */
static void write_drops_suid(void)
{
	int fd = open(D "/s6777", O_WRONLY);

	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "", 0), 0); /* nothing written: nothing dropped */
	CHECK_EQ(st_of(D "/s6777").st_mode & 07777, 06777);
	CHECK_EQ(write(fd, "x", 1), 1);
	CHECK_EQ(st_of(D "/s6777").st_mode & 07777, 0777);
	close(fd);
	fd = open(D "/s2767", O_WRONLY); /* set-group-ID without group execution */
	CHECK(fd >= 0 && ftruncate(fd, 1) == 0);
	CHECK_EQ(st_of(D "/s2767").st_mode & 07777, 0767); /* not in its group */
	close(fd);
}

/* utimensat: now (or NULL) needs ownership or write permission; set times need owning. */
static void utimes_rules(void)
{
	struct timespec now2[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	struct timespec omit2[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	struct timespec now_omit[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
	struct timespec set[2] = { { 1000, 0 }, { 2000, 0 } };

	CHECK(utimensat(AT_FDCWD, D "/w666", NULL, 0) == 0);
	CHECK(utimensat(AT_FDCWD, D "/w666", now2, 0) == 0);
	CHECK_ERR(utimensat(AT_FDCWD, D "/w666", set, 0), EPERM);
	CHECK_ERR(utimensat(AT_FDCWD, D "/w666", now_omit, 0), EPERM);
	CHECK_ERR(utimensat(AT_FDCWD, D "/r644", NULL, 0), EACCES);
	CHECK_ERR(utimensat(AT_FDCWD, D "/r644", now2, 0), EACCES);
	CHECK_ERR(utimensat(AT_FDCWD, D "/r644", set, 0), EPERM);
	CHECK(utimensat(AT_FDCWD, D "/r644", omit2, 0) == 0); /* nothing to change */
	CHECK(utimensat(AT_FDCWD, D "/nobf", set, 0) == 0 && st_of(D "/nobf").st_mtime == 2000);
	CHECK(utimensat(AT_FDCWD, D "/nobf", NULL, 0) == 0);
}

/* access checks with the real ids, AT_EACCESS and open with the effective ones. */
static void access_real(void)
{
	CHECK(syscall(SYS_setresuid, NOBODY, 0, 0) == 0); /* real nobody, effective root */
	CHECK_ERR(access(D "/r600", R_OK), EACCES);
	CHECK_ERR(access(D "/d700/f", F_OK), EACCES); /* the walk is the real uid's too */
	CHECK(faccessat(AT_FDCWD, D "/r600", R_OK | W_OK, AT_EACCESS) == 0);
	CHECK(faccessat(AT_FDCWD, D "/d700/f", F_OK, AT_EACCESS) == 0);
	CHECK(can_open(D "/r600", O_RDWR));
	CHECK(access(D "/r644", R_OK) == 0);
	CHECK_ERR(access(D "/r644", W_OK), EACCES);
	CHECK(access(D "/w666", R_OK | W_OK) == 0);
	CHECK_ERR(access(D "/w666", X_OK), EACCES);
	CHECK(syscall(SYS_setresuid, 0, NOBODY, 0) == 0); /* the other way round */
	CHECK(access(D "/r600", R_OK | W_OK) == 0);
	CHECK(access(D "/d700/f", R_OK) == 0);
	CHECK_ERR(faccessat(AT_FDCWD, D "/r600", R_OK, AT_EACCESS), EACCES);
	CHECK_ERR(open(D "/r600", O_RDONLY), EACCES);
	CHECK_ERR(access(D "/r644", X_OK), EACCES); /* root: no x bit anywhere */
	CHECK(access(D "/x711", X_OK) == 0);
}

/* exec: an x bit for the caller's class (read permission is not needed). */
static void exec_rules(void)
{
	pid_t p;
	int st = -1;

	CHECK_ERR(execl(D "/x644", "perms", "exit7", (char *)NULL), EACCES);
	CHECK_ERR(execl(D "/x700", "perms", "exit7", (char *)NULL), EACCES);
	CHECK_ERR(execl(D "/d755", "perms", "exit7", (char *)NULL), EACCES); /* a directory */
	CHECK_ERR(execl(D "/d700/f", "perms", "exit7", (char *)NULL), EACCES);
	fflush(NULL);
	p = fork();
	if (p == 0) {
		execl(D "/x711", "perms", "exit7", (char *)NULL);
		_exit(99);
	}
	CHECK(p > 0 && waitpid(p, &st, 0) == p);
	CHECK_EQ(st, 7 << 8); /* it ran */
}

/* Root: everything but an exec with no x bit. */
static void root_overrides(void)
{
	pid_t p;
	int st = -1, fd;

	CHECK(can_open(D "/nob000", O_RDWR));
	CHECK(can_open(D "/d000", O_RDONLY | O_DIRECTORY));
	fd = open(D "/d000/new", O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK(unlink(D "/d000/new") == 0);
	CHECK(chmod(D "/nob000", 0) == 0 && chown(D "/nob000", NOBODY, NOBODY) == 0);
	CHECK(access(D "/nob000", R_OK | W_OK) == 0);
	CHECK_ERR(access(D "/nob000", X_OK), EACCES);
	CHECK_ERR(execl(D "/x644", "perms", "exit7", (char *)NULL), EACCES);
	CHECK(chmod(D "/s6777", 06777) == 0);
	fd = open(D "/s6777", O_WRONLY);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1); /* CAP_FSETID: the bits stay */
	close(fd);
	CHECK_EQ(st_of(D "/s6777").st_mode & 07777, 06777);
	fflush(NULL);
	p = fork();
	if (p == 0) {
		execl(D "/x100", "perms", "exit7", (char *)NULL); /* someone's x bit will do */
		_exit(99);
	}
	CHECK(p > 0 && waitpid(p, &st, 0) == p);
	CHECK_EQ(st, 7 << 8);
}

/* A set-group-ID directory: new names get its group, new directories its bit too. */
static void sgid_dir(void)
{
	int fd = open(D "/dsgid/f", O_WRONLY | O_CREAT | O_EXCL, 02755);

	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(st_of(D "/dsgid/f").st_gid, 100);
	CHECK_EQ(st_of(D "/dsgid/f").st_uid, NOBODY);
	CHECK_EQ(st_of(D "/dsgid/f").st_mode & 07777, 0755); /* not in group 100: no S_ISGID */
	CHECK(mkdir(D "/dsgid/sub", 0755) == 0);
	CHECK_EQ(st_of(D "/dsgid/sub").st_gid, 100);
	CHECK_EQ(st_of(D "/dsgid/sub").st_mode & 07777, 02755);
	CHECK(unlink(D "/dsgid/f") == 0 && rmdir(D "/dsgid/sub") == 0);
}

static volatile sig_atomic_t got_uid = -1;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	got_uid = (sig_atomic_t)si->si_uid;
}

static void wait_for_signal(void)
{
	for (int i = 0; i < 500 && got_uid == -1; i++)
		usleep(10000);
}

static void sleeper(void)
{
	pause();
}

static void sleeper_2000(void) /* real and saved uid 2000, effective nobody */
{
	syscall(SYS_setresuid, 2000, NOBODY, 2000);
	pause();
}

static void sleeper_suid_nobody(void) /* real 1000, saved nobody */
{
	syscall(SYS_setresuid, 1000, 1000, NOBODY);
	pause();
}

static int ready[2]; /* the catcher's "ready" byte */

static void catcher(void) /* a nobody process that reports the si_uid of a SIGUSR1 */
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO };

	become(NOBODY, NOBODY, 0, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	CHECK(write(ready[1], "r", 1) == 1);
	wait_for_signal();
	CHECK_EQ(got_uid, NOBODY);
}

static pid_t root_pid, pid_2000, pid_suid;

/* kill: the sender's real or effective uid must be the target's real or saved uid. */
static void kill_rules(void)
{
	CHECK_ERR(kill(root_pid, 0), EPERM);
	CHECK_ERR(kill(root_pid, SIGTERM), EPERM);
	CHECK_ERR(kill(pid_2000, 0), EPERM); /* its effective uid does not count */
	CHECK(kill(pid_suid, 0) == 0);        /* its saved uid does */
	CHECK(kill(root_pid, SIGCONT) == 0);  /* SIGCONT in the same session */
	CHECK_ERR(kill(-root_pid, 0), EPERM); /* a group of root's: not one allowed */
	CHECK(kill(-1, 0) == 0);              /* everyone: 0 even if all refuse */
	CHECK(kill(getpid(), 0) == 0);
	CHECK(setsid() > 0);
	CHECK_ERR(kill(root_pid, SIGCONT), EPERM); /* not from another session */
	CHECK_ERR(kill(99999999, 0), ESRCH);
}

static void signals(void)
{
	pid_t p;
	char c;

	root_pid = start(sleeper);
	CHECK(setpgid(root_pid, root_pid) == 0); /* a group of its own */
	pid_2000 = start(sleeper_2000);
	pid_suid = start(sleeper_suid_nobody);
	usleep(50000); /* let them change their ids */
	as_nobody(kill_rules);
	CHECK(kill(root_pid, SIGKILL) == 0 && kill(pid_2000, SIGKILL) == 0);
	CHECK(kill(pid_suid, SIGKILL) == 0);
	finish(root_pid, SIGKILL);
	finish(pid_2000, SIGKILL);
	finish(pid_suid, SIGKILL);
	/* si_uid: the sender's real uid */
	CHECK(pipe(ready) == 0);
	p = start(catcher);
	CHECK(read(ready[0], &c, 1) == 1);
	CHECK(syscall(SYS_setresuid, NOBODY, 0, 0) == 0);
	CHECK(kill(p, SIGUSR1) == 0);
	CHECK(syscall(SYS_setresuid, 0, 0, 0) == 0);
	finish(p, 0);
}

static void cleanup(void)
{
	static const char *const files[] = {
		"r600", "r644", "w666", "w622", "mine077", "g604", "g640", "d700/f", "d711/f",
		"d755/f", "d777/rootf", "d777/mine", "d777/sub/mine", "dsticky/rootf",
		"dsticky/mine", "dsticky/mine2", "dnob/rootf", "nobf", "nob0", "nob100",
		"nob000", "s6777", "s2767", "x644", "x700", "x711", "x100", "d000/new", "dsgid/f",
	};
	static const char *const dirs[] = {
		"d700", "d711", "d755/dir", "d755", "d777/sub", "d777/sub2", "d777/rootdir",
		"d777/rootdir2",
		"d777", "dsticky/rootd", "dsticky", "dnob", "d000", "dsgid/sub", "dsgid", "",
	};
	char path[256];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), D "/%s", files[i]);
		unlink(path);
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), D "/%s", dirs[i]);
		rmdir(path);
	}
}

static void setup(void)
{
	CHECK(mkdir(D, 0755) == 0);
	mkfile(D "/r600", 0600, 0, 0);
	mkfile(D "/r644", 0644, 0, 0);
	mkfile(D "/w666", 0666, 0, 0);
	mkfile(D "/w622", 0622, 0, 0);
	mkfile(D "/mine077", 0077, NOBODY, NOBODY);
	mkfile(D "/g604", 0604, 0, 100);
	mkfile(D "/g640", 0640, 0, 100);
	mkfile(D "/nobf", 0644, NOBODY, NOBODY);
	mkfile(D "/nob0", 0644, NOBODY, 0);
	mkfile(D "/nob100", 0644, NOBODY, 100);
	mkfile(D "/nob000", 0, NOBODY, NOBODY);
	mkfile(D "/s6777", 06777, 0, 0);
	mkfile(D "/s2767", 02767, 0, 0);
	mkdir_as(D "/d700", 0700, 0, 0);
	mkfile(D "/d700/f", 0644, 0, 0);
	mkdir_as(D "/d711", 0711, 0, 0);
	mkfile(D "/d711/f", 0644, 0, 0);
	mkdir_as(D "/d755", 0755, 0, 0);
	mkfile(D "/d755/f", 0644, 0, 0);
	mkdir_as(D "/d755/dir", 0755, 0, 0);
	mkdir_as(D "/d777", 0777, 0, 0);
	mkfile(D "/d777/rootf", 0600, 0, 0);
	mkdir_as(D "/d777/rootdir", 0755, 0, 0);
	mkdir_as(D "/dsticky", 01777, 0, 0);
	mkfile(D "/dsticky/rootf", 0666, 0, 0);
	mkdir_as(D "/dsticky/rootd", 0777, 0, 0);
	mkdir_as(D "/dnob", 01777, NOBODY, NOBODY);
	mkfile(D "/dnob/rootf", 0600, 0, 0);
	mkdir_as(D "/d000", 0, NOBODY, NOBODY);
	mkdir_as(D "/dsgid", 02777, 0, 100);
	utest_copy_file(self, D "/x644", O_EXCL, 0644);
	utest_copy_file(self, D "/x700", O_EXCL, 0700);
	utest_copy_file(self, D "/x711", O_EXCL, 0711);
	utest_copy_file(self, D "/x100", O_EXCL, 0100);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "exit7"))
		return 7;
	if (getuid() != 0) {
		fprintf(stderr, "perms: must start as root\n");
		return 1;
	}
	self = argv[0];
	umask(022);
	cleanup();
	setup();
	as_nobody(open_bits);
	as_nobody_in(open_group, true);
	as_nobody(directories);
	as_nobody(sticky);
	as_nobody(chmod_rules);
	as_nobody_in(chmod_group, true);
	as_nobody_in(chown_rules, true);
	as_nobody(utimes_rules);
	as_nobody(write_drops_suid);
	finish(start(access_real), 0);
	as_nobody(exec_rules);
	as_nobody(sgid_dir);
	root_overrides();
	signals();
	cleanup();
	CHECK_EQ(access(D, F_OK), -1); /* all gone */
	return utest_done();
}
