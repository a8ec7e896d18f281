/* vm-oom: running out of memory. A child maps 4 GiB (MAP_NORESERVE) and writes page after page
 * until the kernel's OOM killer ends it with SIGKILL; the parent survives and can still allocate
 * and use memory. faultline has ~256 MiB of RAM. Natively the child is first confined to a
 * memory cgroup of 64 MiB without swap (cgroup v2 at /sys/fs/cgroup/faultline-oom-PID, or, on a
 * host with the v1 memory controller, a child of our own memory cgroup) and never writes more
 * than 256 MiB; if no cgroup can be made, it writes nothing and the test exits 2. */
#define _GNU_SOURCE
#define UTEST_NAME "vm-oom"
#include "utest.h"
#include "vmstat.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>

#define MIB	      (1UL << 20)
#define CGROUP2_MAGIC 0x63677270
#define NATIVE_LIMIT  "67108864" /* 64 MiB */

static char cg[600]; /* the cgroup made for the child, "" if none */
static int cg_v2;
static char why[1024]; /* why no cgroup could be made */

static int put_file(const char *dir, const char *name, const char *s)
{
	char path[1024];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* the file's text, "" if it cannot be read */
static const char *get_file(const char *dir, const char *name)
{
	static char buf[8192];
	char path[1024];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "", name ? name : "");
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* the number after "key " in a flat-keyed cgroup file, -1 if absent */
static long keyed(const char *text, const char *key)
{
	size_t k = strlen(key);
	const char *s;

	for (s = text; (s = strstr(s, key)); s += k)
		if ((s == text || s[-1] == '\n') && s[k] == ' ')
			return atol(s + k + 1);
	return -1;
}

static int no_swap(void)
{
	const char *s = get_file("/proc/swaps", NULL);

	return strchr(s, '\n') == NULL || strchr(s, '\n')[1] == '\0'; /* just the header */
}

/* the mount point of the v1 memory controller and our cgroup in it */
static int v1_memory_dir(char *out, size_t size)
{
	char line[1024], mnt[512] = "", path[512] = "";
	char *s, *save, *tok;
	FILE *f = fopen("/proc/self/mounts", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char dev[256], dir[512], type[64], opts[512];

		if (sscanf(line, "%255s %511s %63s %511s", dev, dir, type, opts) != 4 ||
		    strcmp(type, "cgroup") != 0)
			continue;
		for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (strcmp(tok, "memory") == 0)
				snprintf(mnt, sizeof(mnt), "%s", dir);
	}
	if (f)
		fclose(f);
	f = fopen("/proc/self/cgroup", "r"); /* "4:memory:/a/b" */
	while (f && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *p = ctl ? strchr(ctl + 1, ':') : NULL;

		if (!p)
			continue;
		*p++ = '\0';
		p[strcspn(p, "\n")] = '\0';
		for (s = ctl + 1, tok = strtok_r(s, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			if (strcmp(tok, "memory") == 0)
				snprintf(path, sizeof(path), "%s", strcmp(p, "/") ? p : "");
	}
	if (f)
		fclose(f);
	if (!mnt[0])
		return -1;
	snprintf(out, size, "%s%s", mnt, path);
	if (access(out, W_OK) != 0) /* a cgroup namespace's mount shows only our part */
		snprintf(out, size, "%s", mnt);
	return 0;
}

/* make the 64 MiB cgroup for the child; 0, or -1 with why[] filled */
static int native_cgroup(void)
{
	char parent[512];
	struct statfs sf;
	int err;

	if (statfs("/sys/fs/cgroup", &sf) == 0 && (unsigned long)sf.f_type == CGROUP2_MAGIC) {
		cg_v2 = 1;
		snprintf(cg, sizeof(cg), "/sys/fs/cgroup/faultline-oom-%d", (int)getpid());
	} else if (v1_memory_dir(parent, sizeof(parent)) == 0) {
		printf("vm-oom: /sys/fs/cgroup is not cgroup2; using cgroup v1 memory: %s\n",
		       parent);
		snprintf(cg, sizeof(cg), "%s/faultline-oom-%d", parent, (int)getpid());
	} else {
		snprintf(why, sizeof(why), "/sys/fs/cgroup is not cgroup2 and no v1 memory cgroup");
		return -1;
	}
	if (mkdir(cg, 0755) != 0) {
		snprintf(why, sizeof(why), "mkdir %s: %s", cg, strerror(errno));
		cg[0] = '\0';
		return -1;
	}
	if (cg_v2) {
		if ((err = put_file(cg, "memory.max", NATIVE_LIMIT)))
			snprintf(why, sizeof(why),
				 "%s/memory.max: %s (memory controller not enabled?)", cg,
				 strerror(err));
		else if ((err = put_file(cg, "memory.swap.max", "0")) &&
			 !(err == ENOENT && no_swap()))
			snprintf(why, sizeof(why), "%s/memory.swap.max: %s", cg, strerror(err));
		else
			err = 0;
	} else {
		if ((err = put_file(cg, "memory.limit_in_bytes", NATIVE_LIMIT)))
			snprintf(why, sizeof(why), "%s/memory.limit_in_bytes: %s", cg,
				 strerror(err));
		else if ((err = put_file(cg, "memory.memsw.limit_in_bytes", NATIVE_LIMIT)) &&
			 !(err == ENOENT && no_swap()))
			snprintf(why, sizeof(why), "%s/memory.memsw.limit_in_bytes: %s", cg,
				 strerror(err));
		else if (keyed(get_file(cg, "memory.oom_control"), "oom_kill_disable") != 0 &&
			 (err = put_file(cg, "memory.oom_control", "0")))
			snprintf(why, sizeof(why), "%s: cannot enable the OOM killer: %s", cg,
				 strerror(err));
		else
			err = 0;
	}
	if (err) {
		rmdir(cg);
		cg[0] = '\0';
		return -1;
	}
	return 0;
}

static void hog(pid_t parent)
{
	/* Under faultline: twice the free memory, at least 4 GiB (the suite also boots with
	 * 8 GiB). */
	size_t size = 4UL << 30, limit, off;

	if (on_faultline() && fl_mm_now().free_frames * VM_PAGE * 2 > size)
		size = fl_mm_now().free_frames * VM_PAGE * 2;
	limit = on_faultline() ? size : 256 * MIB;
	unsigned char *p;
	char me[32], tag[64];

	if (cg[0]) { /* natively: into the cgroup before touching anything */
		snprintf(me, sizeof(me), "%d\n", (int)getpid());
		snprintf(tag, sizeof(tag), "/faultline-oom-%d\n", (int)parent);
		if (put_file(cg, "cgroup.procs", me) != 0 ||
		    !strstr(get_file("/proc/self/cgroup", NULL), tag)) {
			fprintf(stderr,
				"vm-oom: native: cannot confine with a cgroup: %s/cgroup.procs "
				"did not take the child\n",
				cg);
			_exit(2);
		}
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	for (off = 0; off < limit; off += VM_PAGE)
		p[off] = (unsigned char)(off >> 12 | 1);
	_exit(4); /* survived: not what is wanted */
}

int main(void)
{
	struct fl_mm m0 = fl_mm_now(), m1;
	unsigned char *q;
	size_t i, bad;
	pid_t pid;
	int st = -1, tries;

	if (!on_faultline() && native_cgroup() != 0) {
		printf("vm-oom: native: cannot confine with a cgroup: %s\n", why);
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		hog(getppid());
	CHECK(pid > 0);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (!CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))
		fprintf(stderr, "vm-oom:   the child ended with status %#x (%s)\n", st,
			WIFEXITED(st) ? "exited" : "signalled");

	if (cg[0]) {
		const char *ev = get_file(cg, cg_v2 ? "memory.events" : "memory.oom_control");
		long kills = keyed(ev, "oom_kill");

		if (!CHECK(kills >= 1))
			fprintf(stderr, "vm-oom:   %s: no oom_kill counted:\n%s", cg, ev);
		printf("vm-oom: native: the cgroup's OOM killer fired %ld time(s)\n", kills);
		for (tries = 0; rmdir(cg) != 0 && tries < 50; tries++)
			nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
		if (!CHECK(tries < 50))
			fprintf(stderr, "vm-oom:   rmdir %s: %s\n", cg, strerror(errno));
	}
	if (on_faultline()) {
		m1 = fl_mm_now();
		if (!CHECK(m1.free_frames + 16 >= m0.free_frames))
			fprintf(stderr, "vm-oom:   free frames %lu before, %lu after\n",
				(unsigned long)m0.free_frames, (unsigned long)m1.free_frames);
	}

	/* the parent still works: 1 MiB of fresh memory, written and read back */
	q = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(q != MAP_FAILED))
		return utest_done();
	for (i = 0; i < MIB; i++)
		q[i] = (unsigned char)(i * 3 + 1);
	for (i = 0, bad = 0; i < MIB; i++)
		bad += q[i] != (unsigned char)(i * 3 + 1);
	CHECK_EQ(bad, 0);
	CHECK_EQ(munmap(q, MIB), 0);
	q = malloc(MIB);
	CHECK(q != NULL);
	if (q) {
		memset(q, 0x5c, MIB);
		CHECK(q[0] == 0x5c && q[MIB - 1] == 0x5c);
		free(q);
	}
	return utest_done();
}
