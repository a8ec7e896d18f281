/* Host unit test of the ramdisk unpacker (kernel/fs/initramfs.c), path lookup and the calls
 * that make and remove names (kernel/fs/namei.c) on ramfs, and mounts (kernel/fs/super.c):
 * archives built here in cpio newc format, good and corrupt. */
#include <stdlib.h>
#include <string.h>

#include "tests/host/check.h"
#include "kernel/fs/char_dev.c"
#include "kernel/fs/fsnotify.c"
#include "kernel/fs/initramfs.c"
#include "kernel/fs/inode.c"
#include "kernel/fs/libfs.c"
#include "kernel/fs/namei.c"
#include "kernel/fs/ramfs.c"
#include "kernel/fs/super.c"
#include "tests/host/kstubs.h"

/* No page cache here: nothing reads a page, so ramfs's a_ops are never called. */
const struct address_space_operations ramfs_aops;

/* Block special files need the block layer (kernel/fs/block_dev.c): none are made here. */
const struct file_operations def_blk_fops;

/* No anonymous inode files (eventfd and its kin) are made here. */
bool is_anon_inode_file(const struct file *f)
{
	(void)f;
	return false;
}

void *kzalloc(size_t size)
{
	return calloc(1, size);
}

void *kmalloc(size_t size)
{
	return malloc(size);
}

void kfree(void *p)
{
	free(p);
}

/* No page cache here: the unpacked files are never read through it. */
void truncate_inode_pages(struct inode *ino, uint64_t new_size, uint64_t old_size)
{
	(void)ino;
	(void)new_size;
	(void)old_size;
}

/* ramfs's regular files (and symbolic links) read and write through the page cache: not
 * reached here. */
long kernel_read(struct inode *ino, uint64_t pos, void *buf, uint64_t n)
{
	(void)ino, (void)pos, (void)buf, (void)n;
	return -EINVAL;
}

long kernel_write(struct inode *ino, uint64_t pos, const void *buf, uint64_t n)
{
	return kernel_read(ino, pos, (void *)buf, n);
}

long generic_file_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)ubuf, (void)n, (void)pos;
	return -EINVAL;
}

long generic_file_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	return generic_file_read(f, ubuf, n, pos);
}

long generic_file_splice_write(struct file *f, const void *kbuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)kbuf, (void)n, (void)pos;
	return -EINVAL;
}

int generic_file_mmap(struct file *f, struct vm_area_struct *vma)
{
	(void)f, (void)vma;
	return -ENODEV;
}

/* A clock that stands still: time stamps are not what this test looks at. */
void ktime_get_real_ts64(struct timespec64 *ts)
{
	ts->tv_sec = 1700000000;
	ts->tv_nsec = 0;
}

/* No process here: no working directory, no descriptors, no umask. */
uint32_t apply_umask(uint32_t mode)
{
	return mode;
}

/* current is kstubs.h's task, with no fs_struct: paths start at the root. */

/* Nor credentials: the kernel's own creations, which root may make anywhere. */
int inode_permission(struct inode *inode, int mask)
{
	(void)inode;
	(void)mask;
	return 0;
}

int may_delete(struct inode *dir, struct inode *victim)
{
	(void)dir;
	(void)victim;
	return 0;
}

void inode_init_owner(struct inode *inode, const struct inode *dir, uint32_t mode)
{
	(void)dir;
	inode->i_mode = mode;
}

struct file *fget(uint64_t fd)
{
	(void)fd;
	return NULL;
}

/* Mounting from a disk, tasks, capabilities, named pipes, /proc: not under test here (the
 * ramfs mounts the test makes need none of them). */
LIST_HEAD(all_tasks);
const struct file_operations def_fifo_fops;

bool capable(int cap)
{
	(void)cap;
	return true;
}

struct block_device *bdget(uint32_t dev)
{
	(void)dev;
	return NULL;
}

int blkdev_get(struct block_device *bdev)
{
	(void)bdev;
	return -ENXIO;
}

void blkdev_put(struct block_device *bdev)
{
	(void)bdev;
}

