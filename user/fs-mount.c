/* fs-mount: mount, remount and umount2 as Linux answers them, on a tmpfs mounted in a scratch
 * directory: the errors (ENOENT, ENOTDIR, ENODEV, ENOTBLK, EINVAL, EBUSY, EPERM, EAGAIN), what
 * /proc/self/mountinfo and statfs show, EROFS from every writing call on a read-only mount (and
 * success from each once it is read-write again), noexec, nosuid, nodev, atime, lazy umount and
 * a second procfs. Must start as root. */
#define _GNU_SOURCE
#define UTEST_NAME "fs-mount"
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#define TMPFS_MAGIC 0x01021994
#define LOOP_SET_FD 0x4C00 /* <linux/loop.h>'s, which musl has not */
#define LOOP_CLR_FD 0x4C01
#define LOOP_CTL_GET_FREE 0x4C82

static char D[64], M[96]; /* the scratch directory, and M = D/m where tmpfs goes */
static const char *self;  /* argv[0] */

/* buf = D or M + "/" + rel */
static const char *in(const char *dir, const char *rel)
{
	static char bufs[4][160];
	static int k;
	char *b = bufs[k++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, rel);
	return b;
}

static dev_t dev_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? (dev_t)-1 : st.st_dev;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (long)strlen(text));
	close(fd);
}

static int holds(const char *path, const char *text)
{
	char buf[64];

	return utest_slurp(path, buf, sizeof(buf)) >= 0 && strcmp(buf, text) == 0;
}

static int remount(unsigned long flags)
{
	return mount(NULL, M, NULL, MS_REMOUNT | flags, NULL);
}

static long statfs_flags(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) ? -1 : (long)sfs.f_flags;
}

/* The line of /proc/self/mountinfo (or mounts) whose mount point (field k, from 0) is dir,
 * the last such (the mount on top) into line; 1 if found. */
static int table_line(const char *file, int k, const char *dir, char *line, size_t n)
{
	static char text[65536];
	int found = 0;

	if (utest_slurp(file, text, sizeof(text)) <= 0)
		return 0;
	for (char *l = text; *l;) {
		char *end = strchr(l, '\n'), *f = l;

		if (end)
			*end = '\0';
		for (int i = 0; i < k && f; i++)
			f = strchr(f, ' ') ? strchr(f, ' ') + 1 : NULL;
		if (f && strncmp(f, dir, strlen(dir)) == 0 && f[strlen(dir)] == ' ') {
			snprintf(line, n, "%.*s", (int)n - 1, l);
			found = 1;
		}
		if (!end)
			break;
		l = end + 1;
	}
	return found;
}

/* Entries of dir other than "." and "..", or -1. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Does /proc/filesystems list type as one mounted from a device (no "nodev" before it)? */
static int fs_needs_dev(const char *type)
{
	char text[4096], want[64], *p;

	snprintf(want, sizeof(want), "\t%s\n", type);
	if (utest_slurp("/proc/filesystems", text, sizeof(text)) <= 0)
		return 0;
	p = strstr(text, want);
	return p && (p == text || p[-1] == '\n');
}

/* A read-write mount of a read-only device (a loop device over a file open read-only) is
 * EACCES, before the file system reads it (read-only, it finds no ext2 there: EINVAL); so is
 * a device file on a nodev mount as the source. */
