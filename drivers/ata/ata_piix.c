/* The PIIX IDE controller of QEMU's pc (and any PCI IDE controller in legacy mode): two
 * channels at ports 0x1F0/0x3F6 (IRQ 14) and 0x170/0x376 (IRQ 15), up to two devices each;
 * bus-master DMA with one interrupt per request, or PIO (one sector per interrupt). */
#include "drivers/ata/libata.h"
#include "drivers/block/blkdev.h"
#include "drivers/pci/pci.h"
#include "kernel/arch/trap.h"
#include "kernel/arch/x86.h"
#include "kernel/errno.h"
#include "kernel/initcall.h"
#include "kernel/irq.h"
#include "kernel/lib/cmdline.h"
#include "kernel/printk/printk.h"
#include "mm/gfp.h"
#include "mm/page.h"
#include "mm/slab.h"

/* Command block registers, from a channel's cmd base */
#define ATA_REG_DATA 0
#define ATA_REG_ERR 1
#define ATA_REG_NSECT 2
#define ATA_REG_LBAL 3
#define ATA_REG_LBAM 4
#define ATA_REG_LBAH 5
#define ATA_REG_DEVICE 6
#define ATA_REG_STATUS 7 /* reading it acknowledges the interrupt */
#define ATA_REG_CMD 7
/* The control block's one register: alternate status (read, no acknowledge), device
 * control (write) */

#define ATA_POLL_LIMIT 1000000 /* status reads before a polled wait gives up */

struct ata_channel {
	uint16_t cmd, ctl;
	unsigned int irq, port_no;
	struct request_queue *q;
	struct request *active;  /* the request the controller works on, or NULL */
	unsigned int done;       /* its sectors moved so far (PIO) */
	bool lba48[2], dma[2];   /* per device */
	uint16_t bmdma;          /* bus-master registers, 0 if none (then PIO) */
	uint32_t *prd;           /* the PRD table: a page, so it never crosses 64 KiB */
	bool dma_active;         /* the active request moves by DMA */
};

struct ata_device {
	struct ata_channel *ch;
	unsigned int devno; /* 0 master, 1 slave */
};

static struct ata_channel *irq_channel[16];

/* The alternate status, read four times: the 400 ns a device needs to post its status. */
static uint8_t ata_altstatus(const struct ata_channel *ch)
{
	uint8_t s = 0;

	for (int i = 0; i < 4; i++)
		s = inb(ch->ctl);
	return s;
}

/* Poll until BSY clears; the status, or 0xff if it never does. */
static uint8_t ata_wait_idle(const struct ata_channel *ch)
{
	for (int i = 0; i < ATA_POLL_LIMIT; i++) {
		uint8_t s = inb(ch->ctl);

		if (!(s & ATA_BUSY))
			return s;
	}
	return 0xff;
}

static void ata_pio_in(const struct ata_channel *ch, void *buf)
{
	uint16_t *w = buf;

	for (int i = 0; i < 256; i++)
		w[i] = inw(ch->cmd + ATA_REG_DATA);
}

static void ata_pio_out(const struct ata_channel *ch, const void *buf)
{
	const uint16_t *w = buf;

	for (int i = 0; i < 256; i++)
		outw(ch->cmd + ATA_REG_DATA, w[i]);
}

/* Load the task file for count sectors at lba and issue cmd (LBA48 registers are written
 * twice: the high bytes first, as the FIFO in each register wants). */
