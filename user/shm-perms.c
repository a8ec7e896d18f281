/* shm-perms: System V shared memory's permissions and limits as Linux answers: the mode bits
 * of owner, creator, group and others on shmget, shmat, IPC_STAT and SHM_STAT (EACCES), the
 * owner's IPC_SET and IPC_RMID (EPERM), root's override, SHM_LOCK and SHM_UNLOCK within
 * RLIMIT_MEMLOCK, the limits in /proc/sys/kernel (shmmax, shmall, shmmni), IPC_INFO, SHM_INFO
 * and /proc/sysvipc/shm. Must start as root; the non-root cases run in a child of uid 1000. */
#define _GNU_SOURCE
#define UTEST_NAME "shm-perms"
#include <grp.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/wait.h>

#include "utest.h"

#define PG	       4096
#define USER	       1000
#define SHMMAX_DEFAULT (~0UL - (1UL << 24))
#define SHMMNI_DEFAULT 4096
#define MAX_IDS	       16

static int *child_checks;      /* the checks a child made, counted here too */
static int ids[MAX_IDS], nids; /* every segment made, removed at exit */
static key_t key_base;

/* A new segment (key 0: IPC_PRIVATE) of size bytes and mode, removed at exit. */
static int seg(key_t key, size_t size, int mode)
{
	int id = shmget(key, size, IPC_CREAT | IPC_EXCL | mode);

	CHECK(id >= 0);
	if (id >= 0 && nids < MAX_IDS)
		ids[nids++] = id;
	return id;
}

static void remove_all(void)
{
	for (int i = 0; i < nids; i++)
		shmctl(ids[i], IPC_RMID, NULL);
}

/* Owner, group and mode of a segment, as root's IPC_SET gives them. */
static void set_perm(int id, unsigned uid, unsigned gid, unsigned mode)
{
	struct shmid_ds ds;

	CHECK_EQ(shmctl(id, IPC_STAT, &ds), 0);
	ds.shm_perm.uid = uid;
	ds.shm_perm.gid = gid;
	ds.shm_perm.mode = mode;
	CHECK_EQ(shmctl(id, IPC_SET, &ds), 0);
}

/* shm_perm.mode of a segment, whoever asks (SHM_STAT_ANY: no permission needed). */
static unsigned mode_of(int id)
{
	struct shmid_ds ds;

	return shmctl(id % 32768, SHM_STAT_ANY, &ds) == id ? ds.shm_perm.mode : ~0u;
}

static char proc_buf[1 << 16];

/* The line of /proc/sysvipc/shm for segment id into line (NUL-terminated, with its newline):
 * 1 found, 0 not. The header must be Linux's. */
static int proc_line(int id, char *line, size_t size)
{
	static const char header[] =
		"       key      shmid perms                  size  cpid  lpid nattch   uid   gid"
		"  cuid  cgid      atime      dtime      ctime                   rss"
		"                  swap\n";
	char *l = proc_buf, *nl;
	int key, sid;

	if (utest_slurp("/proc/sysvipc/shm", proc_buf, sizeof(proc_buf)) <= 0)
		return 0;
	CHECK(!strncmp(proc_buf, header, strlen(header)));
	for (; (nl = strchr(l, '\n')); l = nl + 1)
		if (sscanf(l, "%d %d", &key, &sid) == 2 && sid == id) {
			snprintf(line, size, "%.*s", (int)(nl + 1 - l), l);
			return 1;
		}
	return 0;
}

/* Does /proc/sysvipc/shm show segment id exactly as IPC_STAT (by root) or SHM_STAT_ANY does,
 * with rss pages in memory? Linux's format for 64 bits. */