void bdevname(const struct block_device *bdev, char *buf, size_t n)
{
	(void)bdev;
	snprintf(buf, n, "?");
}

bool bdev_read_only(const struct block_device *bdev)
{
	(void)bdev;
	return false;
}

int sync_blockdev(struct block_device *bdev)
{
	(void)bdev;
	return 0;
}

/* ramfs keeps nothing to write back. */
int sync_filesystem(struct super_block *sb)
{
	(void)sb;
	return 0;
}

void __mark_inode_dirty(struct inode *inode, int flags)
{
	(void)inode, (void)flags;
}

void inode_sync_forget(struct inode *inode)
{
	(void)inode;
}

/* ramfs needs no writeback, and none runs in the test. */
void wb_timer_start(void)
{
}

void writeback_wait_sb(struct super_block *sb)
{
	(void)sb;
}

void proc_printf(struct proc_text *t, const char *fmt, ...)
{
	(void)t, (void)fmt;
}

/* "User" memory is the test's own (its addresses are all in the lower half). */
long __copy_user(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
	return 0;
}

/* What the unpacker does for an entry (a missing parent made too), then the inode it made. */
static int create_kernel(const char *path, uint32_t mode, const uint8_t *data, uint64_t size,
			 struct inode **out)
{
	int err = ramfs_create_kernel(path, mode, data, size, -1);

	return err || !out ? err : path_lookup(path, out);
}

/* What mkdir and open(O_CREAT) do: the parent must exist. */
static int create_user(const char *path, uint32_t mode, struct inode **out)
{
	struct inode *i;
	int err;

	if (!S_ISDIR(mode))
		return vfs_create(NULL, path, mode, out ? out : &i);
	err = vfs_mkdir(NULL, path, mode);
	return err || !out ? err : path_lookup(path, out);
}

static uint8_t arc[65536];
static size_t arc_len;

/* Append one newc entry (header, name, data, each padded to 4 bytes). */
static void add(const char *name, unsigned mode, const char *data)
{
	size_t n = strlen(name) + 1, len = data ? strlen(data) : 0;

	arc_len += (size_t)sprintf((char *)arc + arc_len,
				   "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
				   1u, mode, 0u, 0u, 1u, 0u, len, 0u, 0u, 0u, 0u, n, 0u);
	memcpy(arc + arc_len, name, n);
	arc_len = (arc_len + n + 3) & ~(size_t)3;
	if (len)
		memcpy(arc + arc_len, data, len);
	arc_len = (arc_len + len + 3) & ~(size_t)3;
}

static void build_good(void)
{
	memset(arc, 0, sizeof(arc));
	arc_len = 0;
	add(".", S_IFDIR | 0755, NULL);
	add("bin", S_IFDIR | 0755, NULL);
	add("bin/hello", S_IFREG | 0755, "\177ELF-ish");
	add("etc/motd", S_IFREG | 0644, "welcome\n"); /* no "etc" entry before it */
	add("dev/console", 020600, NULL);             /* a character device: skipped */
	add("TRAILER!!!", 0, NULL);
}

static const char *contents(const char *path)
{
	static char buf[256];
	struct inode *i;

	if (path_lookup(path, &i))
		return "(missing)";
	snprintf(buf, sizeof(buf), "%.*s", (int)i->i_size,
		 i->i_private ? (const char *)((struct ramfs_image *)i->i_private)->data : "");
	return buf;
}

static void test_good_archive(void)
{
	struct initramfs_stats st;
	struct inode *i;

	build_good();
	CHECK_EQ(initramfs_unpack(arc, arc_len, &st), 0);
	CHECK_EQ(st.files, 2);
	CHECK_EQ(st.skipped, 1);
	CHECK_EQ(st.bytes, 16);
	CHECK_STR(contents("/bin/hello"), "\177ELF-ish");
	CHECK_STR(contents("etc/motd"), "welcome\n");
	CHECK_EQ(path_lookup("/etc", &i), 0);
	CHECK(S_ISDIR(i->i_mode));
	CHECK_EQ(path_lookup("/dev/console", &i), -ENOENT);
}

