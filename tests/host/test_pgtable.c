/* Host unit test of the page-table code (mm/pgtable.c): the tables live in 64 MiB of simulated
 * RAM handed out by the real buddy allocator, so leaked or double-freed table pages show up. */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tests/host/check.h"
#include "mm/page_alloc.c"
#include "mm/vmstat.c" /* the counters page_alloc.c counts into */
#include "mm/pgtable.c"
#include "tests/host/kstubs.h"

#define NR_FRAMES 16384UL /* 64 MiB */
#define DIRECT_MAP 0xffff888000000000UL /* the kernel's PAGE_OFFSET, as a plain address here */


/* A fresh allocator owning frames [16, NR_FRAMES) of a new simulated RAM. */
static void setup(void)
{
	static void *ram;
	static struct page *map;

	if (!ram) {
		ram = aligned_alloc(PAGE_SIZE, NR_FRAMES * PAGE_SIZE);
		map = malloc(NR_FRAMES * sizeof(*map));
		if (!ram || !map)
			abort();
		host_phys_base = (uintptr_t)ram;
	}
	memset(ram, 0x77, NR_FRAMES * PAGE_SIZE); /* table pages must really be zeroed */
	free_area_init(map, NR_FRAMES);
	free_area_add_range(16, NR_FRAMES);
	rng_state = 0x2545f4914f6cdd1dULL;
}

/* The entry for va at the given level (4 = PGD ... 1 = PTE), or 0 when a table is missing. */
static uint64_t entry_at(pgd_t *pgd, unsigned long va, int level)
{
	uint64_t *table = pgd;
	int l;

	for (l = 4; l > level; l--) {
		uint64_t e = table[level_index(va, l)];

		if (!(e & _PAGE_PRESENT) || (e & _PAGE_PSE))
			return 0;
		table = __va(e & PTE_PFN_MASK);
	}
	return table[level_index(va, level)];
}

/* The test's stand-in for the kernel's own teardown: free the empty upper-half tables too. */
static void free_kernel_half(pgd_t *pgd)
{
	free_tables(pgd, 4, 0, 0, ~0UL, NULL);
}