static void check_proc_line(int id, unsigned long rss)
{
	char got[512] = "", want[512];
	struct shmid_ds ds;

	CHECK_EQ(shmctl(id % 32768, SHM_STAT_ANY, &ds), id);
	snprintf(want, sizeof(want),
		 "%10d %10d  %4o %21lu %5u %5u  %5lu %5u %5u %5u %5u %10llu %10llu %10llu %21lu "
		 "%21lu\n",
		 ds.shm_perm.__key, id, ds.shm_perm.mode, (unsigned long)ds.shm_segsz, ds.shm_cpid,
		 ds.shm_lpid, (unsigned long)ds.shm_nattch, ds.shm_perm.uid, ds.shm_perm.gid,
		 ds.shm_perm.cuid, ds.shm_perm.cgid, (unsigned long long)ds.shm_atime,
		 (unsigned long long)ds.shm_dtime, (unsigned long long)ds.shm_ctime, rss * PG, 0UL);
	CHECK(proc_line(id, got, sizeof(got)));
	if (!CHECK(!strcmp(got, want)))
		fprintf(stderr, "shm-perms: got  %swant %s", got, want);
}

/* Run fn(arg) in a child that is uid and gid USER with no other groups (RLIMIT_MEMLOCK
 * memlock pages first, while it may still set it). Its checks count here. */
static void as_user(void (*fn)(int *), int *arg, long memlock)
{
	struct rlimit rl = { (rlim_t)memlock * PG, (rlim_t)memlock * PG };
	int st = -1;
	pid_t p;

	fflush(NULL);
	p = fork();
	if (p == 0) {
		utest_fails = utest_checks = 0;
		if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgroups(0, NULL) || setgid(USER) ||
		    setuid(USER))
			_exit(2);
		fn(arg);
		fflush(NULL);
		*child_checks += utest_checks;
		_exit(utest_fails ? 1 : 0);
	}
	CHECK(p > 0 && waitpid(p, &st, 0) == p);
	CHECK_EQ(st, 0);
}

/* ids[0]: root's 0600; ids[1]: root's 0604; ids[2]: group USER's 0040; ids[3]: 0040 of group 0;
 * ids[4]: owned by USER, mode 0006 (the owner's bits grant nothing). */
