/* The virtual file system's objects, in Linux's shape: inodes, open files, super blocks and
 * the tables of operations each kind of file system or device fills in. A new kind of file
 * is a new table of operations, never a new branch in the calls that use them. */
#ifndef KERNEL_FS_FS_H
#define KERNEL_FS_FS_H

#include "kernel/lib/errseq.h"
#include "kernel/lib/list.h"
#include "kernel/time/time.h"

#define NAME_MAX 255
#define PATH_MAX 4096

#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFCHR 0020000
#define S_IFBLK 0060000
#define S_IFLNK 0120000
#define S_IFIFO 0010000
#define S_IFSOCK 0140000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISCHR(m) (((m) & S_IFMT) == S_IFCHR)
#define S_ISBLK(m) (((m) & S_IFMT) == S_IFBLK)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#define S_ISSOCK(m) (((m) & S_IFMT) == S_IFSOCK)

#define O_ACCMODE 3
#define O_RDONLY 0
#define O_WRONLY 1
#define O_RDWR 2
#define O_CREAT 0100
#define O_EXCL 0200
#define O_NOCTTY 0400
#define O_TRUNC 01000
#define O_APPEND 02000
#define O_NONBLOCK 04000
#define O_DIRECT 040000     /* a block device: bypass its page cache */
#define O_LARGEFILE 0100000 /* always set on x86-64, and F_GETFL shows it */
#define O_DIRECTORY 0200000
#define O_NOFOLLOW 0400000
#define O_CLOEXEC 02000000
#define AT_FDCWD (-100)
#define AT_EMPTY_PATH 0x1000

/* What an open file may do (Linux's f_mode): set from the open flags, cleared by the file's
 * open() where the file cannot (a terminal cannot seek, so no pread either). */
#define FMODE_READ 0x1
#define FMODE_WRITE 0x2
#define FMODE_LSEEK 0x4
#define FMODE_PREAD 0x8
#define FMODE_PWRITE 0x10
#define FMODE_WRITER 0x10000 /* counted in its inode's i_writecount (put back at the last fput) */
/* No inotify events from this file (kernel/fs/fsnotify.h): an open made by the kernel for its
 * own use, as truncate(2)'s. Given to dentry_open in its flags as __FMODE_NONOTIFY. */
#define FMODE_NONOTIFY 0x4000000
#define __FMODE_NONOTIFY FMODE_NONOTIFY

/* Device numbers as Linux's kernel keeps them: 12 bits of major, 20 of minor. */
#define MINORBITS 20
#define MAJOR(dev) ((unsigned int)((dev) >> MINORBITS))
#define MINOR(dev) ((unsigned int)((dev) & ((1U << MINORBITS) - 1)))
#define MKDEV(ma, mi) (((uint32_t)(ma) << MINORBITS) | (uint32_t)(mi))
/* A device number as user space sees it in a dev_t (stat, mknod, loop_info64; Linux's
 * new_encode_dev and new_decode_dev): 12 bits of major in bits 8-19, 20 of minor in bits 0-7
 * and 20-31. */
static inline uint64_t new_encode_dev(uint32_t dev)
{
	uint64_t major = MAJOR(dev), minor = MINOR(dev);

	return (minor & 0xff) | (major << 8) | ((minor & ~0xffULL) << 12);
}

static inline uint32_t new_decode_dev(uint32_t dev)
{
	return MKDEV((dev & 0xfff00) >> 8, (dev & 0xff) | ((dev >> 12) & 0xfff00));
}

struct address_space;
struct backing_dev_info;
struct file;
struct fsnotify_mark;
struct gendisk;
struct hd_struct;
struct inode;
struct iattr;
struct kstat;
struct poll_table_struct;
struct proc_text;
struct super_block;
struct vm_area_struct;

struct page;
struct writeback_control;

/*
 * How a file system moves a page of the page cache to and from its store (2.6.23's
 * address_space_operations); the page cache calls these and never touches the store itself.
 * readpage fills a new, locked page that is in the cache (f may be NULL: a read by the
 * kernel), sets PG_uptodate if it could and unlocks the page; 0 or -errno. writepage writes a
 * dirty page back (NULL: the page cache is the only copy, nothing is written back).
 * set_page_dirty marks a page written. write() copies into a locked page between
 * prepare_write (make the page ready for bytes [from, to): what is outside them must be the
 * file's) and commit_write (the bytes are there: grow i_size, dirty the page).
 */
