/* /proc/mounts: one line per mounted file system, "SOURCE MOUNTPOINT TYPE OPTIONS 0 0" as
 * Linux's; faultline's mounts have no source device, so the type stands there too. */
#include "kernel/fs/namei.h"
#include "kernel/fs/proc/internal.h"

static void mounts_show(struct proc_text *t)
{
	struct list_head *pos;
	char path[256];

	list_for_each(pos, mount_table()) {
		struct super_block *sb = list_entry(pos, struct super_block, s_list);

		d_path(sb->s_mountpoint ? sb->s_mountpoint : sb->s_root, path, sizeof(path));
		proc_printf(t, "%s %s %s rw 0 0\n", sb->s_type->name, path, sb->s_type->name);
	}
}

const struct proc_entry proc_mounts = { "mounts", 2048, mounts_show };
