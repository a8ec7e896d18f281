/* Host tests for the MADT parser (drivers/acpi_madt.c): a table laid out as QEMU 7.2's pc
 * machine builds it for 4 CPUs, x2APIC and disabled entries, and corrupted tables, each refused
 * with a reason. Every table is a malloc'd copy of exactly its bytes, so ASan flags over-reads. */
#include "tests/host/check.h"
#include <stdlib.h>
#include <string.h>

#include "drivers/acpi.c"
#include "drivers/acpi_madt.c"

struct blob {
	uint8_t b[2048];
	size_t len;
};

/* A 44-byte MADT head: local APIC at 0xfee00000, flags PCAT_COMPAT. */
static void madt_head(struct blob *t)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->b, "APIC", 4);
	t->b[8] = 1; /* revision */
	memcpy(t->b + 10, "BOCHS ", 6);
	t->b[36 + 2] = 0xe0, t->b[36 + 3] = 0xfe; /* 0xfee00000, little endian */
	t->b[40] = MADT_PCAT_COMPAT;
	t->len = 44;
}

static void put(struct blob *t, const uint8_t *e, size_t n)
{
	memcpy(t->b + t->len, e, n);
	t->len += n;
}

/* Set the length field and the checksum byte (offset 9) for the current contents. */
static void seal(struct blob *t)
{
	uint8_t sum = 0;

	t->b[4] = (uint8_t)t->len, t->b[5] = (uint8_t)(t->len >> 8);
	t->b[9] = 0;
	for (size_t i = 0; i < t->len; i++)
		sum += t->b[i];
	t->b[9] = (uint8_t)-sum;
}

static int parse(const struct blob *t, size_t len, struct madt_info *m, const char **why)
{
	uint8_t *copy = malloc(len);
	int r;

	memcpy(copy, t->b, len);
	r = acpi_parse_madt(copy, len, m, why);
	free(copy);
	return r;
}

static void lapic(struct blob *t, uint8_t uid, uint8_t id, uint8_t flags)
{
	uint8_t e[8] = { 0, 8, uid, id, flags, 0, 0, 0 };

	put(t, e, sizeof(e));
}

/* QEMU's build_madt for -smp 4 on pc: 4 local APICs, the I/O APIC at 0xfec00000, IRQ0 on
 * GSI 2, the PCI IRQs 5, 9, 10, 11 active high level, a local APIC NMI on LINT1. */
static void qemu_pc(struct blob *t, int ncpu)
{
	static const uint8_t ioapic[12] = { 1, 12, 0, 0, 0, 0, 0xc0, 0xfe, 0, 0, 0, 0 };
	static const uint8_t irq0[10] = { 2, 10, 0, 0, 2, 0, 0, 0, 0, 0 };
	static const uint8_t nmi[6] = { 4, 6, 0xff, 0, 0, 1 };

	madt_head(t);
	for (int i = 0; i < ncpu; i++)
		lapic(t, (uint8_t)i, (uint8_t)i, 1);
	put(t, ioapic, sizeof(ioapic));
	put(t, irq0, sizeof(irq0));
	for (int irq = 5; irq <= 11; irq++) {
		uint8_t o[10] = { 2, 10, 0, (uint8_t)irq, (uint8_t)irq, 0, 0, 0, 0x0d, 0 };

		if (irq == 5 || irq >= 9)
			put(t, o, sizeof(o));
	}
	put(t, nmi, sizeof(nmi));
	seal(t);
}

static void test_qemu_pc(void)
{
	static struct blob t;
	struct madt_info m;
	const char *why;
	uint16_t fl;

	qemu_pc(&t, 4);
	CHECK_EQ(parse(&t, t.len, &m, &why), 0);
	CHECK_EQ(m.lapic_addr, 0xfee00000);
	CHECK_EQ(m.flags & MADT_PCAT_COMPAT, MADT_PCAT_COMPAT);
	CHECK_EQ(m.nr_cpus, 4);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(m.cpus[i].apic_id, i);
		CHECK(!m.cpus[i].x2apic);
	}
	CHECK_EQ(m.nr_disabled, 0);
	CHECK_EQ(m.nr_ioapics, 1);
	CHECK_EQ(m.ioapics[0].addr, 0xfec00000);
	CHECK_EQ(m.ioapics[0].gsi_base, 0);
	CHECK_EQ(m.nr_overrides, 5);
	CHECK_EQ(madt_irq_to_gsi(&m, 0, &fl), 2); /* the PIT's IRQ0 is pin 2 */
	CHECK_EQ(fl, 0);
	CHECK_EQ(madt_irq_to_gsi(&m, 1, &fl), 1); /* no override: identity */
	CHECK_EQ(madt_irq_to_gsi(&m, 9, &fl), 9); /* the SCI: level, active high */
	CHECK_EQ(fl & MPS_TRIGGER_MASK, MPS_TRIGGER_LEVEL);
}