static void test_map_translate_unmap(void)
{
	const unsigned long va = 0x400000, pa = 0x123000, pa2 = 0x7654000;
	unsigned long start, before;
	pgd_t *pgd;
	pte_t *pte, flags = 0;
	int i;

	setup();
	start = nr_free_pages();
	pgd = pgd_alloc();
	CHECK(pgd != NULL);
	for (i = 0; i < PTRS_PER_TABLE; i++)
		CHECK_EQ(pgd[i], 0);
	before = nr_free_pages();
	CHECK_EQ(before, start - 1);

	CHECK_EQ(map_page(pgd, va, pa, PAGE_SHARED), 0);
	CHECK_EQ(nr_free_pages(), before - 3); /* a PUD, a PMD and a PTE table */
	CHECK_EQ(translate(pgd, va + 0xabc, &flags), pa + 0xabc);
	CHECK_EQ(flags, PAGE_SHARED);
	pte = walk_page_table(pgd, va, false);
	CHECK(pte != NULL && *pte == (pa | PAGE_SHARED));
	CHECK_EQ(pte_pfn(*pte), pa >> PAGE_SHIFT);
	CHECK_EQ(translate(pgd, va + PAGE_SIZE, NULL), NO_PHYS_ADDR);
	CHECK_EQ(translate(pgd, va - 1, NULL), NO_PHYS_ADDR);

	/* A neighbour shares all three tables. */
	CHECK_EQ(map_page(pgd, va + PAGE_SIZE, pa2, PAGE_READONLY), 0);
	CHECK_EQ(nr_free_pages(), before - 3);
	CHECK_EQ(translate(pgd, va + PAGE_SIZE + 5, &flags), pa2 + 5);
	CHECK_EQ(flags, PAGE_READONLY);
	CHECK_EQ(translate(pgd, va + 5, NULL), pa + 5);

	CHECK_EQ(map_page(pgd, va, pa2, PAGE_SHARED), -EEXIST);
	CHECK_EQ(translate(pgd, va, NULL), pa);

	CHECK_EQ(unmap_page(pgd, va), pa | PAGE_SHARED);
	CHECK_EQ(translate(pgd, va, NULL), NO_PHYS_ADDR);
	CHECK(walk_page_table(pgd, va, false) != NULL && *walk_page_table(pgd, va, false) == 0);
	CHECK_EQ(unmap_page(pgd, va), 0);
	CHECK_EQ(translate(pgd, va + PAGE_SIZE, NULL), pa2); /* the neighbour is untouched */

	/* Remap to another frame. */
	CHECK_EQ(map_page(pgd, va, pa2, PAGE_KERNEL), 0);
	CHECK_EQ(translate(pgd, va + 0xfff, &flags), pa2 + 0xfff);
	CHECK_EQ(flags, PAGE_KERNEL);

	/* Looking up or unmapping where no tables exist allocates nothing. */
	before = nr_free_pages();
	CHECK(walk_page_table(pgd, 0x7f0000000000UL, false) == NULL);
	CHECK_EQ(unmap_page(pgd, 0x7f0000000000UL), 0);
	CHECK_EQ(translate(pgd, 0x7f0000000000UL, NULL), NO_PHYS_ADDR);
	CHECK_EQ(nr_free_pages(), before);

	/* Bad arguments: rejected before anything is allocated. */
	CHECK_EQ(map_page(pgd, 0x900001, pa, PAGE_KERNEL), -EINVAL);
	CHECK_EQ(map_page(pgd, 0x900000, pa + 8, PAGE_KERNEL), -EINVAL);
	CHECK_EQ(map_page(pgd, USER_TOP, pa, PAGE_KERNEL), -EINVAL); /* not canonical */
	CHECK_EQ(map_page(pgd, 0x900000, 1ULL << 52, PAGE_KERNEL), -EINVAL);
	CHECK_EQ(map_page(pgd, 0x900000, pa, PAGE_KERNEL | _PAGE_PSE), -EINVAL);
	CHECK_EQ(map_page(pgd, 0x900000, pa, PAGE_KERNEL | 0x5000), -EINVAL);
	CHECK(walk_page_table(pgd, USER_TOP, true) == NULL);
	CHECK_EQ(translate(pgd, USER_TOP + 0x1000, NULL), NO_PHYS_ADDR);
	CHECK_EQ(nr_free_pages(), before);

	/* The kernel half, up to its very last page. */
	CHECK_EQ(map_page(pgd, VMAP_BASE + 0x5000, pa, PAGE_KERNEL), 0);
	CHECK_EQ(translate(pgd, VMAP_BASE + 0x5010, NULL), pa + 0x10);
	CHECK_EQ(map_page(pgd, 0xfffffffffffff000UL, pa2, PAGE_KERNEL_RX), 0);
	CHECK_EQ(translate(pgd, 0xffffffffffffffffUL, &flags), pa2 + 0xfff);
	CHECK_EQ(flags, PAGE_KERNEL_RX);
	CHECK_EQ(unmap_page(pgd, 0xfffffffffffff000UL), pa2 | PAGE_KERNEL_RX);
	CHECK_EQ(unmap_page(pgd, VMAP_BASE + 0x5000), pa | PAGE_KERNEL);

	unmap_page(pgd, va);
	unmap_page(pgd, va + PAGE_SIZE);
	free_pgd_range(pgd, 0, USER_TOP, NULL);
	free_kernel_half(pgd);
	pgd_free(pgd);
	CHECK_EQ(nr_free_pages(), start);
}

