/* links-ram: hard links on the file systems in memory (/tmp on the root ramfs, tmpfs on
 * /dev/shm): link counts, one name unlinked and the file read through another, linkat's flags
 * and errors, rename between names of one file, the path an open file, a mapping and a program
 * show (the name they were opened by), and a named semaphore across fork. Checked natively. */
#define _GNU_SOURCE
#define UTEST_NAME "links-ram"
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

#define D   "/tmp/links-ram-test"
#define SHM "/dev/shm/links-ram-test"
#define SEM "/links-ram-test-sem"
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE 2
#endif

/* stat's link count of path, -1 if it has none */
static long nlink(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? -1 : (long)st.st_nlink;
}

static unsigned long ino(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_ino;
}

/* Is /proc/self/fd/fd's link text? */
static int fd_path_is(int fd, const char *text)
{
	char link[64], buf[PATH_MAX];
	long n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	if (strcmp(buf, text))
		fprintf(stderr, UTEST_NAME ": fd %d is %s, not %s\n", fd, buf, text);
	return !strcmp(buf, text);
}

/* Does /proc/self/maps have a line for the mapping at p ending in path? */
static int maps_path_is(const void *p, const char *path)
{
	static char buf[65536];
	char start[32];
	size_t n = (size_t)snprintf(start, sizeof(start), "%lx-", (unsigned long)p);

	if (utest_slurp("/proc/self/maps", buf, sizeof(buf)) <= 0)
		return 0;
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *end = strchr(l, '\n'), *name;

		if (strncmp(l, start, n) || !end)
			continue;
		*end = '\0';
		name = strchr(l, '/');
		return name && !strcmp(name, path);
	}
	return 0;
}

static void counts(void)
{
	char buf[8] = "";
	struct dirent *e;
	int both = 0, fd;
	DIR *dir;

	CHECK(utest_make_file(D "/a", "data"));
	CHECK_EQ(nlink(D "/a"), 1);
	CHECK_EQ(link(D "/a", D "/b"), 0);
	CHECK_EQ(nlink(D "/a"), 2);
	CHECK_EQ(nlink(D "/b"), 2);
	CHECK(ino(D "/a") != 0 && ino(D "/a") == ino(D "/b"));
	CHECK_EQ(link(D "/b", D "/sub/c"), 0); /* another directory */
	CHECK_EQ(nlink(D "/a"), 3);
	dir = opendir(D);
	while (dir && (e = readdir(dir)))
		both += (!strcmp(e->d_name, "a") || !strcmp(e->d_name, "b")) &&
			e->d_ino == ino(D "/a") && e->d_type == DT_REG;
	if (dir)
		closedir(dir);
	CHECK_EQ(both, 2);
	/* a write through one name is read through the others */
	fd = open(D "/b", O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "+", 1) == 1);
	close(fd);
	CHECK(utest_file_is(D "/a", "data+") && utest_file_is(D "/sub/c", "data+"));
	/* one name goes, the others stay */
	CHECK_EQ(unlink(D "/a"), 0);
	CHECK_EQ(nlink(D "/a"), -1);
	CHECK_EQ(nlink(D "/b"), 2);
	CHECK(utest_file_is(D "/b", "data+"));
	CHECK_EQ(unlink(D "/sub/c"), 0);
	CHECK_EQ(nlink(D "/b"), 1);
	/* the last name goes; the file open on it lives on, with no link */
	fd = open(D "/b", O_RDWR);
	CHECK_EQ(unlink(D "/b"), 0);
	{
		struct stat st;

		CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0);
	}
	CHECK(pread(fd, buf, 5, 0) == 5 && !memcmp(buf, "data+", 5));
	CHECK(fd_path_is(fd, D "/b (deleted)"));
	/* an unlinked file gets no name again (no AT_EMPTY_PATH with nothing left) */
	CHECK_ERR(linkat(fd, "", AT_FDCWD, D "/again", AT_EMPTY_PATH), ENOENT);
	CHECK_EQ(nlink(D "/again"), -1);
	close(fd);
}