struct address_space_operations {
	int (*writepage)(struct page *page, struct writeback_control *wbc);
	/* The dirty pages of wbc's range, several in one request where the store allows (the
	 * error also kept in the mapping, as writepage's); NULL: writepage, one by one. */
	int (*writepages)(struct address_space *mapping, struct writeback_control *wbc);
	int (*readpage)(struct file *f, struct page *page);
	/* Read ahead: nr new pages, each locked and in the cache, index order (not always
	 * consecutive); read each (PG_uptodate if it could) and unlock it. The caller keeps its
	 * references. NULL: readpage, one by one. */
	void (*readpages)(struct file *f, struct address_space *mapping, struct page **pages,
			  unsigned int nr);
	int (*set_page_dirty)(struct page *page);
	int (*prepare_write)(struct file *f, struct page *page, unsigned int from, unsigned int to);
	int (*commit_write)(struct file *f, struct page *page, unsigned int from, unsigned int to);
	/* The disk block holding block of the file (0: a hole), for FIBMAP; NULL: no disk. */
	uint64_t (*bmap)(struct address_space *mapping, uint64_t block);
};

/* A file's page cache and who maps it (Linux's struct address_space). Its pages are found
 * by (mapping, index) in the page-cache hash (mm/filemap.c). */
struct address_space {
	struct inode *host;
	const struct address_space_operations *a_ops; /* the file system's way to its store */
	unsigned long nrpages;             /* pages of the file in the cache */
	struct list_head i_mmap;           /* every VMA mapping the file, linked by vm->shared */
	struct list_head i_mmap_nonlinear; /* the VMAs made nonlinear by remap_file_pages */
	/* Faults of the file inside race_window_us's window: a truncate that unmaps the file
	 * meanwhile overlaps them (fl_truncate_overlap, docs/history.md). */
	int faults_in_window;
	/* AS_EIO, AS_ENOSPC: a writeback failed since the last filemap_write_and_wait */
	unsigned long flags;
	/* The last writeback error, for each open file's fsync once (its f_wb_err). */
	errseq_t wb_err;
	/* The device under the file (how far to read ahead): NULL for a file in memory. */
	struct backing_dev_info *backing_dev_info;
};

/* address_space flags bits */
#define AS_EIO 0    /* a write of a page failed: filemap_write_and_wait answers -EIO */
#define AS_ENOSPC 1 /* a write found no room: -ENOSPC */
#define AS_UNEVICTABLE 2 /* reclaim leaves its pages alone (a SHM_LOCKed segment's) */

static inline void mapping_set_unevictable(struct address_space *mapping, bool on)
{
	if (on)
		__atomic_fetch_or(&mapping->flags, 1UL << AS_UNEVICTABLE, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&mapping->flags, ~(1UL << AS_UNEVICTABLE), __ATOMIC_RELAXED);
}

static inline bool mapping_unevictable(const struct address_space *mapping)
{
	return __atomic_load_n(&mapping->flags, __ATOMIC_RELAXED) & (1UL << AS_UNEVICTABLE);
}

/*
 * What can be done to an open file. A NULL entry means the call is refused with Linux's
 * answer for a file that cannot do it (read/write -EINVAL, ioctl -ENOTTY, mmap -ENODEV,
 * readdir -ENOTDIR); llseek NULL means default_llseek. buf is a user address in read and
 * write; pos is the offset to use and update (f_pos, or pread's own).
 */
struct file_operations {
	int64_t (*llseek)(struct file *f, int64_t off, int whence);
	long (*read)(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos);
	long (*write)(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos);
	/* sendfile's destination: write n bytes from kernel memory (Linux gives splice_write
	 * a pipe of pages; faultline's sendfile hands over a kernel buffer). */
	long (*splice_write)(struct file *f, const void *kbuf, uint64_t n, uint64_t *pos);
	/* Call filldir for each entry from f_pos on, until it returns nonzero. */
	int (*readdir)(struct file *f, void *dirent,
		       int (*filldir)(void *dirent, const char *name, size_t len, uint64_t pos,
				      unsigned long ino, unsigned int type));
	long (*ioctl)(struct file *f, uint64_t cmd, uint64_t arg);
	/* The POLL* events the file is ready for now; poll_wait()s each wait queue on which a
	 * change will be announced (kernel/fs/poll.h). NULL: always ready to read and write. */
	unsigned int (*poll)(struct file *f, struct poll_table_struct *pt);
	/* Set up vma (its vm_ops, flags, private data) for a mapping of this file. */
	int (*mmap)(struct file *f, struct vm_area_struct *vma);
	/* fsync, fdatasync (datasync: the data alone, not times): put what the file has that its
	 * store lacks there, and wait. NULL: the file cannot be synced (-EINVAL: a pipe, a
	 * terminal, /dev/null, as Linux). */
	int (*fsync)(struct file *f, int datasync);
	int (*open)(struct inode *ino, struct file *f);
	/* Every close of a descriptor of it (close, exit, exec's close-on-exec), by current,
	 * before the reference goes (Linux's flush: an mqueue forgets the closer's mq_notify). */
	void (*flush)(struct file *f);
	void (*release)(struct inode *ino, struct file *f); /* the last reference went */
	/* /proc/PID/fdinfo/N's lines of this kind of file, after the common ones (proc_printf
	 * into m). NULL: none. */
	void (*show_fdinfo)(struct proc_text *m, struct file *f);
};

