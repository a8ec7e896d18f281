/* Self-tests of the ramdisk as GRUB loaded it: the files the build put in are in the tree
 * with the right contents. */
#include "kernel/fs.h"
#include "kernel/ktest.h"
#include "kernel/string.h"

KTEST(ramdisk_files)
{
	static const char motd[] = "Welcome to faultline";
	struct inode *i;

	KT_CHECK(ramfs_lookup("/etc/motd", &i) == 0);
	if (ramfs_lookup("/etc/motd", &i) == 0) {
		KT_CHECK(S_ISREG(i->i_mode));
		KT_CHECK(i->i_size > sizeof(motd) - 1);
		KT_CHECK(memcmp(i->i_data, motd, sizeof(motd) - 1) == 0);
	}
	KT_CHECK(ramfs_lookup("/bin/hello", &i) == 0);
	if (ramfs_lookup("/bin/hello", &i) == 0) {
		KT_CHECK(i->i_size > 4 && memcmp(i->i_data, "\177ELF", 4) == 0);
		KT_CHECK((i->i_mode & 0111) != 0);
	}
	KT_CHECK(ramfs_lookup("/bin", &i) == 0 && S_ISDIR(i->i_mode));
	KT_CHECK(ramfs_lookup("/no/such/file", &i) != 0);
}