static void test_intermediate_flags(void)
{
	const unsigned long uva = 0x00007f1234567000UL, kva = VMAP_BASE + 0x40201000UL;
	const pte_t upper = _PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_NX | _PAGE_PSE;
	pgd_t *pgd;
	int level;

	setup();
	pgd = pgd_alloc();
	CHECK_EQ(map_page(pgd, uva, 0x5000, PAGE_READONLY), 0);
	CHECK_EQ(map_page(pgd, kva, 0x6000, PAGE_KERNEL_RO), 0);
	/* Upper levels allow everything (user addresses also need U); the leaf decides. */
	for (level = 4; level >= 2; level--) {
		CHECK_EQ(entry_at(pgd, uva, level) & upper, _PAGE_PRESENT | _PAGE_RW | _PAGE_USER);
		CHECK_EQ(entry_at(pgd, kva, level) & upper, _PAGE_PRESENT | _PAGE_RW);
	}
	CHECK_EQ(entry_at(pgd, uva, 1), 0x5000 | PAGE_READONLY);
	CHECK_EQ(entry_at(pgd, kva, 1), 0x6000 | PAGE_KERNEL_RO);
	CHECK(pte_user(entry_at(pgd, uva, 1)) && !pte_write(entry_at(pgd, uva, 1)));
	CHECK(!pte_user(entry_at(pgd, kva, 1)) && !pte_exec(entry_at(pgd, kva, 1)));
	/* The index helpers agree with the walk. */
	CHECK_EQ(pgd_index(uva), 254);
	CHECK_EQ(pud_index(uva), 72);
	CHECK_EQ(pmd_index(uva), 418);
	CHECK_EQ(pte_index(uva), 359);
	CHECK_EQ(pgd_index(kva), 402);
	CHECK_EQ(pud_index(kva), 1);
	CHECK_EQ(pmd_index(kva), 1);
	CHECK_EQ(pte_index(kva), 1);
}

static void test_pte_helpers(void)
{
	pte_t pte = pfn_pte(0x12345, PAGE_SHARED);

	CHECK_EQ(pte, 0x12345000UL | PAGE_SHARED);
	CHECK_EQ(pte_pfn(pte), 0x12345);
	CHECK_EQ(pte_flags(pte), PAGE_SHARED);
	CHECK(pte_present(pte) && pte_write(pte) && pte_user(pte) && !pte_exec(pte));
	CHECK(!pte_write(pte_wrprotect(pte)) && pte_write(pte_mkwrite(pte_wrprotect(pte))));
	CHECK(pte_dirty(pte_mkdirty(pte)) && !pte_dirty(pte_mkclean(pte_mkdirty(pte))));
	CHECK(pte_young(pte_mkyoung(pte)) && !pte_young(pte_mkold(pte_mkyoung(pte))));
	CHECK_EQ(pte_pfn(pte_mkdirty(pte_wrprotect(pte))), 0x12345);
	CHECK(pte_none(0) && !pte_none(pte));
	CHECK_EQ(_PAGE_NX, 1UL << 63);
}

static void test_protect(void)
{
	const unsigned long va = 0x10000000;
	pgd_t *pgd;
	pte_t *pte, flags;

	setup();
	pgd = pgd_alloc();
	CHECK_EQ(map_page(pgd, va, 0xabc000, PAGE_SHARED), 0);
	pte = walk_page_table(pgd, va, false);
	*pte |= _PAGE_ACCESSED | _PAGE_DIRTY; /* as the CPU would on a write */
	CHECK_EQ(protect_page(pgd, va, PAGE_READONLY), 0);
	CHECK_EQ(*pte, 0xabc000 | PAGE_READONLY | _PAGE_ACCESSED | _PAGE_DIRTY);
	CHECK_EQ(translate(pgd, va + 1, &flags), 0xabc001);
	CHECK(!pte_write(flags));
	CHECK_EQ(protect_page(pgd, va, PAGE_SHARED_EXEC), 0);
	CHECK(pte_write(*pte) && pte_exec(*pte) && pte_dirty(*pte));
	CHECK_EQ(pte_pfn(*pte), 0xabc);

	CHECK_EQ(protect_page(pgd, va + PAGE_SIZE, PAGE_SHARED), -ENOENT); /* table, no PTE */
	CHECK_EQ(protect_page(pgd, 0x7000000000UL, PAGE_SHARED), -ENOENT); /* no tables */
	CHECK_EQ(protect_page(pgd, va, PAGE_SHARED | _PAGE_PSE), -EINVAL);
	CHECK_EQ(protect_page(pgd, va, PAGE_SHARED | 0x1000), -EINVAL);
	CHECK_EQ(pte_pfn(*pte), 0xabc);
	unmap_page(pgd, va);
	CHECK_EQ(protect_page(pgd, va, PAGE_SHARED), -ENOENT);
}