/*
 * What can be done to a directory's names. name is len bytes, not NUL-terminated; the
 * caller has checked that it is a plain name (not "." or "..") that does not exist yet, for
 * the calls that create. A NULL entry: the file system cannot (create -EACCES, mkdir,
 * mknod, unlink and rmdir -EPERM, as Linux's vfs_* answer).
 */
struct inode_operations {
	/* The child called name, NULL if there is none, or ERR_PTR(-errno) if the directory
	 * could not be read (-EIO: a corrupt directory on a disk, said on the console). */
	struct inode *(*lookup)(struct inode *dir, const char *name, size_t len);
	int (*create)(struct inode *dir, const char *name, size_t len, uint32_t mode,
		      struct inode **out);
	int (*mkdir)(struct inode *dir, const char *name, size_t len, uint32_t mode);
	int (*mknod)(struct inode *dir, const char *name, size_t len, uint32_t mode,
		     uint32_t rdev, struct inode **out);
	/* A new name in dir for old, a file (not a directory) of dir's file system, that is not
	 * unlinked. NULL: the file system keeps no hard links (-EPERM). */
	int (*link)(struct inode *old, struct inode *dir, const char *name, size_t len);
	/* The entry name (len bytes) of dir goes; victim is the inode it names, whose first
	 * name (i_dentry) may be another one: hard links share one inode. */
	int (*unlink)(struct inode *dir, const char *name, size_t len, struct inode *victim);
	int (*rmdir)(struct inode *dir, const char *name, size_t len, struct inode *victim);
	int (*symlink)(struct inode *dir, const char *name, size_t len, const char *target);
	/* The entry old_name (old_len bytes) of old_dir, naming old, becomes name in new_dir;
	 * target is what new_dir has under that name now (NULL: nothing) and goes, or with
	 * RENAME_EXCHANGE trades places. */
	int (*rename)(struct inode *old_dir, const char *old_name, size_t old_len,
		      struct inode *old, struct inode *new_dir, const char *name, size_t len,
		      struct inode *target, unsigned int flags);
	/* A symbolic link's target into buf (at most size bytes, no NUL): its length or -errno */
	int (*readlink)(struct inode *link, char *buf, size_t size);
	/* May attr be applied? NULL: yes (the VFS applies it, notify_change). */
	int (*setattr)(struct inode *ino, const struct iattr *attr);
	/* fallocate(2) after the VFS's checks (2.6.23's i_op->fallocate): reserve bytes
	 * [offset, offset + len) of a regular file (FALLOC_FL_KEEP_SIZE: the size stays), or
	 * punch them out (FALLOC_FL_PUNCH_HOLE). 0 or -errno (-EOPNOTSUPP: a mode it lacks).
	 * NULL: -EOPNOTSUPP for every mode. */
	long (*fallocate)(struct file *f, int mode, uint64_t offset, uint64_t len);
	/* Punch a hole: file pages [first, last) go, the size stays (shmem: MADV_REMOVE). */
	void (*truncate_range)(struct inode *ino, unsigned long first, unsigned long last);
	/* i_size was cut (vmtruncate, after the pages past it went) or the inode is going
	 * (iput, i_size 0): the file system lets go of what lies past i_size in its store. */
	void (*truncate)(struct inode *ino);
	/* stat: change what generic_fillattr put in stat where the file system keeps its own
	 * counts (a disk's link count and blocks). NULL: generic_fillattr's answer. */
	void (*getattr)(struct inode *ino, struct kstat *stat);
};

/*
 * A name of a file: the entry name in the directory d_parent (Linux's struct dentry; faultline
 * keeps no cache of them). A directory has one name, which its inode embeds (i_dentry); a
 * file of ramfs or tmpfs may have more (hard links), each allocated by link(2). An open file
 * keeps the name it was opened by (f_dentry) for its path, even once the name is gone.
 */
struct dentry {
	struct inode *d_inode;
	struct inode *d_parent;   /* the directory holding it (a file system's root: itself) */
	struct list_head d_child; /* in d_parent's i_children; empty once the name is gone */
	int d_count;              /* open files holding it (an allocated one is freed at 0) */
	/* Unlinked while in use: its directory is held (i_count) until d_count drops to 0, so
	 * that its path stays what it was, as Linux's dentry holds its parent. */
	bool d_holds_parent;
	char d_name[NAME_MAX + 1];
};

