/* The MADT (Multiple APIC Description Table, ACPI 6.x section 5.2.12): a 44-byte head (the
 * local APIC address and flags) and a list of variable-length entries, each opening with its
 * type and length bytes. Only the entries SMP bring-up and interrupt routing need are kept. */
#include "drivers/acpi.h"
#include "drivers/acpi_madt.h"
#include "kernel/errno.h"
#include "kernel/lib/string.h"

#define MADT_HEAD 44
#define MADT_LAPIC 0
#define MADT_IOAPIC 1
#define MADT_OVERRIDE 2
#define MADT_LAPIC_ADDR_OVERRIDE 5
#define MADT_X2APIC 9

#define LAPIC_ENABLED 1u /* bit 1, online capable, is a CPU that may be added later: not now */

/* The minimum length of each entry type this parser reads. */
static const uint8_t entry_min_len[] = {
	[MADT_LAPIC] = 8, [MADT_IOAPIC] = 12, [MADT_OVERRIDE] = 10,
	[MADT_LAPIC_ADDR_OVERRIDE] = 12, [MADT_X2APIC] = 16,
};

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void add_cpu(struct madt_info *m, uint32_t apic_id, uint32_t uid, uint32_t flags,
		    bool x2)
{
	if (!(flags & LAPIC_ENABLED)) {
		m->nr_disabled++;
		return;
	}
	for (int i = 0; i < m->nr_cpus; i++)
		if (m->cpus[i].apic_id == apic_id) {
			m->nr_ignored++;
			return;
		}
	if (m->nr_cpus == MADT_MAX_CPUS) {
		m->nr_ignored++;
		return;
	}
	m->cpus[m->nr_cpus++] = (struct madt_cpu){ apic_id, uid, x2 };
}

int acpi_parse_madt(const uint8_t *t, size_t len, struct madt_info *m, const char **why)
{
	uint32_t tlen = 0;

	memset(m, 0, sizeof(*m));
	*why = NULL;
	if (len < MADT_HEAD)
		*why = "shorter than the MADT's 44-byte head";
	else if (memcmp(t, "APIC", 4))
		*why = "no 'APIC' signature";
	else if ((tlen = get32(t + 4)) < MADT_HEAD || tlen > len)
		*why = "its length field is outside the table";
	else if (!acpi_checksum_ok(t, tlen))
		*why = "bad checksum";
	if (*why)
		return -EINVAL;
	m->lapic_addr = get32(t + 36);
	m->flags = get32(t + 40);
	for (uint32_t off = MADT_HEAD; off < tlen;) {
		const uint8_t *e = t + off;
		uint8_t type, elen;

		if (tlen - off < 2) {
			*why = "an entry's head runs past the end of the table";
			return -EINVAL;
		}
		type = e[0];
		elen = e[1];
		if (elen < 2 || elen > tlen - off) {
			*why = "an entry's length is 0, 1 or runs past the end of the table";
			return -EINVAL;
		}
		if (type < ARRAY_SIZE(entry_min_len) && elen < entry_min_len[type]) {
			*why = "an entry is too short for its type";
			return -EINVAL;
		}
		switch (type) {
		case MADT_LAPIC:
			add_cpu(m, e[3], e[2], get32(e + 4), false);
			break;
		case MADT_X2APIC:
			add_cpu(m, get32(e + 4), get32(e + 12), get32(e + 8), true);
			break;
		case MADT_IOAPIC:
			if (m->nr_ioapics == MADT_MAX_IOAPICS) {
				*why = "more I/O APICs than the parser keeps";
				return -EINVAL;
			}
			m->ioapics[m->nr_ioapics++] =
				(struct madt_ioapic){ e[2], get32(e + 4), get32(e + 8) };
			break;
		case MADT_OVERRIDE:
			if (e[2] != 0) /* only bus 0, ISA, exists */
				break;
			if (m->nr_overrides == MADT_MAX_OVERRIDES) {
				*why = "more interrupt source overrides than the parser keeps";
				return -EINVAL;
			}
			m->overrides[m->nr_overrides++] = (struct madt_override){
				e[3], get32(e + 4), (uint16_t)(e[8] | e[9] << 8) };
			break;
		case MADT_LAPIC_ADDR_OVERRIDE:
			m->lapic_addr = get32(e + 4) | (uint64_t)get32(e + 8) << 32;
			break;
		default: /* NMI sources, GIC entries...: not used */
			break;
		}
		off += elen;
	}
	return 0;
}

uint32_t madt_irq_to_gsi(const struct madt_info *m, int irq, uint16_t *flags)
{
	for (int i = 0; i < m->nr_overrides; i++)
		if (m->overrides[i].bus_irq == irq) {
			*flags = m->overrides[i].flags;
			return m->overrides[i].gsi;
		}
	*flags = 0; /* ISA: active high, edge triggered */
	return (uint32_t)irq;
}

#ifndef HOST_TEST
#include "kernel/printk/printk.h"

struct madt_info madt;

void madt_init(void)
{
	const uint8_t *t = acpi_find_table("APIC");
	const char *why;

	if (!t) {
		printk("acpi: no MADT: one CPU, the 8259 PIC\n");
		return;
	}
	if (acpi_parse_madt(t, get32(t + 4), &madt, &why)) {
		printk("acpi: MADT refused: %s: one CPU, the 8259 PIC\n", why);
		memset(&madt, 0, sizeof(madt));
		return;
	}
	printk("acpi: MADT: local APIC at %lx, %d CPU%s enabled (%d disabled, %d ignored), "
	       "%d I/O APIC%s, %d override%s%s\n", madt.lapic_addr, madt.nr_cpus,
	       madt.nr_cpus == 1 ? "" : "s", madt.nr_disabled, madt.nr_ignored, madt.nr_ioapics,
	       madt.nr_ioapics == 1 ? "" : "s", madt.nr_overrides,
	       madt.nr_overrides == 1 ? "" : "s", madt.flags & MADT_PCAT_COMPAT ? ", 8259s" : "");
}
#endif