/* Enabled CPUs only: a cleared flag is an absent CPU, online capable alone is a CPU that may
 * be hot-added; x2APIC entries add ids above 254; a repeated id and the 65th CPU are ignored. */
static void test_flags_x2apic_limits(void)
{
	static struct blob t;
	static const uint8_t x2[16] = { 9, 16, 0, 0, 0x2c, 1, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0 };
	static const uint8_t addr[12] = { 5, 12, 0, 0, 0, 0, 0xd0, 0xfe, 0, 0, 0, 0 };
	struct madt_info m;
	const char *why;

	madt_head(&t);
	lapic(&t, 0, 0, 1);
	lapic(&t, 1, 1, 0);     /* absent */
	lapic(&t, 2, 2, 2);     /* online capable only */
	lapic(&t, 3, 0, 1);     /* repeats id 0 */
	put(&t, x2, sizeof(x2)); /* x2APIC id 300, uid 7 */
	put(&t, addr, sizeof(addr));
	seal(&t);
	CHECK_EQ(parse(&t, t.len, &m, &why), 0);
	CHECK_EQ(m.nr_cpus, 2);
	CHECK_EQ(m.cpus[1].apic_id, 300);
	CHECK_EQ(m.cpus[1].acpi_uid, 7);
	CHECK(m.cpus[1].x2apic);
	CHECK_EQ(m.nr_disabled, 2);
	CHECK_EQ(m.nr_ignored, 1);
	CHECK_EQ(m.lapic_addr, 0xfed00000); /* the address override wins */

	madt_head(&t);
	for (int i = 0; i < 70; i++)
		lapic(&t, (uint8_t)i, (uint8_t)i, 1);
	seal(&t);
	CHECK_EQ(parse(&t, t.len, &m, &why), 0);
	CHECK_EQ(m.nr_cpus, MADT_MAX_CPUS);
	CHECK_EQ(m.nr_ignored, 70 - MADT_MAX_CPUS);
}

/* expect_refused(table, len, words): refused with a reason containing words */
static void expect_refused(const struct blob *t, size_t len, const char *words)
{
	struct madt_info m;
	const char *why = NULL;

	CHECK_EQ(parse(t, len, &m, &why), -EINVAL);
	CHECK(why && strstr(why, words));
	if (why && !strstr(why, words))
		printf("#   refused with '%s', expected '%s'\n", why, words);
}

static void test_corrupt(void)
{
	static struct blob t;
	static const uint8_t short_ioapic[8] = { 1, 8, 0, 0, 0, 0, 0xc0, 0xfe };
	static const uint8_t zero_len[2] = { 0, 0 };

	qemu_pc(&t, 2);
	t.b[20] ^= 0x40;
	expect_refused(&t, t.len, "checksum");

	qemu_pc(&t, 2);
	t.b[0] = 'X';
	expect_refused(&t, t.len, "signature");

	qemu_pc(&t, 2); /* the buffer ends before the table says it does */
	expect_refused(&t, t.len - 1, "length field");
	expect_refused(&t, 40, "44-byte head");

	madt_head(&t);
	lapic(&t, 0, 0, 1);
	put(&t, zero_len, sizeof(zero_len));
	seal(&t);
	expect_refused(&t, t.len, "length is 0");

	madt_head(&t);
	lapic(&t, 0, 0, 1);
	t.b[t.len - 7] = 40; /* the entry claims 40 bytes: past the end */
	seal(&t);
	expect_refused(&t, t.len, "past the end");

	madt_head(&t);
	put(&t, short_ioapic, sizeof(short_ioapic));
	seal(&t);
	expect_refused(&t, t.len, "too short for its type");

	madt_head(&t);
	lapic(&t, 0, 0, 1);
	t.b[t.len++] = 0; /* one byte left: a type without a length */
	seal(&t);
	expect_refused(&t, t.len, "head runs past");

	/* every prefix of a good table with its length field kept is refused, never over-read */
	qemu_pc(&t, 4);
	for (size_t n = 0; n < t.len; n++) {
		struct madt_info m;
		const char *why;

		CHECK_EQ(parse(&t, n, &m, &why), -EINVAL);
	}
}

int main(void)
{
	RUN_TEST(test_qemu_pc);
	RUN_TEST(test_flags_x2apic_limits);
	RUN_TEST(test_corrupt);
	return check_total_failed != 0;
}
