/* Readable names for the PCI devices QEMU's pc and q35 machines (and common PCs) have, and
 * for the classes, as lspci prints them; boot messages and /proc/bus/pci/lspci use them. */
#include "drivers/pci/pci.h"

static const struct {
	uint16_t vendor, device;
	const char *name;
} pci_names[] = {
	{ 0x8086, 0x1237, "Intel 440FX - 82441FX PMC [Natoma]" },
	{ 0x8086, 0x7000, "Intel 82371SB PIIX3 ISA [Natoma/Triton II]" },
	{ 0x8086, 0x7010, "Intel 82371SB PIIX3 IDE [Natoma/Triton II]" },
	{ 0x8086, 0x7020, "Intel 82371SB PIIX3 USB [Natoma/Triton II]" },
	{ 0x8086, 0x7111, "Intel 82371AB/EB/MB PIIX4 IDE" },
	{ 0x8086, 0x7113, "Intel 82371AB/EB/MB PIIX4 ACPI" },
	{ 0x8086, 0x29c0, "Intel 82G33/G31/P35/P31 Express DRAM Controller" },
	{ 0x8086, 0x2918, "Intel 82801IB (ICH9) LPC Interface Controller" },
	{ 0x8086, 0x2922, "Intel 82801IR/IO/IH (ICH9R/DO/DH) 6 port SATA Controller [AHCI mode]" },
	{ 0x8086, 0x2930, "Intel 82801I (ICH9 Family) SMBus Controller" },
	{ 0x8086, 0x100e, "Intel 82540EM Gigabit Ethernet Controller" },
	{ 0x8086, 0x10d3, "Intel 82574L Gigabit Network Connection" },
	{ 0x1234, 0x1111, "QEMU Standard VGA" },
	{ 0x1b36, 0x000d, "Red Hat QEMU XHCI Host Controller" },
	{ 0x1af4, 0x1000, "Red Hat Virtio network device" },
	{ 0x1af4, 0x1001, "Red Hat Virtio block device" },
};

static const struct {
	uint16_t class; /* base << 8 | sub-class */
	const char *name;
} pci_classes[] = {
	{ 0x0100, "SCSI storage controller" },
	{ 0x0101, "IDE interface" },
	{ 0x0106, "SATA controller" },
	{ 0x0180, "Mass storage controller" },
	{ 0x0200, "Ethernet controller" },
	{ 0x0300, "VGA compatible controller" },
	{ 0x0380, "Display controller" },
	{ 0x0600, "Host bridge" },
	{ 0x0601, "ISA bridge" },
	{ 0x0604, "PCI bridge" },
	{ 0x0680, "Bridge" },
	{ 0x0c03, "USB controller" },
	{ 0x0c05, "SMBus" },
};

const char *pci_device_name(uint16_t vendor, uint16_t device)
{
	for (size_t i = 0; i < ARRAY_SIZE(pci_names); i++)
		if (pci_names[i].vendor == vendor && pci_names[i].device == device)
			return pci_names[i].name;
	return NULL;
}

const char *pci_class_name(uint32_t class)
{
	for (size_t i = 0; i < ARRAY_SIZE(pci_classes); i++)
		if (pci_classes[i].class == class >> 8)
			return pci_classes[i].name;
	return "Unclassified device";
}
