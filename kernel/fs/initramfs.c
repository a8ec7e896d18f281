/* Unpacking the ramdisk: a cpio archive in the "newc" format (what `cpio -H newc` writes),
 * each entry a 110-byte ASCII header, the NUL-terminated name and the data, each padded to
 * 4 bytes, up to the entry named TRAILER!!!. File data stays where GRUB loaded it. */
#include "kernel/errno.h"
#include "kernel/fs/initramfs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/ramfs.h"
#include "kernel/printk/printk.h"
#include "mm/slab.h"
#include "kernel/lib/string.h"

#define NEWC_HDR_LEN 110

/* The 8 hex digits at p, or -1 if one is not a hex digit. */
static long parse_hex8(const uint8_t *p)
{
	long v = 0;

	for (int i = 0; i < 8; i++) {
		int c = p[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static int refuse(size_t off, const char *why)
{
	printk("initramfs: corrupt archive at offset 0x%lx: %s; keeping what came before\n",
	       (unsigned long)off, why);
	return -EINVAL;
}

/* A symbolic link entry: its data is the target, without a NUL. 0 or a negative errno. */
static int unpack_symlink(const char *name, const uint8_t *data, size_t size)
{
	char *target;
	int err;

	if (size == 0 || size >= PATH_MAX)
		return -ENAMETOOLONG;
	target = kmalloc(size + 1);
	if (!target)
		return -ENOMEM;
	memcpy(target, data, size);
	target[size] = '\0';
	err = vfs_symlink(NULL, target, name);
	kfree(target);
	return err;
}

int initramfs_unpack(const uint8_t *archive, size_t len, struct initramfs_stats *st)
{
	size_t off = 0;

	memset(st, 0, sizeof(*st));
	for (;;) {
		const uint8_t *h = archive + off;
		long f[13];
		size_t namesize, filesize, data_off, next;
		const char *name;
		int err;

		if (len - off < NEWC_HDR_LEN)
			return refuse(off, "truncated header (no TRAILER!!! entry)");
		if (memcmp(h, "070701", 6) != 0 && memcmp(h, "070702", 6) != 0)
			return refuse(off, "bad magic (not a cpio newc archive)");
		for (int i = 0; i < 13; i++) {
			f[i] = parse_hex8(h + 6 + 8 * i);
			if (f[i] < 0)
				return refuse(off, "header field is not hexadecimal");
		}
		/* fields: ino mode uid gid nlink mtime filesize devmaj devmin rdevmaj rdevmin
		 * namesize check */
		filesize = (size_t)f[6];
		namesize = (size_t)f[11];
		if (namesize == 0 || namesize > PATH_MAX || namesize > len - off - NEWC_HDR_LEN)
			return refuse(off, "name runs past the end of the archive");
		name = (const char *)h + NEWC_HDR_LEN;
		if (name[namesize - 1] != '\0')
			return refuse(off, "name is not NUL-terminated");
		data_off = (off + NEWC_HDR_LEN + namesize + 3) & ~(size_t)3;
		if (data_off > len || filesize > len - data_off)
			return refuse(off, "file data runs past the end of the archive");
		if (strcmp(name, "TRAILER!!!") == 0)
			return 0;
		next = (data_off + filesize + 3) & ~(size_t)3;

		uint32_t mode = (uint32_t)f[1];

		if (S_ISDIR(mode) || S_ISREG(mode)) {
			err = ramfs_create_kernel(name, mode, archive + data_off, filesize, f[5]);
			if (err) {
				printk("initramfs: cannot create '%s' (error %d)\n", name, err);
			} else if (S_ISDIR(mode)) {
				st->dirs++;
			} else {
				st->files++;
				st->bytes += filesize;
			}
		} else if (S_ISLNK(mode)) {
			err = unpack_symlink(name, archive + data_off, filesize);
			if (err)
				printk("initramfs: cannot link '%s' (error %d)\n", name, err);
			else
				st->links++;
		} else {
			st->skipped++;
		}
		if (next >= len)
			return refuse(next, "archive ends without a TRAILER!!! entry");
		off = next;
	}
}
