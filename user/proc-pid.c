/* proc-pid: /proc/PID as ps and top read it: the listing of /proc, the /proc/self link,
 * stat (52 fields), status, cmdline, comm, exe, a child's state as it sleeps and as a zombie,
 * its directory gone once reaped; /proc/stat and /proc/vmstat's pgfault. Natively too. */
#define _GNU_SOURCE
#define UTEST_NAME "proc-pid"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utest.h"

static char text[16384];

/* The whole file into text: its length, or -1. */
static long slurp(const char *path)
{
	return utest_slurp(path, text, sizeof(text));
}

/* /proc/PID/stat split as ps does: comm between the first "(" and the last ")", then the
 * fields from the state on. f[k] is field k + 1 of proc(5) (f[2] the state letter). */
struct pstat {
	int pid;
	char comm[64], state;
	unsigned long long f[52];
	int nfields;
};

static int read_stat(int pid, struct pstat *s)
{
	char path[64], *open_paren, *close_paren, *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (slurp(path) <= 0)
		return -1;
	memset(s, 0, sizeof(*s));
	s->pid = atoi(text);
	open_paren = strchr(text, '(');
	close_paren = strrchr(text, ')');
	if (!open_paren || !close_paren || close_paren - open_paren > 63)
		return -1;
	memcpy(s->comm, open_paren + 1, close_paren - open_paren - 1);
	s->state = close_paren[2];
	s->nfields = 3;
	p = close_paren + 3;
	while (*p && *p != '\n' && s->nfields < 52) {
		s->f[s->nfields++] = strtoull(p, &p, 10);
		if (*p == ' ')
			p++;
	}
	if (*p == ' ' || (*p && *p != '\n'))
		s->nfields++; /* more than 52 */
	return 0;
}

/* The number after "Label:" at the start of a line of text, or -1. */
static long field(const char *label)
{
	size_t n = strlen(label);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, label, n) && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	return -1;
}

/* The hexadecimal mask after "Label:" (SigBlk, SigIgn, SigCgt), or 0. */
static unsigned long long hexfield(const char *label)
{
	size_t n = strlen(label);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, label, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 16);
	return 0;
}

static int listed(int pid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (atoi(e->d_name) == pid && e->d_type == DT_DIR)
			found = 1;
	closedir(d);
	return found;
}

