/* Initcalls: each driver names its own setup function with device_initcall(), and kmain runs
 * them all once memory and the file systems are up, so adding a driver touches no other file. */
#ifndef KERNEL_INITCALL_H
#define KERNEL_INITCALL_H

typedef void (*initcall_t)(void);

#define device_initcall(fn)                                                              \
	static const initcall_t __initcall_##fn                                          \
		__attribute__((section(".initcall"), used, aligned(8))) = fn

/* Run every device_initcall, in link order (the Makefile's order of drivers/). */
void do_initcalls(void);

#endif
