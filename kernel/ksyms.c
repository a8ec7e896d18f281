/* Look-ups in the generated symbol table: addresses sorted ascending, names in one string blob. */
#include "kernel/ksyms.h"
#include "kernel/lib/string.h"

/* Defined by the generated build/ksyms.S (weak here, so the first link pass has none). */
extern const uint64_t ksyms_count __attribute__((weak));
extern const uint64_t ksyms_addrs[] __attribute__((weak));
extern const uint32_t ksyms_name_offsets[] __attribute__((weak));
extern const char ksyms_names[] __attribute__((weak));
extern char __text_start[], __text_end[];

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	uint64_t lo = 0, hi;

	if (!&ksyms_count || addr < (uint64_t)__text_start || addr >= (uint64_t)__text_end)
		return NULL;
	hi = ksyms_count;
	/* Binary search for the last symbol at or below addr. */
	while (hi - lo > 1) {
		uint64_t mid = (lo + hi) / 2;

		if (ksyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (ksyms_count == 0 || ksyms_addrs[lo] > addr)
		return NULL;
	*offset = addr - ksyms_addrs[lo];
	return ksyms_names + ksyms_name_offsets[lo];
}

uint64_t ksym_address(const char *name)
{
	if (!&ksyms_count)
		return 0;
	for (uint64_t i = 0; i < ksyms_count; i++)
		if (strcmp(ksyms_names + ksyms_name_offsets[i], name) == 0)
			return ksyms_addrs[i];
	return 0;
}
