/* fs-attrs: what an inode says about itself and the calls that change it, as Linux answers:
 * umask, chmod, chown (and the set-user-ID bit it drops), utimensat and the time stamps that
 * reads, writes, truncates and new names move, access, statfs, sysinfo, and the wall clock. */
#define _GNU_SOURCE
#define UTEST_NAME "fs-attrs"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#define DIR_ "/tmp/fs-attrs"
#define FILE_ DIR_ "/f"

static struct stat st_of(const char *path)
{
	struct stat st;

	memset(&st, 0xff, sizeof(st));
	stat(path, &st);
	return st;
}

static void umask_and_chmod(void)
{
	mode_t old = umask(077);
	int fd;

	CHECK(mkdir(DIR_, 0777) == 0);
	CHECK_EQ(st_of(DIR_).st_mode & 07777, 0700);
	fd = open(FILE_, O_RDWR | O_CREAT | O_EXCL, 0666);
	CHECK(fd >= 0);
	CHECK_EQ(st_of(FILE_).st_mode & 07777, 0600);
	CHECK_EQ(umask(old), 077);
	CHECK(chmod(DIR_, 0755) == 0 && (st_of(DIR_).st_mode & 07777) == 0755);
	CHECK(chmod(FILE_, 04755) == 0 && (st_of(FILE_).st_mode & 07777) == 04755);
	CHECK(S_ISREG(st_of(FILE_).st_mode)); /* the type stays */
	CHECK(fchmod(fd, 0640) == 0 && (st_of(FILE_).st_mode & 07777) == 0640);
	CHECK(fchmodat(AT_FDCWD, FILE_, 0644, 0) == 0 && (st_of(FILE_).st_mode & 07777) == 0644);
	CHECK_ERR(chmod(DIR_ "/nothing", 0644), ENOENT);
	CHECK_ERR(fchmod(99, 0644), EBADF);
	close(fd);
}

static void chown_calls(void)
{
	if (geteuid() != 0)
		return; /* (as another user these are EPERM) */
	CHECK(chmod(FILE_, 04755) == 0);
	CHECK(chown(FILE_, 1000, 1001) == 0);
	CHECK_EQ(st_of(FILE_).st_uid, 1000);
	CHECK_EQ(st_of(FILE_).st_gid, 1001);
	CHECK_EQ(st_of(FILE_).st_mode & 07777, 0755); /* a new owner drops set-user-ID */
	CHECK(chown(FILE_, -1, -1) == 0 && st_of(FILE_).st_uid == 1000);
	CHECK(lchown(FILE_, 0, -1) == 0 && st_of(FILE_).st_uid == 0 && st_of(FILE_).st_gid == 1001);
	CHECK(fchownat(AT_FDCWD, FILE_, -1, 0, 0) == 0 && st_of(FILE_).st_gid == 0);
	CHECK_ERR(fchownat(AT_FDCWD, FILE_, 0, 0, 0x4), EINVAL);
	CHECK_ERR(chown(DIR_ "/nothing", 0, 0), ENOENT);
}

static int ts_eq(struct timespec a, long sec, long nsec)
{
	return a.tv_sec == sec && a.tv_nsec == nsec;
}