static void test_map_range_huge(void)
{
	/* [0x1ff000, 0x602000): one 4 KiB page, two 2 MiB pages, then two 4 KiB pages. */
	const uint64_t pa = 0x1ff000, size = 0x403000;
	const unsigned long va = DIRECT_MAP + pa;
	unsigned long before, off;
	pgd_t *pgd;
	pte_t flags = 0;

	setup();
	pgd = pgd_alloc();
	before = nr_free_pages();
	CHECK_EQ(map_range(pgd, va, pa, size, PAGE_KERNEL), 0);
	CHECK_EQ(nr_free_pages(), before - 4); /* a PUD, a PMD and two PTE tables */

	for (off = 0; off < size; off += PAGE_SIZE)
		CHECK_EQ(translate(pgd, va + off + 0x18, NULL), pa + off + 0x18);
	CHECK_EQ(translate(pgd, va - 1, NULL), NO_PHYS_ADDR);
	CHECK_EQ(translate(pgd, va + size, NULL), NO_PHYS_ADDR);

	CHECK_EQ(entry_at(pgd, DIRECT_MAP + 0x200000, 2), 0x200000 | PAGE_KERNEL | _PAGE_PSE);
	CHECK_EQ(entry_at(pgd, DIRECT_MAP + 0x400000, 2), 0x400000 | PAGE_KERNEL | _PAGE_PSE);
	CHECK_EQ(translate(pgd, DIRECT_MAP + 0x3fffff, &flags), 0x3fffff);
	CHECK_EQ(flags, PAGE_KERNEL | _PAGE_PSE);
	CHECK_EQ(translate(pgd, DIRECT_MAP + 0x1ff000, &flags), 0x1ff000);
	CHECK_EQ(flags, PAGE_KERNEL);

	/* 4 KiB edges have PTEs; inside the 2 MiB pages there are none, even with alloc. */
	CHECK(walk_page_table(pgd, va, false) != NULL);
	CHECK(walk_page_table(pgd, DIRECT_MAP + 0x601000, false) != NULL);
	before = nr_free_pages();
	CHECK(walk_page_table(pgd, DIRECT_MAP + 0x200000, false) == NULL);
	CHECK(walk_page_table(pgd, DIRECT_MAP + 0x454000, true) == NULL);
	CHECK_EQ(nr_free_pages(), before);
	CHECK_EQ(map_page(pgd, DIRECT_MAP + 0x300000, 0x9000, PAGE_KERNEL), -EEXIST);
	CHECK_EQ(unmap_page(pgd, DIRECT_MAP + 0x300000), 0);
	CHECK_EQ(protect_page(pgd, DIRECT_MAP + 0x300000, PAGE_KERNEL_RO), -ENOENT);
	CHECK_EQ(translate(pgd, DIRECT_MAP + 0x300000, NULL), 0x300000);
	CHECK_EQ(map_range(pgd, DIRECT_MAP + 0x400000, 0x400000, PMD_SIZE, PAGE_KERNEL), -EEXIST);
	CHECK_EQ(map_range(pgd, DIRECT_MAP, 0, PMD_SIZE, PAGE_KERNEL), -EEXIST); /* a table */

	/* va and pa aligned differently modulo 2 MiB: 4 KiB pages only (three PTE tables). */
	before = nr_free_pages();
	CHECK_EQ(map_range(pgd, VMAP_BASE + 0x1000, 0x200000, 2 * PMD_SIZE, PAGE_KERNEL_RO), 0);
	CHECK_EQ(nr_free_pages(), before - 5);
	for (off = 0; off < 2 * PMD_SIZE; off += PAGE_SIZE) {
		CHECK(walk_page_table(pgd, VMAP_BASE + 0x1000 + off, false) != NULL);
		CHECK_EQ(translate(pgd, VMAP_BASE + 0x1000 + off, NULL), 0x200000 + off);
	}

	/* Bad ranges. */
	CHECK_EQ(map_range(pgd, VMAP_BASE, 0, 0, PAGE_KERNEL), 0);
	CHECK_EQ(map_range(pgd, VMAP_BASE + PUD_SIZE, 0, 0x1800, PAGE_KERNEL), -EINVAL);
	CHECK_EQ(map_range(pgd, VMAP_BASE + PUD_SIZE + 8, 0, 0x1000, PAGE_KERNEL), -EINVAL);
	CHECK_EQ(map_range(pgd, USER_TOP - 0x1000, 0, 0x2000, PAGE_KERNEL), -EINVAL);
	CHECK_EQ(map_range(pgd, 0xfffffffffffff000UL, 0, 0x2000, PAGE_KERNEL), -EINVAL);
	CHECK_EQ(map_range(pgd, VMAP_BASE + PUD_SIZE, (1ULL << 52) - 0x1000, 0x2000, PAGE_KERNEL),
		 -EINVAL);
}

