/* /proc/cpuinfo in Linux's x86 format, from CPUID: the vendor, family, model and stepping,
 * the brand string and the feature flags Linux names (those of leaves 1, 7 and 0x80000001). */
#include "kernel/fs/proc/internal.h"
#include "kernel/string.h"
#include "kernel/x86.h"

/* Linux's names for the CPUID bits, in its order; NULL: a bit it does not print. */
static const char *const edx1[32] = {
	"fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce", "cx8", "apic", NULL, "sep",
	"mtrr", "pge", "mca", "cmov", "pat", "pse36", "pn", "clflush", NULL, "dts", "acpi",
	"mmx", "fxsr", "sse", "sse2", "ss", "ht", "tm", "ia64", "pbe",
};
static const char *const ecx1[32] = {
	"pni", "pclmulqdq", "dtes64", "monitor", "ds_cpl", "vmx", "smx", "est", "tm2", "ssse3",
	"cid", "sdbg", "fma", "cx16", "xtpr", "pdcm", NULL, "pcid", "dca", "sse4_1", "sse4_2",
	"x2apic", "movbe", "popcnt", "tsc_deadline_timer", "aes", "xsave", NULL, "avx", "f16c",
	"rdrand", "hypervisor",
};
static const char *const edx81[32] = {
	[11] = "syscall", [20] = "nx", [22] = "mmxext", [25] = "fxsr_opt", [26] = "pdpe1gb",
	[27] = "rdtscp", [29] = "lm", [30] = "3dnowext", [31] = "3dnow",
};
static const char *const ebx7[32] = {
	[0] = "fsgsbase", [3] = "bmi1", [4] = "hle", [5] = "avx2", [7] = "smep", [8] = "bmi2",
	[9] = "erms", [10] = "invpcid", [11] = "rtm", [18] = "rdseed", [19] = "adx",
	[20] = "smap", [23] = "clflushopt", [24] = "clwb", [29] = "sha_ni",
};

static void flags(struct proc_text *t, const char *const names[32], uint32_t bits)
{
	for (int i = 0; i < 32; i++)
		if ((bits & (1U << i)) && names[i])
			proc_printf(t, " %s", names[i]);
}

static void cpuinfo_show(struct proc_text *t)
{
	uint32_t a, b, c, d, max, maxext, ecx7 = 0, ebx7v = 0, edxe = 0;
	uint32_t brand[13] = { 0 }, family, model, addr = 0; /* brand: 48 bytes and a NUL */
	char vendor[13];

	cpuid(0, &max, &b, &c, &d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	cpuid(0x80000000, &maxext, &b, &c, &d);
	for (uint32_t i = 0; maxext >= 0x80000004 && i < 3; i++)
		cpuid(0x80000002 + i, &brand[4 * i], &brand[4 * i + 1], &brand[4 * i + 2],
		      &brand[4 * i + 3]);
	if (maxext >= 0x80000001)
		cpuid(0x80000001, &a, &b, &c, &edxe);
	if (maxext >= 0x80000008)
		cpuid(0x80000008, &addr, &b, &c, &d);
	if (max >= 7)
		cpuid(7, &a, &ebx7v, &ecx7, &d);
	cpuid(1, &a, &b, &c, &d);
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 6)
		model |= ((a >> 16) & 0xf) << 4;
	proc_printf(t, "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
		       "model name\t: %s\nstepping\t: %u\nflags\t\t:",
		    vendor, family, model, brand[0] ? (const char *)brand : "unknown", a & 0xf);
	flags(t, edx1, d);
	flags(t, ecx1, c);
	flags(t, edx81, edxe);
	flags(t, ebx7, ebx7v);
	if (ecx7 & (1U << 2))
		proc_printf(t, " umip");
	proc_printf(t, "\nclflush size\t: %u\n", ((b >> 8) & 0xff) * 8);
	proc_printf(t, "address sizes\t: %u bits physical, %u bits virtual\n\n", addr & 0xff,
		    (addr >> 8) & 0xff);
}

const struct proc_entry proc_cpuinfo = { "cpuinfo", 2048, cpuinfo_show };
