/* Parsing the kernel command line. Searching from the end lets words appended later (for
 * example by the test harness through fw_cfg) override what grub.cfg says. */
#include "kernel/lib/cmdline.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"

#define CMDLINE_MAX 1024
static char cmdline[CMDLINE_MAX];

void cmdline_init(const char *line)
{
	strlcpy(cmdline, line, sizeof(cmdline));
}

void cmdline_append(const char *words)
{
	size_t n = strlen(cmdline);

	if (n && n + 1 < sizeof(cmdline))
		cmdline[n++] = ' ';
	strlcpy(cmdline + n, words, sizeof(cmdline) - n);
}

const char *cmdline_text(void)
{
	return cmdline;
}

bool cmdline_get(const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	const char *found = NULL;

	for (const char *p = cmdline; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (strncmp(p, key, klen) == 0 && (p[klen] == '=' || p[klen] == ' ' || !p[klen]))
			found = p + klen;
		while (*p && *p != ' ')
			p++;
	}
	if (!found)
		return false;
	if (buf && size) {
		size_t i = 0;

		if (*found == '=')
			found++;
		while (found[i] && found[i] != ' ' && i + 1 < size) {
			buf[i] = found[i];
			i++;
		}
		buf[i] = '\0';
	}
	return true;
}

bool cmdline_has(const char *key)
{
	return cmdline_get(key, NULL, 0);
}

long cmdline_get_long(const char *key, long def)
{
	char buf[24];
	long v = 0;
	int i = 0;
	bool neg = false;

	if (!cmdline_get(key, buf, sizeof(buf)) || !buf[0])
		return def;
	if (buf[0] == '-')
		neg = true, i = 1;
	for (; buf[i]; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return def;
		v = v * 10 + (buf[i] - '0');
	}
	return neg ? -v : v;
}

/* Every parameter the kernel reads (README's table); anything else is reported at boot. */
static const char *const known_params[] = {
	"ktest", "qemu_exit", "bootmem", "runlist", "runstats", "runtimeout", "init", "faulttrace",
	"kcheck",
	"disk_latency_us", "legacy_nopage", "race_window_us", "poweroff",
	"nosmp", "maxcpus", "noapic", "nox2apic", "noioapic",
	"libata.dma", "noswap", "reclaim",
};

void cmdline_check_unknown(void)
{
	for (const char *p = cmdline; *p;) {
		char word[64];
		size_t n = 0;
		bool known = false;

		while (*p == ' ')
			p++;
		while (p[n] && p[n] != ' ' && p[n] != '=')
			n++;
		if (!n)
			break;
		strlcpy(word, p, MIN(n + 1, sizeof(word)));
		for (size_t i = 0; i < ARRAY_SIZE(known_params); i++)
			known |= strcmp(word, known_params[i]) == 0;
		if (!known)
			printk("cmdline: unknown parameter '%s' ignored (README lists them)\n", word);
		while (*p && *p != ' ')
			p++;
	}
}
