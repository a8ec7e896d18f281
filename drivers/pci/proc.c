/* /proc/bus/pci/devices in Linux's format (what pciutils reads: bus and devfn, ids, irq, then
 * each resource's start with its BAR flags and its size, and the bound driver), and
 * /proc/bus/pci/lspci, one readable line per device as `lspci` prints them. */
#include "drivers/pci/pci.h"
#include "kernel/fs/proc/proc.h"
#include "kernel/initcall.h"
#include "kernel/printk/printk.h"

#define PCI_REGION_FLAG_MASK 0x0f

static void pci_devices_show(struct proc_text *t)
{
	struct list_head *pos;

	list_for_each(pos, pci_devices()) {
		const struct pci_dev *dev = list_entry(pos, struct pci_dev, bus_list);

		proc_printf(t, "%02x%02x\t%04x%04x\t%x", dev->bus, dev->devfn, dev->vendor,
			    dev->device, dev->irq);
		for (int i = 0; i < PCI_NUM_RESOURCES; i++)
			proc_printf(t, "\t%16lx",
				    dev->resource[i].start |
					    (dev->resource[i].flags & PCI_REGION_FLAG_MASK));
		for (int i = 0; i < PCI_NUM_RESOURCES; i++)
			proc_printf(t, "\t%16lx", pci_resource_len(dev, i));
		proc_printf(t, "\t%s\n", dev->driver ? dev->driver->name : "");
	}
}

static void pci_lspci_show(struct proc_text *t)
{
	struct list_head *pos;

	list_for_each(pos, pci_devices()) {
		const struct pci_dev *dev = list_entry(pos, struct pci_dev, bus_list);
		const char *name = pci_device_name(dev->vendor, dev->device);

		proc_printf(t, "%02x:%02x.%u %s: ", dev->bus, PCI_SLOT(dev->devfn),
			    PCI_FUNC(dev->devfn), pci_class_name(dev->class));
		if (name)
			proc_printf(t, "%s", name);
		else
			proc_printf(t, "Device %04x:%04x", dev->vendor, dev->device);
		proc_printf(t, " (rev %02x)\n", dev->revision);
	}
}

static const struct proc_entry proc_pci_devices = { "devices", 16384, pci_devices_show, NULL };
static const struct proc_entry proc_pci_lspci = { "lspci", 8192, pci_lspci_show, NULL };

static void pci_proc_init(void)
{
	if (proc_create("bus/pci/devices", &proc_pci_devices) ||
	    proc_create("bus/pci/lspci", &proc_pci_lspci))
		printk("pci: cannot create /proc/bus/pci files\n");
}
device_initcall(pci_proc_init);