static void ata_issue_rw(const struct ata_channel *ch, unsigned int devno, bool lba48,
			 uint64_t lba, unsigned int count, uint8_t cmd)
{
	if (lba48) {
		outb(ch->cmd + ATA_REG_DEVICE, ATA_LBA | (devno ? ATA_DEV1 : 0));
		ata_altstatus(ch);
		outb(ch->cmd + ATA_REG_NSECT, (uint8_t)(count >> 8));
		outb(ch->cmd + ATA_REG_LBAL, (uint8_t)(lba >> 24));
		outb(ch->cmd + ATA_REG_LBAM, (uint8_t)(lba >> 32));
		outb(ch->cmd + ATA_REG_LBAH, (uint8_t)(lba >> 40));
	} else {
		outb(ch->cmd + ATA_REG_DEVICE, (uint8_t)(ATA_LBA | (devno ? ATA_DEV1 : 0) |
							 ((lba >> 24) & 0xf)));
		ata_altstatus(ch);
	}
	outb(ch->cmd + ATA_REG_NSECT, (uint8_t)count);
	outb(ch->cmd + ATA_REG_LBAL, (uint8_t)lba);
	outb(ch->cmd + ATA_REG_LBAM, (uint8_t)(lba >> 8));
	outb(ch->cmd + ATA_REG_LBAH, (uint8_t)(lba >> 16));
	outb(ch->cmd + ATA_REG_CMD, cmd);
}

/* End the active request and start the next (end_request calls ata_request_fn). */
static void ata_complete(struct ata_channel *ch, int error)
{
	struct request *req = ch->active;

	ch->active = NULL;
	end_request(req, error);
}

/* The queue's request_fn: start the oldest request if the channel is idle. For a write the
 * first sector goes out at once; each interrupt then moves one more. */
static void ata_request_fn(struct request_queue *q)
{
	struct ata_channel *ch = q->queuedata;
	struct request *req = elv_next_request(q);
	struct ata_device *dev;
	bool lba48;

	if (ch->active || !req)
		return;
	dev = req->rq_disk->private_data;
	lba48 = ch->lba48[dev->devno];
	ch->active = req;
	ch->done = 0;
	if (ata_wait_idle(ch) & (ATA_BUSY | ATA_DRQ)) {
		ata_complete(ch, -EIO);
		return;
	}
	ch->dma_active = ch->dma[dev->devno] &&
			 !ata_bmdma_setup(ch->bmdma, ch->prd, PAGE_SIZE / 8, req->buffer,
					  req->nr_sectors << SECTOR_SHIFT, req->cmd == WRITE);
	if (ch->dma_active) {
		ata_issue_rw(ch, dev->devno, lba48, req->sector, req->nr_sectors,
			     req->cmd == WRITE ? (lba48 ? ATA_CMD_WRITE_DMA_EXT : ATA_CMD_WRITE_DMA)
					       : (lba48 ? ATA_CMD_READ_DMA_EXT : ATA_CMD_READ_DMA));
		ata_bmdma_start(ch->bmdma);
		return;
	}
	ata_issue_rw(ch, dev->devno, lba48, req->sector, req->nr_sectors,
		     req->cmd == WRITE ? (lba48 ? ATA_CMD_WRITE_EXT : ATA_CMD_WRITE)
				       : (lba48 ? ATA_CMD_READ_EXT : ATA_CMD_READ));
	if (req->cmd == WRITE) {
		uint8_t s = ata_wait_idle(ch);

		if ((s & (ATA_ERR | ATA_DF)) || !(s & ATA_DRQ)) {
			inb(ch->cmd + ATA_REG_STATUS);
			ata_complete(ch, -EIO);
			return;
		}
		ata_pio_out(ch, req->buffer);
	}
}

/*
 * The channel raised its interrupt (or a poll found it not busy): a read has a sector to
 * take, a write has taken one. An error bit ends the request with -EIO; the device aborts
 * the command, so nothing more comes for it.
 */