static void user_access(int *id)
{
	struct shmid_ds ds;
	char *p;

	/* no class of bits grants anything: EACCES, except where nothing is asked */
	CHECK_ERR(shmget(key_base, PG, 0600), EACCES);
	CHECK_ERR(shmget(key_base, PG, 0004), EACCES);
	CHECK_EQ(shmget(key_base, PG, 0), id[0]);
	CHECK_ERR(shmget(key_base, 2 * PG, 0), EINVAL); /* the size is checked first */
	CHECK_ERR(shmget(key_base, PG, IPC_CREAT | IPC_EXCL | 0600), EEXIST);
	CHECK_ERR(shmat(id[0], NULL, 0), EACCES);
	CHECK_ERR(shmat(id[0], NULL, SHM_RDONLY), EACCES);
	CHECK_ERR(shmat(id[0], (void *)1, 0), EINVAL); /* the address is checked first */
	CHECK_ERR(shmctl(id[0], IPC_STAT, &ds), EACCES);
	CHECK_ERR(shmctl(id[0] % 32768, SHM_STAT, &ds), EACCES);
	CHECK_EQ(shmctl(id[0] % 32768, SHM_STAT_ANY, &ds), id[0]);
	CHECK_EQ(ds.shm_perm.mode, 0600);
	CHECK_EQ(ds.shm_perm.uid, 0);
	CHECK_ERR(shmctl(id[0], IPC_SET, &ds), EPERM);
	CHECK_ERR(shmctl(id[0], IPC_RMID, NULL), EPERM);
	CHECK_ERR(shmctl(id[0], SHM_LOCK, NULL), EPERM);
	CHECK_ERR(shmctl(id[0], SHM_UNLOCK, NULL), EPERM);
	CHECK_ERR(shmctl(id[0] + 32768, IPC_STAT, &ds), EINVAL); /* not its id: EINVAL first */
	check_proc_line(id[0], 0); /* /proc/sysvipc/shm shows every segment to anyone */

	/* the others' read bit: read, never write or execute */
	CHECK_EQ(shmget(key_base + 1, PG, 0444), id[1]);
	CHECK_ERR(shmget(key_base + 1, PG, 0600), EACCES);
	p = shmat(id[1], NULL, SHM_RDONLY);
	CHECK(p != (void *)-1);
	if (p != (void *)-1) {
		CHECK_EQ(p[0], 'r'); /* root's write, seen */
		CHECK_EQ(shmdt(p), 0);
	}
	CHECK_ERR(shmat(id[1], NULL, 0), EACCES);
	CHECK_ERR(shmat(id[1], NULL, SHM_RDONLY | SHM_EXEC), EACCES);
	CHECK_EQ(shmctl(id[1], IPC_STAT, &ds), 0);
	CHECK_EQ(shmctl(id[1] % 32768, SHM_STAT, &ds), id[1]);

	/* the group's bits for a member of the group, not for others */
	p = shmat(id[2], NULL, SHM_RDONLY);
	CHECK(p != (void *)-1);
	CHECK_EQ(shmctl(id[2], IPC_STAT, &ds), 0);
	CHECK_ERR(shmat(id[3], NULL, SHM_RDONLY), EACCES);
	CHECK_ERR(shmctl(id[3], IPC_STAT, &ds), EACCES);

	/* the owner gets the owner's bits only, but may change and remove it */
	CHECK_ERR(shmctl(id[4], IPC_STAT, &ds), EACCES);
	CHECK_ERR(shmat(id[4], NULL, SHM_RDONLY), EACCES);
	CHECK_EQ(shmctl(id[4] % 32768, SHM_STAT_ANY, &ds), id[4]);
	ds.shm_perm.mode = 0400 | 01000;
	CHECK_EQ(shmctl(id[4], IPC_SET, &ds), 0);
	CHECK_EQ(shmctl(id[4], IPC_STAT, &ds), 0);
	CHECK_EQ(ds.shm_perm.mode, 0400);
	ds.shm_perm.uid = (uid_t)-1;
	CHECK_ERR(shmctl(id[4], IPC_SET, &ds), EINVAL);
	ds.shm_perm.uid = 0; /* given to root: no longer ours to change */
	CHECK_EQ(shmctl(id[4], IPC_SET, &ds), 0);
	CHECK_ERR(shmctl(id[4], IPC_SET, &ds), EPERM);
	CHECK_ERR(shmctl(id[4], IPC_RMID, NULL), EPERM);
}

/* A segment USER creates stays the creator's to change after root takes it over. */
static void user_creates(int *id)
{
	*id = shmget(IPC_PRIVATE, PG, 0600);
	CHECK(*id >= 0);
}

static void user_creator(int *id)
{
	struct shmid_ds ds;

	CHECK_EQ(shmctl(*id, IPC_STAT, &ds), 0); /* the creator's class: the owner's bits */
	CHECK_EQ(ds.shm_perm.uid, 0);
	CHECK_EQ(ds.shm_perm.cuid, USER);
	CHECK_EQ(ds.shm_perm.cgid, USER);
	CHECK_EQ(shmctl(*id, IPC_SET, &ds), 0);
	CHECK_EQ(shmctl(*id, IPC_RMID, NULL), 0);
	CHECK_ERR(shmctl(*id, IPC_STAT, &ds), EINVAL);
}

/* SHM_LOCK as USER with a hard RLIMIT_MEMLOCK of 8 pages: EPERM at a soft limit of 0, then
 * within the 8 pages counted over every segment USER locked, ENOMEM past them. */