/* Root of its file system, or a name no directory holds (any more). */
#define IS_ROOT(d) ((d)->d_parent == (d)->d_inode)
static inline bool d_unhashed(const struct dentry *d)
{
	return list_empty(&d->d_child);
}
/* The name was removed (Linux's d_unlinked): its path is shown with " (deleted)". */
static inline bool d_unlinked(const struct dentry *d)
{
	return d_unhashed(d) && !IS_ROOT(d);
}

/* A file. Its first name is embedded (i_dentry: Linux keeps the list of an inode's dentries
 * under that name); a directory's children are the dentries of its i_children. */
struct inode {
	unsigned long i_ino;
	uint32_t i_mode;  /* S_IF* type and permission bits */
	uint32_t i_rdev;  /* a device file: its major and minor (MKDEV) */
	uint64_t i_size;  /* bytes */
	unsigned int i_blkbits; /* log2 of its block size (buffer heads): its sb's at new_inode */
	uint32_t i_uid, i_gid;
	struct timespec64 i_atime, i_mtime, i_ctime; /* last read, written, changed */
	int i_nlink;      /* names in directories; 0 once the last went (a disk's: its count) */
	uint64_t i_blocks; /* 512-byte sectors its store gives it (a disk's file system) */
	int i_count;      /* open struct files; freed at 0 once unlinked */
	/* Linux's i_writecount: > 0, the open files that may write it; < 0, the programs
	 * running it (each address space whose exe_file it is) and the execs loading it. Each
	 * side's get fails with -ETXTBSY while the other holds it. */
	int i_writecount;
	const struct inode_operations *i_op;
	const struct file_operations *i_fop; /* what an open of it starts with */
	struct super_block *i_sb;
	struct super_block *i_mounted;       /* a file system mounted on this directory */
	void *i_private;                     /* the file system's own */
	unsigned int i_seals; /* a tmpfs file's F_SEAL_* (mm/memfd.c; 0: never sealable) */
	struct address_space i_data; /* regular files: the page cache */
	struct address_space *i_mapping; /* &i_data for a file with a page cache, else NULL */
	struct list_head i_children; /* directory: the dentries in it, by d_child */
	struct dentry i_dentry;      /* its first name (a file system's root: itself) */
	/* Writeback (kernel/fs/writeback.h): */
	unsigned long i_state;          /* I_DIRTY_* */
	unsigned long dirtied_when;     /* jiffies when it first became dirty */
	struct list_head i_list;        /* in i_sb->s_dirty while dirty */
	/* inotify (kernel/fs/fsnotify.h): the watches on it and the events they want together
	 * (0: none, the one thing the VFS's hooks look at). */
	struct fsnotify_mark *i_fsnotify_marks;
	uint32_t i_fsnotify_mask;
};

/* Where an open file's reads are going (2.6.23's struct file_ra_state, mm/readahead.c): the
 * window read ahead last, and the mark in it whose reading starts the next one. */
struct file_ra_state {
	unsigned long start;     /* the window's first page */
	unsigned int size;       /* its pages */
	unsigned int async_size; /* the last ones: reaching the first of them reads the next */
	unsigned int ra_pages;   /* pages read ahead at most; 0: never (a file in memory) */
	unsigned int mmap_miss;  /* faults that missed the cache: read-around stops past many */
	unsigned long prev_index; /* the page read last */
};

/* One open of an inode, with its offset; dup and fork share it between descriptors. */
struct file {
	int f_count; /* descriptors (in any process) and mappings that refer to it */
	struct inode *f_inode;
	/* the name it was opened by (its path), of f_inode; a file on the anonymous inode: its
	 * kind's, "[eventfd]" (kernel/fs/anon_inodes.h) */
	struct dentry *f_dentry;
	const struct file_operations *f_op;
	unsigned int f_flags; /* open's flags: O_ACCMODE bits, O_APPEND, O_NONBLOCK */
	unsigned int f_mode;  /* FMODE_* */
	uint64_t f_pos;
	void *private_data;   /* the file's own (procfs: the text it generated at open) */
	struct list_head f_ep_links; /* the epoll items watching it (kernel/fs/eventpoll.c) */
	struct list_head f_list; /* in its inode's super block's s_files */
	struct file_ra_state f_ra;
	errseq_t f_wb_err; /* where in its mapping's wb_err this file's fsync has reported to */
	errseq_t f_sb_err; /* and in its super block's s_wb_err, syncfs */
};

/* mount(2)'s flags, Linux's numbers; a super block keeps those that describe the mount. */
#define MS_RDONLY 0x1     /* no writes: what would write answers -EROFS */
#define MS_NOSUID 0x2
#define MS_NODEV 0x4
#define MS_NOEXEC 0x8
#define MS_SYNCHRONOUS 0x10
#define MS_REMOUNT 0x20   /* change the flags of the mount at the target */
#define MS_MANDLOCK 0x40
#define MS_DIRSYNC 0x80
#define MS_NOATIME 0x400
#define MS_NODIRATIME 0x800
#define MS_BIND 0x1000
#define MS_SILENT 0x8000  /* fill_super says nothing of a device that is not its kind */
#define MS_RELATIME 0x200000
#define MS_STRICTATIME 0x1000000
/* The flags remount may change (2.6.23's MS_RMT_MASK, with those Linux keeps per mount,
 * since faultline's super block is also the mount). */