static void device_errors(void)
{
	char dev[32];
	struct stat st;
	int ctl, lo = -1, file, n;

	if (!fs_needs_dev("ext2")) {
		utest_skip("EACCES for a read-only device, a nodev source", "no ext2 registered");
		return;
	}
	file = open(in(D, "img"), O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(file >= 0 && ftruncate(file, 1 << 20) == 0);
	close(file);
	file = open(in(D, "img"), O_RDONLY);
	ctl = open("/dev/loop-control", O_RDWR);
	n = ctl >= 0 ? ioctl(ctl, LOOP_CTL_GET_FREE) : -1;
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	if (n >= 0)
		lo = open(dev, O_RDWR);
	if (!CHECK(lo >= 0 && ioctl(lo, LOOP_SET_FD, file) == 0 && stat(dev, &st) == 0))
		return;
	CHECK_ERR(mount(dev, M, "ext2", 0, NULL), EACCES);
	CHECK_ERR(mount(dev, M, "ext2", MS_RDONLY, NULL), EINVAL);
	CHECK(mkdir(in(D, "t"), 0755) == 0);
	CHECK_EQ(mount("none", M, "tmpfs", MS_NODEV, NULL), 0);
	CHECK(mknod(in(M, "blk"), S_IFBLK | 0600, st.st_rdev) == 0);
	CHECK_ERR(mount(in(M, "blk"), in(D, "t"), "ext2", MS_RDONLY, NULL), EACCES);
	CHECK_EQ(remount(0), 0);
	CHECK_ERR(mount(in(M, "blk"), in(D, "t"), "ext2", MS_RDONLY, NULL), EINVAL);
	CHECK_EQ(umount(M), 0);
	CHECK(ioctl(lo, LOOP_CLR_FD) == 0);
	close(lo);
	close(ctl);
	close(file);
	CHECK(unlink(in(D, "img")) == 0 && rmdir(in(D, "t")) == 0);
}

static void mount_errors(void)
{
	write_file(in(D, "f"), "file");
	CHECK_ERR(mount("none", in(D, "nothing"), "tmpfs", 0, NULL), ENOENT);
	CHECK_ERR(mount("none", in(D, "f/x"), "tmpfs", 0, NULL), ENOTDIR);
	CHECK_ERR(mount("none", in(D, "f"), "tmpfs", 0, NULL), ENOTDIR);
	CHECK_ERR(mount("none", M, "no-such-fs", 0, NULL), ENODEV);
	CHECK_ERR(mount("none", M, NULL, 0, NULL), EINVAL);
	if (fs_needs_dev("ext2")) {
		CHECK_ERR(mount(in(D, "f"), M, "ext2", MS_RDONLY, NULL), ENOTBLK);
	} else {
		CHECK_ERR(mount(in(D, "f"), M, "ext2", MS_RDONLY, NULL), ENODEV);
		utest_skip("ENOTBLK from a device-needing type", "no ext2 registered");
	}
	CHECK_ERR(remount(0), EINVAL);              /* M is no mount point yet */
	CHECK_ERR(umount(M), EINVAL);
	CHECK_ERR(umount(in(D, "nothing")), ENOENT);
	CHECK_ERR(umount2(in(D, "nothing"), 0x100), EINVAL); /* unknown flag, before the lookup */
	CHECK_EQ(dev_of(M), dev_of(D));             /* nothing of that got mounted */
}

/* The fields of M's mountinfo line as Linux gives them; its parent is the mount D is on. */
static void mountinfo(void)
{
	char line[512], pline[512], mp[160], opts[160], type[32], src[32], sopts[160], root[8];
	int id, parent, maj, min, pid_, n;
	struct stat st;

	CHECK(stat(M, &st) == 0);
	if (!CHECK(table_line("/proc/self/mountinfo", 4, M, line, sizeof(line))))
		return;
	n = sscanf(line, "%d %d %d:%d %7s %159s %159s - %31s %31s %159s", &id, &parent, &maj, &min,
		   root, mp, opts, type, src, sopts);
	CHECK_EQ(n, 10);
	CHECK_EQ(maj, major(st.st_dev));
	CHECK_EQ(min, minor(st.st_dev));
	CHECK(strcmp(root, "/") == 0 && strcmp(mp, M) == 0);
	CHECK(strncmp(opts, "rw", 2) == 0 && strstr(opts, "relatime"));
	CHECK(strcmp(type, "tmpfs") == 0 && strcmp(src, "none") == 0);
	CHECK(strncmp(sopts, "rw", 2) == 0);
	CHECK(id != parent);
	/* the parent's own line: a mount whose ID is parent, holding D's device */
	CHECK(stat(D, &st) == 0);
	{
		static char text[65536];
		int found = 0, pmaj, pmin;

		CHECK(utest_slurp("/proc/self/mountinfo", text, sizeof(text)) > 0);
		for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (sscanf(l, "%d %*d %d:%d", &pid_, &pmaj, &pmin) == 3 && pid_ == parent) {
				found++;
				CHECK_EQ(makedev(pmaj, pmin), st.st_dev);
				snprintf(pline, sizeof(pline), "%.*s", (int)strcspn(l, "\n"), l);
			}
		CHECK_EQ(found, 1);
	}
	CHECK(table_line("/proc/mounts", 1, M, line, sizeof(line)));
	CHECK(strncmp(line, "none ", 5) == 0 && strstr(line, " tmpfs rw,") &&
	      strcmp(line + strlen(line) - 4, " 0 0") == 0);
	n = (int)readlink("/proc/mounts", line, sizeof(line) - 1);
	CHECK(n == 11 && strncmp(line, "self/mounts", 11) == 0);
}

static void mount_tmpfs(void)
{
	struct statfs sfs;
	struct stat a, b;

	CHECK_EQ(entries(M), 0);
	CHECK_EQ(mount("none", M, "tmpfs", 0, NULL), 0);
	CHECK(dev_of(M) != dev_of(D));
	CHECK(statfs(M, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC);
	CHECK_EQ(statfs_flags(M) & ST_RDONLY, 0);
	CHECK(stat(in(M, ".."), &a) == 0 && stat(D, &b) == 0 && a.st_ino == b.st_ino &&
	      a.st_dev == b.st_dev); /* ".." of its root leaves it */
	mountinfo();
	write_file(in(M, "file"), "hello");
	CHECK(mkdir(in(M, "dir"), 0755) == 0);
	write_file(in(M, "dir/inner"), "inner");
}

/* Each writing call once, undone when it worked: 0 or -errno. */
static int rc(long r)
{
	return r < 0 ? -errno : 0;
}

static int w_open(int flags)
{
	int fd = open(in(M, "file"), flags, 0644);

	if (fd >= 0)
		close(fd);
	return rc(fd);
}

static int w_open_wronly(void) { return w_open(O_WRONLY); }
static int w_open_rdwr(void) { return w_open(O_RDWR); }
static int w_open_append(void) { return w_open(O_WRONLY | O_APPEND); }
static int w_open_trunc(void)
{
	int r = w_open(O_RDONLY | O_TRUNC);

	if (!r)
		write_file(in(M, "file"), "hello");
	return r;
}

static int w_creat(void)
{
	int fd = open(in(M, "new"), O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd >= 0) {
		close(fd);
		unlink(in(M, "new"));
	}
	return rc(fd);
}

static int w_creat_existing(void)
{
	int fd = creat(in(M, "file"), 0644);

	if (fd >= 0) {
		close(fd);
		write_file(in(M, "file"), "hello");
	}
	return rc(fd);
}

static int w_mkdir(void)
{
	int r = rc(mkdir(in(M, "newdir"), 0755));

	if (!r)
		rmdir(in(M, "newdir"));
	return r;
}

static int w_mknod(void)
{
	int r = rc(mknod(in(M, "node"), S_IFREG | 0644, 0));

	if (!r)
		unlink(in(M, "node"));
	return r;
}

static int w_symlink(void)
{
	int r = rc(symlink("file", in(M, "ln")));

	if (!r)
		unlink(in(M, "ln"));
	return r;
}

static int w_unlink(void)
{
	int r = rc(unlink(in(M, "file")));

	if (!r)
		write_file(in(M, "file"), "hello");
	return r;
}

static int w_rmdir(void)
{
	int r = rc(rmdir(in(M, "dir/sub")));

	mkdir(in(M, "dir/sub"), 0755);
	return r;
}

static int w_rename(void)
{
	int r = rc(rename(in(M, "file"), in(M, "moved")));

	if (!r)
		rename(in(M, "moved"), in(M, "file"));
	return r;
}

static int w_chmod(void) { return rc(chmod(in(M, "file"), 0644)); }
static int w_chown(void) { return rc(chown(in(M, "file"), 0, 0)); }
static int w_utimens(void) { return rc(utimensat(AT_FDCWD, in(M, "file"), NULL, 0)); }
static int w_truncate(void) { return rc(truncate(in(M, "file"), 5)); }
static int w_access(void) { return rc(access(in(M, "file"), W_OK)); }
static int w_open_dir(void)
{
	int fd = open(in(M, "dir"), O_RDONLY | O_DIRECTORY);

	if (fd >= 0) { /* fchmod of a directory open read-only: still a write to the mount */
		int r = rc(fchmod(fd, 0755));

		close(fd);
		return r;
	}
	return rc(fd);
}

static const struct {
	const char *what;
	int (*call)(void);
} writers[] = {
	{ "open O_WRONLY", w_open_wronly }, { "open O_RDWR", w_open_rdwr },
	{ "open O_APPEND", w_open_append }, { "open O_TRUNC", w_open_trunc },
	{ "open O_CREAT", w_creat },        { "creat", w_creat_existing },
	{ "mkdir", w_mkdir },               { "mknod", w_mknod },
	{ "symlink", w_symlink },           { "unlink", w_unlink },
	{ "rmdir", w_rmdir },               { "rename", w_rename },
	{ "chmod", w_chmod },               { "chown", w_chown },
	{ "utimensat", w_utimens },         { "truncate", w_truncate },
	{ "access W_OK", w_access },        { "fchmod of a directory", w_open_dir },
};

/* Every writer answers want (0: it worked). */
static void writers_answer(int want)
{
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
		int got = writers[i].call();

		if (!utest_check(got == want, __FILE__, __LINE__, writers[i].what))
			fprintf(stderr, "%s:   %s gave %d, want %d\n", UTEST_NAME, writers[i].what,
				got, want);
	}
}

static time_t atime_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_atime;
}

