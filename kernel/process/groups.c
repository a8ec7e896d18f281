/* Supplementary groups: getgroups, setgroups, and the membership test every permission check
 * asks (in_group_p). The list is kept sorted, as Linux keeps it, so getgroups answers in
 * ascending order and a lookup bisects. */
#include "kernel/arch/uaccess.h"
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

struct group_info init_groups = { .usage = 1 };

struct group_info *groups_alloc(int n)
{
	struct group_info *g = kmalloc(sizeof(*g) + (size_t)n * sizeof(gid_t));

	if (g) {
		g->usage = 1;
		g->ngroups = n;
	}
	return g;
}

void get_group_info(struct group_info *g)
{
	g->usage++;
}

void put_group_info(struct group_info *g)
{
	BUG_ON(g->usage <= 0);
	if (--g->usage == 0)
		kfree(g);
}

bool groups_search(const struct group_info *g, gid_t gid)
{
	int lo = 0, hi = g->ngroups;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (g->gid[mid] == gid)
			return true;
		if (g->gid[mid] < gid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

bool in_group_p(gid_t gid)
{
	const struct task_cred *c = &current->cred;

	return gid == c->fsgid || (c->group_info->ngroups && groups_search(c->group_info, gid));
}

/* Shell sort: the list can be 65536 long, and this runs once per setgroups. */
static void groups_sort(struct group_info *g)
{
	for (int gap = g->ngroups / 2; gap > 0; gap /= 2)
		for (int i = gap; i < g->ngroups; i++)
			for (int j = i - gap; j >= 0 && g->gid[j] > g->gid[j + gap]; j -= gap) {
				gid_t t = g->gid[j];

				g->gid[j] = g->gid[j + gap];
				g->gid[j + gap] = t;
			}
}

/* getgroups(size, list): the number of groups; with size > 0 also the groups themselves
 * (EINVAL when they do not fit). */
long sys_getgroups(int64_t arg_size, uint64_t ulist)
{
	const struct group_info *g = current->cred.group_info;
	int size = (int)arg_size;

	if (size < 0)
		return -EINVAL;
	if (size) {
		if (g->ngroups > size)
			return -EINVAL;
		if (g->ngroups && copy_to_user(ulist, g->gid, (size_t)g->ngroups * sizeof(gid_t)))
			return -EFAULT;
	}
	return g->ngroups;
}

/* setgroups(size, list): CAP_SETGID only (EPERM before anything else), at most NGROUPS_MAX
 * groups. */
long sys_setgroups(int64_t arg_size, uint64_t ulist)
{
	unsigned int size = (unsigned int)arg_size;
	struct group_info *g;

	if (!capable(CAP_SETGID))
		return -EPERM;
	if (size > NGROUPS_MAX)
		return -EINVAL;
	g = groups_alloc((int)size);
	if (!g)
		return -ENOMEM;
	if (size && copy_from_user(g->gid, ulist, size * sizeof(gid_t))) {
		kfree(g);
		return -EFAULT;
	}
	groups_sort(g);
	put_group_info(current->cred.group_info);
	current->cred.group_info = g;
	return 0;
}
