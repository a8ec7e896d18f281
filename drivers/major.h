/* The majors of device numbers that more than one driver registers minors under (Linux's
 * include/linux/major.h). */
#ifndef DRIVERS_MAJOR_H
#define DRIVERS_MAJOR_H

/* /dev/null and /dev/zero (drivers/mem.c), /dev/random and /dev/urandom (drivers/random.c) */
#define MEM_MAJOR 1

#endif
