/* links: symbolic links and rename as Linux has them: lookups through links (and their limit),
 * lstat and readlink, O_NOFOLLOW, what unlink and rmdir do to a link; rename replacing,
 * refusing (ENOTEMPTY, EISDIR, ENOTDIR, EINVAL, EXDEV, EBUSY) and renameat2's flags. */
#define _GNU_SOURCE
#define UTEST_NAME "links"
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "utest.h"

#define D "/tmp/links-test"
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE 2
#endif

static void symlinks(void)
{
	char buf[PATH_MAX];
	struct stat st;
	struct dirent *e;
	int fd, lnk = 0;
	DIR *d;

	CHECK(mkdir(D, 0755) == 0 && mkdir(D "/dir", 0755) == 0);
	CHECK(utest_make_file(D "/dir/file", "hello"));
	CHECK(symlink("dir/file", D "/rel") == 0);
	CHECK(symlink(D "/dir", D "/abs") == 0);
	CHECK(symlink("nowhere", D "/dangling") == 0);
	CHECK(utest_file_is(D "/rel", "hello"));
	CHECK(utest_file_is(D "/abs/file", "hello")); /* a link in the middle of a path */
	CHECK(stat(D "/rel", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5);
	CHECK(lstat(D "/rel", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 8);
	CHECK_EQ(readlink(D "/rel", buf, sizeof(buf)), 8);
	CHECK(memcmp(buf, "dir/file", 8) == 0);
	CHECK_EQ(readlink(D "/rel", buf, 3), 3); /* cut, not NUL-terminated */
	CHECK_ERR(readlink(D "/dir", buf, sizeof(buf)), EINVAL);
	CHECK_ERR(syscall(SYS_readlink, D "/rel", buf, 0), EINVAL); /* (musl hides this one) */
	CHECK_EQ(syscall(SYS_readlinkat, AT_FDCWD, D "/abs", buf, sizeof(buf)), strlen(D "/dir"));
	CHECK_ERR(stat(D "/dangling", &st), ENOENT);
	CHECK(lstat(D "/dangling", &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(fstatat(AT_FDCWD, D "/rel", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode));
	CHECK_ERR(open(D "/rel", O_RDONLY | O_NOFOLLOW), ELOOP);
	fd = open(D "/abs/file", O_RDONLY | O_NOFOLLOW); /* only the last component counts */
	CHECK(fd >= 0);
	close(fd);
	/* O_CREAT through a dangling link creates its target (in the link's directory), through
	 * a chain of them too; O_EXCL refuses the link itself, O_NOFOLLOW too. */
	CHECK_ERR(open(D "/dangling", O_WRONLY | O_CREAT | O_EXCL, 0644), EEXIST);
	CHECK_ERR(open(D "/dangling", O_WRONLY | O_CREAT | O_NOFOLLOW, 0644), ELOOP);
	fd = open(D "/dangling", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK(stat(D "/nowhere", &st) == 0 && S_ISREG(st.st_mode));
	CHECK(symlink("dangling2", D "/chain") == 0 && symlink("dir/made", D "/dangling2") == 0);
	fd = open(D "/chain", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	close(fd);
	CHECK(stat(D "/dir/made", &st) == 0 && S_ISREG(st.st_mode));
	CHECK(symlink("nodir/x", D "/deep") == 0);
	CHECK_ERR(open(D "/deep", O_WRONLY | O_CREAT, 0644), ENOENT);
	unlink(D "/nowhere");
	unlink(D "/chain");
	unlink(D "/dangling2");
	unlink(D "/dir/made");
	unlink(D "/deep");
	CHECK_ERR(symlink("x", D "/rel"), EEXIST);
	CHECK_ERR(symlink("", D "/empty"), ENOENT);
	CHECK_ERR(mkdir(D "/rel", 0755), EEXIST);
	CHECK(symlink("loop2", D "/loop1") == 0 && symlink("loop1", D "/loop2") == 0);
	CHECK_ERR(stat(D "/loop1", &st), ELOOP);
	CHECK_ERR(open(D "/loop1/x", O_RDONLY), ELOOP);
	CHECK(stat(D "/abs/", &st) == 0 && S_ISDIR(st.st_mode)); /* a slash follows it */
	CHECK_ERR(rmdir(D "/abs"), ENOTDIR);
	CHECK(chdir(D "/abs") == 0 && getcwd(buf, sizeof(buf)) && !strcmp(buf, D "/dir"));
	CHECK(chdir("/") == 0);
	d = opendir(D);
	while (d && (e = readdir(d)))
		lnk += !strcmp(e->d_name, "rel") && e->d_type == DT_LNK;
	if (d)
		closedir(d);
	CHECK_EQ(lnk, 1);
	CHECK(unlink(D "/rel") == 0 && utest_file_is(D "/dir/file", "hello")); /* the link goes */
	unlink(D "/abs");
	unlink(D "/dangling");
	unlink(D "/loop1");
	unlink(D "/loop2");
}

static void renames(void)
{
	struct stat st;

	CHECK(utest_make_file(D "/a", "A") && utest_make_file(D "/b", "B"));
	CHECK(rename(D "/a", D "/c") == 0 && utest_file_is(D "/c", "A"));
	CHECK_ERR(stat(D "/a", &st), ENOENT);
	CHECK(rename(D "/c", D "/b") == 0 && utest_file_is(D "/b", "A")); /* B is replaced */
	CHECK(rename(D "/b", D "/b") == 0 && utest_file_is(D "/b", "A"));
	CHECK_ERR(rename(D "/nothing", D "/x"), ENOENT);
	CHECK(mkdir(D "/e", 0755) == 0 && mkdir(D "/f", 0755) == 0);
	CHECK_ERR(rename(D "/b", D "/e"), EISDIR);
	CHECK_ERR(rename(D "/e", D "/b"), ENOTDIR);
	CHECK(rename(D "/e", D "/f") == 0); /* over an empty directory */
	CHECK_ERR(stat(D "/e", &st), ENOENT);
	CHECK(rename(D "/dir", D "/f/sub") == 0 && utest_file_is(D "/f/sub/file", "hello"));
	CHECK(rename(D "/f/sub", D "/dir") == 0 && utest_file_is(D "/dir/file", "hello"));
	CHECK_ERR(rename(D "/f", D "/dir"), ENOTEMPTY); /* dir still holds file */
	CHECK_ERR(rename(D "/dir", D "/dir/inside"), EINVAL);
	CHECK_ERR(rename(D "/.", D "/g"), EBUSY);
	CHECK_ERR(rename(D "/b/", D "/g"), ENOTDIR);
	CHECK_ERR(rename(D "/b", "/proc/links-test"), EXDEV);
	CHECK(utest_make_file(D "/x", "X") && utest_make_file(D "/y", "Y"));
	CHECK_ERR(syscall(SYS_renameat2, AT_FDCWD, D "/x", AT_FDCWD, D "/y", RENAME_NOREPLACE),
		  EEXIST);
	CHECK(syscall(SYS_renameat2, AT_FDCWD, D "/x", AT_FDCWD, D "/y", RENAME_EXCHANGE) == 0);
	CHECK(utest_file_is(D "/x", "Y") && utest_file_is(D "/y", "X"));
	CHECK_ERR(syscall(SYS_renameat2, AT_FDCWD, D "/x", AT_FDCWD, D "/z", RENAME_EXCHANGE),
		  ENOENT);
	CHECK_ERR(syscall(SYS_renameat2, AT_FDCWD, D "/x", AT_FDCWD, D "/z", 3), EINVAL);
	CHECK(syscall(SYS_renameat2, AT_FDCWD, D "/x", AT_FDCWD, D "/z", RENAME_NOREPLACE) == 0);
	CHECK(renameat(AT_FDCWD, D "/z", AT_FDCWD, D "/dir/z") == 0 &&
	      utest_file_is(D "/dir/z", "Y"));
	unlink(D "/dir/z");
	unlink(D "/y");
	unlink(D "/b");
	unlink(D "/dir/file");
	rmdir(D "/dir");
	rmdir(D "/f");
	CHECK(rmdir(D) == 0);
}

int main(void)
{
	symlinks();
	renames();
	return utest_done();
}
