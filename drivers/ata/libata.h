/* What the ATA drivers share: the command set (ATA8-ACS numbers), IDENTIFY DEVICE's answer
 * decoded, and the step that turns an identified disk into an sd gendisk. */
#ifndef DRIVERS_ATA_LIBATA_H
#define DRIVERS_ATA_LIBATA_H

#include "kernel/compiler.h"

struct gendisk;
struct request_queue;

/* Commands */
#define ATA_CMD_READ 0x20          /* READ SECTORS (PIO, LBA28) */
#define ATA_CMD_READ_EXT 0x24      /* READ SECTORS EXT (PIO, LBA48) */
#define ATA_CMD_READ_DMA 0xc8
#define ATA_CMD_READ_DMA_EXT 0x25
#define ATA_CMD_WRITE_DMA 0xca
#define ATA_CMD_WRITE 0x30
#define ATA_CMD_WRITE_EXT 0x34
#define ATA_CMD_WRITE_DMA_EXT 0x35
#define ATA_CMD_ID_ATA 0xec        /* IDENTIFY DEVICE */
#define ATA_CMD_ID_ATAPI 0xa1      /* IDENTIFY PACKET DEVICE */

/* Status register bits */
#define ATA_ERR 0x01
#define ATA_DRQ 0x08  /* the device wants data moved */
#define ATA_DF 0x20   /* device fault */
#define ATA_DRDY 0x40
#define ATA_BUSY 0x80
/* Device register: LBA addressing; bit 4 picks the slave */
#define ATA_LBA 0x40
#define ATA_DEV1 0x10
/* Device control register */
#define ATA_NIEN 0x02 /* no interrupts */
#define ATA_SRST 0x04

#define ATA_ID_WORDS 256
#define ATA_MAX_SECTORS_LBA28 (1UL << 28)

/* A device's IDENTIFY data, decoded. */
struct ata_id {
	char model[41], serial[21], fw_rev[9];
	uint64_t sectors;  /* addressable 512-byte sectors */
	bool lba48, atapi;
	bool dma; /* word 49 bit 8: DMA transfers */
};

/* Decode IDENTIFY (PACKET) DEVICE's 256 words (strings are byte-swapped in each word). */
void ata_id_parse(const uint16_t *id, bool atapi, struct ata_id *out);
/* The next ataN number (ata1, ata2, ...): one per channel or SATA port, as Linux counts. */
unsigned int ata_alloc_port_no(void);
/* Print what port print_id found (as Linux: "ata1.00: ATA-7: QEMU HARDDISK ...") and, for
 * a disk, make it sdX on queue q with private data priv: the gendisk, or NULL (an ATAPI
 * device is listed and skipped, or no memory). */
struct gendisk *ata_add_disk(unsigned int port_no, unsigned int devno, const struct ata_id *id,
			     struct request_queue *q, void *priv);

/* libata-bmdma.c: a PCI IDE channel's bus-master DMA, bus-master registers at bm. */
/* Describe buf (bytes, physically contiguous, below 4 GiB) in the PRD table prd (max_prd
 * entries, physically contiguous) and arm the engine for the direction; -EINVAL if it does
 * not fit. Then issue the ATA DMA command and ata_bmdma_start. */
int ata_bmdma_setup(uint16_t bm, uint32_t *prd, unsigned int max_prd, void *buf,
		    unsigned int bytes, bool write);
void ata_bmdma_start(uint16_t bm);
/* On the device's interrupt (ata_status read from its status register): -EBUSY if the
 * transfer is not over; else the engine is stopped and 0 or -EIO returned. */
int ata_bmdma_finish(uint16_t bm, uint8_t ata_status);

#endif