static void errors(void)
{
	int fd;

	CHECK(utest_make_file(D "/f", "F") && utest_make_file(D "/g", "G"));
	CHECK_ERR(link(D "/f", D "/g"), EEXIST);
	CHECK_ERR(link(D "/f", D "/sub"), EEXIST);
	CHECK_ERR(link(D "/none", D "/h"), ENOENT);
	CHECK_ERR(link(D "/f", D "/none/h"), ENOENT);
	CHECK_ERR(link(D "/sub", D "/sub2"), EPERM); /* a directory */
	CHECK_EQ(nlink(D "/sub2"), -1);
	CHECK_ERR(link(D "/f", SHM "-x"), EXDEV);
	CHECK_EQ(nlink(SHM "-x"), -1);
	CHECK_ERR(link(D "/f/", D "/h"), ENOTDIR);
	CHECK_ERR(linkat(AT_FDCWD, D "/f", AT_FDCWD, D "/h", 0x1), EINVAL);
	CHECK_ERR(linkat(-1, "f", AT_FDCWD, D "/h", 0), EBADF);
	CHECK_EQ(nlink(D "/f"), 1);
	/* a symbolic link: itself, or with AT_SYMLINK_FOLLOW what it points to */
	CHECK_EQ(symlink("f", D "/s"), 0);
	CHECK_EQ(linkat(AT_FDCWD, D "/s", AT_FDCWD, D "/s-itself", 0), 0);
	CHECK_EQ(nlink(D "/s"), 2);
	CHECK(ino(D "/s-itself") == ino(D "/s"));
	CHECK_EQ(linkat(AT_FDCWD, D "/s", AT_FDCWD, D "/s-target", AT_SYMLINK_FOLLOW), 0);
	CHECK(ino(D "/s-target") == ino(D "/f") && utest_file_is(D "/s-target", "F"));
	CHECK_EQ(nlink(D "/f"), 2);
	/* AT_EMPTY_PATH: the file open on the descriptor (as root) */
	fd = open(D "/g", O_RDONLY);
	CHECK_ERR(linkat(fd, "", AT_FDCWD, D "/g2", 0), ENOENT);
	CHECK_EQ(linkat(fd, "", AT_FDCWD, D "/g2", AT_EMPTY_PATH), 0);
	CHECK(ino(D "/g2") == ino(D "/g") && nlink(D "/g") == 2);
	close(fd);
	fd = open(D "/sub", O_RDONLY | O_DIRECTORY);
	CHECK_ERR(linkat(fd, "", AT_FDCWD, D "/sub3", AT_EMPTY_PATH), EPERM);
	close(fd);
	/* relative to directory descriptors */
	fd = open(D "/sub", O_RDONLY | O_DIRECTORY);
	CHECK_EQ(linkat(AT_FDCWD, D "/g", fd, "g3", 0), 0);
	CHECK(utest_file_is(D "/sub/g3", "G") && nlink(D "/g") == 3);
	close(fd);
	unlink(D "/s");
	unlink(D "/s-itself");
	unlink(D "/s-target");
	unlink(D "/g2");
	unlink(D "/sub/g3");
}

static void renames(void)
{
	int fd;

	CHECK(utest_make_file(D "/r1", "R"));
	CHECK_EQ(link(D "/r1", D "/r2"), 0);
	/* two names of one file: rename does nothing, both stay */
	CHECK_EQ(rename(D "/r1", D "/r2"), 0);
	CHECK(nlink(D "/r1") == 2 && nlink(D "/r2") == 2);
	CHECK(utest_file_is(D "/r1", "R") && utest_file_is(D "/r2", "R"));
	CHECK_EQ(syscall(SYS_renameat2, AT_FDCWD, D "/r1", AT_FDCWD, D "/r2", RENAME_EXCHANGE), 0);
	CHECK(nlink(D "/r1") == 2 && ino(D "/r1") == ino(D "/r2"));
	/* a name of it moves: the file keeps its count, the open file shows the new name */
	fd = open(D "/r2", O_RDONLY);
	CHECK(fd_path_is(fd, D "/r2"));
	CHECK_EQ(rename(D "/r2", D "/sub/r3"), 0);
	CHECK(fd_path_is(fd, D "/sub/r3"));
	CHECK(nlink(D "/r1") == 2 && ino(D "/sub/r3") == ino(D "/r1"));
	/* another file replaces one of its names: it loses that one only */
	CHECK_EQ(rename(D "/f", D "/sub/r3"), 0);
	CHECK(fd_path_is(fd, D "/sub/r3 (deleted)"));
	CHECK(nlink(D "/r1") == 1 && utest_file_is(D "/r1", "R"));
	CHECK(utest_file_is(D "/sub/r3", "F") && nlink(D "/sub/r3") == 1);
	close(fd);
	/* exchanged with another file's name */
	CHECK_EQ(link(D "/r1", D "/r4"), 0);
	CHECK_EQ(syscall(SYS_renameat2, AT_FDCWD, D "/r4", AT_FDCWD, D "/g", RENAME_EXCHANGE), 0);
	CHECK(utest_file_is(D "/g", "R") && utest_file_is(D "/r4", "G"));
	CHECK(nlink(D "/r1") == 2 && ino(D "/g") == ino(D "/r1"));
	unlink(D "/r1");
	unlink(D "/r4");
	unlink(D "/g");
	unlink(D "/sub/r3");
}

