/* The exception table: pairs (instruction, fixup) gathered by the linker from every
 * `__ex_table` section. A kernel fault at a listed instruction resumes at its fixup. */
#include "kernel/arch/uaccess.h"

struct exception_table_entry {
	uint64_t insn, fixup;
};

extern const struct exception_table_entry __ex_table_start[], __ex_table_end[];

uint64_t search_exception_tables(uint64_t rip)
{
	for (const struct exception_table_entry *e = __ex_table_start; e < __ex_table_end; e++)
		if (e->insn == rip)
			return e->fixup;
	return 0;
}