static void ata_host_intr(struct ata_channel *ch)
{
	uint8_t status = inb(ch->cmd + ATA_REG_STATUS); /* acknowledges the interrupt */
	struct request *req = ch->active;
	uint8_t *buf;

	if (!req || (status & ATA_BUSY))
		return; /* not ours, or a stray one from the probe */
	if (ch->dma_active) {
		int err = ata_bmdma_finish(ch->bmdma, status);

		if (err == -EBUSY)
			return;
		if (err)
			printk("ata%u: DMA %s error at sectors %lu-%lu: status %02x error %02x\n",
			       ch->port_no, req->cmd == WRITE ? "write" : "read", req->sector,
			       req->sector + req->nr_sectors - 1, status,
			       inb(ch->cmd + ATA_REG_ERR));
		ch->dma_active = false;
		ata_complete(ch, err);
		return;
	}
	if (status & (ATA_ERR | ATA_DF)) {
		printk("ata%u: %s error at sector %lu: status %02x error %02x\n", ch->port_no,
		       req->cmd == WRITE ? "write" : "read", req->sector + ch->done, status,
		       inb(ch->cmd + ATA_REG_ERR));
		ata_complete(ch, -EIO);
		return;
	}
	buf = (uint8_t *)req->buffer + ((uint64_t)ch->done << SECTOR_SHIFT);
	if (req->cmd == READ) {
		if (!(status & ATA_DRQ))
			return;
		ata_pio_in(ch, buf);
		if (++ch->done == req->nr_sectors)
			ata_complete(ch, 0);
		return;
	}
	if (++ch->done == req->nr_sectors) {
		ata_complete(ch, 0);
		return;
	}
	if (status & ATA_DRQ)
		ata_pio_out(ch, buf + SECTOR_SIZE);
}

static void ata_interrupt(struct pt_regs *regs)
{
	struct ata_channel *ch = irq_channel[regs->vector - IRQ_BASE];

	if (ch && ch->q) {
		spin_lock(&ch->q->queue_lock); /* (interrupts are off here) */
		ata_host_intr(ch);
		spin_unlock(&ch->q->queue_lock);
	}
}

static void ata_poll(struct request_queue *q)
{
	struct ata_channel *ch = q->queuedata;

	if (ch->active && !(ata_altstatus(ch) & ATA_BUSY))
		ata_host_intr(ch);
}

/* libata.dma=0 (Linux's parameter): PIO only. */
static bool ata_dma_allowed(void)
{
	char v[8];

	return !cmdline_get("libata.dma", v, sizeof(v)) || v[0] != '0';
}

/*
 * IDENTIFY device devno, polled (interrupts are off at boot): 0 with its 256 words in id,
 * and *atapi set for a packet device (it aborts IDENTIFY DEVICE and leaves its signature
 * 0x14/0xEB in LBA mid/high; then IDENTIFY PACKET DEVICE answers); -ENODEV if none.
 */
static int ata_identify(const struct ata_channel *ch, unsigned int devno, uint16_t *id,
			bool *atapi)
{
	uint8_t cmd = ATA_CMD_ID_ATA, s;

	*atapi = false;
	outb(ch->cmd + ATA_REG_DEVICE, devno ? 0xa0 | ATA_DEV1 : 0xa0);
	ata_altstatus(ch);
	s = inb(ch->cmd + ATA_REG_STATUS);
	if (s == 0xff || s == 0x7f)
		return -ENODEV; /* floating bus: no channel, or nothing at all */
again:
	outb(ch->cmd + ATA_REG_CMD, cmd);
	ata_altstatus(ch);
	if (inb(ch->cmd + ATA_REG_STATUS) == 0)
		return -ENODEV;
	s = ata_wait_idle(ch);
	if (s == 0xff)
		return -ENODEV;
	if (s & ATA_ERR) {
		if (cmd == ATA_CMD_ID_ATA && inb(ch->cmd + ATA_REG_LBAM) == 0x14 &&
		    inb(ch->cmd + ATA_REG_LBAH) == 0xeb) {
			cmd = ATA_CMD_ID_ATAPI;
			*atapi = true;
			goto again;
		}
		return -ENODEV;
	}
	if (!(s & ATA_DRQ))
		return -ENODEV;
	ata_pio_in(ch, id);
	inb(ch->cmd + ATA_REG_STATUS);
	return 0;
}

