/* Host unit test of the file-PTE encoding (mm/pgtable.h) that nonlinear mappings use: a
 * pgoff survives the round trip, the entry is never present, and nothing else reads as one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/host/check.h"
#include "mm/pgtable.h"

static void test_round_trip(void)
{
	static const unsigned long offs[] = { 0, 1, 2, 255, 4096, 0x12345, (1UL << 32) - 1,
					      1UL << 32, (1UL << PTE_FILE_MAX_BITS) - 1 };

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		pte_t pte = pgoff_to_pte(offs[i]);

		CHECK(pte_file(pte));
		CHECK(!pte_present(pte));
		CHECK(!pte_none(pte));
		CHECK_EQ(pte_to_pgoff(pte), offs[i]);
	}
	srand(7);
	for (int i = 0; i < 100000; i++) {
		unsigned long off = (((unsigned long)rand() << 31) ^ (unsigned long)rand()) &
				    ((1UL << PTE_FILE_MAX_BITS) - 1);

		CHECK_EQ(pte_to_pgoff(pgoff_to_pte(off)), off);
	}
}

static void test_not_file(void)
{
	/* A present page, even one whose dirty bit (the same bit) is set, is not a file PTE. */
	CHECK(!pte_file(pfn_pte(0x1234, PAGE_SHARED)));
	CHECK(!pte_file(pte_mkdirty(pfn_pte(0x1234, PAGE_SHARED))));
	CHECK(!pte_file(0));
	CHECK(pte_none(0));
	/* The software bit alone, at pgoff 0, is a file PTE for page 0. */
	CHECK(pte_file(_PAGE_FILE) && pte_to_pgoff(_PAGE_FILE) == 0);
}

int main(void)
{
	RUN_TEST(test_round_trip);
	RUN_TEST(test_not_file);
	return check_total_failed != 0;
}
