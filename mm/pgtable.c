/* Building, changing and tearing down x86-64 page tables. Table pages are single frames from
 * the buddy allocator, reached through the direct map with __va(). */

#include "kernel/errno.h"
#include "mm/gfp.h"
#include "mm/pgtable.h"

/*
 * Levels are numbered as the hardware walks them: 4 = PGD (the table CR3 points to),
 * 3 = PUD, 2 = PMD, 1 = PTE (the last table, whose entries map 4 KiB pages).
 * An entry at level l maps 2^level_shift(l) bytes: 512 GiB, 1 GiB, 2 MiB or 4 KiB.
 */
static unsigned int level_shift(int level)
{
	return PAGE_SHIFT + 9 * (level - 1);
}

/* The index in a level's table of the entry covering va (pgd_index() ... pte_index()). */
static unsigned long level_index(unsigned long va, int level)
{
	return (va >> level_shift(level)) & (PTRS_PER_TABLE - 1);
}

/* Virtual addresses are 48 bits, sign extended: bits 63..47 must all be equal. */
static bool va_canonical(unsigned long va)
{
	unsigned long top = va >> 47;

	return top == 0 || top == 0x1ffff;
}

/* Can prot be the flags of a 4 KiB leaf? (In a PTE bit 7 means PAT, not a huge page.) */
static bool leaf_prot_ok(pte_t prot)
{
	return !(prot & (PTE_PFN_MASK | _PAGE_PSE));
}

/*
 * Find the entry for va in the level-`level` table of the tables rooted at pgd and store its
 * address in *entry. Missing tables on the way are allocated if alloc is true. Returns 0,
 * -ENOENT (a table is missing and !alloc), -ENOMEM, or -EEXIST (a huge page maps va above
 * that level, so there is no table there).
 */
static int walk(pgd_t *pgd, unsigned long va, int level, bool alloc, uint64_t **entry)
{
	uint64_t *table = pgd;
	int l;

	for (l = 4; l > level; l--) {
		uint64_t *e = &table[level_index(va, l)];

		if (!(*e & _PAGE_PRESENT)) {
			struct page *page;

			if (!alloc)
				return -ENOENT;
			page = alloc_page(__GFP_ZERO);
			if (!page)
				return -ENOMEM;
			/*
			 * The CPU grants an access only if every level allows it, so upper
			 * levels allow everything and the leaf entry alone decides; user
			 * addresses additionally need U at every level.
			 */
			*e = PFN_PHYS(page_to_pfn(page)) | _PAGE_PRESENT | _PAGE_RW |
			     (va < USER_TOP ? _PAGE_USER : 0);
		} else if (*e & _PAGE_PSE) {
			return -EEXIST;
		}
		table = __va(*e & PTE_PFN_MASK);
	}
	*entry = &table[level_index(va, level)];
	return 0;
}

pgd_t *pgd_alloc(void)
{
	struct page *page = alloc_page(__GFP_ZERO);

	return page ? page_address(page) : NULL;
}

void pgd_free(pgd_t *pgd)
{
	__free_page(virt_to_page(pgd));
}

pte_t *walk_page_table(pgd_t *pgd, unsigned long va, bool alloc)
{
	pte_t *pte;

	if (!va_canonical(va) || walk(pgd, va, 1, alloc, &pte) != 0)
		return NULL;
	return pte;
}

int map_page(pgd_t *pgd, unsigned long va, uint64_t pa, pte_t prot)
{
	pte_t *pte;
	int err;

	if (!IS_ALIGNED(va, PAGE_SIZE) || !va_canonical(va) || (pa & ~PTE_PFN_MASK) ||
	    !leaf_prot_ok(prot))
		return -EINVAL;
	err = walk(pgd, va, 1, true, &pte);
	if (err)
		return err;
	if (*pte & _PAGE_PRESENT)
		return -EEXIST;
	/* No TLB flush: the CPU does not cache entries that are not present. */
	*pte = pa | prot | _PAGE_PRESENT;
	return 0;
}

pte_t unmap_page(pgd_t *pgd, unsigned long va)
{
	pte_t *pte, old;

	if (!va_canonical(va) || walk(pgd, va, 1, false, &pte) != 0)
		return 0;
	old = *pte;
	*pte = 0;
	if (old & _PAGE_PRESENT)
		flush_tlb_one(va);
	return old;
}

int protect_page(pgd_t *pgd, unsigned long va, pte_t prot)
{
	pte_t *pte;

	if (!leaf_prot_ok(prot))
		return -EINVAL;
	if (!va_canonical(va) || walk(pgd, va, 1, false, &pte) != 0 || !(*pte & _PAGE_PRESENT))
		return -ENOENT;
	*pte = (*pte & (PTE_PFN_MASK | _PAGE_ACCESSED | _PAGE_DIRTY)) | prot | _PAGE_PRESENT;
	flush_tlb_one(va);
	return 0;
}

