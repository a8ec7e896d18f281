/* sysinfo(2): uptime, load averages, memory and the number of processes in one struct, as
 * Linux fills it (busybox's uptime and free read it). */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/syscalls.h"
#include "kernel/sched/loadavg.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "mm/gfp.h"
#include "mm/swap.h"

#define SI_LOAD_SHIFT 16 /* sysinfo's loads are fixed point with 16 bits of fraction */

struct sysinfo {
	int64_t uptime;
	uint64_t loads[3];
	uint64_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	uint16_t procs, pad;
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;
	char _f[4];
};

long sys_sysinfo(uint64_t uinfo)
{
	struct sysinfo si = { 0 };
	int running, total;

	si.uptime = (int64_t)((jiffies + HZ - 1) / HZ);
	for (int i = 0; i < 3; i++)
		si.loads[i] = avenrun[i] << (SI_LOAD_SHIFT - FSHIFT);
	si.totalram = nr_managed_pages();
	si.freeram = nr_free_pages();
	si_swapinfo(&si.totalswap, &si.freeswap);
	count_tasks(&running, &total);
	si.procs = (uint16_t)total;
	si.mem_unit = PAGE_SIZE; /* the RAM counts are in pages */
	return copy_to_user(uinfo, &si, sizeof(si));
}