static void test_huge_1g(void)
{
	const unsigned long va = 0x80000000UL; /* PUD slot 2 of PGD slot 0 */
	unsigned long before;
	pgd_t *pgd;
	pud_t *pud;
	pte_t flags;

	setup();
	pgd = pgd_alloc();
	CHECK_EQ(map_page(pgd, 0x1000, 0x1000, PAGE_SHARED), 0); /* creates the PUD table */
	pud = __va(pgd[0] & PTE_PFN_MASK);
	pud[pud_index(va)] = 0x40000000UL | _PAGE_PRESENT | _PAGE_RW | _PAGE_PSE;

	CHECK_EQ(translate(pgd, va + 0x12345678, &flags), 0x40000000UL + 0x12345678);
	CHECK_EQ(flags, _PAGE_PRESENT | _PAGE_RW | _PAGE_PSE);
	before = nr_free_pages();
	CHECK(walk_page_table(pgd, va + 0x3000, true) == NULL);
	CHECK_EQ(nr_free_pages(), before);
	CHECK_EQ(map_page(pgd, va + 0x3000, 0, PAGE_SHARED), -EEXIST);
	CHECK_EQ(unmap_page(pgd, va), 0);
	CHECK_EQ(translate(pgd, va + PUD_SIZE, NULL), NO_PHYS_ADDR);
	CHECK_EQ(translate(pgd, va - 1, NULL), NO_PHYS_ADDR);
	/* Huge entries are left alone by free_pgd_range (there is no table under them). */
	free_pgd_range(pgd, va, va + PUD_SIZE, NULL);
	CHECK_EQ(nr_free_pages(), before);
	CHECK_EQ(translate(pgd, va, NULL), 0x40000000UL);
}