/* Probe both devices of a channel; the channel stays, with its IRQ, only if a disk is there. */
static void ata_probe_channel(uint16_t cmd, uint16_t ctl, unsigned int irq, uint16_t bmdma)
{
	struct ata_channel *ch = kzalloc(sizeof(*ch));
	uint16_t *id = kmalloc(ATA_ID_WORDS * 2);
	int disks = 0;

	if (ch && id)
		ch->q = blk_init_queue(ata_request_fn, ch);
	if (!ch || !id || !ch->q) {
		printk("ata: no memory for the channel at %x\n", cmd);
		goto out;
	}
	ch->cmd = cmd;
	ch->ctl = ctl;
	ch->irq = irq;
	ch->port_no = ata_alloc_port_no();
	ch->q->poll = ata_poll;
	if (bmdma && ata_dma_allowed()) {
		struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);

		ch->prd = page ? page_address(page) : NULL;
		ch->bmdma = page ? bmdma : 0;
	}
	outb(ctl, ATA_NIEN); /* no interrupts while probing by polling */
	for (unsigned int devno = 0; devno < 2; devno++) {
		struct ata_device *dev;
		struct ata_id info;
		bool atapi;

		if (ata_identify(ch, devno, id, &atapi))
			continue;
		ata_id_parse(id, atapi, &info);
		if (!atapi && !(id[49] & (1u << 9))) {
			printk("ata%u.%02u: %s: no LBA, skipped\n", ch->port_no, devno, info.model);
			continue;
		}
		ch->lba48[devno] = info.lba48;
		ch->dma[devno] = ch->bmdma && info.dma;
		dev = kzalloc(sizeof(*dev));
		if (!dev)
			break;
		dev->ch = ch;
		dev->devno = devno;
		if (ata_add_disk(ch->port_no, devno, &info, ch->q, dev))
			disks++;
		else
			kfree(dev);
	}
	if (disks) {
		irq_channel[irq] = ch;
		irq_register((int)irq, ata_interrupt);
		ch->q->irq = true;
		outb(ctl, 0); /* interrupts on */
		if (ch->bmdma)
			printk("ata%u: %x/%x, irq %u, bus-master DMA at %x\n", ch->port_no, cmd,
			       ctl, irq, ch->bmdma);
		else
			printk("ata%u: %x/%x, irq %u, PIO\n", ch->port_no, cmd, ctl, irq);
		ch = NULL; /* kept */
	}
out:
	kfree(id);
	if (ch) {
		if (ch->prd)
			__free_page(virt_to_page(ch->prd));
		kfree(ch->q);
	}
	kfree(ch);
}

/* prog-if bits 0 and 2: channel in PCI native mode (its BARs and the PCI IRQ) */
static int piix_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	static const uint16_t legacy[2][2] = { { 0x1f0, 0x3f6 }, { 0x170, 0x376 } };

	uint16_t bm = 0;

	(void)ent;

	pci_enable_device(pdev);
	/* BAR 4: 16 ports of bus-master registers, 8 per channel */
	if ((pci_resource_flags(pdev, 4) & IORESOURCE_IO) && pci_resource_len(pdev, 4) >= 16) {
		bm = (uint16_t)pci_resource_start(pdev, 4);
		pci_set_master(pdev);
	}
	for (int c = 0; c < 2; c++) {
		bool native = pdev->class & (1u << (2 * c));
		uint16_t cmd = legacy[c][0], ctl = legacy[c][1];
		unsigned int irq = 14 + (unsigned int)c;

		if (native) {
			cmd = (uint16_t)pci_resource_start(pdev, 2 * c);
			ctl = (uint16_t)(pci_resource_start(pdev, 2 * c + 1) + 2);
			irq = pdev->irq;
			if (!cmd || !irq) {
				printk("ata_piix: channel %d: native mode, no ports or irq\n", c);
				continue;
			}
		}
		ata_probe_channel(cmd, ctl, irq, bm ? (uint16_t)(bm + 8 * c) : 0);
	}
	return 0;
}

static const struct pci_device_id piix_pci_tbl[] = {
	{ PCI_DEVICE(0x8086, 0x7010) }, /* PIIX3, QEMU's pc */
	{ PCI_DEVICE(0x8086, 0x7111) }, /* PIIX4 */
	{ PCI_DEVICE_CLASS(0x010100, 0xffff00) }, /* any IDE controller */
	{ 0 },
};

static struct pci_driver piix_pci_driver = {
	.name = "ata_piix",
	.id_table = piix_pci_tbl,
	.probe = piix_probe,
};

static void piix_init(void)
{
	pci_register_driver(&piix_pci_driver);
}
device_initcall(piix_init);
