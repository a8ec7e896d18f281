/* PCI enumeration through configuration mechanism #1 (an address written to port 0xCF8, the
 * data at 0xCFC): bus 0, then the bus behind each bridge; BARs decoded and sized; each device
 * printed and offered to the registered drivers. */
#include "drivers/pci/pci.h"
#include "kernel/arch/x86.h"
#include "kernel/initcall.h"
#include "kernel/locking/spinlock.h"
#include "kernel/printk/printk.h"
#include "mm/slab.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc

static LIST_HEAD(pci_device_list);
static struct pci_driver *pci_drivers;

struct list_head *pci_devices(void)
{
	return &pci_device_list;
}

static DEFINE_SPINLOCK(pci_config_lock); /* the one address/data port pair of every CPU */

/* Bit 31 enables the access; then bus, device, function and the dword's register number. */
static uint32_t conf1_address(unsigned int bus, unsigned int devfn, unsigned int where)
{
	return 0x80000000u | bus << 16 | devfn << 8 | (where & 0xfc);
}

static uint32_t conf1_read(unsigned int bus, unsigned int devfn, unsigned int where)
{
	uint64_t flags;
	uint32_t v;

	spin_lock_irqsave(&pci_config_lock, flags); /* the address/data pair must not be split */
	outl(PCI_CONFIG_ADDRESS, conf1_address(bus, devfn, where));
	v = inl(PCI_CONFIG_DATA);
	spin_unlock_irqrestore(&pci_config_lock, flags);
	return v;
}

static void conf1_write(unsigned int bus, unsigned int devfn, unsigned int where, uint32_t v)
{
	uint64_t flags;

	spin_lock_irqsave(&pci_config_lock, flags);
	outl(PCI_CONFIG_ADDRESS, conf1_address(bus, devfn, where));
	outl(PCI_CONFIG_DATA, v);
	spin_unlock_irqrestore(&pci_config_lock, flags);
}

uint32_t pci_read_config_dword(const struct pci_dev *dev, unsigned int where)
{
	return conf1_read(dev->bus, dev->devfn, where);
}

uint16_t pci_read_config_word(const struct pci_dev *dev, unsigned int where)
{
	return (uint16_t)(conf1_read(dev->bus, dev->devfn, where) >> ((where & 2) * 8));
}

uint8_t pci_read_config_byte(const struct pci_dev *dev, unsigned int where)
{
	return (uint8_t)(conf1_read(dev->bus, dev->devfn, where) >> ((where & 3) * 8));
}

void pci_write_config_dword(const struct pci_dev *dev, unsigned int where, uint32_t val)
{
	conf1_write(dev->bus, dev->devfn, where, val);
}

/* A read-modify-write of the dword: the other half is written back as read (the status
 * register's write-one-to-clear bits read as the device has them, which is harmless here). */
void pci_write_config_word(const struct pci_dev *dev, unsigned int where, uint16_t val)
{
	unsigned int shift = (where & 2) * 8;
	uint32_t v = conf1_read(dev->bus, dev->devfn, where);

	v = (v & ~(0xffffu << shift)) | (uint32_t)val << shift;
	conf1_write(dev->bus, dev->devfn, where, v);
}

int pci_enable_device(struct pci_dev *dev)
{
	uint16_t cmd = pci_read_config_word(dev, PCI_COMMAND);

	for (int i = 0; i < PCI_ROM_RESOURCE; i++) {
		if (dev->resource[i].flags & IORESOURCE_IO)
			cmd |= PCI_COMMAND_IO;
		if (dev->resource[i].flags & IORESOURCE_MEM)
			cmd |= PCI_COMMAND_MEMORY;
	}
	pci_write_config_word(dev, PCI_COMMAND, cmd);
	return 0;
}

void pci_set_master(struct pci_dev *dev)
{
	uint16_t cmd = pci_read_config_word(dev, PCI_COMMAND);

	pci_write_config_word(dev, PCI_COMMAND, cmd | PCI_COMMAND_MASTER);
}

/*
 * Size one BAR: write all ones, read back which address bits stick (the device hardwires the
 * bits below its size to zero), put the original back. Decoding is off meanwhile so the
 * all-ones address never claims a bus cycle. Returns the number of BAR registers used (2
 * for a 64-bit memory BAR).
 */
