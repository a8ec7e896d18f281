/* ramfs: a file system with no disk. Its regular files are their page cache (the first
 * bytes come from the ramdisk module, the "disk" they are read from); its directories are
 * lists of names in memory (kernel/fs/libfs.c), a file may have several (hard links). */
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/namei.h"
#include "kernel/fs/ramfs.h"
#include "kernel/lib/string.h"
#include "mm/filemap.h"
#include "mm/filemap_rw.h"
#include "mm/slab.h"

static const struct inode_operations ramfs_dir_inode_operations;

/* i_size was cut, or the inode goes (i_size 0): the image keeps only the bytes still in the
 * file, so that growing it again reads zeroes there, never the old bytes. */
static void ramfs_truncate(struct inode *ino)
{
	struct ramfs_image *image = ino->i_private;

	if (!image)
		return;
	image->size = MIN(image->size, ino->i_size);
	if (!image->size) {
		kfree(image);
		ino->i_private = NULL;
	}
}

static const struct inode_operations ramfs_file_inode_operations = {
	.truncate = ramfs_truncate,
};

/* A link's target is its contents, in the page cache as a file's are (Linux's page_symlink). */
static int ramfs_readlink(struct inode *link, char *buf, size_t size)
{
	return (int)kernel_read(link, 0, buf, MIN(size, link->i_size));
}

static const struct inode_operations ramfs_symlink_inode_operations = {
	.readlink = ramfs_readlink,
	.truncate = ramfs_truncate,
};

static long generic_read_dir(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	(void)f, (void)ubuf, (void)n, (void)pos;
	return -EISDIR;
}

static const struct file_operations ramfs_dir_operations = {
	.read = generic_read_dir,
	.readdir = dcache_readdir,
	.fsync = noop_fsync,
};

static const struct file_operations ramfs_file_operations = {
	.read = generic_file_read,
	.write = generic_file_write,
	.splice_write = generic_file_splice_write,
	.mmap = generic_file_mmap,
	.fsync = noop_fsync,
};

/* A new inode of dir's file system, set up for its kind, named name in dir. */
static struct inode *ramfs_get_inode(struct inode *dir, const char *name, size_t len,
				     uint32_t mode, uint32_t dev)
{
	struct inode *i = new_inode(dir->i_sb, mode);

	if (!i)
		return NULL;
	inode_init_owner(i, dir, mode);
	if (S_ISDIR(mode)) {
		i->i_op = &ramfs_dir_inode_operations;
		i->i_fop = &ramfs_dir_operations;
	} else if (S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) || S_ISSOCK(mode)) {
		init_special_inode(i, mode, dev);
	} else if (S_ISLNK(mode)) {
		i->i_op = &ramfs_symlink_inode_operations; /* its target lives in its page cache */
		i->i_mapping = &i->i_data;
		i->i_data.host = i;
		i->i_data.a_ops = &ramfs_aops;
		INIT_LIST_HEAD(&i->i_data.i_mmap);
		INIT_LIST_HEAD(&i->i_data.i_mmap_nonlinear);
	} else {
		const struct ramfs_file_ops *ops = dir->i_sb->s_fs_info; /* ramfs's or tmpfs's */

		i->i_fop = ops->fop;
		i->i_op = ops->iop;
		i->i_mapping = &i->i_data;
		i->i_data.host = i;
		i->i_data.a_ops = ops->aops;
		INIT_LIST_HEAD(&i->i_data.i_mmap);
		INIT_LIST_HEAD(&i->i_data.i_mmap_nonlinear);
	}
	d_attach(dir, i, name, len);
	return i;
}

static int ramfs_mknod(struct inode *dir, const char *name, size_t len, uint32_t mode,
		       uint32_t dev, struct inode **out)
{
	struct inode *i = ramfs_get_inode(dir, name, len, mode, dev);

	if (!i)
		return -ENOMEM;
	inode_touch_mtime(dir);
	*out = i;
	return 0;
}

static int ramfs_create(struct inode *dir, const char *name, size_t len, uint32_t mode,
			struct inode **out)
{
	return ramfs_mknod(dir, name, len, mode, 0, out);
}

static int ramfs_mkdir(struct inode *dir, const char *name, size_t len, uint32_t mode)
{
	struct inode *i;

	return ramfs_mknod(dir, name, len, mode, 0, &i);
}

/* The name goes now (Linux's simple_unlink); the inode with its last name and last open file
 * (iput). */
static int ramfs_unlink(struct inode *dir, const char *name, size_t len, struct inode *victim)
{
	struct dentry *d = d_lookup(dir, name, len);

	BUG_ON(!d || d->d_inode != victim);
	/* A file open by this name outlives it, and keeps dir (rmdir'd meanwhile) for its path */
	d_delete(d, dir);
	inode_touch_mtime(dir);
	victim->i_ctime = dir->i_ctime;
	if (S_ISDIR(victim->i_mode) || --victim->i_nlink < 0)
		victim->i_nlink = 0;
	iput(victim);
	return 0;
}