/* Open files, mappings and programs show the name they were opened by. */
static void paths(const char *self)
{
	char *p, exe[PATH_MAX];
	int fd, status;
	pid_t pid;

	CHECK(utest_make_file(D "/p1", "PPPP"));
	CHECK_EQ(link(D "/p1", D "/sub/p2"), 0);
	fd = open(D "/sub/p2", O_RDWR);
	CHECK(fd_path_is(fd, D "/sub/p2"));
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	CHECK(maps_path_is(p, D "/sub/p2"));
	close(fd);
	fd = open(D "/p1", O_RDONLY);
	CHECK(fd_path_is(fd, D "/p1"));
	close(fd);
	/* every name gone: the mapping still works, and says so */
	CHECK(unlink(D "/p1") == 0 && unlink(D "/sub/p2") == 0);
	CHECK(maps_path_is(p, D "/sub/p2 (deleted)"));
	p[0] = 'Q';
	CHECK(p[0] == 'Q' && p[1] == 'P');
	munmap(p, 4096);
	/* a program run by a second name is that name (/proc/PID/exe) */
	CHECK(readlink("/proc/self/exe", exe, sizeof(exe) - 1) > 0);
	CHECK_EQ(link(self, D "/prog"), 0);
	pid = fork();
	if (pid == 0) {
		execl(D "/prog", "links-ram", "exe", (char *)NULL);
		_exit(99);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	unlink(D "/prog");
	/* a working directory's path */
	CHECK(chdir(D "/sub") == 0 && getcwd(exe, sizeof(exe)) && !strcmp(exe, D "/sub"));
	CHECK(chdir("/") == 0);
}

/* The child run as D/prog: is its /proc/self/exe that name? */
static int exe_check(void)
{
	char buf[PATH_MAX];
	long n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n < 0)
		return 1;
	buf[n] = '\0';
	if (strcmp(buf, D "/prog"))
		fprintf(stderr, UTEST_NAME ": exe is %s\n", buf);
	return strcmp(buf, D "/prog") != 0;
}

/* tmpfs: a second name in /dev/shm, the first one gone */
static void shm(void)
{
	CHECK(utest_make_file(SHM "-a", "shm"));
	CHECK_EQ(link(SHM "-a", SHM "-b"), 0);
	CHECK(nlink(SHM "-a") == 2 && ino(SHM "-a") == ino(SHM "-b"));
	CHECK_EQ(unlink(SHM "-a"), 0);
	CHECK(nlink(SHM "-b") == 1 && utest_file_is(SHM "-b", "shm"));
	CHECK_ERR(link(SHM "-b", D "/shm"), EXDEV);
	CHECK_EQ(unlink(SHM "-b"), 0);
}

/* Named semaphores (each made in /dev/shm by link(2)) shared with a child that opens them by
 * name: it posts one, the parent waits for it, then posts the other, for which the child
 * waits. */
static void semaphores(void)
{
	sem_t *s = sem_open(SEM, O_CREAT | O_EXCL, 0600, 0);
	sem_t *s2 = sem_open(SEM "2", O_CREAT | O_EXCL, 0600, 0), *t;
	int status, v = -1;
	pid_t pid;

	CHECK(s != SEM_FAILED && s2 != SEM_FAILED);
	if (s == SEM_FAILED || s2 == SEM_FAILED)
		return;
	CHECK(sem_open(SEM, O_CREAT | O_EXCL, 0600, 0) == SEM_FAILED && errno == EEXIST);
	pid = fork();
	if (pid == 0) {
		sem_t *c = sem_open(SEM, 0), *c2 = sem_open(SEM "2", 0);

		if (c == SEM_FAILED || c2 == SEM_FAILED || sem_post(c) || sem_wait(c2))
			_exit(1);
		_exit(sem_close(c) || sem_close(c2) ? 1 : 0);
	}
	CHECK(pid > 0);
	CHECK_EQ(sem_wait(s), 0); /* the child's post */
	CHECK_EQ(sem_post(s2), 0);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	CHECK(sem_getvalue(s, &v) == 0 && v == 0);
	CHECK(sem_getvalue(s2, &v) == 0 && v == 0);
	CHECK_ERR(sem_trywait(s), EAGAIN);
	t = sem_open(SEM, 0); /* the same one again, by name */
	CHECK(t != SEM_FAILED && sem_post(t) == 0 && sem_getvalue(s, &v) == 0 && v == 1);
	CHECK_EQ(sem_unlink(SEM), 0);
	CHECK_EQ(sem_unlink(SEM "2"), 0);
	CHECK_ERR(sem_unlink(SEM), ENOENT);
	CHECK(sem_open(SEM, 0) == SEM_FAILED && errno == ENOENT);
	CHECK_EQ(sem_wait(s), 0); /* still usable while open */
	CHECK_EQ(sem_close(s), 0);
	CHECK_EQ(sem_close(s2), 0);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	long n;

	if (argc > 1 && !strcmp(argv[1], "exe"))
		return exe_check();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	CHECK(mkdir(D, 0755) == 0 && mkdir(D "/sub", 0755) == 0);
	counts();
	errors();
	renames();
	paths(self);
	shm();
	semaphores();
	CHECK(rmdir(D "/sub") == 0 && rmdir(D) == 0);
	return utest_done();
}