#define MS_RMT_MASK (MS_RDONLY | MS_SYNCHRONOUS | MS_MANDLOCK | MS_NOSUID | MS_NODEV | \
		     MS_NOEXEC | MS_NOATIME)

/* umount2's flags */
#define MNT_FORCE 0x1       /* abort what waits on the file system (its umount_begin) */
#define MNT_DETACH 0x2      /* lazy: gone from the tree now, freed when its last user goes */
#define MNT_EXPIRE 0x4      /* unused since the last call: unmount, else mark it (-EAGAIN) */
#define UMOUNT_NOFOLLOW 0x8 /* a symbolic link as the last component is not followed */
#define MS_MGC_VAL 0xC0ED0000 /* old callers' magic in the high half of flags: ignored */
#define MS_MGC_MSK 0xffff0000

/* statfs's answer, before it is copied out in Linux's x86-64 struct statfs. */
struct kstatfs {
	uint64_t f_type, f_bsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	uint64_t f_namelen, f_frsize;
};

/* What the VFS asks of a mounted file system as a whole (2.6.23's super_operations). A NULL
 * entry: nothing to do (put_super), or no counts to give (statfs: zeros, as ramfs has). */
struct super_operations {
	/* The file system is being unmounted: let go of s_fs_info and what it holds (a disk file
	 * system, whose inodes are not deleted at unmount, frees them here: kill_block_super). */
	void (*put_super)(struct super_block *sb);
	/* Fill in buf's counts (blocks in f_bsize units, files); the VFS sets the rest. */
	int (*statfs)(struct super_block *sb, struct kstatfs *buf);
	/* MS_REMOUNT: may *flags (MS_RDONLY...) replace sb->s_flags? 0 or -errno. */
	int (*remount_fs)(struct super_block *sb, unsigned long *flags, char *data);
	/* Put the in-memory inode into its place on the store (its buffer, at least); wait: on
	 * the disk before returning. 0 or -errno. NULL: the file system keeps no inodes. */
	int (*write_inode)(struct inode *inode, int wait);
	/* The inode's last link and last user are gone: free it on the store (its blocks, its
	 * number) and in memory. NULL: iput truncates and frees it. */
	void (*delete_inode)(struct inode *inode);
	/* The super block's own dirty state (free counts, times) into its buffer (sync, umount). */
	void (*write_super)(struct super_block *sb);
};

/*
 * A block device (a disk or a partition) as file systems and /dev/sdX see it: one per device
 * number, made on first use by bdget and never freed. bd_inode's page cache holds the
 * device's bytes, so a file system's metadata and a read of /dev/sda share one copy.
 */
struct block_device {
	uint32_t bd_dev;               /* MKDEV(major, minor) */
	struct inode *bd_inode;        /* its page cache (i_mapping), i_size the device's bytes */
	struct gendisk *bd_disk;       /* the disk, once opened */
	struct hd_struct *bd_part;     /* the sectors it covers on bd_disk (part[0]: all) */
	struct super_block *bd_super;  /* a file system mounted from it, or NULL */
	unsigned int bd_block_size;    /* bytes per block of bd_inode's buffers */
	struct list_head bd_list;      /* every block_device made */
};

/* A mounted file system. faultline mounts each one once, so it is also the mount. */
struct super_block {
	const struct file_system_type *s_type;
	const struct super_operations *s_op; /* NULL: all defaults */
	uint32_t s_dev;                /* st_dev of its files: the device's, or an anonymous 0:N */
	unsigned long s_flags;         /* MS_RDONLY, MS_NOSUID, ... as mounted */
	struct block_device *s_bdev;   /* the device it lives on (FS_REQUIRES_DEV), else NULL */
	unsigned long s_blocksize;     /* bytes per block (a power of two), 0 without a device */
	unsigned char s_blocksize_bits;
	char s_id[32];                 /* what messages name it by: the device ("sda1") or type */
	struct inode *s_root;
	struct inode *s_mountpoint;    /* the directory it covers; NULL for the root */
	void *s_fs_info;
	struct list_head s_list;       /* in the mount table */
	struct list_head s_files;      /* its open files (struct file, by f_list) */
	struct list_head s_dirty;      /* its dirty inodes (by i_list, oldest first) */
	bool s_dirt;                   /* write_super has something to write */
	uint64_t s_maxbytes;           /* its largest file (0: MAX_LFS_FILESIZE); past it EFBIG */
	/* What Linux keeps in the mount (struct vfsmount): */
	char *s_devname;               /* the source mount was given (mnt_devname), or NULL */
	int s_mnt_id;                  /* /proc/PID/mountinfo's mount ID (mnt_id) */
	bool s_expiry_mark;            /* MNT_EXPIRE marked it; a use of it clears the mark */
	bool s_detached;               /* MNT_DETACH took it out of the tree; in use still */
	int s_inflight;                /* lookups in it, mounts on it under way (they may sleep) */
	errseq_t s_wb_err;             /* the last writeback error of its files: syncfs's */
};