static void read_only(void)
{
	const struct timespec old[2] = { { 1000, 0 }, { 2000, 0 } };
	char line[512];
	int fd;

	CHECK(mkdir(in(M, "dir/sub"), 0755) == 0);
	writers_answer(0); /* read-write: each call works */
	/* relatime on a read-write mount: a read moves an atime older than mtime */
	CHECK(utimensat(AT_FDCWD, in(M, "file"), old, 0) == 0);
	CHECK(holds(in(M, "file"), "hello"));
	CHECK(atime_of(in(M, "file")) > 2000);
	CHECK(utimensat(AT_FDCWD, in(M, "file"), old, 0) == 0);
	/* a file open for writing keeps it read-write */
	fd = open(in(M, "file"), O_WRONLY);
	CHECK(fd >= 0);
	CHECK_ERR(remount(MS_RDONLY), EBUSY);
	CHECK_EQ(statfs_flags(M) & ST_RDONLY, 0);
	close(fd);
	CHECK_EQ(remount(MS_RDONLY), 0);
	CHECK_EQ(statfs_flags(M) & ST_RDONLY, ST_RDONLY);
	CHECK(table_line("/proc/self/mountinfo", 4, M, line, sizeof(line)) &&
	      strstr(line, " ro,relatime ") && strstr(line, " - tmpfs none ro"));
	writers_answer(-EROFS);
	/* still readable, with no atime moved; the checks before EROFS come first */
	CHECK(holds(in(M, "file"), "hello"));
	CHECK_EQ(atime_of(in(M, "file")), 1000);
	CHECK(access(in(M, "file"), R_OK) == 0);
	CHECK_ERR(open(in(M, "nothing"), O_WRONLY), ENOENT);
	CHECK_ERR(mkdir(in(M, "nothing/x"), 0755), ENOENT);
	CHECK_ERR(mkdir(in(M, "dir"), 0755), EEXIST);
	CHECK_ERR(open(in(M, "dir"), O_WRONLY), EISDIR);
	CHECK_ERR(unlink(in(M, "nothing")), EROFS); /* before the name is looked up */
	CHECK_EQ(remount(0), 0);
	CHECK_EQ(statfs_flags(M) & ST_RDONLY, 0);
	writers_answer(0);
	CHECK(holds(in(M, "file"), "hello"));
	/* noatime: reads move no atime either; statfs and mountinfo say so */
	CHECK_EQ(remount(MS_NOATIME), 0);
	CHECK(utimensat(AT_FDCWD, in(M, "file"), old, 0) == 0);
	CHECK(holds(in(M, "file"), "hello"));
	CHECK_EQ(atime_of(in(M, "file")), 1000);
	CHECK_EQ(statfs_flags(M) & (ST_NOATIME | ST_RELATIME), ST_NOATIME);
	CHECK(table_line("/proc/self/mountinfo", 4, M, line, sizeof(line)) &&
	      strstr(line, " rw,noatime "));
	CHECK_EQ(remount(0), 0); /* a remount naming no atime rule keeps the one it had */
	CHECK_EQ(statfs_flags(M) & (ST_NOATIME | ST_RELATIME), ST_NOATIME);
	CHECK_EQ(remount(MS_RELATIME), 0);
	CHECK_EQ(statfs_flags(M) & (ST_NOATIME | ST_RELATIME), ST_RELATIME);
}