/* Map the 2 MiB page at va (aligned) to pa (aligned) with one PMD entry. */
static int map_huge_pmd(pgd_t *pgd, unsigned long va, uint64_t pa, pte_t prot)
{
	pmd_t *pmd;
	int err;

	err = walk(pgd, va, 2, true, &pmd);
	if (err)
		return err;
	/* A present PMD entry is either a huge page or a table mapping 4 KiB pages. */
	if (*pmd & _PAGE_PRESENT)
		return -EEXIST;
	*pmd = pa | prot | _PAGE_PRESENT | _PAGE_PSE;
	return 0;
}

int map_range(pgd_t *pgd, unsigned long va, uint64_t pa, uint64_t size, pte_t prot)
{
	unsigned long last_va = va + size - 1;
	uint64_t last_pa = pa + size - 1;

	if (size == 0)
		return 0;
	if (((va | pa | size) & (PAGE_SIZE - 1)) || !leaf_prot_ok(prot))
		return -EINVAL;
	/* Both ends in the same half of the address space, and no wrap-around. */
	if (last_va < va || !va_canonical(va) || (va >> 47) != (last_va >> 47))
		return -EINVAL;
	if (last_pa < pa || (last_pa & ~(PTE_PFN_MASK | (PAGE_SIZE - 1))))
		return -EINVAL;

	while (size > 0) {
		uint64_t step;
		int err;

		if (IS_ALIGNED(va, PMD_SIZE) && IS_ALIGNED(pa, PMD_SIZE) && size >= PMD_SIZE) {
			step = PMD_SIZE;
			err = map_huge_pmd(pgd, va, pa, prot);
		} else {
			step = PAGE_SIZE;
			err = map_page(pgd, va, pa, prot);
		}
		if (err)
			return err;
		va += step;
		pa += step;
		size -= step;
	}
	return 0;
}

uint64_t translate(pgd_t *pgd, unsigned long va, pte_t *leaf_out)
{
	uint64_t *table = pgd;
	int level;

	if (!va_canonical(va))
		return NO_PHYS_ADDR;
	for (level = 4; level >= 1; level--) {
		uint64_t e = table[level_index(va, level)];

		if (!(e & _PAGE_PRESENT))
			return NO_PHYS_ADDR;
		/* A leaf: a PTE, or a PMD/PUD entry mapping a 2 MiB/1 GiB page. */
		if (level == 1 || (level <= 3 && (e & _PAGE_PSE))) {
			uint64_t offset_mask = (1UL << level_shift(level)) - 1;

			if (leaf_out)
				*leaf_out = e & PTE_FLAGS_MASK;
			/* In a huge entry the low address bits are flags (bit 12 is PAT). */
			return (e & PTE_PFN_MASK & ~offset_mask) | (va & offset_mask);
		}
		table = __va(e & PTE_PFN_MASK);
	}
	return NO_PHYS_ADDR; /* not reached: level 1 always returns */
}

/* Is every entry of the table zero? (A non-present entry with bits set may hold state.) */
static bool table_empty(const uint64_t *table)
{
	int i;

	for (i = 0; i < PTRS_PER_TABLE; i++)
		if (table[i])
			return false;
	return true;
}

/*
 * For each entry of table (a level-`level` table whose first entry maps address base) that
 * points to a lower table: first free what can be freed below it, then free that lower table
 * itself if it now is empty and maps only addresses inside [start, end): onto freed when
 * given (the caller frees those pages after every CPU has flushed), else at once.
 */
static void free_tables(uint64_t *table, int level, unsigned long base, unsigned long start,
			unsigned long end, struct list_head *freed)
{
	unsigned long size = 1UL << level_shift(level);
	int i;

	for (i = 0; i < PTRS_PER_TABLE; i++) {
		unsigned long lo = base + i * size;
		uint64_t *child;

		if (lo + size <= start || lo >= end)
			continue;
		if (!(table[i] & _PAGE_PRESENT) || (table[i] & _PAGE_PSE))
			continue;
		child = __va(table[i] & PTE_PFN_MASK);
		if (level > 2) /* below level 2 are PTE tables, which point to no tables */
			free_tables(child, level - 1, lo, start, end, freed);
		if (start <= lo && lo + size <= end && table_empty(child)) {
			table[i] = 0;
			/* invlpg also drops the CPU's cached copies of upper-level entries. */
			flush_tlb_one(lo);
			if (freed)
				list_add_tail(&virt_to_page(child)->lru, freed);
			else
				__free_page(virt_to_page(child));
		}
	}
}

void free_pgd_range(pgd_t *pgd, unsigned long start, unsigned long end, struct list_head *freed)
{
	if (end > USER_TOP)
		end = USER_TOP;
	if (start >= end)
		return;
	free_tables(pgd, 4, 0, start, end, freed);
}
