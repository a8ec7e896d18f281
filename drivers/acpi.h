/* The little of ACPI that turning a PC off or restarting it needs (drivers/acpi.c): the FADT's
 * PM1 control registers with the \_S5_ sleep type, and its reset register. */
#ifndef DRIVERS_ACPI_H
#define DRIVERS_ACPI_H

#include "kernel/arch/multiboot2.h"
#include "kernel/compiler.h"

/* Sum of len bytes is 0 mod 256: how every ACPI table (and the RSDP) proves it is whole. */
bool acpi_checksum_ok(const void *p, size_t len);

/*
 * Find "Name (_S5_, Package () { a, b, ... })" in AML (a DSDT or SSDT body) and return its
 * first two elements, the SLP_TYPa and SLP_TYPb values for the soft-off state. Returns 0,
 * or -ENOENT when there is no such package, or -EINVAL when one is there but malformed.
 */
int acpi_parse_s5(const uint8_t *aml, size_t len, uint8_t *slp_typa, uint8_t *slp_typb);

/* At boot, after mm_init: find and check the tables, map them, print one line. */
void acpi_init(const struct boot_info *bi);

/* The first table the root table lists with signature sig, mapped and checked; or NULL. */
const uint8_t *acpi_find_table(const char *sig);

#endif
