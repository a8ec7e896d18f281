/* Self-tests of the file systems: the ramdisk as GRUB loaded it (the files the build put in,
 * with the right contents), the mounts, and the character-device registry. */
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/ramfs.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "kernel/process/elf.h"
#include "kernel/test/ktest.h"

/* The bytes a ramdisk file had in the archive (its ramfs image), or "" if none. */
static const uint8_t *ramfs_data(const struct inode *i)
{
	const struct ramfs_image *image = i->i_private;

	return image ? image->data : (const uint8_t *)"";
}

KTEST(ramdisk_files)
{
	static const char motd[] = "Welcome to faultline";
	struct inode *i;

	KT_CHECK(path_lookup("/etc/motd", &i) == 0);
	if (path_lookup("/etc/motd", &i) == 0) {
		KT_CHECK(S_ISREG(i->i_mode));
		KT_CHECK(i->i_size > sizeof(motd) - 1);
		KT_CHECK(memcmp(ramfs_data(i), motd, sizeof(motd) - 1) == 0);
	}
	KT_CHECK(path_lookup("/bin/hello", &i) == 0);
	if (path_lookup("/bin/hello", &i) == 0) {
		KT_CHECK(i->i_size > 4 && memcmp(ramfs_data(i), "\177ELF", 4) == 0);
		KT_CHECK((i->i_mode & 0111) != 0);
	}
	KT_CHECK(path_lookup("/bin", &i) == 0 && S_ISDIR(i->i_mode));
	KT_CHECK(path_lookup("/no/such/file", &i) != 0);
}

/* Every program the build put in /bin passes the ELF checks; the text file does not. Symbolic
 * links (/bin/sh) are not programs themselves. */
KTEST(ramdisk_elf_check)
{
	struct inode *bin, *i;
	struct elf_image img;
	const char *why = "";
	struct list_head *pos;
	int programs = 0;

	KT_CHECK(path_lookup("/bin", &bin) == 0);
	if (path_lookup("/bin", &bin))
		return;
	list_for_each(pos, &bin->i_children) {
		i = list_entry(pos, struct dentry, d_child)->d_inode;
		if (strcmp(i->i_dentry.d_name, "not-an-elf") == 0 || S_ISLNK(i->i_mode))
			continue; /* a link (/bin/sh) names a program, it is none */
		programs++;
		if (elf_check(ramfs_data(i), i->i_size, i->i_size, &img, &why)) {
			printk("#   /bin/%s refused: %s\n", i->i_dentry.d_name, why);
			KT_CHECK(!"a /bin program was refused");
		}
	}
	KT_CHECK(programs >= 10);
	KT_CHECK(path_lookup("/bin/not-an-elf", &i) == 0);
	if (path_lookup("/bin/not-an-elf", &i) == 0)
		KT_CHECK(elf_check(ramfs_data(i), i->i_size, i->i_size, &img, &why) == -ENOEXEC);
}

/* Character devices: a device file whose number no driver has cannot be opened (-ENXIO, as
 * Linux), a taken range cannot be registered twice, and an open finds the driver's table. */
static const struct file_operations ktest_chr_fops;

KTEST(chrdev_registry)
{
	struct inode *ino;
	struct file *f = NULL;

	KT_CHECK(vfs_mknod("/dev/ktest-chr", S_IFCHR | 0600, MKDEV(200, 7)) == 0);
	KT_CHECK(vfs_mknod("/dev/ktest-chr", S_IFCHR | 0600, MKDEV(200, 7)) == -EEXIST);
	KT_CHECK(path_lookup("/dev/ktest-chr", &ino) == 0);
	if (path_lookup("/dev/ktest-chr", &ino))
		return;
	KT_CHECK(S_ISCHR(ino->i_mode) && ino->i_rdev == MKDEV(200, 7));
	KT_CHECK(dentry_open(&ino->i_dentry, O_RDONLY, &f) == -ENXIO);
	KT_CHECK(register_chrdev_region(200, 0, 8, "ktest", &ktest_chr_fops) == 0);
	KT_CHECK(register_chrdev_region(200, 7, 1, "ktest2", &ktest_chr_fops) == -EBUSY);
	KT_CHECK(register_chrdev_region(1, 3, 1, "null again", &ktest_chr_fops) == -EBUSY);
	KT_CHECK(dentry_open(&ino->i_dentry, O_RDONLY, &f) == 0);
	if (f) {
		KT_CHECK(f->f_op == &ktest_chr_fops && ino->i_count == 1);
		fput(f);
		KT_CHECK(ino->i_count == 0);
	}
	KT_CHECK(vfs_unlink(NULL, "/dev/ktest-chr", false) == 0);
	KT_CHECK(path_lookup("/dev/ktest-chr", &ino) == -ENOENT);
}

/* The mount table: the root, /dev and /proc, each with its own st_dev; /proc/.. is /. */
KTEST(mounts)
{
	struct inode *root = vfs_root(), *i;
	int n = 0;
	struct list_head *pos;

	list_for_each(pos, mount_table())
		n++;
	KT_CHECK(n == 5); /* /, /dev, /dev/shm (tmpfs), /dev/mqueue, /proc */
	KT_CHECK(path_lookup("/dev/shm", &i) == 0 && !strcmp(i->i_sb->s_type->name, "tmpfs") &&
		 i == i->i_sb->s_root);
	KT_CHECK(path_lookup("/proc/..", &i) == 0 && i == root);
	KT_CHECK(path_lookup("/dev", &i) == 0 && i->i_sb != root->i_sb &&
		 i == i->i_sb->s_root && i->i_sb->s_dev != root->i_sb->s_dev);
	KT_CHECK(path_lookup("/proc/self/maps", &i) == 0 && S_ISREG(i->i_mode));
	KT_CHECK(vfs_unlink(NULL, "/dev", true) == -EBUSY);
	KT_CHECK(vfs_mkdir(NULL, "/proc/x", 0755) == -EPERM);
	KT_CHECK(vfs_create(NULL, "/proc/x", 0644, &i) == -EACCES);
}