/* A copy of this program on the mount, run with arg: its exit status, or -1. */
static int run_copy(const char *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		char *const argv[] = { "fs-mount", (char *)arg, NULL };

		execv(in(M, "prog"), argv);
		_exit(99);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void exec_flags(void)
{
	char *const argv[] = { "fs-mount", "exit42", NULL };
	void *p;
	int fd;

	utest_copy_file(self, in(M, "prog"), O_EXCL, 0755);
	CHECK_EQ(run_copy("exit42"), 42);
	fd = open(in(M, "prog"), O_RDONLY);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED);
	munmap(p, 4096);
	close(fd);
	/* noexec: no exec, no executable mapping, not even later by mprotect */
	CHECK_EQ(remount(MS_NOEXEC), 0);
	CHECK_ERR(execv(in(M, "prog"), argv), EACCES);
	CHECK_EQ(run_copy("exit42"), 99);
	fd = open(in(M, "prog"), O_RDONLY);
	CHECK_ERR(mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0), EPERM);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (CHECK(p != MAP_FAILED)) {
		CHECK_ERR(mprotect(p, 4096, PROT_READ | PROT_EXEC), EACCES);
		munmap(p, 4096);
	}
	close(fd);
	CHECK_EQ(remount(0), 0);
	/* nosuid: a set-user-ID program runs as its caller */
	CHECK(chown(in(M, "prog"), 1234, 1234) == 0 && chmod(in(M, "prog"), 04755) == 0);
	CHECK_EQ(run_copy("euid"), 34); /* 1234 % 100 */
	CHECK_EQ(remount(MS_NOSUID), 0);
	CHECK_EQ(run_copy("euid"), 0);
	CHECK_EQ(remount(0), 0);
	CHECK(unlink(in(M, "prog")) == 0);
	/* nodev: a device file opens nothing; read-only: a device file still writes */
	CHECK(mknod(in(M, "null"), S_IFCHR | 0666, makedev(1, 3)) == 0);
	CHECK_EQ(remount(MS_RDONLY), 0);
	fd = open(in(M, "null"), O_WRONLY);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	close(fd);
	CHECK_EQ(remount(MS_NODEV), 0);
	CHECK_ERR(open(in(M, "null"), O_RDONLY), EACCES);
	CHECK_EQ(remount(0), 0);
	fd = open(in(M, "null"), O_RDONLY);
	CHECK(fd >= 0);
	close(fd);
	CHECK(unlink(in(M, "null")) == 0);
}

