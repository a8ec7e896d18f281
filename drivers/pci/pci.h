/* PCI: the devices found on the buses through configuration mechanism #1, their decoded BARs,
 * and the drivers that bind to them by an id table (Linux's struct pci_driver), so a new
 * driver is one file that calls pci_register_driver from its device_initcall. */
#ifndef DRIVERS_PCI_PCI_H
#define DRIVERS_PCI_PCI_H

#include "kernel/compiler.h"
#include "kernel/lib/list.h"

/* Configuration space registers (the common header) */
#define PCI_VENDOR_ID 0x00
#define PCI_DEVICE_ID 0x02
#define PCI_COMMAND 0x04
#define PCI_COMMAND_IO 0x1     /* decode its I/O BARs */
#define PCI_COMMAND_MEMORY 0x2 /* decode its memory BARs */
#define PCI_COMMAND_MASTER 0x4 /* may start DMA on the bus */
#define PCI_COMMAND_INTX_DISABLE 0x400
#define PCI_STATUS 0x06
#define PCI_CLASS_REVISION 0x08 /* class << 8 | revision: base, sub-class, prog-if */
#define PCI_HEADER_TYPE 0x0e    /* bit 7: a multi-function device */
#define PCI_BASE_ADDRESS_0 0x10
#define PCI_PRIMARY_BUS 0x18   /* bridges (header type 1): the buses behind them */
#define PCI_SECONDARY_BUS 0x19
#define PCI_ROM_ADDRESS 0x30
#define PCI_ROM_ADDRESS1 0x38  /* a bridge's */
#define PCI_INTERRUPT_LINE 0x3c /* the PIC line the firmware routed INTx to */
#define PCI_INTERRUPT_PIN 0x3d  /* 1..4 = INTA..INTD, 0 none */

#define PCI_HEADER_TYPE_NORMAL 0
#define PCI_HEADER_TYPE_BRIDGE 1

/* A BAR's low bits, kept in a resource's flags as Linux's /proc/bus/pci/devices shows them */
#define PCI_BASE_ADDRESS_SPACE_IO 0x1
#define PCI_BASE_ADDRESS_MEM_TYPE_MASK 0x6
#define PCI_BASE_ADDRESS_MEM_TYPE_64 0x4
#define PCI_BASE_ADDRESS_MEM_PREFETCH 0x8
#define IORESOURCE_IO 0x100
#define IORESOURCE_MEM 0x200

#define PCI_NUM_RESOURCES 7 /* BAR 0..5 and the expansion ROM */
#define PCI_ROM_RESOURCE 6
#define PCI_ANY_ID 0xffffffffu

#define PCI_SLOT(devfn) (((devfn) >> 3) & 0x1f)
#define PCI_FUNC(devfn) ((devfn) & 7)
#define PCI_DEVFN(slot, fn) ((((slot) & 0x1f) << 3) | ((fn) & 7))

struct resource {
	uint64_t start, end; /* end inclusive; start == end == 0: no resource */
	unsigned long flags; /* IORESOURCE_IO or _MEM, plus the BAR's low bits (0x0f) */
};

struct pci_driver;

struct pci_dev {
	struct list_head bus_list;
	unsigned int bus;
	unsigned int devfn;
	uint16_t vendor, device;
	uint32_t class; /* base << 16 | sub-class << 8 | prog-if */
	uint8_t revision, hdr_type, pin;
	unsigned int irq; /* the PIC line from PCI_INTERRUPT_LINE; 0: none routed */
	struct resource resource[PCI_NUM_RESOURCES];
	struct pci_driver *driver; /* bound driver, NULL if none took it */
	void *driver_data;
};

/* An id table entry: PCI_ANY_ID matches any vendor or device; class is compared under
 * class_mask. A table ends with an all-zero entry. */
struct pci_device_id {
	uint32_t vendor, device;
	uint32_t class, class_mask;
};

#define PCI_DEVICE(v, d) .vendor = (v), .device = (d)
#define PCI_DEVICE_CLASS(c, m) .vendor = PCI_ANY_ID, .device = PCI_ANY_ID, .class = (c), \
	.class_mask = (m)

struct pci_driver {
	const char *name;
	const struct pci_device_id *id_table;
	/* Take dev: 0 binds it to this driver; an error leaves it for another. */
	int (*probe)(struct pci_dev *dev, const struct pci_device_id *id);
	struct pci_driver *next;
};

/* Bind drv to every device (found now or later) its id table matches. */
int pci_register_driver(struct pci_driver *drv);

/* Configuration space of dev, aligned accesses */
uint8_t pci_read_config_byte(const struct pci_dev *dev, unsigned int where);
uint16_t pci_read_config_word(const struct pci_dev *dev, unsigned int where);
uint32_t pci_read_config_dword(const struct pci_dev *dev, unsigned int where);
void pci_write_config_word(const struct pci_dev *dev, unsigned int where, uint16_t val);
void pci_write_config_dword(const struct pci_dev *dev, unsigned int where, uint32_t val);

/* Turn on decoding of dev's I/O and memory BARs (Linux's pci_enable_device). */
int pci_enable_device(struct pci_dev *dev);
/* Let dev master the bus, for DMA. */
void pci_set_master(struct pci_dev *dev);

static inline uint64_t pci_resource_start(const struct pci_dev *dev, int bar)
{
	return dev->resource[bar].start;
}
static inline uint64_t pci_resource_len(const struct pci_dev *dev, int bar)
{
	const struct resource *r = &dev->resource[bar];

	return r->end > r->start ? r->end - r->start + 1 : 0;
}
static inline unsigned long pci_resource_flags(const struct pci_dev *dev, int bar)
{
	return dev->resource[bar].flags;
}

/* Every device found, in bus order. */
struct list_head *pci_devices(void);

/* drivers/pci/pci_ids.c: a readable name for a device (NULL if unknown) and its class. */
const char *pci_device_name(uint16_t vendor, uint16_t device);
const char *pci_class_name(uint32_t class);

#endif
