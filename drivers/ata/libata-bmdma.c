/* Bus-master DMA of a PCI IDE controller (the SFF-8038i interface the PIIX has at BAR 4):
 * per channel a command register, a status register and the address of a table of physical
 * regions (PRD) the controller copies between the device and memory. */
#include "drivers/ata/libata.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "mm/ioremap.h"

#define ATA_DMA_CMD 0         /* from the channel's bus-master base */
#define ATA_DMA_STATUS 2
#define ATA_DMA_TABLE_OFS 4
#define ATA_DMA_START 0x01    /* command: run */
#define ATA_DMA_WR 0x08       /* command: the controller writes memory (a disk read) */
#define ATA_DMA_ACTIVE 0x01   /* status */
#define ATA_DMA_ERR 0x02
#define ATA_DMA_INTR 0x04     /* the device raised its interrupt */
#define ATA_PRD_EOT 0x80000000u
#define ATA_PRD_BOUNDARY 0x10000 /* a region may not cross 64 KiB */

int ata_bmdma_setup(uint16_t bm, uint32_t *prd, unsigned int max_prd, void *buf,
		    unsigned int bytes, bool write)
{
	uint64_t pa = virt_to_phys(buf);
	unsigned int n = 0;

	if (pa + bytes > 0x100000000UL || virt_to_phys(prd) >= 0x100000000UL)
		return -EINVAL; /* the table and its regions hold 32-bit addresses */
	while (bytes) {
		unsigned int chunk = MIN(bytes, (unsigned int)(ATA_PRD_BOUNDARY -
							      (pa & (ATA_PRD_BOUNDARY - 1))));

		if (n == max_prd)
			return -EINVAL;
		prd[2 * n] = (uint32_t)pa;
		prd[2 * n + 1] = chunk & 0xffff; /* 0 means 64 KiB */
		pa += chunk;
		bytes -= chunk;
		n++;
	}
	if (!n)
		return -EINVAL;
	prd[2 * n - 1] |= ATA_PRD_EOT;
	outb(bm + ATA_DMA_CMD, 0);
	outb(bm + ATA_DMA_STATUS, ATA_DMA_ERR | ATA_DMA_INTR); /* write one to clear */
	outl(bm + ATA_DMA_TABLE_OFS, (uint32_t)virt_to_phys(prd));
	outb(bm + ATA_DMA_CMD, write ? 0 : ATA_DMA_WR);
	return 0;
}

void ata_bmdma_start(uint16_t bm)
{
	outb(bm + ATA_DMA_CMD, inb(bm + ATA_DMA_CMD) | ATA_DMA_START);
}

int ata_bmdma_finish(uint16_t bm, uint8_t ata_status)
{
	uint8_t st = inb(bm + ATA_DMA_STATUS);

	if (!(st & (ATA_DMA_INTR | ATA_DMA_ERR)) && !(ata_status & ATA_ERR) &&
	    (st & ATA_DMA_ACTIVE))
		return -EBUSY;
	outb(bm + ATA_DMA_CMD, inb(bm + ATA_DMA_CMD) & ~ATA_DMA_START);
	outb(bm + ATA_DMA_STATUS, ATA_DMA_ERR | ATA_DMA_INTR);
	return (st & ATA_DMA_ERR) || (ata_status & (ATA_ERR | ATA_DF)) ? -EIO : 0;
}
