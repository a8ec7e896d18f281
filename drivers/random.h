/* Random numbers (drivers/random.c): for getrandom, /dev/urandom and /dev/random. */
#ifndef DRIVERS_RANDOM_H
#define DRIVERS_RANDOM_H

#include "kernel/compiler.h"

/* n bytes from a xorshift generator stirred with the TSC at every byte: unpredictable enough
 * for a teaching kernel's stack canaries and temporary names, not for cryptography. */
void get_random_bytes(void *buf, size_t n);

#endif
