/* Self-tests of physical memory and the kernel page tables, run in the booted kernel on the
 * real memory map: what the host tests cannot see (firmware holes, the kernel image, GRUB). */
#include "kernel/arch/multiboot2.h"
#include "kernel/arch/trap.h"
#include "kernel/errno.h"
#include "kernel/lib/string.h"
#include "kernel/test/ktest.h"
#include "mm/bootmem.h"
#include "mm/fault.h"
#include "mm/gfp.h"
#include "mm/mm_init.h"
#include "mm/slab.h"

extern struct boot_info boot_info;
extern char __kernel_start[], __kernel_end[], boot_stack_guard[], boot_stack[];

static bool pfn_in(unsigned long pfn, uint64_t start, uint64_t end)
{
	return PFN_PHYS(pfn) + PAGE_SIZE > start && PFN_PHYS(pfn) < end;
}

/* Is frame pfn one the allocator must never hand out? */
static bool pfn_forbidden(unsigned long pfn)
{
	if (!bootmem_is_ram(PFN_PHYS(pfn)) || pfn < PFN_DOWN(0x100000))
		return true;
	if (pfn_in(pfn, __pa_symbol(__kernel_start), __pa_symbol(__kernel_end)))
		return true;
	if (pfn_in(pfn, boot_info.info_phys, boot_info.info_phys + boot_info.info_size))
		return true;
	for (int i = 0; i < boot_info.nr_modules; i++)
		if (pfn_in(pfn, boot_info.modules[i].start, boot_info.modules[i].end))
			return true;
	return false;
}

/* Allocate every free frame, check each is RAM, handed out once and never a reserved range;
 * then free them all and get the same free count back. */
KTEST(alloc_all_memory)
{
	unsigned long before = nr_free_pages(), got = 0, bad = 0, dup = 0;
	unsigned int order = 0;
	struct page *bitmap_pages;
	uint8_t *seen;
	uint64_t *head = NULL;

	while ((PAGE_SIZE << order) * 8 < max_pfn)
		order++;
	bitmap_pages = alloc_pages(__GFP_ZERO, order);
	KT_CHECK(bitmap_pages != NULL);
	if (!bitmap_pages)
		return;
	seen = page_address(bitmap_pages);
	before -= 1UL << order;

	for (struct page *p; (p = alloc_page(0)) != NULL; got++) {
		unsigned long pfn = page_to_pfn(p);
		uint64_t *va = page_address(p);

		if (pfn_forbidden(pfn))
			bad++;
		if (seen[pfn / 8] & (1 << (pfn % 8)))
			dup++;
		seen[pfn / 8] |= (uint8_t)(1 << (pfn % 8));
		*va = (uint64_t)head; /* chain the frames through their own first word */
		head = va;
	}
	KT_CHECK(got == before);
	KT_CHECK(nr_free_pages() == 0);
	KT_CHECK(bad == 0);
	KT_CHECK(dup == 0);
	while (head) {
		uint64_t *next = (uint64_t *)*head;

		__free_page(virt_to_page(head));
		head = next;
	}
	__free_pages(bitmap_pages, order);
	KT_CHECK(nr_free_pages() == before + (1UL << order));
}

/* Blocks of every order come back naturally aligned and are returned whole. */
KTEST(alloc_orders)
{
	unsigned long before = nr_free_pages();
	struct page *blocks[MAX_ORDER];

	for (unsigned int o = 0; o < MAX_ORDER; o++) {
		blocks[o] = alloc_pages(0, o);
		KT_CHECK(blocks[o] != NULL);
		if (blocks[o])
			KT_CHECK((page_to_pfn(blocks[o]) & ((1UL << o) - 1)) == 0);
	}
	KT_CHECK(nr_free_pages() == before - ((1UL << MAX_ORDER) - 1));
	for (unsigned int o = 0; o < MAX_ORDER; o++)
		if (blocks[o])
			__free_pages(blocks[o], o);
	KT_CHECK(nr_free_pages() == before);
}

/* Every reserved range the allocator knows about has reserved struct pages. */
KTEST(reserved_frames)
{
	unsigned long kernel = PFN_DOWN(__pa_symbol(__kernel_start));

	KT_CHECK(PageReserved(pfn_to_page(kernel)));
	KT_CHECK(PageReserved(pfn_to_page(PFN_DOWN(__pa_symbol(__kernel_end) - 1))));
	KT_CHECK(PageReserved(pfn_to_page(PFN_DOWN(boot_info.info_phys))));
	for (int i = 0; i < boot_info.nr_modules; i++)
		KT_CHECK(PageReserved(pfn_to_page(PFN_DOWN(boot_info.modules[i].start))));
	KT_CHECK(PageReserved(pfn_to_page(PFN_DOWN(__pa(mem_map)))));
	KT_CHECK(PageReserved(pfn_to_page(0)));
}

static void read_u64(void *p)
{
	*(volatile uint64_t *)p;
}

static void write_u64(void *p)
{
	*(volatile uint64_t *)p = 0x5a5a5a5a5a5a5a5aULL;
}

/* Map a frame at a fresh kernel address, remap it to another frame, unmap it: each step
 * seen through the direct map and, after the unmap, as a not-present fault. */