static void user_lock(int *unused)
{
	struct rlimit rl = { 0, 8 * PG };
	int a = shmget(IPC_PRIVATE, PG, 0600), b = shmget(IPC_PRIVATE, 8 * PG, 0600);
	struct shmid_ds ds;

	(void)unused;
	CHECK(a >= 0 && b >= 0);
	CHECK_EQ(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	CHECK_ERR(shmctl(a, SHM_LOCK, NULL), EPERM);
	CHECK_EQ(shmctl(a, SHM_UNLOCK, NULL), 0); /* not locked: nothing to do, allowed */
	rl.rlim_cur = 8 * PG;
	CHECK_EQ(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	CHECK_EQ(shmctl(a, SHM_LOCK, NULL), 0);
	CHECK_EQ(shmctl(a, SHM_LOCK, NULL), 0); /* twice: counted once */
	CHECK_EQ(mode_of(a), 02600);
	CHECK_ERR(shmctl(b, SHM_LOCK, NULL), ENOMEM); /* 1 + 8 pages > 8 */
	CHECK_EQ(mode_of(b), 0600);
	CHECK_EQ(shmctl(a, SHM_UNLOCK, NULL), 0);
	CHECK_EQ(mode_of(a), 0600);
	CHECK_EQ(shmctl(b, SHM_LOCK, NULL), 0); /* 8 pages: within */
	CHECK_EQ(mode_of(b), 02600);
	CHECK_ERR(shmctl(a, SHM_LOCK, NULL), ENOMEM);
	CHECK_EQ(shmctl(b, IPC_STAT, &ds), 0);
	CHECK_EQ(ds.shm_perm.mode, 02600);
	CHECK_EQ(shmctl(b, IPC_RMID, NULL), 0); /* its pages no longer count */
	CHECK_EQ(shmctl(a, SHM_LOCK, NULL), 0);
	CHECK_EQ(shmctl(a, IPC_RMID, NULL), 0);
}

static void root_access(void)
{
	struct shmid_ds ds;
	char *p;

	key_base = 0x5e770000 + (getpid() & 0xffff) * 8;
	for (int k = 0; k < 2; k++)
		shmctl(shmget(key_base + k, PG, 0), IPC_RMID, NULL); /* an earlier run's */
	seg(key_base, PG, 0600);
	seg(key_base + 1, PG, 0604);
	seg(IPC_PRIVATE, PG, 0600);
	seg(IPC_PRIVATE, PG, 0600);
	seg(IPC_PRIVATE, PG, 0600);
	set_perm(ids[2], 0, USER, 0040);
	set_perm(ids[3], 0, 0, 0040);
	set_perm(ids[4], USER, 0, 0006);
	CHECK_EQ(shmctl(ids[0], IPC_STAT, &ds), 0);
	CHECK_EQ(ds.shm_perm.uid, 0);
	CHECK_EQ(ds.shm_perm.cuid, 0);
	CHECK_EQ(ds.shm_perm.mode, 0600);
	p = shmat(ids[1], NULL, 0);
	CHECK(p != (void *)-1);
	if (p != (void *)-1) {
		p[0] = 'r';
		CHECK_EQ(shmdt(p), 0);
	}
	as_user(user_access, ids, 0);
	/* root may do all of it, whatever the bits (ids[4] is root's again, mode 0400) */
	CHECK_EQ(shmget(key_base, PG, 0666), ids[0]);
	p = shmat(ids[3], NULL, SHM_EXEC);
	CHECK(p != (void *)-1);
	if (p != (void *)-1)
		CHECK_EQ(shmdt(p), 0);
	CHECK_EQ(shmctl(ids[4], IPC_STAT, &ds), 0);
	CHECK_EQ(ds.shm_perm.uid, 0);
	CHECK_EQ(ds.shm_perm.cuid, 0);
	CHECK_EQ(ds.shm_perm.mode, 0400);
	CHECK_EQ(shmctl(ids[3], IPC_SET, &ds), 0);
}

/* The child's id comes back through a shared page. */
static void creator(int *shared)
{
	struct shmid_ds ds;

	as_user(user_creates, shared, 0);
	CHECK(shared[0] >= 0);
	CHECK_EQ(shmctl(shared[0], IPC_STAT, &ds), 0);
	CHECK_EQ(ds.shm_perm.uid, USER);
	CHECK_EQ(ds.shm_perm.gid, USER);
	ds.shm_perm.uid = 0;
	ds.shm_perm.gid = 0;
	CHECK_EQ(shmctl(shared[0], IPC_SET, &ds), 0);
	as_user(user_creator, shared, 0);
}

static void root_lock(void)
{
	struct rlimit old, none = { 0, 0 };
	int id = seg(IPC_PRIVATE, 4 * PG, 0600);

	as_user(user_lock, NULL, 8);
	/* root locks whatever its limit (CAP_IPC_LOCK), and may unlock anyone's */
	CHECK_EQ(getrlimit(RLIMIT_MEMLOCK, &old), 0);
	CHECK_EQ(setrlimit(RLIMIT_MEMLOCK, &none), 0);
	CHECK_EQ(shmctl(id, SHM_LOCK, NULL), 0);
	CHECK_EQ(mode_of(id), 02600);
	CHECK_EQ(shmctl(id, SHM_UNLOCK, NULL), 0);
	CHECK_EQ(mode_of(id), 0600);
	CHECK_ERR(shmctl(id + 1, SHM_LOCK, NULL), EINVAL);
	CHECK_EQ(shmctl(id, SHM_LOCK, NULL), 0); /* left locked: /proc/sysvipc/shm shows it */
}

/* /proc/sys/kernel/shm*: read as found, written back at exit */
static const char *const ctl[3] = { "/proc/sys/kernel/shmmax", "/proc/sys/kernel/shmall",
				    "/proc/sys/kernel/shmmni" };
static char saved[3][32];

static void restore_limits(void)
{
	for (int k = 0; k < 3; k++)
		if (saved[k][0])
			utest_sysctl_write(ctl[k], saved[k]);
}

static unsigned long ctl_value(int k)
{
	char buf[32] = "";

	utest_slurp(ctl[k], buf, sizeof(buf));
	return strtoul(buf, NULL, 10);
}

static void limits(void)
{
	struct shminfo info;
	struct shm_info si;
	char text[32];
	int maxidx;

	for (int k = 0; k < 3; k++)
		CHECK(utest_slurp(ctl[k], saved[k], sizeof(saved[k])) > 0);
	atexit(restore_limits);
	CHECK_EQ(ctl_value(0), SHMMAX_DEFAULT);
	CHECK_EQ(ctl_value(1), SHMMAX_DEFAULT); /* shmall: the same number, in pages */
	CHECK_EQ(ctl_value(2), SHMMNI_DEFAULT);
	maxidx = shmctl(0, IPC_INFO, (struct shmid_ds *)&info);
	CHECK(maxidx >= ids[nids - 1] % 32768);
	CHECK_EQ(info.shmmax, SHMMAX_DEFAULT);
	CHECK_EQ(info.shmmin, 1);
	CHECK_EQ(info.shmmni, SHMMNI_DEFAULT);
	CHECK_EQ(info.shmseg, SHMMNI_DEFAULT);
	CHECK_EQ(info.shmall, SHMMAX_DEFAULT);
	CHECK_EQ(shmctl(0, SHM_INFO, (struct shmid_ds *)&si), maxidx);
	CHECK(si.used_ids >= nids);

	/* shmmax: the largest size; anything else written is EINVAL */
	CHECK_EQ(utest_sysctl_write(ctl[0], "8192\n"), 0);
	CHECK_EQ(ctl_value(0), 8192);
	CHECK(shmctl(0, IPC_INFO, (struct shmid_ds *)&info) >= 0 && info.shmmax == 8192);
	CHECK_ERR(shmget(IPC_PRIVATE, 8193, 0600), EINVAL);
	seg(IPC_PRIVATE, 8192, 0600);
	CHECK_EQ(utest_sysctl_write(ctl[0], "-1"), EINVAL);
	CHECK_EQ(utest_sysctl_write(ctl[0], "18446744073709551616"), EINVAL);
	CHECK_EQ(utest_sysctl_write(ctl[0], "12x"), EINVAL);
	CHECK_EQ(ctl_value(0), 8192);
	CHECK_EQ(utest_sysctl_write(ctl[0], "18446744073709551615"), 0);
	CHECK_EQ(ctl_value(0), ~0UL);
	CHECK_ERR(shmget(IPC_PRIVATE, ~0UL, 0600), ENOSPC); /* its pages' count wraps */
	CHECK_EQ(utest_sysctl_write(ctl[0], saved[0]), 0);

	/* shmall: the pages of all segments */
	CHECK(shmctl(0, SHM_INFO, (struct shmid_ds *)&si) >= ids[nids - 1] % 32768);
	snprintf(text, sizeof(text), "%lu", si.shm_tot + 2);
	CHECK_EQ(utest_sysctl_write(ctl[1], text), 0);
	CHECK_ERR(shmget(IPC_PRIVATE, 2 * PG + 1, 0600), ENOSPC);
	seg(IPC_PRIVATE, 2 * PG, 0600);
	CHECK_ERR(shmget(IPC_PRIVATE, 1, 0600), ENOSPC);
	CHECK_EQ(utest_sysctl_write(ctl[1], saved[1]), 0);

	/* shmmni: the number of segments, at most 32768 */
	CHECK(shmctl(0, SHM_INFO, (struct shmid_ds *)&si) >= 0);
	snprintf(text, sizeof(text), "%d", si.used_ids + 1);
	CHECK_EQ(utest_sysctl_write(ctl[2], text), 0);
	seg(IPC_PRIVATE, PG, 0600);
	CHECK_ERR(shmget(IPC_PRIVATE, PG, 0600), ENOSPC);
	CHECK_EQ(utest_sysctl_write(ctl[2], "32769"), EINVAL);
	CHECK_EQ(utest_sysctl_write(ctl[2], "-1"), EINVAL);
	CHECK_EQ(utest_sysctl_write(ctl[2], "32768"), 0);
	CHECK_EQ(ctl_value(2), 32768);
	CHECK_EQ(utest_sysctl_write(ctl[2], saved[2]), 0);
	CHECK_EQ(ctl_value(2), SHMMNI_DEFAULT);
}

/* SHM_INFO's resident pages, SHM_STAT, and a segment's line in /proc/sysvipc/shm. */
static void info_and_proc(void)
{
	int id = seg(IPC_PRIVATE, 3 * PG + 5, 0640);
	struct shm_info si0, si1;
	struct shmid_ds ds;
	char *p;

	CHECK(shmctl(0, SHM_INFO, (struct shmid_ds *)&si0) >= id % 32768);
	check_proc_line(id, 0);
	p = shmat(id, NULL, 0);
	CHECK(p != (void *)-1);
	if (p == (void *)-1)
		return;
	p[0] = p[PG] = p[3 * PG + 4] = 1; /* 3 of its 4 pages */
	CHECK(shmctl(0, SHM_INFO, (struct shmid_ds *)&si1) >= id % 32768);
	CHECK_EQ(si1.shm_rss - si0.shm_rss, 3);
	CHECK_EQ(si1.shm_tot, si0.shm_tot);
	CHECK_EQ(si1.used_ids, si0.used_ids);
	CHECK_EQ(shmctl(id % 32768, SHM_STAT, &ds), id);
	CHECK_EQ(ds.shm_nattch, 1);
	CHECK_EQ(ds.shm_segsz, 3 * PG + 5);
	CHECK_EQ(ds.shm_lpid, getpid());
	check_proc_line(id, 3);
	CHECK_EQ(shmdt(p), 0);
	check_proc_line(id, 3);
	check_proc_line(ids[5], 0); /* root_lock's, locked: mode 02600 */
	CHECK_EQ(mode_of(ids[5]), 02600);
}

int main(void)
{
	child_checks = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (child_checks == MAP_FAILED || geteuid() != 0) {
		fprintf(stderr, "shm-perms: must run as root\n");
		return 1;
	}
	atexit(remove_all);
	root_access();
	creator(child_checks + 1);
	root_lock();
	limits();
	info_and_proc();
	utest_checks += *child_checks;
	return utest_done();
}