static void test_free_pgd_range(void)
{
	static const unsigned long user[] = { 0x1000, 0x200000, 0x400000, 0x40000000,
					      0x8000000000UL, 0x7ffffffff000UL };
	unsigned long start, before;
	unsigned int i;
	pgd_t *pgd;

	setup();
	start = nr_free_pages();
	pgd = pgd_alloc();
	for (i = 0; i < ARRAY_SIZE(user); i++)
		CHECK_EQ(map_page(pgd, user[i], PFN_PHYS(100 + i), PAGE_SHARED), 0);
	CHECK_EQ(map_page(pgd, VMAP_BASE, PFN_PHYS(99), PAGE_KERNEL), 0);
	/*
	 * pgd + PUD/PMD/3 PTEs for the first 2 MiB .. 6 MiB, PMD+PTE for 1 GiB, PUD/PMD/PTE
	 * for 512 GiB, PUD/PMD/PTE for the top page, PUD/PMD/PTE for the kernel page.
	 */
	CHECK_EQ(nr_free_pages(), start - 1 - 5 - 2 - 3 - 3 - 3);

	/* Nothing is empty yet: nothing goes. */
	before = nr_free_pages();
	free_pgd_range(pgd, 0, USER_TOP, NULL);
	CHECK_EQ(nr_free_pages(), before);
	for (i = 0; i < ARRAY_SIZE(user); i++)
		CHECK_EQ(translate(pgd, user[i], NULL), PFN_PHYS(100 + i));

	/* An emptied PTE table goes only when the range covers all of its 2 MiB. */
	CHECK_EQ(unmap_page(pgd, 0x200000), PFN_PHYS(101) | PAGE_SHARED);
	free_pgd_range(pgd, 0x201000, 0x400000, NULL);
	CHECK_EQ(nr_free_pages(), before);
	free_pgd_range(pgd, 0x200000, 0x3ff000, NULL);
	CHECK_EQ(nr_free_pages(), before);
	free_pgd_range(pgd, 0x200000, 0x400000, NULL);
	CHECK_EQ(nr_free_pages(), before + 1);
	CHECK_EQ(entry_at(pgd, 0x200000, 2), 0);
	CHECK_EQ(translate(pgd, 0x1000, NULL), PFN_PHYS(100));
	CHECK_EQ(translate(pgd, 0x400000, NULL), PFN_PHYS(102));

	/* A range covering the 1 GiB page frees its PTE and PMD table, nothing else. */
	unmap_page(pgd, 0x40000000);
	free_pgd_range(pgd, 0x40000000, 0x80000000, NULL);
	CHECK_EQ(nr_free_pages(), before + 3);
	CHECK_EQ(entry_at(pgd, 0x40000000, 3), 0);
	CHECK(entry_at(pgd, 0x1000, 3) != 0);

	/* Exit: unmap everything, free every user table, then the pgd. */
	for (i = 0; i < ARRAY_SIZE(user); i++)
		unmap_page(pgd, user[i]);
	free_pgd_range(pgd, 0, ~0UL, NULL); /* end is clipped: the kernel half stays */
	for (i = 0; i < PTRS_PER_TABLE / 2; i++)
		CHECK_EQ(pgd[i], 0);
	CHECK_EQ(translate(pgd, VMAP_BASE, NULL), PFN_PHYS(99));
	CHECK_EQ(nr_free_pages(), start - 1 - 3);

	unmap_page(pgd, VMAP_BASE);
	free_pgd_range(pgd, 0, ~0UL, NULL);
	CHECK_EQ(nr_free_pages(), start - 1 - 3);
	free_kernel_half(pgd);
	pgd_free(pgd);
	CHECK_EQ(nr_free_pages(), start);
	CHECK_EQ(free_area[MAX_ORDER - 1].nr_free, (NR_FRAMES - 1024) / 1024);
}

/* 1024 pages spread over 4 PGD x 4 PUD x 8 PMD x 8 PTE slots, half of them in the kernel. */
static unsigned long slot_va(unsigned int slot)
{
	static const unsigned long pgd_slots[] = { 0, 1, 300, 511 };
	unsigned long va = pgd_slots[slot >> 8] << PGDIR_SHIFT | ((slot >> 6) & 3UL) << PUD_SHIFT |
			   ((slot >> 3) & 7UL) << (PMD_SHIFT + 2) |
			   (slot & 7UL) << (PAGE_SHIFT + 4);

	return va >= USER_TOP ? va | 0xffff000000000000UL : va;
}