static void times(void)
{
	struct timespec t[2] = { { 100, 5 }, { 200, 6 } }, now;
	struct stat st;
	char c;
	int fd = open(FILE_, O_RDWR);

	if (!CHECK(fd >= 0))
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	CHECK(utimensat(AT_FDCWD, FILE_, t, 0) == 0);
	st = st_of(FILE_);
	CHECK(ts_eq(st.st_atim, 100, 5) && ts_eq(st.st_mtim, 200, 6));
	CHECK(st.st_ctim.tv_sec >= now.tv_sec - 1); /* changing the times is a change */
	t[0].tv_nsec = UTIME_OMIT;
	t[1] = (struct timespec){ 300, 7 };
	CHECK(utimensat(AT_FDCWD, FILE_, t, 0) == 0);
	st = st_of(FILE_);
	CHECK(ts_eq(st.st_atim, 100, 5) && ts_eq(st.st_mtim, 300, 7));
	t[1].tv_nsec = 1000000000;
	CHECK_ERR(utimensat(AT_FDCWD, FILE_, t, 0), EINVAL);
	CHECK_ERR(utimensat(AT_FDCWD, FILE_, NULL, 0x4), EINVAL);
	CHECK(write(fd, "x", 1) == 1); /* a write moves mtime (and ctime) to now */
	CHECK(st_of(FILE_).st_mtim.tv_sec >= now.tv_sec - 1);
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, &c, 1) == 1);
	CHECK(st_of(FILE_).st_atim.tv_sec >= now.tv_sec - 1); /* relatime: atime <= mtime */
	CHECK(futimens(fd, (struct timespec[2]){ { 0, UTIME_OMIT }, { 400, 0 } }) == 0);
	CHECK(ftruncate(fd, 0) == 0 && st_of(FILE_).st_mtim.tv_sec >= now.tv_sec - 1);
	CHECK(utimensat(AT_FDCWD, DIR_, (struct timespec[2]){ { 50, 0 }, { 50, 0 } }, 0) == 0);
	close(open(DIR_ "/g", O_RDWR | O_CREAT, 0644)); /* a new name moves the directory's */
	CHECK(st_of(DIR_).st_mtim.tv_sec >= now.tv_sec - 1);
	CHECK(unlink(DIR_ "/g") == 0);
	close(fd);
}

static void access_calls(void)
{
	CHECK(chmod(FILE_, 0644) == 0);
	CHECK(access(FILE_, F_OK) == 0);
	CHECK(access(FILE_, R_OK | W_OK) == 0);
	CHECK_ERR(access(FILE_, X_OK), EACCES); /* even root needs an x bit */
	CHECK(chmod(FILE_, 0744) == 0 && access(FILE_, X_OK) == 0);
	CHECK(access(DIR_, X_OK) == 0);
	CHECK_ERR(access(FILE_, 8), EINVAL);
	CHECK_ERR(access(DIR_ "/nothing", F_OK), ENOENT);
	CHECK(faccessat(AT_FDCWD, FILE_, R_OK, 0) == 0);
	CHECK_ERR(syscall(SYS_faccessat2, AT_FDCWD, FILE_, R_OK, 0x4), EINVAL);
}

static void statfs_sysinfo_clock(void)
{
	struct statfs sfs;
	struct sysinfo si;
	struct timeval tv;
	time_t t;
	int p[2];

	CHECK(statfs("/proc", &sfs) == 0 && sfs.f_type == 0x9fa0); /* PROC_SUPER_MAGIC */
	CHECK(statfs("/tmp", &sfs) == 0 && sfs.f_bsize > 0 && sfs.f_namelen == 255);
	CHECK_ERR(statfs(DIR_ "/nothing", &sfs), ENOENT);
	if (CHECK(pipe(p) == 0)) {
		CHECK(fstatfs(p[0], &sfs) == 0 && sfs.f_type == 0x50495045); /* PIPEFS_MAGIC */
		close(p[0]);
		close(p[1]);
	}
	CHECK_ERR(fstatfs(99, &sfs), EBADF);
	CHECK(sysinfo(&si) == 0);
	CHECK(si.uptime > 0 && si.totalram > 0 && si.freeram <= si.totalram && si.mem_unit > 0);
	CHECK(si.procs >= 1);
	CHECK(gettimeofday(&tv, NULL) == 0 && tv.tv_sec > 1500000000 && tv.tv_usec < 1000000);
	t = time(NULL);
	CHECK(t >= tv.tv_sec && t - tv.tv_sec < 5);
}

int main(void)
{
	umask_and_chmod();
	chown_calls();
	times();
	access_calls();
	statfs_sysinfo_clock();
	unlink(FILE_);
	CHECK(rmdir(DIR_) == 0);
	return utest_done();
}