/* The state letter of process pid (/proc/PID/stat's third field), or '?'. */
static char state_of(pid_t pid)
{
	char path[64], text[512], *paren;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (utest_slurp(path, text, sizeof(text)) <= 0 || !(paren = strrchr(text, ')')))
		return '?';
	return paren[2];
}

/* A FIFO's open waiting for the other end holds the file system too. */
static void fifo_open_busy(void)
{
	int status = -1, fd, tries = 0;
	pid_t pid;

	CHECK(mkfifo(in(M, "fifo"), 0600) == 0);
	pid = fork();
	if (pid == 0)
		_exit(open(in(M, "fifo"), O_RDONLY) >= 0 ? 0 : 1);
	while (state_of(pid) != 'S' && tries++ < 500)
		usleep(10000);
	CHECK_EQ(state_of(pid), 'S'); /* asleep in open */
	CHECK_ERR(umount(M), EBUSY);
	fd = open(in(M, "fifo"), O_WRONLY);
	CHECK(fd >= 0);
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);
	close(fd);
	CHECK(unlink(in(M, "fifo")) == 0);
}

static void umount_busy(void)
{
	char line[512];
	void *p;
	int fd;

	fd = open(in(M, "file"), O_RDONLY);
	CHECK_ERR(umount(M), EBUSY); /* an open file */
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	CHECK_ERR(umount(M), EBUSY); /* a mapping */
	munmap(p, 4096);
	CHECK(chdir(in(M, "dir")) == 0);
	CHECK_ERR(umount(M), EBUSY); /* a working directory */
	CHECK(chdir("/") == 0);
	fifo_open_busy();
	CHECK_EQ(mount("none", in(M, "dir"), "tmpfs", 0, NULL), 0);
	CHECK_ERR(umount(M), EBUSY); /* a mount below */
	CHECK_EQ(umount(in(M, "dir")), 0);
	CHECK(holds(in(M, "dir/inner"), "inner")); /* what the mount covered is back */
	CHECK_ERR(umount(in(M, "dir")), EINVAL); /* no mount's root */
	CHECK_ERR(umount2(M, MNT_EXPIRE | MNT_DETACH), EINVAL);
	CHECK_EQ(umount(M), 0);
	CHECK_EQ(dev_of(M), dev_of(D));
	CHECK_EQ(entries(M), 0); /* the directory is empty again */
	CHECK_ERR(open(in(M, "file"), O_RDONLY), ENOENT);
	CHECK(!table_line("/proc/self/mountinfo", 4, M, line, sizeof(line)));
}

