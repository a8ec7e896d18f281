/* ATA code the PIIX and AHCI drivers share: decoding IDENTIFY, numbering the ports, and
 * registering an identified disk with the block layer. */
#include "drivers/ata/libata.h"
#include "drivers/block/blkdev.h"
#include "kernel/printk/printk.h"

static unsigned int ata_ports;

unsigned int ata_alloc_port_no(void)
{
	return ++ata_ports;
}

/* ATA strings hold two characters per word, the first in the high byte; trailing spaces go. */
static void ata_id_string(const uint16_t *id, int first, int words, char *out)
{
	int len = 0;

	for (int i = 0; i < words; i++) {
		out[len++] = (char)(id[first + i] >> 8);
		out[len++] = (char)id[first + i];
	}
	while (len && (out[len - 1] == ' ' || !out[len - 1]))
		len--;
	out[len] = 0;
}

void ata_id_parse(const uint16_t *id, bool atapi, struct ata_id *out)
{
	ata_id_string(id, 10, 10, out->serial);
	ata_id_string(id, 23, 4, out->fw_rev);
	ata_id_string(id, 27, 20, out->model);
	out->atapi = atapi;
	out->lba48 = !atapi && (id[83] & (1u << 10)); /* 48-bit address feature set */
	out->dma = id[49] & (1u << 8);
	if (out->lba48)
		out->sectors = id[100] | (uint64_t)id[101] << 16 | (uint64_t)id[102] << 32 |
			       (uint64_t)id[103] << 48;
	else if (!atapi)
		out->sectors = id[60] | (uint64_t)id[61] << 16;
	else
		out->sectors = 0;
}

struct gendisk *ata_add_disk(unsigned int port_no, unsigned int devno, const struct ata_id *id,
			     struct request_queue *q, void *priv)
{
	struct gendisk *disk;

	if (id->atapi) {
		printk("ata%u.%02u: ATAPI: %s, %s: not a disk, skipped\n", port_no, devno,
		       id->model, id->fw_rev);
		return NULL;
	}
	printk("ata%u.%02u: ATA: %s, %s, serial %s\n", port_no, devno, id->model, id->fw_rev,
	       id->serial);
	printk("ata%u.%02u: %lu sectors: %s\n", port_no, devno, id->sectors,
	       id->lba48 ? "LBA48" : "LBA");
	disk = alloc_disk_sd();
	if (!disk) {
		printk("ata%u.%02u: no disk name or memory: skipped\n", port_no, devno);
		return NULL;
	}
	disk->capacity = id->sectors;
	disk->queue = q;
	disk->private_data = priv;
	printk("sd %u:0:%u:0: [%s] %lu 512-byte logical blocks: (%lu MiB)\n", port_no - 1, devno,
	       disk->disk_name, id->sectors, id->sectors >> 11);
	add_disk(disk);
	return disk;
}
