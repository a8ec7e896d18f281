/* The integer square root (kernel/lib/int_sqrt.c). */
#ifndef KERNEL_INT_SQRT_H
#define KERNEL_INT_SQRT_H

/* The largest y with y * y <= x, found bit by bit (two bits of x a step). */
unsigned long int_sqrt(unsigned long x);

#endif