/* A new name in dir for old (Linux's simple_link): a dentry of its own. */
static int ramfs_link(struct inode *old, struct inode *dir, const char *name, size_t len)
{
	struct dentry *d = kzalloc(sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->d_inode = old;
	INIT_LIST_HEAD(&d->d_child);
	d_move(d, dir, name, len);
	old->i_nlink++;
	inode_touch_mtime(dir);
	old->i_ctime = dir->i_ctime;
	return 0;
}

static int ramfs_symlink(struct inode *dir, const char *name, size_t len, const char *target)
{
	struct inode *i;
	size_t n = strlen(target);
	int err = ramfs_mknod(dir, name, len, S_IFLNK | 0777, 0, &i);
	long written;

	if (err)
		return err;
	/* kernel_write may sleep in reclaim, and the big kernel lock is dropped while it does:
	 * another task may unlink the new name meanwhile, which must not free i under us. */
	i->i_count++;
	written = kernel_write(i, 0, target, n);
	i->i_count--;
	if (written != (long)n && !d_unhashed(&i->i_dentry)) {
		/* (a rename meanwhile may have moved it) */
		struct dentry *d = &i->i_dentry;

		ramfs_unlink(d->d_parent, d->d_name, strlen(d->d_name), i);
		return -ENOMEM;
	}
	iput(i); /* unlinked meanwhile: it goes now */
	return written != (long)n ? -ENOMEM : 0;
}

/* Linux's simple_rename: the names move; a replaced target goes as an unlink would. The
 * names are found again by their text: old and target may have several. */
static int ramfs_rename(struct inode *old_dir, const char *old_name, size_t old_len,
			struct inode *old, struct inode *new_dir, const char *name, size_t len,
			struct inode *target, unsigned int flags)
{
	struct dentry *od = d_lookup(old_dir, old_name, old_len), *td;

	BUG_ON(!od || od->d_inode != old);
	if (target && (flags & RENAME_EXCHANGE)) {
		td = d_lookup(new_dir, name, len);
		BUG_ON(!td || td->d_inode != target);
		d_move(td, old_dir, old_name, old_len);
		target->i_ctime = current_time();
	} else if (target) {
		ramfs_unlink(new_dir, name, len, target);
	}
	d_move(od, new_dir, name, len);
	inode_touch_mtime(old_dir);
	inode_touch_mtime(new_dir);
	old->i_ctime = new_dir->i_ctime;
	return 0;
}

static const struct inode_operations ramfs_dir_inode_operations = {
	.lookup = simple_lookup,
	.create = ramfs_create,
	.mkdir = ramfs_mkdir,
	.mknod = ramfs_mknod,
	.symlink = ramfs_symlink,
	.link = ramfs_link,
	.unlink = ramfs_unlink,
	.rmdir = ramfs_unlink, /* namei checked that it is empty */
	.rename = ramfs_rename,
};

int ramfs_fill_super_ops(struct super_block *sb, const struct ramfs_file_ops *ops)
{
	sb->s_fs_info = (void *)ops;
	sb->s_root = simple_root(sb, 0755, &ramfs_dir_inode_operations, &ramfs_dir_operations);
	return sb->s_root ? 0 : -ENOMEM;
}

static int ramfs_fill_super(struct super_block *sb, void *data, int silent)
{
	static const struct ramfs_file_ops ops = { .fop = &ramfs_file_operations,
						   .iop = &ramfs_file_inode_operations,
						   .aops = &ramfs_aops };

	(void)data, (void)silent; /* no options, no device */
	return ramfs_fill_super_ops(sb, &ops);
}

static struct file_system_type ramfs_fs_type = {
	.name = "ramfs",
	.magic = 0x858458f6, /* RAMFS_MAGIC */
	.fill_super = ramfs_fill_super,
};

void ramfs_init(void)
{
	register_filesystem(&ramfs_fs_type);
}

int ramfs_create_kernel(const char *path, uint32_t mode, const uint8_t *data, uint64_t size,
			int64_t mtime)
{
	struct nameidata nd;
	struct inode *i;
	int err = path_parent(NULL, path, &nd, true);

	if (err)
		return err;
	if (nd.last_type != LAST_NORM) /* "/", "x/." or "x/..": a directory that exists */
		return S_ISDIR(mode) ? lookup_last(&nd, true, &i) : -EISDIR;
	if (nd.dir->i_op != &ramfs_dir_inode_operations)
		return -EPERM; /* the unpacker fills ramfs only */
	i = simple_lookup(nd.dir, nd.last, nd.last_len);
	if (i && S_ISDIR(i->i_mode) != S_ISDIR(mode))
		return S_ISDIR(i->i_mode) ? -EISDIR : -ENOTDIR;
	if (!i && nd.slash && !S_ISDIR(mode))
		return -EISDIR;
	if (i && S_ISDIR(mode)) {
		i->i_mode = mode;
		goto stamp;
	}
	if (i) { /* a replaced file starts over */
		truncate_inode_pages(i, 0, i->i_size);
		i->i_size = 0;
		if (i->i_op && i->i_op->truncate)
			i->i_op->truncate(i);
	} else if (!(i = ramfs_get_inode(nd.dir, nd.last, nd.last_len, mode, 0)))
		return -ENOMEM;
	i->i_mode = mode;
	if (!S_ISDIR(mode) && size) {
		struct ramfs_image *image = kmalloc(sizeof(*image));

		if (!image)
			return -ENOMEM;
		*image = (struct ramfs_image){ data, size };
		i->i_private = image;
	}
	if (!S_ISDIR(mode))
		i->i_size = size;
stamp:
	if (mtime >= 0)
		i->i_atime = i->i_mtime = (struct timespec64){ mtime, 0 };
	return 0;
}
