/* Run the setup functions that drivers registered with device_initcall (kernel/initcall.h):
 * the linker gathers their pointers between __initcall_start and __initcall_end. */
#include "kernel/initcall.h"

extern const initcall_t __initcall_start[], __initcall_end[];

void do_initcalls(void)
{
	for (const initcall_t *fn = __initcall_start; fn < __initcall_end; fn++)
		(*fn)();
}
