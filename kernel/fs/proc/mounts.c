/* /proc/PID/mounts and /proc/PID/mountinfo (and /proc/mounts, a link to self/mounts), in
 * Linux's formats (fs/proc_namespace.c): "SOURCE MOUNTPOINT TYPE OPTIONS 0 0", and "ID PARENT
 * MAJOR:MINOR ROOT MOUNTPOINT MOUNT-OPTIONS - TYPE SOURCE SUPER-OPTIONS". One namespace: every
 * process sees the same table. */
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/lib/string.h"

/* s with space, tab, newline and backslash as octal escapes (Linux's mangle): a field of the
 * line stays one field. */
static void proc_mangle(struct proc_text *t, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
			proc_printf(t, "\\%03o", (unsigned char)*s);
		else
			proc_printf(t, "%c", *s);
	}
}

static void show_mountpoint(struct proc_text *t, const struct super_block *sb)
{
	char path[256];

	d_path(&(sb->s_mountpoint ? sb->s_mountpoint : sb->s_root)->i_dentry, path, sizeof(path));
	proc_mangle(t, path);
}

/* The super block's options: rw or ro, then ",sync" ... (Linux's show_sb_opts). */
static void show_sb_opts(struct proc_text *t, const struct super_block *sb)
{
	proc_printf(t, "%s%s%s%s", (sb->s_flags & MS_RDONLY) ? "ro" : "rw",
		    (sb->s_flags & MS_SYNCHRONOUS) ? ",sync" : "",
		    (sb->s_flags & MS_DIRSYNC) ? ",dirsync" : "",
		    (sb->s_flags & MS_MANDLOCK) ? ",mand" : "");
}

/* The mount's own: ",nosuid" ... and how atime goes (Linux's show_mnt_opts; relatime is
 * its default). */
static void show_mnt_opts(struct proc_text *t, const struct super_block *sb)
{
	proc_printf(t, "%s%s%s%s", (sb->s_flags & MS_NOSUID) ? ",nosuid" : "",
		    (sb->s_flags & MS_NODEV) ? ",nodev" : "",
		    (sb->s_flags & MS_NOEXEC) ? ",noexec" : "",
		    (sb->s_flags & MS_NOATIME) ? ",noatime" : ",relatime");
}

static void show_devname(struct proc_text *t, const struct super_block *sb)
{
	proc_mangle(t, sb->s_devname ? sb->s_devname : "none");
}

void proc_pid_mounts(struct proc_text *t, struct task_struct *task)
{
	struct super_block *sb;

	(void)task;
	list_for_each_entry(sb, mount_table(), s_list) {
		show_devname(t, sb);
		proc_printf(t, " ");
		show_mountpoint(t, sb);
		proc_printf(t, " %s ", sb->s_type->name);
		show_sb_opts(t, sb);
		show_mnt_opts(t, sb);
		proc_printf(t, " 0 0\n");
	}
}

void proc_pid_mountinfo(struct proc_text *t, struct task_struct *task)
{
	struct super_block *sb;

	(void)task;
	list_for_each_entry(sb, mount_table(), s_list) {
		/* the root's parent is itself; every mount shows its file system from its root */
		const struct super_block *parent = sb->s_mountpoint ? sb->s_mountpoint->i_sb : sb;

		proc_printf(t, "%d %d %u:%u / ", sb->s_mnt_id, parent->s_mnt_id, MAJOR(sb->s_dev),
			    MINOR(sb->s_dev));
		show_mountpoint(t, sb);
		proc_printf(t, " %s", (sb->s_flags & MS_RDONLY) ? "ro" : "rw");
		show_mnt_opts(t, sb);
		proc_printf(t, " - %s ", sb->s_type->name);
		show_devname(t, sb);
		proc_printf(t, " ");
		show_sb_opts(t, sb);
		proc_printf(t, "\n");
	}
}
