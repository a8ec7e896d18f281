/* Host tests for the pure part of drivers/acpi.c: table checksums and the \_S5_ byte scan,
 * on AML as QEMU's and typical PC firmware's DSDTs encode it, and on cut or odd encodings.
 * Each blob is a malloc'd copy of exactly its bytes, so ASan flags any over-read. */
#include "tests/host/check.h"
#include <stdlib.h>
#include <string.h>

#include "drivers/acpi.c"

static int s5(const uint8_t *bytes, size_t len, uint8_t *a, uint8_t *b)
{
	uint8_t *copy = malloc(len);
	int r;

	memcpy(copy, bytes, len);
	*a = *b = 0xee;
	r = acpi_parse_s5(copy, len, a, b);
	free(copy);
	return r;
}

static void test_checksum(void)
{
	uint8_t t[20] = "RSD PTR ";
	uint8_t sum = 0;

	for (int i = 0; i < 20; i++)
		sum += t[i];
	t[8] = (uint8_t)-sum;
	CHECK(acpi_checksum_ok(t, 20));
	t[3] ^= 1;
	CHECK(!acpi_checksum_ok(t, 20));
}

/* Name (_S5_, Package (4) { Zero, Zero, Zero, Zero }): QEMU's piix4 and q35 DSDTs */
static void test_qemu_zero_ops(void)
{
	static const uint8_t aml[] = { 0x10, 0x08, 0x08, '_',  'S',  '5',  '_',
				       0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00 };
	uint8_t a, b;

	CHECK_EQ(s5(aml, sizeof(aml), &a, &b), 0);
	CHECK_EQ(a, 0);
	CHECK_EQ(b, 0);
}

/* Name (\_S5, Package () { 0x07, 0x07, Zero, Zero }) after a mere reference to \_S5_ */
static void test_root_prefix_byte_prefix(void)
{
	static const uint8_t aml[] = { 0x5b, 0x12, 0x5c, '_',  'S',  '5',  '_',	 0x00,
				       0xa0, 0x08, 0x5c, '_',  'S',  '5',  '_',	 0x12,
				       0x0a, 0x04, 0x0a, 0x07, 0x0a, 0x05, 0x00, 0x00 };
	uint8_t a, b;

	CHECK_EQ(s5(aml, sizeof(aml), &a, &b), 0);
	CHECK_EQ(a, 7);
	CHECK_EQ(b, 5);
}

/* A two-byte PkgLength, WordPrefix and OneOp elements, and a one-element package */
static void test_other_encodings(void)
{
	static const uint8_t two[] = { 0x08, '_',  'S',	 '5',  '_',  0x12, 0x40,
				       0x00, 0x02, 0x0b, 0x06, 0x00, 0x01 };
	static const uint8_t one[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x03, 0x01, 0x0a, 0x03 };
	uint8_t a, b;

	CHECK_EQ(s5(two, sizeof(two), &a, &b), 0);
	CHECK_EQ(a, 6);
	CHECK_EQ(b, 1);
	CHECK_EQ(s5(one, sizeof(one), &a, &b), 0);
	CHECK_EQ(a, 3);
	CHECK_EQ(b, 3);
}

static void test_missing_and_malformed(void)
{
	static const uint8_t none[] = { 0x08, '_', 'S', '4', '_', 0x12, 0x03, 0x01, 0x00 };
	static const uint8_t not_pkg[] = { 0x08, '_', 'S', '5', '_', 0x0a, 0x05 };
	static const uint8_t method[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x04, 0x02, 0x70, 0x00 };
	static const uint8_t cut[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0a };
	uint8_t a, b;

	CHECK_EQ(s5(none, sizeof(none), &a, &b), -ENOENT);
	CHECK_EQ(s5(not_pkg, sizeof(not_pkg), &a, &b), -EINVAL);
	CHECK_EQ(s5(method, sizeof(method), &a, &b), -EINVAL);
	/* every prefix of a good package ends without reading past its end */
	for (size_t n = 1; n <= sizeof(cut); n++)
		CHECK(s5(cut, n, &a, &b) < 0);
}

int main(void)
{
	RUN_TEST(test_checksum);
	RUN_TEST(test_qemu_zero_ops);
	RUN_TEST(test_root_prefix_byte_prefix);
	RUN_TEST(test_other_encodings);
	RUN_TEST(test_missing_and_malformed);
	return check_total_failed != 0;
}