static int pci_read_bar(struct pci_dev *dev, int i, unsigned int reg)
{
	uint32_t orig = pci_read_config_dword(dev, reg), mask, orig_hi = 0, mask_hi = ~0u;
	struct resource *r = &dev->resource[i];
	uint64_t base, size;
	int used = 1;

	pci_write_config_dword(dev, reg, ~0u);
	mask = pci_read_config_dword(dev, reg);
	pci_write_config_dword(dev, reg, orig);
	if (!mask || mask == ~0u)
		return 1; /* not implemented */
	if (orig & PCI_BASE_ADDRESS_SPACE_IO) {
		base = orig & ~3u;
		size = (uint16_t)(~(mask & ~3u) + 1);
		r->flags = IORESOURCE_IO | (orig & 0x3);
	} else {
		if ((orig & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64) {
			orig_hi = pci_read_config_dword(dev, reg + 4);
			pci_write_config_dword(dev, reg + 4, ~0u);
			mask_hi = pci_read_config_dword(dev, reg + 4);
			pci_write_config_dword(dev, reg + 4, orig_hi);
			used = 2;
		}
		base = ((uint64_t)orig_hi << 32) | (orig & ~0xfu);
		size = ~(((uint64_t)mask_hi << 32) | (mask & ~0xfu)) + 1;
		r->flags = IORESOURCE_MEM | (orig & 0xf);
	}
	if (!size)
		return used;
	r->start = base;
	r->end = base + size - 1;
	return used;
}

/* The expansion ROM's BAR: bit 0 enables it, the address bits size it as any BAR. */
static void pci_read_rom(struct pci_dev *dev, unsigned int reg)
{
	uint32_t orig = pci_read_config_dword(dev, reg), mask;
	struct resource *r = &dev->resource[PCI_ROM_RESOURCE];

	pci_write_config_dword(dev, reg, 0xfffff800u);
	mask = pci_read_config_dword(dev, reg) & 0xfffff800u;
	pci_write_config_dword(dev, reg, orig);
	if (!mask)
		return;
	r->start = orig & 0xfffff800u;
	r->end = r->start + (uint32_t)(~mask + 1) - 1;
	r->flags = IORESOURCE_MEM;
}

/* A host bridge keeps decoding while it is sized: on some PCs turning it off cuts the CPU
 * from memory (Linux's mmio_always_on quirk). */
static void pci_read_bases(struct pci_dev *dev, int nbars, unsigned int rom)
{
	uint16_t cmd = pci_read_config_word(dev, PCI_COMMAND);

	if (dev->class >> 8 != 0x0600)
		pci_write_config_word(dev, PCI_COMMAND,
				      cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (int i = 0; i < nbars;)
		i += pci_read_bar(dev, i, PCI_BASE_ADDRESS_0 + 4 * i);
	pci_read_rom(dev, rom);
	if (dev->class >> 8 != 0x0600)
		pci_write_config_word(dev, PCI_COMMAND, cmd);
}

static const struct pci_device_id *pci_match_id(const struct pci_device_id *ids,
						 const struct pci_dev *dev)
{
	for (; ids->vendor || ids->class_mask; ids++) {
		if ((ids->vendor == PCI_ANY_ID || ids->vendor == dev->vendor) &&
		    (ids->device == PCI_ANY_ID || ids->device == dev->device) &&
		    !((ids->class ^ dev->class) & ids->class_mask))
			return ids;
	}
	return NULL;
}

/* Offer dev to drv: bound if drv's table matches and its probe takes it. */
static void pci_try_driver(struct pci_driver *drv, struct pci_dev *dev)
{
	const struct pci_device_id *id;

	if (dev->driver || !(id = pci_match_id(drv->id_table, dev)))
		return;
	if (drv->probe(dev, id) == 0)
		dev->driver = drv;
}

int pci_register_driver(struct pci_driver *drv)
{
	struct list_head *pos;

	drv->next = pci_drivers;
	pci_drivers = drv;
	list_for_each(pos, &pci_device_list)
		pci_try_driver(drv, list_entry(pos, struct pci_dev, bus_list));
	return 0;
}

/* One line per function, as Linux's "pci 0000:00:01.1: [8086:7010] type 00 class 0x010180";
 * its BARs are in /proc/bus/pci/devices (the drivers print the ones they use). */
static void pci_print(const struct pci_dev *dev)
{
	const char *name = pci_device_name(dev->vendor, dev->device);

	printk("pci 0000:%02x:%02x.%u: [%04x:%04x] class %06x %s%s%s", dev->bus,
	       PCI_SLOT(dev->devfn), PCI_FUNC(dev->devfn), dev->vendor, dev->device, dev->class,
	       pci_class_name(dev->class), name ? ": " : "", name ? name : "");
	if (dev->pin)
		printk(" irq %u", dev->irq);
	printk("\n");
}

static void pci_scan_bus(unsigned int bus, int depth);

/* Function fn of a slot answered (vendor not 0xffff): record it; a bridge's bus is scanned. */
static void pci_scan_device(unsigned int bus, unsigned int devfn, uint32_t id, int depth)
{
	struct pci_dev *dev = kzalloc(sizeof(*dev));
	uint32_t class;

	if (!dev)
		return;
	dev->bus = bus;
	dev->devfn = devfn;
	dev->vendor = (uint16_t)id;
	dev->device = (uint16_t)(id >> 16);
	class = pci_read_config_dword(dev, PCI_CLASS_REVISION);
	dev->class = class >> 8;
	dev->revision = (uint8_t)class;
	dev->hdr_type = pci_read_config_byte(dev, PCI_HEADER_TYPE) & 0x7f;
	dev->pin = pci_read_config_byte(dev, PCI_INTERRUPT_PIN);
	dev->irq = dev->pin ? pci_read_config_byte(dev, PCI_INTERRUPT_LINE) : 0;
	if (dev->irq >= 16)
		dev->irq = 0; /* 0xff: the firmware routed it nowhere the PIC can see */
	if (dev->hdr_type == PCI_HEADER_TYPE_NORMAL)
		pci_read_bases(dev, 6, PCI_ROM_ADDRESS);
	else if (dev->hdr_type == PCI_HEADER_TYPE_BRIDGE)
		pci_read_bases(dev, 2, PCI_ROM_ADDRESS1);
	list_add_tail(&dev->bus_list, &pci_device_list);
	pci_print(dev);
	if (dev->hdr_type == PCI_HEADER_TYPE_BRIDGE && depth < 8) {
		unsigned int sec = pci_read_config_byte(dev, PCI_SECONDARY_BUS);

		if (sec > bus) /* the firmware numbered it; a 0 would loop back to bus 0 */
			pci_scan_bus(sec, depth + 1);
	}
}

/* Every slot of bus; functions 1..7 only where function 0 says multi-function (bit 7). */
static void pci_scan_bus(unsigned int bus, int depth)
{
	for (unsigned int slot = 0; slot < 32; slot++) {
		for (unsigned int fn = 0; fn < 8; fn++) {
			unsigned int devfn = PCI_DEVFN(slot, fn);
			uint32_t id = conf1_read(bus, devfn, PCI_VENDOR_ID);

			if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0) {
				if (fn == 0)
					break;
				continue;
			}
			pci_scan_device(bus, devfn, id, depth);
			if (fn == 0 && !(conf1_read(bus, devfn, 0x0c) & 0x00800000u))
				break;
		}
	}
}

/*
 * Mechanism #1 exists if the address register keeps what is written to it (Linux's
 * pci_check_type1). Then scan, and offer each device to the drivers registered so far
 * (the others meet the devices in pci_register_driver).
 */
static void pci_init(void)
{
	uint32_t saved = inl(PCI_CONFIG_ADDRESS);
	struct list_head *pos;

	outl(PCI_CONFIG_ADDRESS, 0x80000000u);
	if (inl(PCI_CONFIG_ADDRESS) != 0x80000000u) {
		outl(PCI_CONFIG_ADDRESS, saved);
		printk("pci: no configuration mechanism #1: no PCI devices\n");
		return;
	}
	outl(PCI_CONFIG_ADDRESS, saved);
	pci_scan_bus(0, 0);
	list_for_each(pos, &pci_device_list) {
		struct pci_dev *dev = list_entry(pos, struct pci_dev, bus_list);

		for (struct pci_driver *drv = pci_drivers; drv; drv = drv->next)
			pci_try_driver(drv, dev);
	}
}
device_initcall(pci_init);