/* The file system of ino is mounted read-only; with noatime (or read-only: no atime). */
#define IS_RDONLY(ino) (((ino)->i_sb->s_flags & MS_RDONLY) != 0)
#define IS_NOATIME(ino) (((ino)->i_sb->s_flags & (MS_RDONLY | MS_NOATIME)) != 0)

#define FS_REQUIRES_DEV 1 /* a file_system_type's fs_flags: mounted from a block device */

/* A kind of file system, by name ("ramfs", "proc", "ext2"). fill_super makes sb->s_root from
 * data (mount's options string, or NULL) and, with FS_REQUIRES_DEV, from sb->s_bdev; silent:
 * say nothing if the device holds no file system of this kind. 0 or -errno (-EINVAL: not
 * this kind; -EROFS: this kind, but only a read-only mount is possible). */
struct file_system_type {
	const char *name;
	uint64_t magic; /* statfs's f_type: Linux's number for the kind */
	int fs_flags;   /* FS_REQUIRES_DEV */
	int (*fill_super)(struct super_block *sb, void *data, int silent);
	/* Unmounted (nothing uses it any more): let go of it all. NULL: kill_block_super for
	 * FS_REQUIRES_DEV, else kill_litter_super. */
	void (*kill_sb)(struct super_block *sb);
	struct file_system_type *next;
};

/* kernel/fs/super.c: file system types and the mount table. */
int register_filesystem(struct file_system_type *fs);
/* Mount a new instance of the file system named type on the directory dir_name ("/" once,
 * first: the root), from the block device dev_name for a kind that needs one (else dev_name
 * is only shown in /proc/mounts), with flags (MS_*) and data (options, or NULL). 0, -ENODEV
 * (no such type), -ENOENT, -ENOTDIR, -ENOTBLK (dev_name is no block device), -ENXIO (no
 * such device), -EBUSY (it is mounted already), -EACCES (a read-write mount of a read-only
 * device, a device file on a nodev mount), -ENOMEM, or what fill_super answers. */
int do_mount(const char *dev_name, const char *dir_name, const char *type, unsigned long flags,
	     void *data);
/* An instance of fs that is mounted nowhere, for files with no name (pipes): NULL if it
 * cannot be made. */
struct super_block *kern_mount(struct file_system_type *fs);
struct inode *vfs_root(void);
struct list_head *mount_table(void); /* every super_block, by s_list, root first */
/* MS_REMOUNT: sb's flags become flags' MS_RMT_MASK bits, asking s_op->remount_fs first. 0,
 * -EACCES (read-write on a device that refuses writes), -EBUSY (going read-only while a file
 * is open for writing, or an unlinked one is still open), or what remount_fs answers. */
int do_remount_sb(struct super_block *sb, unsigned long flags, void *data);
/* umount2 after the lookup and the capability: sb (a mount's root) with MNT_* flags. 0,
 * -EBUSY (in use: an open file, a working directory, a mount below it), -EINVAL, -EAGAIN
 * (MNT_EXPIRE marked it). */
int do_umount(struct super_block *sb, int flags);
/* The end of a super block (kill_sb): kill_litter_super deletes every file (the store is
 * memory), kill_block_super only forgets them and closes the device; both call put_super. */
void generic_shutdown_super(struct super_block *sb);
void kill_litter_super(struct super_block *sb);
void kill_block_super(struct super_block *sb);
/* kernel/fs/sync.c: everything sb keeps on a disk written and waited for (sync, syncfs,
 * umount): 0 or the first error. */
int sync_filesystem(struct super_block *sb);
/* A file of sb closed or a working directory left it: a detached sb may go now. */
void put_detached_super(struct super_block *sb);

/* kernel/fs/inode.c */
/* A new inode of sb (count 0, one link, no name yet), with mode and a fresh number. */
struct inode *new_inode(struct super_block *sb, uint32_t mode);
/* A device file, named pipe or socket of mode (S_IFCHR, S_IFBLK, S_IFIFO, S_IFSOCK): what
 * opening it does (the driver of rdev, a FIFO's wait for the other end, ENXIO). */
