/* lsbin: lists /bin (opendir and readdir, sorted, on one line) after a greeting with its pid: a
 * test of directory reading over the whole ramdisk. Exits non-zero if /bin cannot be opened or
 * holds no programs. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NAMES 4096

static char names[64 * 1024]; /* static, so a long listing needs no big malloc */
static char *name[MAX_NAMES];

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	size_t used = 0, len;
	int n = 0, dropped = 0, i;
	struct dirent *de;
	DIR *d;

	printf("lsbin: hello from ring 3, pid %d\n", (int)getpid());
	d = opendir("/bin");
	if (!d) {
		perror("lsbin: FAIL: opendir /bin");
		return 1;
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		len = strlen(de->d_name) + 1;
		if (n == MAX_NAMES || used + len > sizeof(names)) {
			dropped++;
			continue;
		}
		name[n++] = memcpy(names + used, de->d_name, len);
		used += len;
	}
	if (errno) {
		perror("lsbin: FAIL: readdir /bin");
		return 1;
	}
	closedir(d);
	if (n == 0) {
		fprintf(stderr, "lsbin: FAIL: /bin is empty\n");
		return 1;
	}
	qsort(name, n, sizeof(name[0]), by_name);
	printf("lsbin: /bin has:");
	for (i = 0; i < n; i++)
		printf(" %s", name[i]);
	if (dropped)
		printf(" (and %d more)", dropped);
	printf("\n");
	return 0;
}