static void test_lookup_paths(void)
{
	struct inode *i;
	char longname[300];

	CHECK_EQ(path_lookup("/", &i), 0);
	CHECK(i == vfs_root());
	CHECK_STR(contents("//bin/./hello"), "\177ELF-ish");
	CHECK_STR(contents("/bin/../etc/motd"), "welcome\n");
	CHECK_STR(contents("/../../etc/motd"), "welcome\n");
	CHECK_EQ(path_lookup("/etc/motd/x", &i), -ENOTDIR);
	CHECK_EQ(path_lookup("/nope", &i), -ENOENT);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK_EQ(path_lookup(longname, &i), -ENAMETOOLONG);
	CHECK_EQ(create_kernel("/etc/motd/sub", S_IFREG, NULL, 0, NULL), -ENOTDIR);
	CHECK_EQ(create_kernel("/bin", S_IFREG, NULL, 0, NULL), -EISDIR);
}

/* The unpacker's creations make missing parents, the system calls' do not; neither ever
 * makes an entry named ".." (it once did, and rmdir could never empty that directory). */
static void test_create_paths(void)
{
	struct inode *i, *j;

	CHECK_EQ(create_kernel("new/a/../b/f", S_IFREG | 0644, (const uint8_t *)"x", 1, &i), 0);
	CHECK_EQ(path_lookup("/new/b/f", &j), 0);
	CHECK(i == j);
	CHECK_EQ(path_lookup("/new/a", &j), 0);
	CHECK(list_empty(&j->i_children));
	CHECK_EQ(path_lookup("/new/a/..", &j), 0);
	CHECK_EQ(create_kernel("new/..", S_IFDIR | 0755, NULL, 0, &i), 0);
	CHECK(i == vfs_root());
	CHECK_EQ(create_user("/new/x/y", S_IFDIR | 0755, NULL), -ENOENT);
	CHECK_EQ(path_lookup("/new/x", &j), -ENOENT);
	CHECK_EQ(create_user("/new/a/../c", S_IFREG | 0644, &i), 0);
	CHECK_EQ(path_lookup("/new/c", &j), 0);
	CHECK(i == j);
	CHECK_EQ(create_user("/new/c", S_IFREG | 0644, NULL), -EEXIST);
	CHECK_EQ(create_user("/new/a/..", S_IFDIR | 0755, NULL), -EEXIST);
	CHECK_EQ(create_user("/new/d/", S_IFREG | 0644, NULL), -EISDIR);
	CHECK_EQ(path_lookup("/new/c/", &j), -ENOTDIR);
	CHECK_EQ(vfs_unlink(NULL, "/new/a/.", true), -EINVAL);
	CHECK_EQ(vfs_unlink(NULL, "/new/a/..", true), -ENOTEMPTY);
	CHECK_EQ(vfs_unlink(NULL, "/", true), -EBUSY);
	CHECK_EQ(vfs_unlink(NULL, "/new/a/.", false), -EISDIR);
	CHECK_EQ(vfs_unlink(NULL, "/new/c/", false), -ENOTDIR);
	CHECK_EQ(vfs_unlink(NULL, "/new/c", false), 0);
	CHECK_EQ(vfs_unlink(NULL, "/new/b/f", false), 0);
	CHECK_EQ(vfs_unlink(NULL, "/new/a/../b", true), 0);
	CHECK_EQ(vfs_unlink(NULL, "/new/a/", true), 0);
	CHECK_EQ(vfs_unlink(NULL, "/new", true), 0);
}