static void self_link(void)
{
	char buf[4096], want[32]; /* (the program's path, natively, is the tree's) */
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);
	struct stat st;

	snprintf(want, sizeof(want), "%d", getpid());
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	CHECK(strcmp(buf, want) == 0);
	CHECK(lstat("/proc/self", &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(stat("/proc/self", &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(listed(getpid()) == 1);
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	CHECK(n > 9 && strcmp(buf + n - 9, "/proc-pid") == 0);
}

static void self_stat(char **argv)
{
	struct pstat s;
	long vmsize, vmrss;

	if (!CHECK(read_stat(getpid(), &s) == 0))
		return;
	CHECK_EQ(s.nfields, 52);
	CHECK_EQ(s.pid, getpid());
	CHECK(strcmp(s.comm, "proc-pid") == 0);
	CHECK(s.state == 'R');
	CHECK_EQ(s.f[3], getppid());
	CHECK_EQ(s.f[4], getpgrp());
	CHECK_EQ(s.f[5], getsid(0));
	CHECK(s.f[9] > 0);    /* minflt: this program has faulted its pages in */
	CHECK_EQ(s.f[19], 1); /* num_threads */
	/* vsize, rss (Linux's may lag: a task caches its counts, so small ones read 0) */
	CHECK(s.f[22] > 0 && s.f[23] * 4096 <= s.f[22]);
	CHECK(s.f[25] <= s.f[26] && s.f[27] != 0); /* startcode <= endcode, startstack */
	/* status says the same */
	CHECK(slurp("/proc/self/status") > 0);
	CHECK(strncmp(text, "Name:\tproc-pid\n", 15) == 0);
	CHECK(strstr(text, "\nState:\tR (running)\n") != NULL);
	CHECK_EQ(field("Pid"), getpid());
	CHECK_EQ(field("Tgid"), getpid());
	CHECK_EQ(field("PPid"), getppid());
	CHECK_EQ(field("Uid"), getuid());
	CHECK_EQ(field("Gid"), getgid());
	CHECK_EQ(field("Threads"), 1);
	vmsize = field("VmSize");
	vmrss = field("VmRSS");
	CHECK(vmsize > 0 && vmrss > 0 && vmrss <= vmsize);
	CHECK(field("VmStk") > 0 && field("VmData") >= 0 && field("VmExe") > 0);
	/* stat's vsize is bytes and rss pages; status has kB (sampled apart: allow a little) */
	CHECK(llabs((long long)s.f[22] / 1024 - vmsize) <= 64);
	CHECK(strstr(text, "\nSigBlk:\t") && strstr(text, "\nSigIgn:\t") &&
	      strstr(text, "\nSigCgt:\t") && strstr(text, "\nSigPnd:\t"));
	/* cmdline: argv, each string with its NUL */
	{
		long n = slurp("/proc/self/cmdline"), want = 0;

		for (int k = 0; argv[k]; k++) {
			CHECK(n >= want + (long)strlen(argv[k]) + 1 &&
			      strcmp(text + want, argv[k]) == 0);
			want += strlen(argv[k]) + 1;
		}
		CHECK_EQ(n, want);
	}
	CHECK(slurp("/proc/self/comm") > 0 && strcmp(text, "proc-pid\n") == 0);
}

static void on_usr2(int sig)
{
	(void)sig;
}

/* Signal masks as status and stat show them. */
static void signal_masks(void)
{
	sigset_t set, old;
	struct pstat s;

	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, on_usr2);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, &old);
	CHECK(slurp("/proc/self/status") > 0);
	CHECK(hexfield("SigBlk") & (1ULL << (SIGTERM - 1)));
	CHECK(hexfield("SigIgn") & (1ULL << (SIGUSR1 - 1)));
	CHECK(!(hexfield("SigCgt") & (1ULL << (SIGUSR1 - 1))));
	CHECK(hexfield("SigCgt") & (1ULL << (SIGUSR2 - 1)));
	CHECK(read_stat(getpid(), &s) == 0 && (s.f[31] & (1ULL << (SIGTERM - 1))) &&
	      (s.f[32] & (1ULL << (SIGUSR1 - 1))) && (s.f[33] & (1ULL << (SIGUSR2 - 1))));
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

/* A child asleep (S), then a zombie (Z), then gone: no directory, not listed. */
static void child_states(void)
{
	int p[2], status;
	char c, path[64];
	struct pstat s;
	pid_t pid;

	if (!CHECK(pipe(p) == 0))
		return;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		read(p[0], &c, 1); /* sleeps until the parent closes its end */
		_exit(7);
	}
	close(p[0]);
	for (int k = 0; k < 100; k++) { /* until it sleeps in read */
		if (read_stat(pid, &s) == 0 && s.state == 'S')
			break;
		usleep(10000);
	}
	CHECK(read_stat(pid, &s) == 0 && s.state == 'S');
	CHECK_EQ(s.f[3], getpid());
	CHECK(strcmp(s.comm, "proc-pid") == 0);
	CHECK(listed(pid) == 1);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	CHECK(slurp(path) > 0 && field("PPid") == getpid() && field("Pid") == pid);
	close(p[1]);
	for (int k = 0; k < 100; k++) { /* until it has exited */
		if (read_stat(pid, &s) == 0 && s.state == 'Z')
			break;
		usleep(10000);
	}
	CHECK(read_stat(pid, &s) == 0 && s.state == 'Z');
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	CHECK(slurp(path) == 0); /* a zombie has no memory left */
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	CHECK_ERR(open(path, O_RDONLY), ENOENT);
	CHECK(listed(pid) == 0);
}

/* top's way: chdir to /proc and open names relative to it. */
static void relative(void)
{
	int fd;

	CHECK(chdir("/proc") == 0);
	fd = open("stat", O_RDONLY);
	CHECK(fd >= 0);
	close(fd);
	CHECK(slurp("self/stat") > 0 && atoi(text) == getpid());
	CHECK(chdir("/") == 0);
	CHECK(slurp("/proc/stat") > 0 && strncmp(text, "cpu  ", 5) == 0);
	CHECK(strstr(text, "\ncpu0 ") != NULL && strstr(text, "\nbtime ") != NULL);
	CHECK(strstr(text, "\nprocs_running ") != NULL);
}

/* The number after "name " in /proc/vmstat, or -1. */
static long long vmstat(const char *name)
{
	size_t n = strlen(name);

	if (slurp("/proc/vmstat") <= 0)
		return -1;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

/* Touching n new pages makes at least n faults, counted in pgfault. */
static void vmstat_faults(void)
{
	const int n = 64;
	long long before, after;
	char *m = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!CHECK(m != MAP_FAILED))
		return;
	before = vmstat("pgfault");
	for (int k = 0; k < n; k++)
		m[k * 4096] = 1;
	after = vmstat("pgfault");
	CHECK(before > 0 && after - before >= n);
	CHECK(vmstat("nr_free_pages") > 0 && vmstat("pgmajfault") >= 0);
	CHECK(vmstat("pgalloc_normal") >= 0 && vmstat("pgfree") >= 0);
	munmap(m, n * 4096);
}

int main(int argc, char **argv)
{
	(void)argc;
	self_link();
	self_stat(argv);
	signal_masks();
	child_states();
	relative();
	vmstat_faults();
	return utest_done();
}
