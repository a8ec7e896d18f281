/* Boot-time memory: which physical ranges are RAM and which of them are taken (firmware, the
 * kernel image, the multiboot info, modules, early allocations), before the buddy allocator
 * exists. bootmem_release() then hands every untaken RAM frame to the buddy allocator. */
#ifndef MM_BOOTMEM_H
#define MM_BOOTMEM_H

#include "kernel/arch/multiboot2.h"

#define BOOTMEM_MAX_RANGES 64

struct bootmem_range {
	uint64_t start, end; /* [start, end), page-aligned */
	const char *what;
};

void bootmem_init(const struct boot_info *bi);
void bootmem_reserve(uint64_t start, uint64_t end, const char *what);
/* size bytes of taken memory, aligned, ending at or below limit; panics when there is none. */
uint64_t bootmem_alloc(uint64_t size, uint64_t align, uint64_t limit, const char *what);
unsigned long bootmem_max_pfn(void);
/* Free every RAM frame in [min, max) that no reservation covers; returns how many. */
unsigned long bootmem_release(uint64_t min, uint64_t max);
bool bootmem_is_ram(uint64_t pa);
void bootmem_print(void);

extern struct bootmem_range bootmem_ram[BOOTMEM_MAX_RANGES];
extern int bootmem_nr_ram;
extern struct bootmem_range bootmem_reserved[BOOTMEM_MAX_RANGES];
extern int bootmem_nr_reserved;

#endif
