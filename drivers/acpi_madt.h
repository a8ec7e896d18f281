/* The ACPI MADT ("APIC" table): the machine's CPUs (local APIC and x2APIC entries), its I/O
 * APICs and the ISA interrupt source overrides, parsed by drivers/acpi_madt.c. */
#ifndef DRIVERS_ACPI_MADT_H
#define DRIVERS_ACPI_MADT_H

#include "kernel/compiler.h"

#define MADT_MAX_CPUS 64
#define MADT_MAX_IOAPICS 8
#define MADT_MAX_OVERRIDES 16

#define MADT_PCAT_COMPAT 1u /* MADT flags: the machine also has the two 8259s */

/* Interrupt source override flags (MPS INTI flags): polarity bits 1:0, trigger mode 3:2. */
#define MPS_POLARITY_MASK 3u
#define MPS_POLARITY_LOW 3u
#define MPS_TRIGGER_MASK (3u << 2)
#define MPS_TRIGGER_LEVEL (3u << 2)

struct madt_cpu {
	uint32_t apic_id;   /* local APIC id (x2APIC id for an x2APIC entry) */
	uint32_t acpi_uid;  /* the ACPI processor UID */
	bool x2apic;        /* from a Processor Local x2APIC entry */
};

struct madt_ioapic {
	uint8_t id;
	uint32_t addr;     /* physical address of its two registers */
	uint32_t gsi_base; /* the first global system interrupt its pins carry */
};

struct madt_override {
	uint8_t bus_irq; /* the ISA IRQ */
	uint32_t gsi;    /* the global system interrupt it arrives on */
	uint16_t flags;  /* MPS_POLARITY_*, MPS_TRIGGER_* */
};

struct madt_info {
	uint64_t lapic_addr; /* the local APIC's physical address (or the address override) */
	uint32_t flags;      /* MADT_PCAT_COMPAT */
	int nr_cpus;         /* enabled CPUs, in table order: the boot CPU comes first */
	struct madt_cpu cpus[MADT_MAX_CPUS];
	int nr_disabled;     /* entries neither enabled (absent or only online-capable) */
	int nr_ignored;      /* enabled CPUs beyond MADT_MAX_CPUS or with a repeated id */
	int nr_ioapics;
	struct madt_ioapic ioapics[MADT_MAX_IOAPICS];
	int nr_overrides;
	struct madt_override overrides[MADT_MAX_OVERRIDES];
};

/*
 * Parse the whole MADT at t (len bytes available there) into *out. 0, or -EINVAL with *why
 * naming what is wrong (a bad signature, length, checksum, an entry running past the table
 * or too short for its type, an I/O APIC or override table overflow); *out is then partial.
 */
int acpi_parse_madt(const uint8_t *t, size_t len, struct madt_info *out, const char **why);

/* The GSI that ISA IRQ irq arrives on and its override flags (identity when no override). */
uint32_t madt_irq_to_gsi(const struct madt_info *m, int irq, uint16_t *flags);

/* The machine's MADT, read by madt_init() (after acpi_init); nr_cpus 0 when there is none. */
extern struct madt_info madt;
void madt_init(void);

#endif
