/* ACPI, only as far as power-off and reset need it, so that a PC without QEMU's isa-debug-exit
 * can still end a boot: the RSDP, RSDT/XSDT, FADT and the \_S5_ package of the DSDT's AML.
 * No AML interpreter: the usual byte scan for \_S5_, as small kernels and boot loaders do. */
#include "drivers/acpi.h"
#include "kernel/errno.h"
#include "kernel/lib/string.h"

/* AML opcodes the \_S5_ package uses (ACPI 6.x, section 20). */
#define AML_ZERO_OP	0x00
#define AML_ONE_OP	0x01
#define AML_NAME_OP	0x08
#define AML_BYTE_PREFIX 0x0a
#define AML_WORD_PREFIX 0x0b
#define AML_PACKAGE_OP	0x12
#define AML_ROOT_CHAR	'\\'

bool acpi_checksum_ok(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

/* One element of the package as a byte: only the forms a sleep type is written in. */
static int aml_small_int(const uint8_t *aml, size_t len, size_t *pos, uint8_t *out)
{
	if (*pos >= len)
		return -EINVAL;
	switch (aml[*pos]) {
	case AML_ZERO_OP:
	case AML_ONE_OP:
		*out = aml[(*pos)++];
		return 0;
	case AML_BYTE_PREFIX:
	case AML_WORD_PREFIX: /* a sleep type is 3 bits: the low byte holds it */
		if (*pos + 1 >= len)
			return -EINVAL;
		*out = aml[*pos + 1];
		*pos += aml[*pos] == AML_BYTE_PREFIX ? 2 : 3;
		return *pos <= len ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

int acpi_parse_s5(const uint8_t *aml, size_t len, uint8_t *slp_typa, uint8_t *slp_typb)
{
	for (size_t i = 1; i + 4 < len; i++) {
		size_t pos;
		uint8_t nr;

		if (memcmp(aml + i, "_S5_", 4) != 0)
			continue;
		/* A NameOp right before it (or before a root prefix), so not a reference. */
		if (aml[i - 1] != AML_NAME_OP &&
		    !(i >= 2 && aml[i - 1] == AML_ROOT_CHAR && aml[i - 2] == AML_NAME_OP))
			continue;
		pos = i + 4;
		if (pos >= len || aml[pos] != AML_PACKAGE_OP)
			return -EINVAL;
		pos++;
		/* PkgLength: bits 7:6 of the lead byte count the bytes that follow it. */
		if (pos >= len)
			return -EINVAL;
		pos += 1 + (aml[pos] >> 6);
		if (pos >= len)
			return -EINVAL;
		nr = aml[pos++]; /* NumElements */
		if (nr < 1 || aml_small_int(aml, len, &pos, slp_typa))
			return -EINVAL;
		*slp_typb = *slp_typa;
		if (nr >= 2 && aml_small_int(aml, len, &pos, slp_typb))
			return -EINVAL;
		return 0;
	}
	return -ENOENT;
}

#ifndef HOST_TEST /* the rest touches the hardware and the kernel's page tables */
#include "kernel/arch/reboot.h"
#include "kernel/arch/x86.h"
#include "kernel/printk/printk.h"
#include "mm/mm_init.h"
#include "mm/pgtable.h"

#define SDT_HEADER_SIZE 36
#define SDT_MAX_SIZE	(4UL << 20) /* a sanity bound: big real DSDTs are a few 100 KiB */

/* FADT field offsets (ACPI 6.x, table 5.9); the 1.0 table ends at 116. */
#define FADT_DSDT		40
#define FADT_SMI_CMD		48
#define FADT_ACPI_ENABLE	52
#define FADT_PM1A_CNT		64
#define FADT_PM1B_CNT		68
#define FADT_FLAGS		112
#define FADT_RESET_REG		116 /* a 12-byte Generic Address Structure */
#define FADT_RESET_VALUE	128
#define FADT_X_DSDT		140
#define FADT_FLAG_RESET_REG_SUP (1u << 10)
#define FADT_FLAG_HW_REDUCED	(1u << 20)

#define ACPI_SPACE_MEM 0
#define ACPI_SPACE_IO  1

#define PM1_SCI_EN	  (1u << 0)
#define PM1_SLP_TYP_SHIFT 10
#define PM1_SLP_TYP_MASK  (7u << 10)
#define PM1_SLP_EN	  (1u << 13)

static struct {
	bool ready;   /* a valid FADT was found */
	bool have_s5; /* and \_S5_, so power-off can be tried */
	uint32_t smi_cmd, pm1a_cnt, pm1b_cnt;
	uint8_t acpi_enable, slp_typa, slp_typb;
	bool reset_ok; /* RESET_REG is advertised and in a space we can write */
	uint8_t reset_space, reset_value;
	uint64_t reset_addr;
	const uint8_t *root; /* the RSDT or XSDT, for acpi_find_table */
	bool xsdt;
} acpi;

static uint16_t rd16(const uint8_t *p)
{
	return p[0] | (uint16_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
	return rd16(p) | (uint32_t)rd16(p + 2) << 16;
}

static uint64_t rd64(const uint8_t *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/*
 * The direct map covers the first MiB and the RAM ranges only; firmware puts ACPI tables in
 * "reserved", "ACPI reclaimable" or "ACPI NVS" memory, which OVMF places near the top of
 * RAM. Map what is missing of [pa, pa + len) at its direct-map address, read-only (prot for
 * a device register). Kernel page tables are shared by every address space.
 */
static void *acpi_map(uint64_t pa, uint64_t len, pte_t prot)
{
	if (!len || pa + len < pa || pa + len > (1UL << 46))
		return NULL;
	for (uint64_t page = ALIGN_DOWN(pa, PAGE_SIZE); page < pa + len; page += PAGE_SIZE) {
		uint64_t va = (uint64_t)__va(page);

		if (!kernel_addr_mapped(va) && map_page(kernel_pgd, va, page, prot))
			return NULL;
	}
	return __va(pa);
}

/* A whole system description table at pa with signature sig (NULL: any): mapped, its
 * length sane, its checksum right. NULL with one line saying why, naming the table. */
static const uint8_t *map_sdt(uint64_t pa, const char *sig, const char *what)
{
	const uint8_t *t = acpi_map(pa, SDT_HEADER_SIZE, PAGE_KERNEL_RO);
	uint32_t len;

	if (!t) {
		printk("acpi: %s at %lx cannot be mapped\n", what, pa);
		return NULL;
	}
	if (sig && memcmp(t, sig, 4) != 0) {
		printk("acpi: %s at %lx has no '%s' signature: ignored\n", what, pa, sig);
		return NULL;
	}
	len = rd32(t + 4);
	if (len < SDT_HEADER_SIZE || len > SDT_MAX_SIZE || !acpi_map(pa, len, PAGE_KERNEL_RO)) {
		printk("acpi: %s at %lx has a bad length %u: ignored\n", what, pa, len);
		return NULL;
	}
	if (!acpi_checksum_ok(t, len)) {
		printk("acpi: %s at %lx fails its checksum: ignored\n", what, pa);
		return NULL;
	}
	return t;
}

/* Where the BIOS keeps the RSDP when no loader passed it: the first KiB of the EBDA, then
 * 0xe0000-0xfffff, on 16-byte boundaries (ACPI 6.x, 5.2.5.1). Low memory is mapped. */
static const uint8_t *scan_rsdp(void)
{
	uint64_t ebda = (uint64_t)rd16(__va(0x40e)) << 4;
	uint64_t ranges[2][2] = { { ebda, ebda + 1024 }, { 0xe0000, 0x100000 } };

	for (int r = 0; r < 2; r++) {
		if (ranges[r][0] < 0x400 || ranges[r][1] > 0x100000)
			continue;
		for (uint64_t pa = ranges[r][0]; pa + 20 <= ranges[r][1]; pa += 16)
			if (!memcmp(__va(pa), "RSD PTR ", 8) && acpi_checksum_ok(__va(pa), 20))
				return __va(pa);
	}
	return NULL;
}

/* Look for \_S5_ in the DSDT, then in each SSDT the root table lists. */
static bool find_s5(const uint8_t *dsdt, const uint8_t *root, bool xsdt)
{
	uint32_t n = (rd32(root + 4) - SDT_HEADER_SIZE) / (xsdt ? 8 : 4);

	if (dsdt && !acpi_parse_s5(dsdt + SDT_HEADER_SIZE, rd32(dsdt + 4) - SDT_HEADER_SIZE,
				   &acpi.slp_typa, &acpi.slp_typb))
		return true;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = root + SDT_HEADER_SIZE + i * (xsdt ? 8 : 4);
		uint64_t pa = xsdt ? rd64(e) : rd32(e);
		const uint8_t *t = acpi_map(pa, SDT_HEADER_SIZE, PAGE_KERNEL_RO);

		if (t && !memcmp(t, "SSDT", 4) && (t = map_sdt(pa, "SSDT", "SSDT")) &&
		    !acpi_parse_s5(t + SDT_HEADER_SIZE, rd32(t + 4) - SDT_HEADER_SIZE,
				   &acpi.slp_typa, &acpi.slp_typb))
			return true;
	}
	return false;
}

static void read_reset_reg(const uint8_t *fadt, uint32_t len)
{
	if (fadt[8] < 2 || len < FADT_RESET_VALUE + 1 ||
	    !(rd32(fadt + FADT_FLAGS) & FADT_FLAG_RESET_REG_SUP))
		return;
	acpi.reset_space = fadt[FADT_RESET_REG];
	acpi.reset_addr = rd64(fadt + FADT_RESET_REG + 4);
	acpi.reset_value = fadt[FADT_RESET_VALUE];
	acpi.reset_ok = acpi.reset_addr &&
			(acpi.reset_space == ACPI_SPACE_IO || acpi.reset_space == ACPI_SPACE_MEM);
}

static void acpi_poweroff(void);
static void acpi_reboot(void);

void acpi_init(const struct boot_info *bi)
{
	const uint8_t *rsdp = bi->have_rsdp ? bi->rsdp : NULL, *root, *fadt, *dsdt = NULL;
	const char *from = "from GRUB";
	uint64_t root_pa, fadt_pa = 0, dsdt_pa;
	char reset[48];
	bool xsdt, full;
	int rev;

	/* the ways to end the machine, which say why they cannot when the tables below fail */
	pm_power_off = acpi_poweroff;
	pm_restart = acpi_reboot;

	if (!rsdp && !bi->have_efi_mmap) {
		rsdp = scan_rsdp();
		from = "found in BIOS memory";
	}
	if (!rsdp) {
		printk("acpi: no RSDP: no ACPI power-off or reset\n");
		return;
	}
	/* A GRUB copy of an old-style RSDP carries only its first 20 bytes. */
	rev = rsdp[15];
	full = rsdp != bi->rsdp || bi->rsdp_revision >= 2;
	if (memcmp(rsdp, "RSD PTR ", 8) || !acpi_checksum_ok(rsdp, 20) ||
	    (rev >= 2 && full && !acpi_checksum_ok(rsdp, 36))) {
		printk("acpi: the RSDP (%s) fails its checksum: no ACPI power-off or reset\n",
		       from);
		return;
	}
	/* The XSDT when there is one (revision 2+), else the RSDT. */
	xsdt = rev >= 2 && full && rd64(rsdp + 24);
	root_pa = xsdt ? rd64(rsdp + 24) : rd32(rsdp + 16);
	root = map_sdt(root_pa, xsdt ? "XSDT" : "RSDT", xsdt ? "XSDT" : "RSDT");
	if (!root)
		return;
	acpi.root = root;
	acpi.xsdt = xsdt;
	for (uint32_t i = 0, n = (rd32(root + 4) - SDT_HEADER_SIZE) / (xsdt ? 8 : 4); i < n; i++) {
		const uint8_t *e = root + SDT_HEADER_SIZE + i * (xsdt ? 8 : 4);
		uint64_t pa = xsdt ? rd64(e) : rd32(e);
		const uint8_t *t = acpi_map(pa, SDT_HEADER_SIZE, PAGE_KERNEL_RO);

		if (t && !memcmp(t, "FACP", 4)) {
			fadt_pa = pa;
			break;
		}
	}
	if (!fadt_pa) {
		printk("acpi: the %s lists no FADT: no ACPI power-off or reset\n",
		       xsdt ? "XSDT" : "RSDT");
		return;
	}
	if (!(fadt = map_sdt(fadt_pa, "FACP", "FADT")))
		return;
	uint32_t flen = rd32(fadt + 4);

	dsdt_pa = flen >= FADT_X_DSDT + 8 && rd64(fadt + FADT_X_DSDT) ? rd64(fadt + FADT_X_DSDT)
								      : rd32(fadt + FADT_DSDT);
	if (dsdt_pa)
		dsdt = map_sdt(dsdt_pa, "DSDT", "DSDT");
	acpi.smi_cmd = rd32(fadt + FADT_SMI_CMD);
	acpi.acpi_enable = fadt[FADT_ACPI_ENABLE];
	acpi.pm1a_cnt = rd32(fadt + FADT_PM1A_CNT);
	acpi.pm1b_cnt = rd32(fadt + FADT_PM1B_CNT);
	read_reset_reg(fadt, flen);
	acpi.ready = true;
	acpi.have_s5 = acpi.pm1a_cnt &&
		       !(flen > FADT_FLAGS + 3 && rd32(fadt + FADT_FLAGS) & FADT_FLAG_HW_REDUCED) &&
		       find_s5(dsdt, root, xsdt);
	if (acpi.reset_ok)
		snprintf(reset, sizeof(reset), "%s 0x%lx <- 0x%x",
			 acpi.reset_space == ACPI_SPACE_IO ? "I/O" : "memory", acpi.reset_addr,
			 acpi.reset_value);
	else
		strlcpy(reset, "none", sizeof(reset));
	printk("acpi: RSDP rev %d (%s), %s at %lx, FADT rev %u at %lx, DSDT at %lx, "
	       "PM1a_CNT 0x%x, PM1b_CNT 0x%x, S5 SLP_TYP %s%u/%u, reset reg %s\n",
	       rev, from, xsdt ? "XSDT" : "RSDT", root_pa, fadt[8], fadt_pa, dsdt_pa, acpi.pm1a_cnt,
	       acpi.pm1b_cnt, acpi.have_s5 ? "" : "(no \\_S5_) ", acpi.slp_typa, acpi.slp_typb,
	       reset);
}

const uint8_t *acpi_find_table(const char *sig)
{
	const uint8_t *root = acpi.root;

	if (!root)
		return NULL;
	for (uint32_t i = 0, n = (rd32(root + 4) - SDT_HEADER_SIZE) / (acpi.xsdt ? 8 : 4); i < n;
	     i++) {
		const uint8_t *e = root + SDT_HEADER_SIZE + i * (acpi.xsdt ? 8 : 4);
		uint64_t pa = acpi.xsdt ? rd64(e) : rd32(e);
		const uint8_t *t = acpi_map(pa, SDT_HEADER_SIZE, PAGE_KERNEL_RO);

		if (t && !memcmp(t, sig, 4))
			return map_sdt(pa, sig, sig);
	}
	return NULL;
}

/* pm_power_off: S5 through PM1a/PM1b_CNT. Returns (with a message) only if the machine is still
 * on. */
static void acpi_poweroff(void)
{
	uint16_t cnt;

	if (!acpi.have_s5) {
		printk("acpi: %s: cannot power off\n",
		       acpi.ready ? "no \\_S5_ sleep type or no PM1a_CNT" : "no usable FADT");
		return;
	}
	local_irq_disable();
	/* Firmware that starts in legacy (SMM) mode hands PM1 to us on ACPI_ENABLE. */
	if (acpi.smi_cmd && acpi.acpi_enable && !(inw(acpi.pm1a_cnt) & PM1_SCI_EN)) {
		outb(acpi.smi_cmd, acpi.acpi_enable);
		for (int i = 0; i < 3000 && !(inw(acpi.pm1a_cnt) & PM1_SCI_EN); i++)
			io_delay(1);
	}
	printk("acpi: powering off (S5: SLP_TYPa %u into PM1a_CNT 0x%x)\n", acpi.slp_typa,
	       acpi.pm1a_cnt);
	cnt = inw(acpi.pm1a_cnt) & ~(PM1_SLP_TYP_MASK | PM1_SLP_EN);
	outw(acpi.pm1a_cnt, cnt | acpi.slp_typa << PM1_SLP_TYP_SHIFT | PM1_SLP_EN);
	if (acpi.pm1b_cnt) {
		cnt = inw(acpi.pm1b_cnt) & ~(PM1_SLP_TYP_MASK | PM1_SLP_EN);
		outw(acpi.pm1b_cnt, cnt | acpi.slp_typb << PM1_SLP_TYP_SHIFT | PM1_SLP_EN);
	}
	io_delay(1000000);
	printk("acpi: still on a second after the S5 write: power-off failed\n");
}

/* pm_restart: the FADT reset register, when it has one; returns if the machine is still on. */
static void acpi_reboot(void)
{
	if (acpi.reset_ok) {
		printk("reboot: through the ACPI reset register (%s 0x%lx <- 0x%x)\n",
		       acpi.reset_space == ACPI_SPACE_IO ? "I/O" : "memory", acpi.reset_addr,
		       acpi.reset_value);
		if (acpi.reset_space == ACPI_SPACE_IO) {
			outb(acpi.reset_addr, acpi.reset_value);
		} else {
			volatile uint8_t *r =
				acpi_map(acpi.reset_addr, 1, PAGE_KERNEL | _PAGE_PCD | _PAGE_PWT);
			if (r)
				*r = acpi.reset_value;
		}
		io_delay(500000);
	}
}
#endif /* !HOST_TEST */
