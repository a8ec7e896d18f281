/* Bringing memory up at boot: mem_map and the buddy allocator from the memory map, then the
 * kernel's own page tables (a direct map of all RAM and a W^X map of the kernel image) in
 * place of the early boot tables. */
#include "kernel/arch/x86.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "mm/bootmem.h"
#include "mm/fault.h"
#include "mm/gfp.h"
#include "mm/mm_init.h"
#include "mm/pgtable.h"

#define EARLY_MAP_LIMIT (1UL << 30) /* boot.S maps the first GiB */

extern pgd_t boot_pml4[];
extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_end[], __ksyms_start[], __ksyms_end[];
extern char boot_stack_guard[];

pgd_t *kernel_pgd = boot_pml4;

bool kernel_addr_mapped(uint64_t va)
{
	return translate(kernel_pgd, va, NULL) != (uint64_t)-1;
}

/* Map the kernel image section [start, end) with prot, 4 KiB at a time (W^X needs page
 * granularity), skipping the boot stack's guard page. */
static void map_kernel_section(pgd_t *pgd, char *start, char *end, pte_t prot)
{
	for (uint64_t va = (uint64_t)start; va < (uint64_t)end; va += PAGE_SIZE) {
		if (va == (uint64_t)boot_stack_guard)
			continue;
		if (map_page(pgd, va, __pa_symbol(va), prot))
			panic("paging_init: cannot map kernel page %lx", va);
	}
}

static void paging_init(void)
{
	pgd_t *pgd = pgd_alloc();

	if (!pgd)
		panic("paging_init: no page for the kernel PML4");
	/* The first MiB (VGA text buffer, BIOS tables) and every RAM range, through the
	 * direct map. Non-RAM holes stay unmapped so a stray pointer there faults. */
	if (map_range(pgd, (uint64_t)__va(0), 0, 0x100000, PAGE_KERNEL))
		panic("paging_init: cannot map low memory");
	for (int i = 0; i < bootmem_nr_ram; i++) {
		uint64_t s = MAX(bootmem_ram[i].start, 0x100000UL), e = bootmem_ram[i].end;

		if (s < e && map_range(pgd, (uint64_t)__va(s), s, e - s, PAGE_KERNEL))
			panic("paging_init: cannot map RAM %lx-%lx", s, e);
	}
	map_kernel_section(pgd, __text_start, __text_end, PAGE_KERNEL_RX);
	map_kernel_section(pgd, __rodata_start, __rodata_end, PAGE_KERNEL_RO);
	map_kernel_section(pgd, __data_start, __bss_end, PAGE_KERNEL);
	map_kernel_section(pgd, __ksyms_start, __ksyms_end, PAGE_KERNEL_RO);
	write_cr3(__pa(pgd));
	kernel_pgd = pgd;
}

void mm_init(const struct boot_info *bi)
{
	unsigned long low, high, ram = 0;
	uint64_t map_bytes;

	bootmem_init(bi);
	max_pfn = bootmem_max_pfn();
	map_bytes = max_pfn * sizeof(struct page);
	/* mem_map must be reachable through the early tables' direct map: below 1 GiB. */
	mem_map = __va(bootmem_alloc(map_bytes, PAGE_SIZE, EARLY_MAP_LIMIT, "mem_map"));
	free_area_init(mem_map, max_pfn);
	/* Frames above 1 GiB join only once the direct map covers them: page-table pages
	 * for paging_init come from below, where the early tables can zero them. */
	low = bootmem_release(0, EARLY_MAP_LIMIT);
	paging_init();
	high = bootmem_release(EARLY_MAP_LIMIT, UINT64_MAX);
	for (int i = 0; i < bootmem_nr_ram; i++)
		ram += PFN_DOWN(bootmem_ram[i].end - bootmem_ram[i].start);
	printk("mm: %lu frames of RAM (%lu MiB), highest pfn %lx, mem_map %lu KiB\n", ram,
	       (ram * PAGE_SIZE) >> 20, max_pfn, map_bytes >> 10);
	printk("mm: %lu frames free (%lu below 1 GiB, %lu above), %lu reserved\n",
	       nr_free_pages(), low, high, ram - low - high);
}
