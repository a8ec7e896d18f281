/* /proc/cpuinfo in Linux's x86 format, from CPUID on each online CPU: the vendor, family,
 * model, stepping, brand string, APIC id and the feature flags Linux names (those of leaves 1,
 * 7 and 0x80000001). */
#include "kernel/arch/percpu.h"
#include "kernel/arch/smp.h"
#include "kernel/arch/x86.h"
#include "kernel/fs/proc/internal.h"
#include "kernel/lib/string.h"

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

/* What one CPU's CPUID says, read on that CPU (its APIC id differs from the others'). */
struct cpuid_snap {
	uint32_t max, maxext, vendor[3], brand[13], a1, b1, c1, d1, edxe, addr, ebx7, ecx7;
};

static void read_cpuid(void *arg)
{
	struct cpuid_snap *s = arg;
	uint32_t a, b, c, d;

	memset(s, 0, sizeof(*s));
	cpuid(0, &s->max, &s->vendor[0], &s->vendor[2], &s->vendor[1]);
	cpuid(0x80000000, &s->maxext, &b, &c, &d);
	for (uint32_t i = 0; s->maxext >= 0x80000004 && i < 3; i++)
		cpuid(0x80000002 + i, &s->brand[4 * i], &s->brand[4 * i + 1], &s->brand[4 * i + 2],
		      &s->brand[4 * i + 3]);
	if (s->maxext >= 0x80000001)
		cpuid(0x80000001, &a, &b, &c, &s->edxe);
	if (s->maxext >= 0x80000008)
		cpuid(0x80000008, &s->addr, &b, &c, &d);
	if (s->max >= 7)
		cpuid(7, &a, &s->ebx7, &s->ecx7, &d);
	cpuid(1, &s->a1, &s->b1, &s->c1, &s->d1);
}

/* One block per online CPU, each from CPUID run on that CPU (an IPI for the others). */
static void cpuinfo_show(struct proc_text *t)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct cpuid_snap s;
		uint32_t family, model, a;
		char vendor[13];

		if (!cpu_online(cpu) || smp_call_function_single(cpu, read_cpuid, &s, true))
			continue;
		a = s.a1;
		memcpy(vendor, s.vendor, 12);
		vendor[12] = '\0';
		family = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		if (family == 0xf)
			family += (a >> 20) & 0xff;
		if (family >= 6)
			model |= ((a >> 16) & 0xf) << 4;
		proc_printf(t, "processor\t: %d\nvendor_id\t: %s\ncpu family\t: %u\n"
			       "model\t\t: %u\nmodel name\t: %s\nstepping\t: %u\n"
			       "apicid\t\t: %u\ninitial apicid\t: %u\nflags\t\t:",
			    cpu, vendor, family, model,
			    s.brand[0] ? (const char *)s.brand : "unknown", a & 0xf,
			    cpu_data[cpu].apic_id, s.b1 >> 24);
		flags(t, edx1, s.d1);
		flags(t, ecx1, s.c1);
		flags(t, edx81, s.edxe);
		flags(t, ebx7, s.ebx7);
		if (s.ecx7 & (1U << 2))
			proc_printf(t, " umip");
		proc_printf(t, "\nclflush size\t: %u\n", ((s.b1 >> 8) & 0xff) * 8);
		proc_printf(t, "address sizes\t: %u bits physical, %u bits virtual\n\n",
			    s.addr & 0xff, (s.addr >> 8) & 0xff);
	}
}

const struct proc_entry proc_cpuinfo = { "cpuinfo", 2048 * NR_CPUS, cpuinfo_show, NULL };
