/* x86-64 4-level page tables (PGD -> PUD -> PMD -> PTE), with Linux's names for the entry
 * bits and helpers, and the API that builds and tears down mappings (mm/pgtable.c). */
#ifndef MM_PGTABLE_H
#define MM_PGTABLE_H

#include "kernel/lib/list.h"
#include "mm/mmu.h"

/*
 * Every level's entry is a 64-bit word: bits 12..51 hold the physical address of the next
 * table or of the mapped frame, the other bits are flags. Plain integers keep it readable.
 */
typedef uint64_t pgd_t, pud_t, pmd_t, pte_t;

#define PUD_SIZE (1UL << PUD_SHIFT)	  /* 1 GiB: what one PUD entry maps */
#define PGDIR_SIZE (1UL << PGDIR_SHIFT) /* 512 GiB: what one PGD entry maps */

#define _PAGE_PRESENT (1UL << 0)  /* the entry is valid */
#define _PAGE_RW (1UL << 1)	  /* writable (else read-only) */
#define _PAGE_USER (1UL << 2)	  /* user mode may access it */
#define _PAGE_PWT (1UL << 3)	  /* write-through caching */
#define _PAGE_PCD (1UL << 4)	  /* caching disabled (device memory) */
#define _PAGE_ACCESSED (1UL << 5) /* set by the CPU on any access */
#define _PAGE_DIRTY (1UL << 6)	  /* set by the CPU on a write (leaf entries only) */
#define _PAGE_PSE (1UL << 7)	  /* in a PUD/PMD entry: maps a 1 GiB/2 MiB page, no table */
#define _PAGE_GLOBAL (1UL << 8)	  /* kept in the TLB across CR3 writes */
#define _PAGE_NX (1UL << 63)	  /* no instruction fetch (needs EFER.NXE) */

#define PTE_PFN_MASK 0x000ffffffffff000UL /* the physical address bits */
#define PTE_FLAGS_MASK (~PTE_PFN_MASK)

/* Leaf protections for kernel mappings. */
#define PAGE_KERNEL (_PAGE_PRESENT | _PAGE_RW | _PAGE_NX) /* data */
#define PAGE_KERNEL_RO (_PAGE_PRESENT | _PAGE_NX)	    /* read-only data */
#define PAGE_KERNEL_EXEC (_PAGE_PRESENT | _PAGE_RW)	    /* writable code (early boot) */
#define PAGE_KERNEL_RX (_PAGE_PRESENT)		    /* kernel text */

/* Leaf protections for user mappings, named as in Linux. */
#define PAGE_SHARED (_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_NX)
#define PAGE_SHARED_EXEC (_PAGE_PRESENT | _PAGE_RW | _PAGE_USER)
#define PAGE_READONLY (_PAGE_PRESENT | _PAGE_USER | _PAGE_NX)
#define PAGE_READONLY_EXEC (_PAGE_PRESENT | _PAGE_USER)

/* What translate() returns for an address that is not mapped. */
#define NO_PHYS_ADDR ((uint64_t)-1)

/* Which entry of each level's table covers virtual address va. */
static inline unsigned long pgd_index(unsigned long va)
{
	return (va >> PGDIR_SHIFT) & (PTRS_PER_TABLE - 1);
}
static inline unsigned long pud_index(unsigned long va)
{
	return (va >> PUD_SHIFT) & (PTRS_PER_TABLE - 1);
}
static inline unsigned long pmd_index(unsigned long va)
{
	return (va >> PMD_SHIFT) & (PTRS_PER_TABLE - 1);
}
static inline unsigned long pte_index(unsigned long va)
{
	return (va >> PAGE_SHIFT) & (PTRS_PER_TABLE - 1);
}

/* Building and taking apart leaf entries. */
static inline unsigned long pte_pfn(pte_t pte)
{
	return (pte & PTE_PFN_MASK) >> PAGE_SHIFT;
}
static inline pte_t pfn_pte(unsigned long pfn, pte_t prot)
{
	return (PFN_PHYS(pfn) & PTE_PFN_MASK) | (prot & PTE_FLAGS_MASK);
}
static inline pte_t pte_flags(pte_t pte)
{
	return pte & PTE_FLAGS_MASK;
}
static inline bool pte_none(pte_t pte)
{
	return pte == 0;
}
static inline bool pte_present(pte_t pte)
{
	return pte & _PAGE_PRESENT;
}
static inline bool pte_write(pte_t pte)
{
	return pte & _PAGE_RW;
}
static inline bool pte_user(pte_t pte)
{
	return pte & _PAGE_USER;
}
static inline bool pte_exec(pte_t pte)
{
	return !(pte & _PAGE_NX);
}
static inline bool pte_dirty(pte_t pte)
{
	return pte & _PAGE_DIRTY;
}
static inline bool pte_young(pte_t pte)
{
	return pte & _PAGE_ACCESSED;
}
/* For a PUD or PMD entry: does it map a huge page rather than point to a table? */
static inline bool pte_huge(pte_t pte)
{
	return pte & _PAGE_PSE;
}
static inline pte_t pte_mkwrite(pte_t pte)
{
	return pte | _PAGE_RW;
}
static inline pte_t pte_wrprotect(pte_t pte)
{
	return pte & ~_PAGE_RW;
}
static inline pte_t pte_mkdirty(pte_t pte)
{
	return pte | _PAGE_DIRTY;
}
static inline pte_t pte_mkclean(pte_t pte)
{
	return pte & ~_PAGE_DIRTY;
}
static inline pte_t pte_mkyoung(pte_t pte)
{
	return pte | _PAGE_ACCESSED;
}
static inline pte_t pte_mkold(pte_t pte)
{
	return pte & ~_PAGE_ACCESSED;
}