static void lazy_and_expire(void)
{
	char buf[8] = { 0 };
	struct statfs sfs;
	struct stat st;
	int fd;

	CHECK_EQ(mount("none", M, "tmpfs", 0, NULL), 0);
	write_file(in(M, "f"), "data");
	fd = open(in(M, "f"), O_RDONLY);
	CHECK_EQ(umount2(M, MNT_DETACH), 0);
	CHECK_EQ(dev_of(M), dev_of(D)); /* gone from the tree at once */
	CHECK_EQ(read(fd, buf, sizeof(buf) - 1), 4); /* what is open lives on */
	CHECK(strcmp(buf, "data") == 0 && fstatfs(fd, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC);
	close(fd);
	/* lazily, with a mount below it in use: both leave the tree */
	CHECK_EQ(mount("none", M, "tmpfs", 0, NULL), 0);
	CHECK(mkdir(in(M, "sub"), 0755) == 0);
	CHECK_EQ(mount("none", in(M, "sub"), "tmpfs", 0, NULL), 0);
	write_file(in(M, "sub/g"), "below");
	fd = open(in(M, "sub/g"), O_RDONLY);
	CHECK_ERR(umount(M), EBUSY);
	CHECK_EQ(umount2(M, MNT_DETACH), 0);
	CHECK_EQ(dev_of(M), dev_of(D));
	CHECK_ERR(stat(in(M, "sub"), &st), ENOENT);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(read(fd, buf, sizeof(buf) - 1), 5);
	CHECK(strcmp(buf, "below") == 0);
	close(fd);
	CHECK_EQ(mount("none", M, "tmpfs", 0, NULL), 0);
	CHECK_ERR(umount2(M, MNT_EXPIRE), EAGAIN); /* marked */
	CHECK(dev_of(M) != dev_of(D));             /* a use: the mark goes */
	CHECK_ERR(umount2(M, MNT_EXPIRE), EAGAIN); /* marked again */
	CHECK_EQ(umount2(M, MNT_EXPIRE), 0);       /* unused since: gone */
	CHECK_EQ(dev_of(M), dev_of(D));
	CHECK_EQ(mount("none", M, "tmpfs", 0, NULL), 0);
	CHECK(symlink("m", in(D, "ln")) == 0);
	CHECK_ERR(umount2(in(D, "ln"), UMOUNT_NOFOLLOW), EINVAL); /* the link is no mount */
	CHECK_EQ(umount2(in(D, "ln"), 0), 0);
	CHECK_EQ(dev_of(M), dev_of(D));
	CHECK(unlink(in(D, "ln")) == 0);
}

/* procfs mounted a second time shows the same processes. */
static void second_proc(void)
{
	char buf[32], want[32], line[512];
	struct stat st;
	long n;

	CHECK(mkdir(in(D, "p"), 0755) == 0);
	CHECK_EQ(mount("proc", in(D, "p"), "proc", 0, NULL), 0);
	n = readlink(in(D, "p/self"), buf, sizeof(buf) - 1);
	snprintf(want, sizeof(want), "%d", (int)getpid());
	CHECK(n > 0 && (buf[n] = '\0', strcmp(buf, want) == 0));
	CHECK(stat(in(D, "p/self/status"), &st) == 0 && S_ISREG(st.st_mode));
	CHECK(lstat(in(D, "p/mounts"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(table_line("/proc/self/mountinfo", 4, in(D, "p"), line, sizeof(line)) &&
	      strstr(line, " - proc proc rw"));
	CHECK_EQ(umount(in(D, "p")), 0);
	CHECK_ERR(stat(in(D, "p/self"), &st), ENOENT);
	CHECK(rmdir(in(D, "p")) == 0);
}

/* Without CAP_SYS_ADMIN (as nobody, in a child): EPERM, after the lookup's own errors. */
static void eperm(void)
{
	int status = -1, fails = utest_fails;
	pid_t pid;

	CHECK(chmod(D, 0755) == 0);
	CHECK_EQ(mount("none", M, "tmpfs", 0, NULL), 0);
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		CHECK_ERR(mount("none", M, "tmpfs", 0, NULL), EPERM);
		CHECK_ERR(remount(MS_RDONLY), EPERM);
		CHECK_ERR(umount(M), EPERM);
		CHECK_ERR(umount(in(D, "nothing")), ENOENT);
		CHECK_ERR(mount("none", in(D, "nothing"), "tmpfs", 0, NULL), ENOENT);
		_exit(utest_fails > fails);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK_EQ(status, 0);
	CHECK_EQ(umount(M), 0); /* the same calls as root work */
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exit42") == 0)
		return 42;
	if (argc > 1 && strcmp(argv[1], "euid") == 0)
		return (int)(geteuid() % 100);
	self = argv[0];
	if (geteuid() != 0) {
		fprintf(stderr, "fs-mount: must run as root\n");
		return 1;
	}
	snprintf(D, sizeof(D), "/tmp/fs-mount-XXXXXX");
	if (!CHECK(mkdtemp(D) != NULL))
		return utest_done();
	snprintf(M, sizeof(M), "%s/m", D);
	CHECK(mkdir(M, 0755) == 0);
	mount_errors();
	device_errors();
	mount_tmpfs();
	read_only();
	exec_flags();
	umount_busy();
	lazy_and_expire();
	second_proc();
	eperm();
	/* tidy up whatever a failure left mounted (the checks are done) */
	while (umount2(M, MNT_DETACH) == 0)
		;
	umount2(in(D, "p"), MNT_DETACH);
	rmdir(in(D, "p"));
	rmdir(M);
	unlink(in(D, "f"));
	unlink(in(D, "img"));
	rmdir(in(D, "t"));
	rmdir(D);
	return utest_done();
}