/* Each corruption is refused, and the entries before it are kept. */
static void test_corrupt(void)
{
	struct initramfs_stats st;
	size_t second;

	build_good();
	second = 112; /* "." entry: 110-byte header + 2-byte name, padded to 112 */
	memcpy(arc + second, "070799", 6);
	CHECK_EQ(initramfs_unpack(arc, arc_len, &st), -EINVAL); /* bad magic */
	CHECK_EQ(st.dirs, 1);

	build_good();
	CHECK_EQ(initramfs_unpack(arc, 50, &st), -EINVAL); /* truncated header */
	CHECK_EQ(st.files + st.dirs, 0);

	build_good();
	memcpy(arc + second + 6 + 8 * 11, "0000FFFF", 8); /* name past the end */
	CHECK_EQ(initramfs_unpack(arc, arc_len, &st), -EINVAL);
	CHECK_EQ(st.dirs, 1);

	build_good();
	memcpy(arc + second + 6 + 8 * 6, "00FFFFFF", 8); /* "bin" with a huge size */
	CHECK_EQ(initramfs_unpack(arc, arc_len, &st), -EINVAL);

	build_good();
	memcpy(arc + 6, "0000000G", 8); /* not hex */
	CHECK_EQ(initramfs_unpack(arc, arc_len, &st), -EINVAL);

	build_good();
	CHECK_EQ(initramfs_unpack(arc, arc_len - 124, &st), -EINVAL); /* no trailer */
	CHECK_EQ(st.files, 2);
}

/* Random single-byte corruptions never read outside the archive (ASan watches). */
static void test_fuzz(void)
{
	struct initramfs_stats st;
	uint8_t *copy;

	rng_state = 12345;
	for (int round = 0; round < 3000; round++) {
		build_good();
		arc[rnd() % arc_len] = (uint8_t)rnd();
		size_t n = arc_len - (rnd() % 2 ? rnd() % arc_len : 0);
		copy = malloc(n);
		memcpy(copy, arc, n);
		int r = initramfs_unpack(copy, n, &st);

		CHECK(r == 0 || r == -EINVAL);
		CHECK(st.files <= 2 && st.dirs <= 5);
		free(copy);
	}
}

/* A second ramfs on /mnt: lookups cross into it, ".." crosses back, the mount point cannot
 * be removed, and a path names it across the mount. */
static void test_mounts(void)
{
	struct inode *mnt, *i, *j;
	char path[64];

	CHECK_EQ(create_user("/mnt", S_IFDIR | 0755, &mnt), 0);
	CHECK_EQ(do_mount("none", "/mnt", "ramfs", 0, NULL), 0);
	CHECK_EQ(do_mount("none", "/etc", "nosuchfs", 0, NULL), -ENODEV);
	CHECK_EQ(do_mount("none", "/etc/motd", "ramfs", 0, NULL), -ENOTDIR);
	CHECK_EQ(path_lookup("/mnt", &i), 0);
	CHECK(i != mnt && i == mnt->i_mounted->s_root);
	CHECK(i->i_sb != vfs_root()->i_sb && i->i_sb->s_dev != vfs_root()->i_sb->s_dev);
	CHECK_EQ(create_user("/mnt/f", S_IFREG | 0644, &j), 0);
	CHECK(j->i_sb == i->i_sb);
	CHECK_EQ(path_lookup("/mnt/../etc/motd", &i), 0);
	CHECK_STR(contents("/mnt/../etc/motd"), "welcome\n");
	CHECK_EQ(path_lookup("/mnt/..", &i), 0);
	CHECK(i == vfs_root());
	d_path(&j->i_dentry, path, sizeof(path));
	CHECK_STR(path, "/mnt/f");
	CHECK_EQ(vfs_unlink(NULL, "/mnt", true), -EBUSY);
	CHECK_EQ(vfs_unlink(NULL, "/mnt/f", false), 0);
	CHECK_EQ(path_lookup("/mnt/f", &i), -ENOENT);
}

int main(void)
{
	ramfs_init();
	CHECK_EQ(do_mount("rootfs", "/", "ramfs", 0, NULL), 0);
	RUN_TEST(test_good_archive);
	RUN_TEST(test_lookup_paths);
	RUN_TEST(test_create_paths);
	RUN_TEST(test_mounts);
	RUN_TEST(test_corrupt);
	RUN_TEST(test_fuzz);
	return check_total_failed != 0;
}