/*
 * A file PTE (nonlinear mappings, remap_file_pages): not present, so the CPU ignores every
 * other bit, and the software bit _PAGE_FILE says the frame bits hold a file page offset
 * instead of a frame. Linux x86-64 used the dirty bit's position the same way.
 */
#define _PAGE_FILE _PAGE_DIRTY
#define PTE_FILE_MAX_BITS 40 /* the pgoffs a file PTE can hold: bits 12..51 */

static inline bool pte_file(pte_t pte)
{
	return !(pte & _PAGE_PRESENT) && (pte & _PAGE_FILE);
}
static inline pte_t pgoff_to_pte(unsigned long pgoff)
{
	return ((uint64_t)pgoff << PAGE_SHIFT & PTE_PFN_MASK) | _PAGE_FILE;
}
static inline unsigned long pte_to_pgoff(pte_t pte)
{
	return (pte & PTE_PFN_MASK) >> PAGE_SHIFT;
}

/*
 * The CPU caches translations in the TLB; after changing or removing a present entry the
 * old translation must be flushed. Host tests have no TLB or CR3, so these do nothing there.
 */
static inline void flush_tlb_one(unsigned long va)
{
#ifdef HOST_TEST
	(void)va;
#else
	asm volatile("invlpg (%0)" : : "r"(va) : "memory");
#endif
}

/* Switch to the page tables whose top level is at physical address pa (flushes the TLB). */
static inline void write_cr3(uint64_t pa)
{
#ifdef HOST_TEST
	(void)pa;
#else
	asm volatile("mov %0, %%cr3" : : "r"(pa) : "memory");
#endif
}

static inline uint64_t read_cr3(void)
{
#ifdef HOST_TEST
	return 0;
#else
	uint64_t pa;

	asm volatile("mov %%cr3, %0" : "=r"(pa));
	return pa;
#endif
}

/* A zeroed top-level table (one frame), or NULL when out of memory. */
pgd_t *pgd_alloc(void);
/*
 * Free the top-level table itself. The lower half must be empty and its tables freed first
 * (unmap everything, then free_pgd_range(pgd, 0, USER_TOP)); upper-half tables are the
 * kernel's, shared by every pgd, and are never freed here.
 */
void pgd_free(pgd_t *pgd);

/*
 * Return the address of the PTE for va in the tables rooted at pgd. If alloc, missing
 * intermediate tables are allocated (zeroed; their entries get P|RW, plus U for user
 * addresses < USER_TOP); otherwise NULL when a level is missing. NULL also when a 2 MiB or
 * 1 GiB page covers va, when va is not canonical, or when an allocation fails (tables
 * allocated before the failure stay; free_pgd_range() reclaims them).
 */
pte_t *walk_page_table(pgd_t *pgd, unsigned long va, bool alloc);

/*
 * Map the 4 KiB page at va to physical address pa with leaf flags prot (PAGE_KERNEL, ...;
 * the entry is always made present). Returns 0, -ENOMEM, -EEXIST (va is already mapped,
 * by a 4 KiB or a huge page) or -EINVAL (va or pa unaligned, va not canonical, pa too
 * high, prot holding address bits or _PAGE_PSE).
 */
int map_page(pgd_t *pgd, unsigned long va, uint64_t pa, pte_t prot);

/*
 * Remove the 4 KiB mapping of va: clear its PTE, flush that TLB entry, and return the old
 * PTE (0 if there was none, or if a huge page covers va: those are left alone). The frame
 * is not freed; that is the caller's business.
 */
pte_t unmap_page(pgd_t *pgd, unsigned long va);

/*
 * Give the 4 KiB mapping of va the leaf flags prot, keeping its frame and its accessed and
 * dirty bits (losing a dirty bit would lose a write to a file). Returns 0, -ENOENT when va
 * has no 4 KiB mapping, or -EINVAL for a bad prot (as map_page).
 */
int protect_page(pgd_t *pgd, unsigned long va, pte_t prot);

/*
 * Map [pa, pa + size) at va with 2 MiB pages wherever va and pa are both 2 MiB aligned and
 * 2 MiB remain, and 4 KiB pages elsewhere (for the direct map). va, pa and size must be
 * page aligned, and the range must not cross the non-canonical hole: else -EINVAL.
 * Returns 0, -ENOMEM or -EEXIST; on error what was mapped so far stays mapped.
 */
int map_range(pgd_t *pgd, unsigned long va, uint64_t pa, uint64_t size, pte_t prot);

/*
 * The physical address va translates to, following 2 MiB and 1 GiB pages, or NO_PHYS_ADDR
 * if it is unmapped. *leaf_out (if leaf_out is not NULL) gets the flags of the final entry.
 */
uint64_t translate(pgd_t *pgd, unsigned long va, pte_t *leaf_out);

/*
 * Free the page-table pages below pgd that cover only addresses inside [start, end) and
 * whose entries are all zero, deepest first, so a range emptied by unmap_page() gives all
 * its tables back; (0, USER_TOP) frees every empty user table, as at exit. Only the lower
 * half is ever touched (end is clipped to USER_TOP): kernel tables are shared. With freed
 * non-NULL the emptied tables' pages go on that list (by page->lru) instead of back to the
 * allocator: other CPUs may still cache entries pointing at them until they flush.
 */
void free_pgd_range(pgd_t *pgd, unsigned long start, unsigned long end, struct list_head *freed);

#endif