KTEST(map_unmap_remap)
{
	unsigned long before = nr_free_pages();
	struct page *a = alloc_page(__GFP_ZERO), *b = alloc_page(__GFP_ZERO);
	uint64_t va = VMAP_BASE + 0x123000;
	volatile uint64_t *p = (volatile uint64_t *)va;
	struct fault_catch fc;

	KT_CHECK(a && b);
	if (!a || !b)
		return;
	KT_CHECK(map_page(kernel_pgd, va, PFN_PHYS(page_to_pfn(a)), PAGE_KERNEL) == 0);
	KT_CHECK(map_page(kernel_pgd, va, PFN_PHYS(page_to_pfn(b)), PAGE_KERNEL) == -EEXIST);
	KT_CHECK(translate(kernel_pgd, va + 8, NULL) == PFN_PHYS(page_to_pfn(a)) + 8);
	*p = 0x1111;
	KT_CHECK(*(uint64_t *)page_address(a) == 0x1111);

	KT_CHECK(pte_pfn(unmap_page(kernel_pgd, va)) == page_to_pfn(a));
	KT_CHECK(map_page(kernel_pgd, va, PFN_PHYS(page_to_pfn(b)), PAGE_KERNEL) == 0);
	*p = 0x2222;
	KT_CHECK(*(uint64_t *)page_address(a) == 0x1111);
	KT_CHECK(*(uint64_t *)page_address(b) == 0x2222);

	KT_CHECK(protect_page(kernel_pgd, va, PAGE_KERNEL_RO) == 0);
	KT_CHECK(fault_catch_call(write_u64, (void *)va, &fc) == 1);
	KT_CHECK(fc.vector == X86_TRAP_PF && fc.cr2 == va);
	KT_CHECK((fc.error_code & (PF_PROT | PF_WRITE)) == (PF_PROT | PF_WRITE));
	KT_CHECK(*(uint64_t *)page_address(b) == 0x2222);

	unmap_page(kernel_pgd, va);
	KT_CHECK(fault_catch_call(read_u64, (void *)va, &fc) == 1);
	KT_CHECK(fc.vector == X86_TRAP_PF && fc.cr2 == va && !(fc.error_code & PF_PROT));
	KT_CHECK(translate(kernel_pgd, va, NULL) == (uint64_t)-1);
	__free_page(a);
	__free_page(b);
	/* The page-table pages made for VMAP_BASE stay: kernel tables are never freed. */
	KT_CHECK(nr_free_pages() + 3 >= before);
}

static const uint64_t ktest_rodata_word = 42;
static uint8_t ktest_data_code[16] = { 0xc3 }; /* a `ret` instruction in .data */

static void exec_at(void *code)
{
	((void (*)(void))code)();
}

/* W^X: text is executable and read-only, rodata read-only, data never executable. */
KTEST(kernel_wx)
{
	struct fault_catch fc;

	KT_CHECK(fault_catch_call(write_u64, (void *)ktest_kernel_wx, &fc) == 1);
	KT_CHECK(fc.vector == X86_TRAP_PF && (fc.error_code & PF_PROT) &&
		 (fc.error_code & PF_WRITE));
	KT_CHECK(fault_catch_call(write_u64, (void *)&ktest_rodata_word, &fc) == 1);
	KT_CHECK(fc.vector == X86_TRAP_PF && fc.cr2 == (uint64_t)&ktest_rodata_word);
	KT_CHECK(ktest_rodata_word == 42);
	KT_CHECK(fault_catch_call(exec_at, ktest_data_code, &fc) == 1);
	KT_CHECK(fc.vector == X86_TRAP_PF && (fc.error_code & PF_INSTR));
	KT_CHECK(fc.rip == (uint64_t)ktest_data_code);
	/* and the catcher itself returns 0 when nothing faults */
	KT_CHECK(fault_catch_call(read_u64, (void *)&ktest_rodata_word, &fc) == 0);
}

/* The boot stack's guard page is unmapped, the stack itself is not. */
KTEST(stack_guard_page)
{
	KT_CHECK(!kernel_addr_mapped((uint64_t)boot_stack_guard));
	KT_CHECK(!kernel_addr_mapped((uint64_t)boot_stack_guard + PAGE_SIZE - 8));
	KT_CHECK(kernel_addr_mapped((uint64_t)boot_stack));
}

/* The direct map covers all RAM and nothing is mapped at virtual address 0. */
KTEST(direct_map)
{
	KT_CHECK(!kernel_addr_mapped(0));
	for (int i = 0; i < bootmem_nr_ram; i++) {
		KT_CHECK(translate(kernel_pgd, (uint64_t)__va(bootmem_ram[i].start), NULL) ==
			 bootmem_ram[i].start);
		KT_CHECK(translate(kernel_pgd, (uint64_t)__va(bootmem_ram[i].end - 8), NULL) ==
			 bootmem_ram[i].end - 8);
	}
}

/* kmalloc of many sizes: objects do not overlap, and everything comes back. */
KTEST(kmalloc_sizes)
{
	static void *objs[600];
	static size_t sizes[600];
	unsigned long before = nr_free_pages();
	bool ok = true;

	for (int i = 0; i < 600; i++) {
		sizes[i] = (size_t)(1 + (i * 37) % 5000);
		objs[i] = kmalloc(sizes[i]);
		KT_CHECK(objs[i] != NULL);
		if (objs[i])
			memset(objs[i], i & 0xff, sizes[i]);
	}
	for (int i = 0; i < 600; i++)
		for (size_t j = 0; objs[i] && j < sizes[i]; j++)
			if (((uint8_t *)objs[i])[j] != (i & 0xff))
				ok = false;
	KT_CHECK(ok);
	for (int i = 0; i < 600; i++)
		kfree(objs[i]);
	KT_CHECK(nr_free_pages() <= before);
	KT_CHECK(before - nr_free_pages() < 16); /* at most a few cached partial slabs */
}