void init_special_inode(struct inode *inode, uint32_t mode, uint32_t rdev);
/* Give inode its first name (i_dentry): name (len bytes) in directory dir. */
void d_attach(struct inode *dir, struct inode *inode, const char *name, size_t len);
/* Move the name d to name (len bytes) in dir (a rename). */
void d_move(struct dentry *d, struct inode *dir, const char *name, size_t len);
/* An open file let go of the name d: an allocated name that is gone is freed. */
void dput(struct dentry *d);
/* The name d (of a file system with hard links) left its directory dir: held by an open
 * file, it keeps dir for its path; else it is freed if allocated. */
void d_delete(struct dentry *d, struct inode *dir);
/* The last open file of inode is gone, or its last name: free it if it has neither. */
void iput(struct inode *inode);
/* Its contents changed (a write, a truncate, a name added to or removed from a directory):
 * mtime and ctime are now. */
void inode_touch_mtime(struct inode *inode);
/* A store through a shared mapping of file (the write fault that dirtied a page): mtime and
 * ctime are now, if they were not already (2.6.23's file_update_time). */
void file_update_time(struct file *file);
/* Read (or a directory listed, a file mapped): atime is now if it was not newer than mtime or
 * ctime, or is a day old (Linux's default, relatime); never on a noatime or read-only mount. */
void file_accessed(struct file *f);

/* fallocate's modes */
#define FALLOC_FL_KEEP_SIZE 0x01
#define FALLOC_FL_PUNCH_HOLE 0x02
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#define FALLOC_FL_ZERO_RANGE 0x10
#define FALLOC_FL_INSERT_RANGE 0x20
#define FALLOC_FL_UNSHARE_RANGE 0x40
#define FALLOC_FL_WRITE_ZEROES 0x80
#define FALLOC_FL_MODE_MASK (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE | \
			     FALLOC_FL_ZERO_RANGE | FALLOC_FL_INSERT_RANGE | \
			     FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_WRITE_ZEROES)
#define MAX_LFS_FILESIZE (1ULL << 40) /* the largest file: past it writes are -EFBIG */
/* The largest file inode's file system keeps (2.6.23's s_maxbytes). */
static inline uint64_t inode_maxbytes(const struct inode *inode)
{
	return inode->i_sb && inode->i_sb->s_maxbytes ? inode->i_sb->s_maxbytes
						       : MAX_LFS_FILESIZE;
}

/* renameat2's flags */
#define RENAME_NOREPLACE 0x1
#define RENAME_EXCHANGE 0x2
#define RENAME_WHITEOUT 0x4

/* kernel/fs/attr.c: what chmod, chown and utimensat change, ATTR_* saying which. */
#define ATTR_MODE 0x1
#define ATTR_UID 0x2
#define ATTR_GID 0x4
#define ATTR_ATIME 0x8
#define ATTR_MTIME 0x10
#define ATTR_SIZE 0x20 /* truncate's: asked of the file system, applied by vmtruncate */
struct iattr {
	unsigned int ia_valid;
	uint32_t ia_mode, ia_uid, ia_gid;
	struct timespec64 ia_atime, ia_mtime;
	uint64_t ia_size;
};
/* Apply attr to ino if its file system agrees, and stamp ctime: 0 or -errno. */
int notify_change(struct inode *ino, const struct iattr *attr);
/* A write or truncate through f by a caller without CAP_FSETID: a regular file loses its
 * set-user-ID bit, and its set-group-ID bit if group execution is on or the caller is not
 * in its group (Linux's file_remove_privs). */
void file_remove_privs(struct file *f);

/* kernel/fs/permission.c: may current do mask (MAY_*) to inode? 0 or -EACCES. Root (the
 * capabilities) may do anything but execute a file with no x bit. */
#define MAY_EXEC 0x1
#define MAY_WRITE 0x2
#define MAY_READ 0x4
int generic_permission(struct inode *inode, int mask);
int inode_permission(struct inode *inode, int mask);
/* current's fsuid owns inode, or current has CAP_FOWNER (chmod, utimensat's explicit times). */
bool inode_owner_or_capable(const struct inode *inode);
/* May current remove a name of victim from dir? Write and search permission on dir
 * (-EACCES) and, in a sticky directory, owning victim or dir or CAP_FOWNER (-EPERM). The
 * type checks (-EISDIR, -ENOTDIR) are the caller's and come after these. */
int may_delete(struct inode *dir, struct inode *victim);
/* A new inode of mode in dir is current's (fsuid, fsgid), or in a set-group-ID directory has
 * the directory's group (and a new directory its S_ISGID bit). Sets i_uid, i_gid, i_mode. */
void inode_init_owner(struct inode *inode, const struct inode *dir, uint32_t mode);

/* kernel/fs/stat.c: what stat(2) tells of an inode (Linux's struct kstat). */
struct kstat {
	uint32_t dev, rdev;
	unsigned long ino;
	uint64_t nlink, size, blksize, blocks;
	uint32_t mode, uid, gid;
	struct timespec64 atime, mtime, ctime;
};
/* The VFS's answer from the inode alone: in-memory directories count two links, blocks
 * count i_size in 512-byte units. */
