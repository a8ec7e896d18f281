/* Self-tests of the ramdisk as GRUB loaded it: the files the build put in are in the tree
 * with the right contents. */
#include "kernel/elf.h"
#include "kernel/errno.h"
#include "kernel/fs/namei.h"
#include "kernel/ktest.h"
#include "kernel/printk.h"
#include "kernel/string.h"

KTEST(ramdisk_files)
{
	static const char motd[] = "Welcome to faultline";
	struct inode *i;

	KT_CHECK(path_lookup("/etc/motd", &i) == 0);
	if (path_lookup("/etc/motd", &i) == 0) {
		KT_CHECK(S_ISREG(i->i_mode));
		KT_CHECK(i->i_size > sizeof(motd) - 1);
		KT_CHECK(memcmp(i->i_disk, motd, sizeof(motd) - 1) == 0);
	}
	KT_CHECK(path_lookup("/bin/hello", &i) == 0);
	if (path_lookup("/bin/hello", &i) == 0) {
		KT_CHECK(i->i_size > 4 && memcmp(i->i_disk, "\177ELF", 4) == 0);
		KT_CHECK((i->i_mode & 0111) != 0);
	}
	KT_CHECK(path_lookup("/bin", &i) == 0 && S_ISDIR(i->i_mode));
	KT_CHECK(path_lookup("/no/such/file", &i) != 0);
}

/* Every program the build put in /bin passes the ELF checks; the text file does not. */
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
		i = list_entry(pos, struct inode, i_sibling);
		if (strcmp(i->i_name, "not-an-elf") == 0)
			continue;
		programs++;
		if (elf_check(i->i_disk, i->i_size, i->i_size, &img, &why)) {
			printk("#   /bin/%s refused: %s\n", i->i_name, why);
			KT_CHECK(!"a /bin program was refused");
		}
	}
	KT_CHECK(programs >= 10);
	KT_CHECK(path_lookup("/bin/not-an-elf", &i) == 0);
	if (path_lookup("/bin/not-an-elf", &i) == 0)
		KT_CHECK(elf_check(i->i_disk, i->i_size, i->i_size, &img, &why) == -ENOEXEC);
}
