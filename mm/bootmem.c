/* Boot-time memory bookkeeping: sorted arrays of RAM ranges and reserved ranges, small enough
 * to scan. Built from the multiboot2 memory map, which is the only truth about RAM we have. */
#include "kernel/printk/printk.h"
#include "mm/bootmem.h"
#include "mm/gfp.h"

struct bootmem_range bootmem_ram[BOOTMEM_MAX_RANGES];
int bootmem_nr_ram;
struct bootmem_range bootmem_reserved[BOOTMEM_MAX_RANGES];
int bootmem_nr_reserved;

extern char __kernel_start[], __kernel_end[];

/* Insert [start, end) into a sorted range array, merging with overlapping or touching
 * neighbours that carry the same label. */
static void range_insert(struct bootmem_range *r, int *nr, uint64_t start, uint64_t end,
			 const char *what)
{
	int i = 0;

	if (start >= end)
		return;
	if (*nr == BOOTMEM_MAX_RANGES)
		panic("bootmem: more than %d ranges (inserting %s)", BOOTMEM_MAX_RANGES, what);
	while (i < *nr && r[i].start < start)
		i++;
	for (int j = *nr; j > i; j--)
		r[j] = r[j - 1];
	r[i] = (struct bootmem_range){ start, end, what };
	(*nr)++;
	/* Merge i with its successor(s) and predecessor when they overlap or touch. */
	for (int k = (i > 0 ? i - 1 : 0); k + 1 < *nr;) {
		if (r[k + 1].start <= r[k].end && r[k].what == r[k + 1].what) {
			r[k].end = MAX(r[k].end, r[k + 1].end);
			for (int j = k + 1; j + 1 < *nr; j++)
				r[j] = r[j + 1];
			(*nr)--;
		} else if (r[k].start > end) {
			break;
		} else {
			k++;
		}
	}
}

void bootmem_reserve(uint64_t start, uint64_t end, const char *what)
{
	range_insert(bootmem_reserved, &bootmem_nr_reserved, ALIGN_DOWN(start, PAGE_SIZE),
		     ALIGN_UP(end, PAGE_SIZE), what);
}

void bootmem_init(const struct boot_info *bi)
{
	for (int i = 0; i < bi->nr_mmap; i++) {
		const struct boot_mmap_entry *e = &bi->mmap[i];

		if (e->type == 1) /* only "available" RAM may ever be allocated */
			range_insert(bootmem_ram, &bootmem_nr_ram, ALIGN_UP(e->addr, PAGE_SIZE),
				     ALIGN_DOWN(e->addr + e->len, PAGE_SIZE), "RAM");
	}
	/* Low memory holds the BIOS data area, EBDA and, under UEFI, GRUB's info and modules;
	 * it is small, so the whole first MiB stays out of the allocator. */
	bootmem_reserve(0, 0x100000, "low 1 MiB");
	bootmem_reserve(__pa_symbol(__kernel_start), __pa_symbol(__kernel_end), "kernel image");
	bootmem_reserve(bi->info_phys, bi->info_phys + bi->info_size, "multiboot info");
	for (int i = 0; i < bi->nr_modules; i++)
		bootmem_reserve(bi->modules[i].start, bi->modules[i].end, "module");
}

static const struct bootmem_range *first_overlap(uint64_t start, uint64_t end)
{
	for (int i = 0; i < bootmem_nr_reserved; i++)
		if (bootmem_reserved[i].start < end && start < bootmem_reserved[i].end)
			return &bootmem_reserved[i];
	return NULL;
}

uint64_t bootmem_alloc(uint64_t size, uint64_t align, uint64_t limit, const char *what)
{
	size = ALIGN_UP(size, PAGE_SIZE);
	for (int i = 0; i < bootmem_nr_ram; i++) {
		uint64_t s = ALIGN_UP(bootmem_ram[i].start, align);
		const struct bootmem_range *r;

		while (s + size <= bootmem_ram[i].end && s + size <= limit) {
			r = first_overlap(s, s + size);
			if (!r) {
				bootmem_reserve(s, s + size, what);
				return s;
			}
			s = ALIGN_UP(r->end, align);
		}
	}
	panic("bootmem: no %lu KiB of RAM below %lx for %s", size >> 10, limit, what);
}

unsigned long bootmem_max_pfn(void)
{
	return bootmem_nr_ram ? PFN_DOWN(bootmem_ram[bootmem_nr_ram - 1].end) : 0;
}

bool bootmem_is_ram(uint64_t pa)
{
	for (int i = 0; i < bootmem_nr_ram; i++)
		if (pa >= bootmem_ram[i].start && pa < bootmem_ram[i].end)
			return true;
	return false;
}

unsigned long bootmem_release(uint64_t min, uint64_t max)
{
	unsigned long n = 0;

	for (int i = 0; i < bootmem_nr_ram; i++) {
		uint64_t s = MAX(bootmem_ram[i].start, min);
		uint64_t e = MIN(bootmem_ram[i].end, max);

		/* Walk the sorted reservations, freeing the gaps between them. */
		for (int j = 0; j < bootmem_nr_reserved && s < e; j++) {
			const struct bootmem_range *r = &bootmem_reserved[j];

			if (r->end <= s)
				continue;
			if (r->start >= e)
				break;
			if (r->start > s) {
				free_area_add_range(PFN_DOWN(s), PFN_DOWN(r->start));
				n += PFN_DOWN(r->start - s);
			}
			s = MAX(s, r->end);
		}
		if (s < e) {
			free_area_add_range(PFN_DOWN(s), PFN_DOWN(e));
			n += PFN_DOWN(e - s);
		}
	}
	return n;
}

void bootmem_print(void)
{
	for (int i = 0; i < bootmem_nr_reserved; i++)
		printk("  reserved %016lx-%016lx %s\n", bootmem_reserved[i].start,
		       bootmem_reserved[i].end, bootmem_reserved[i].what);
}