static void test_random_vs_shadow(void)
{
	enum { NR_SLOTS = 1024, NR_OPS = 20000 };
	static const pte_t prots[] = { PAGE_KERNEL, PAGE_KERNEL_RO, PAGE_KERNEL_EXEC,
				       PAGE_KERNEL_RX, PAGE_SHARED, PAGE_READONLY,
				       PAGE_SHARED_EXEC, PAGE_READONLY_EXEC };
	static uint64_t shadow_pa[NR_SLOTS];
	static pte_t shadow_prot[NR_SLOTS];
	unsigned long start, op;
	unsigned int s;
	pgd_t *pgd;

	setup();
	memset(shadow_pa, 0, sizeof(shadow_pa));
	start = nr_free_pages();
	pgd = pgd_alloc();
	for (op = 0; op < NR_OPS; op++) {
		unsigned int slot = rnd() % NR_SLOTS;
		unsigned long va = slot_va(slot);
		pte_t prot = prots[rnd() % ARRAY_SIZE(prots)], flags;

		if (!shadow_pa[slot]) {
			uint64_t pa = PFN_PHYS(1 + rnd() % (1UL << 30));

			CHECK_EQ(translate(pgd, va, NULL), NO_PHYS_ADDR);
			CHECK_EQ(map_page(pgd, va, pa, prot), 0);
			shadow_pa[slot] = pa;
			shadow_prot[slot] = prot;
		} else {
			switch (rnd() % 4) {
			case 0:
				CHECK_EQ(unmap_page(pgd, va), shadow_pa[slot] | shadow_prot[slot]);
				shadow_pa[slot] = 0;
				break;
			case 1:
				CHECK_EQ(map_page(pgd, va, PFN_PHYS(7), prot), -EEXIST);
				break;
			case 2:
				CHECK_EQ(protect_page(pgd, va, prot), 0);
				shadow_prot[slot] = prot;
				break;
			default:
				/* Drop empty user tables anywhere; mapped ones must survive. */
				free_pgd_range(pgd, slot_va(rnd() % 512), USER_TOP, NULL);
				break;
			}
		}
		if (shadow_pa[slot]) {
			CHECK_EQ(translate(pgd, va + 0x44, &flags), shadow_pa[slot] + 0x44);
			CHECK_EQ(flags, shadow_prot[slot]);
		} else {
			CHECK_EQ(translate(pgd, va, NULL), NO_PHYS_ADDR);
		}
		if (op % 2000 == 0)
			for (s = 0; s < NR_SLOTS; s++)
				CHECK_EQ(translate(pgd, slot_va(s), NULL),
					 shadow_pa[s] ? shadow_pa[s] : NO_PHYS_ADDR);
		if (check_failed_in_test)
			return;
	}
	for (s = 0; s < NR_SLOTS; s++) {
		CHECK_EQ(translate(pgd, slot_va(s) + 1, NULL),
			 shadow_pa[s] ? shadow_pa[s] + 1 : NO_PHYS_ADDR);
		if (shadow_pa[s])
			CHECK_EQ(unmap_page(pgd, slot_va(s)), shadow_pa[s] | shadow_prot[s]);
	}
	free_pgd_range(pgd, 0, USER_TOP, NULL);
	free_kernel_half(pgd);
	for (s = 0; s < PTRS_PER_TABLE; s++)
		CHECK_EQ(pgd[s], 0);
	pgd_free(pgd);
	CHECK_EQ(nr_free_pages(), start);
}

static void test_enomem(void)
{
	static struct page *held[NR_FRAMES];
	unsigned long start, n = 0;
	struct page *p;
	pgd_t *pgd;

	setup();
	start = nr_free_pages();
	pgd = pgd_alloc();
	while (nr_free_pages() > 2 && (p = alloc_page(GFP_KERNEL)) != NULL)
		held[n++] = p;
	/* Three tables are needed, two can be had. */
	CHECK_EQ(map_page(pgd, 0x400000, 0x1000, PAGE_SHARED), -ENOMEM);
	CHECK_EQ(nr_free_pages(), 0);
	CHECK(walk_page_table(pgd, 0x400000, true) == NULL);
	CHECK(pgd_alloc() == NULL);
	CHECK_EQ(map_range(pgd, VMAP_BASE, 0, PMD_SIZE, PAGE_KERNEL), -ENOMEM);
	while (n > 0)
		__free_page(held[--n]);
	/* The tables allocated before the failure are reclaimed like any empty table. */
	free_pgd_range(pgd, 0, USER_TOP, NULL);
	pgd_free(pgd);
	CHECK_EQ(nr_free_pages(), start);
}

int main(void)
{
	RUN_TEST(test_map_translate_unmap);
	RUN_TEST(test_intermediate_flags);
	RUN_TEST(test_pte_helpers);
	RUN_TEST(test_protect);
	RUN_TEST(test_map_range_huge);
	RUN_TEST(test_huge_1g);
	RUN_TEST(test_free_pgd_range);
	RUN_TEST(test_random_vs_shadow);
	RUN_TEST(test_enomem);
	return check_total_failed != 0;
}