void generic_fillattr(struct inode *ino, struct kstat *stat);

/* kernel/fs/file_table.c */
/* A new struct file (count 1) open on the file named dentry (its path is that name's) with
 * the open(2) flags; calls the inode's i_fop->open. 0 or -errno (-ENOMEM, or what open
 * refused with). */
int dentry_open(struct dentry *dentry, unsigned int flags, struct file **out);
/* kernel/fs/open.c: open(2)'s work on path from base (NULL: the root) with its flags and
 * mode (the umask applied to a new file): the new struct file in *out, or -errno. */
int do_filp_open(struct inode *base, const char *path, uint64_t flags, uint32_t mode,
		 struct file **out);
void get_file(struct file *f); /* one more reference */
void fput(struct file *f);     /* one reference less; freed (and released) at zero */
/* A writer of inode more (an open for writing, a truncate), or an exec of the file (a
 * program's address space) more: 0, or -ETXTBSY while the other kind holds it. The put
 * undoes its get. (2.6.23's get_write_access and deny_write_access.) */
int get_write_access(struct inode *inode);
void put_write_access(struct inode *inode);
int deny_write_access(struct file *f);
void allow_write_access(struct file *f);
/* The open file behind descriptor fd of current, or NULL; borrowed, no reference taken. */
struct file *fget(uint64_t fd);
/* For a file that cannot seek: no lseek, pread or pwrite (they answer -ESPIPE). */
int nonseekable_open(struct inode *inode, struct file *f);

/* kernel/fs/libfs.c: fsync of a file whose page cache is its only store (ramfs, tmpfs): 0. */
int noop_fsync(struct file *f, int datasync);

/* kernel/fs/read_write.c */
int64_t default_llseek(struct file *f, int64_t off, int whence);
int64_t no_llseek(struct file *f, int64_t off, int whence);
/* lseek succeeds and moves nothing: the offset stays (0), as Linux's (eventfd, epoll). */
int64_t noop_llseek(struct file *f, int64_t off, int whence);

/* kernel/fs/char_dev.c: character devices by major and minor. */
/* Devices major, minors [first, first + count) are driven by fops (its open may pick a
 * table per minor). 0, or -EBUSY when they are taken. */
int register_chrdev_region(unsigned int major, unsigned int first, unsigned int count,
			   const char *name, const struct file_operations *fops);
extern const struct file_operations def_chr_fops; /* an inode's i_fop until it is opened */

/* kernel/fs/block_dev.c: block special files; opening one finds its disk by number. */
extern const struct file_operations def_blk_fops;
/* The block_device of dev, made on first use (not opened yet): NULL without memory. */
struct block_device *bdget(uint32_t dev);
/* Open bdev: find its disk and partition (-ENXIO if no driver or table has them). 0 or
 * -errno. A file system keeps it open while it is mounted (blkdev_put at umount). */
int blkdev_get(struct block_device *bdev);
void blkdev_put(struct block_device *bdev);
/* The device's name as /dev has it ("sda", "sda1") into buf (n bytes); bdev is open. */
void bdevname(const struct block_device *bdev, char *buf, size_t n);
/* What blkdev_get does once it found the disk: bdev is partition partno of disk (0: all of
 * it); its page cache's size, and its block size the first time. 0. */
int bdev_attach(struct block_device *bdev, struct gendisk *disk, unsigned int partno);
/* disk's size or contents changed under its block devices (a loop device bound, unbound or
 * moved to another offset of its file): each one's cache is emptied (2.6.23's kill_bdev; a
 * buffer still held keeps its page until brelse) and takes the new size, and the block size
 * bd_set_size chooses for it unless a file system is mounted from it. */
void invalidate_disk_bdevs(struct gendisk *disk);
/* bdev's buffers become size bytes (a valid size): its cache is written back and emptied
 * if that changes them (2.6.23's set_blocksize). 0. */
int set_blocksize(struct block_device *bdev, unsigned int size);
/* Write every dirty page of bdev's cache to the disk and wait: 0 or the first error. */
int sync_blockdev(struct block_device *bdev);
extern const struct address_space_operations def_blk_aops; /* every bd_inode's */
/* Pages in the block devices' caches: /proc/meminfo's Buffers. */
unsigned long nr_blockdev_pages(void);
/* The "bdev" pseudo file system's super block, whose inodes are the block devices' caches (its
 * s_dirty lists those with dirty pages, for the writeback thread); NULL before the first bdget. */
extern struct super_block *blockdev_superblock;
/* Are writes to the open bdev refused (a read-only loop device)? */
bool bdev_read_only(const struct block_device *bdev);

#endif
