/* AHCI, the SATA host controller interface (QEMU q35's ICH9): each port with a disk gets a
 * command list, a received-FIS area and a command table in DMA memory; a request is one
 * READ/WRITE DMA EXT in slot 0, completed by the port's interrupt (INTx through the PIC). */
#include "drivers/ata/libata.h"
#include "drivers/block/blkdev.h"
#include "drivers/pci/pci.h"
#include "kernel/errno.h"
#include "kernel/initcall.h"
#include "kernel/irq.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "mm/gfp.h"
#include "mm/ioremap.h"
#include "mm/page.h"
#include "mm/slab.h"

/* HBA registers */
#define HOST_CAP 0x00
#define HOST_CAP_64 (1u << 31) /* 64-bit DMA addresses */
#define HOST_CTL 0x04
#define HOST_IRQ_STAT 0x08
#define HOST_PORTS_IMPL 0x0c
#define HOST_VERSION 0x10
#define HOST_RESET (1u << 0)
#define HOST_IRQ_EN (1u << 1)
#define HOST_AHCI_EN (1u << 31)

/* Port registers, at 0x100 + 0x80 * port */
#define PORT_LST_ADDR 0x00
#define PORT_LST_ADDR_HI 0x04
#define PORT_FIS_ADDR 0x08
#define PORT_FIS_ADDR_HI 0x0c
#define PORT_IRQ_STAT 0x10
#define PORT_IRQ_MASK 0x14
#define PORT_CMD 0x18
#define PORT_TFDATA 0x20
#define PORT_SIG 0x24
#define PORT_SCR_STAT 0x28
#define PORT_SCR_ERR 0x30
#define PORT_CMD_ISSUE 0x38

#define PORT_CMD_START (1u << 0)   /* process the command list */
#define PORT_CMD_FIS_RX (1u << 4)  /* accept FISes from the device */
#define PORT_CMD_FIS_ON (1u << 14) /* FIS receive engine running */
#define PORT_CMD_LIST_ON (1u << 15) /* command list engine running */

#define PORT_IRQ_D2H_REG_FIS (1u << 0)
#define PORT_IRQ_PIOS_FIS (1u << 1)
#define PORT_IRQ_SDB_FIS (1u << 3)
#define PORT_IRQ_IF_ERR (1u << 27)
#define PORT_IRQ_HBUS_DATA_ERR (1u << 28)
#define PORT_IRQ_HBUS_ERR (1u << 29)
#define PORT_IRQ_TF_ERR (1u << 30)
#define PORT_IRQ_ERROR (PORT_IRQ_TF_ERR | PORT_IRQ_HBUS_ERR | PORT_IRQ_HBUS_DATA_ERR | \
			PORT_IRQ_IF_ERR)
#define DEF_PORT_IRQ (PORT_IRQ_ERROR | PORT_IRQ_D2H_REG_FIS | PORT_IRQ_PIOS_FIS | \
		      PORT_IRQ_SDB_FIS)

#define SATA_SIG_ATA 0x00000101
#define SATA_SIG_ATAPI 0xeb140101

/* One page of DMA memory per port: where each structure sits in it */
#define AHCI_CMD_LIST 0x000  /* 32 command headers of 32 bytes, 1 KiB aligned */
#define AHCI_RX_FIS 0x400    /* 256 bytes, 256-byte aligned */
#define AHCI_CMD_TBL 0x800   /* 128-byte aligned: command FIS, ATAPI command, then PRDT */
#define AHCI_CMD_TBL_PRDT 0x80
#define AHCI_MAX_PRD ((PAGE_SIZE - AHCI_CMD_TBL - AHCI_CMD_TBL_PRDT) / 16)
#define AHCI_PRD_MAX_BYTES (4u << 20)

#define FIS_TYPE_REG_H2D 0x27
#define AHCI_POLL_LIMIT 10000000 /* register reads before a polled wait gives up */

struct ahci_port {
	volatile uint8_t *regs;
	uint8_t *mem; /* the port's DMA page */
	unsigned int no, port_no; /* HBA port number; ataN */
	struct request_queue *q;
	struct request *active;
};

static volatile uint8_t *ahci_mmio;
static bool ahci_dma64; /* else every buffer and table must sit below 4 GiB */
static struct ahci_port *ahci_ports[32];

static uint32_t port_readl(const struct ahci_port *pp, unsigned int reg)
{
	return readl(pp->regs + reg);
}

static void port_writel(const struct ahci_port *pp, unsigned int reg, uint32_t v)
{
	writel(v, pp->regs + reg);
}

/* Poll reg until (value & mask) == want: true, or false after AHCI_POLL_LIMIT reads. */
static bool ahci_wait(const volatile uint8_t *reg, uint32_t mask, uint32_t want)
{
	for (long i = 0; i < AHCI_POLL_LIMIT; i++)
		if ((readl(reg) & mask) == want)
			return true;
	return false;
}

/* Stop the command list and FIS engines (the AHCI spec's order: ST, wait CR, FRE, wait FR). */
static bool ahci_stop_engine(struct ahci_port *pp)
{
	port_writel(pp, PORT_CMD, port_readl(pp, PORT_CMD) & ~PORT_CMD_START);
	if (!ahci_wait(pp->regs + PORT_CMD, PORT_CMD_LIST_ON, 0))
		return false;
	port_writel(pp, PORT_CMD, port_readl(pp, PORT_CMD) & ~PORT_CMD_FIS_RX);
	return ahci_wait(pp->regs + PORT_CMD, PORT_CMD_FIS_ON, 0);
}

static void ahci_start_engine(struct ahci_port *pp)
{
	port_writel(pp, PORT_CMD, port_readl(pp, PORT_CMD) | PORT_CMD_FIS_RX);
	/* the device's first D2H FIS clears BSY; an empty port would never, so bounded */
	ahci_wait(pp->regs + PORT_TFDATA, ATA_BUSY | ATA_DRQ, 0);
	port_writel(pp, PORT_CMD, port_readl(pp, PORT_CMD) | PORT_CMD_START);
}

/*
 * Fill slot 0 with an ATA command: the host-to-device register FIS, one PRDT entry per
 * physically contiguous piece of buf (at most 4 MiB each), the header (FIS length 5
 * dwords, W for a write). Then set its bit in PxCI: the HBA fetches it and runs it.
 * -EIO for memory above 4 GiB on an HBA without 64-bit addressing; -EINVAL if the PRDT
 * cannot hold buf.
 */
static int ahci_issue(struct ahci_port *pp, uint8_t cmd, uint64_t lba, unsigned int count,
		      void *buf, unsigned int bytes, bool write)
{
	uint32_t *hdr = (uint32_t *)(pp->mem + AHCI_CMD_LIST);
	uint8_t *tbl = pp->mem + AHCI_CMD_TBL, *fis = tbl;
	uint32_t *prd = (uint32_t *)(tbl + AHCI_CMD_TBL_PRDT);
	uint64_t pa = virt_to_phys(buf), ctba = virt_to_phys(tbl);
	unsigned int n = 0;

	if (!ahci_dma64 && (pa + bytes > 0x100000000UL || ctba >= 0x100000000UL))
		return -EIO;
	while (bytes) {
		unsigned int chunk = MIN(bytes, AHCI_PRD_MAX_BYTES);

		if (n == AHCI_MAX_PRD)
			return -EINVAL;
		prd[4 * n] = (uint32_t)pa;
		prd[4 * n + 1] = (uint32_t)(pa >> 32);
		prd[4 * n + 2] = 0;
		prd[4 * n + 3] = chunk - 1; /* byte count minus one; bit 0 must be 1 */
		pa += chunk;
		bytes -= chunk;
		n++;
	}
	memset(fis, 0, 64);
	fis[0] = FIS_TYPE_REG_H2D;
	fis[1] = 0x80; /* a command, not a device control update */
	fis[2] = cmd;
	fis[4] = (uint8_t)lba;
	fis[5] = (uint8_t)(lba >> 8);
	fis[6] = (uint8_t)(lba >> 16);
	fis[7] = ATA_LBA;
	fis[8] = (uint8_t)(lba >> 24);
	fis[9] = (uint8_t)(lba >> 32);
	fis[10] = (uint8_t)(lba >> 40);
	fis[12] = (uint8_t)count;
	fis[13] = (uint8_t)(count >> 8);
	hdr[0] = 5 | (write ? 1u << 6 : 0) | n << 16;
	hdr[1] = 0; /* bytes transferred, the HBA counts them */
	hdr[2] = (uint32_t)ctba;
	hdr[3] = (uint32_t)(ctba >> 32);
	__sync_synchronize(); /* the command in memory before the doorbell */
	port_writel(pp, PORT_CMD_ISSUE, 1);
	return 0;
}

/* A failed command leaves the port stopped in error: clear the error registers and restart
 * the engine so the next command runs (AHCI spec 6.2.2, without a port reset). */
static void ahci_recover(struct ahci_port *pp)
{
	ahci_stop_engine(pp);
	port_writel(pp, PORT_SCR_ERR, ~0u);
	port_writel(pp, PORT_IRQ_STAT, ~0u);
	ahci_start_engine(pp);
}

/* Has slot 0 finished? 0 done, -EIO failed (and the port recovered), -EBUSY still running. */
static int ahci_check_done(struct ahci_port *pp, uint32_t irq_stat)
{
	uint32_t tfd = port_readl(pp, PORT_TFDATA);

	if ((irq_stat & PORT_IRQ_ERROR) || (tfd & ATA_ERR)) {
		printk("ata%u: command failed: irq status %x, status %02x error %02x\n",
		       pp->port_no, irq_stat, tfd & 0xff, (tfd >> 8) & 0xff);
		ahci_recover(pp);
		return -EIO;
	}
	return (port_readl(pp, PORT_CMD_ISSUE) & 1) ? -EBUSY : 0;
}

/* A command at boot, before interrupts: issue it and poll. 0 or -EIO. */
static int ahci_exec_polled(struct ahci_port *pp, uint8_t cmd, void *buf, unsigned int bytes)
{
	int err = ahci_issue(pp, cmd, 0, 0, buf, bytes, false);

	for (long i = 0; !err && i < AHCI_POLL_LIMIT; i++) {
		uint32_t st = port_readl(pp, PORT_IRQ_STAT);

		port_writel(pp, PORT_IRQ_STAT, st);
		err = ahci_check_done(pp, st);
		if (err != -EBUSY)
			return err;
		err = 0;
	}
	return -EIO;
}

static void ahci_complete(struct ahci_port *pp, int error)
{
	struct request *req = pp->active;

	pp->active = NULL;
	end_request(req, error);
}

static void ahci_request_fn(struct request_queue *q)
{
	struct ahci_port *pp = q->queuedata;
	struct request *req = elv_next_request(q);
	bool write;
	int err;

	if (pp->active || !req)
		return;
	pp->active = req;
	write = req->cmd == WRITE;
	err = ahci_issue(pp, write ? ATA_CMD_WRITE_DMA_EXT : ATA_CMD_READ_DMA_EXT, req->sector,
			 req->nr_sectors, req->buffer, req->nr_sectors << SECTOR_SHIFT, write);
	if (err)
		ahci_complete(pp, err);
}

/* The port's interrupt status (already acknowledged): end the active request if it is done. */
static void ahci_port_intr(struct ahci_port *pp, uint32_t irq_stat)
{
	int err;

	if (!pp->active)
		return;
	err = ahci_check_done(pp, irq_stat);
	if (err != -EBUSY)
		ahci_complete(pp, err);
}

/* The HBA's interrupt: per port, acknowledge PxIS first, then the port's bit in IS (the
 * order the spec asks, or a level-triggered line would stay asserted). */
static void ahci_interrupt(struct pt_regs *regs)
{
	uint32_t host_stat = readl(ahci_mmio + HOST_IRQ_STAT);

	(void)regs;
	for (unsigned int i = 0; i < 32; i++) {
		struct ahci_port *pp = ahci_ports[i];
		uint32_t st;

		if (!(host_stat & (1u << i)))
			continue;
		st = readl(ahci_mmio + 0x100 + 0x80 * i + PORT_IRQ_STAT);
		writel(st, ahci_mmio + 0x100 + 0x80 * i + PORT_IRQ_STAT);
		if (pp) {
			spin_lock(&pp->q->queue_lock); /* (interrupts are off here) */
			ahci_port_intr(pp, st);
			spin_unlock(&pp->q->queue_lock);
		}
	}
	writel(host_stat, ahci_mmio + HOST_IRQ_STAT);
}

static void ahci_poll(struct request_queue *q)
{
	struct ahci_port *pp = q->queuedata;
	uint32_t st = port_readl(pp, PORT_IRQ_STAT);

	port_writel(pp, PORT_IRQ_STAT, st);
	ahci_port_intr(pp, st);
}

/* Port i with a device linked up: engines started, IDENTIFY, a disk if it is one. */
static bool ahci_port_init(unsigned int i, bool irq)
{
	struct ahci_port *pp = kzalloc(sizeof(*pp));
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	uint16_t *id = kmalloc(ATA_ID_WORDS * 2);
	struct ata_id info;
	uint64_t pa;
	uint32_t sig;
	bool atapi, ok = false;

	if (!pp || !page || !id || !(pp->q = blk_init_queue(ahci_request_fn, pp)))
		goto out;
	pp->regs = ahci_mmio + 0x100 + 0x80 * i;
	pp->mem = page_address(page);
	pp->no = i;
	pp->port_no = ata_alloc_port_no();
	if (!ahci_stop_engine(pp)) {
		printk("ata%u: port %u does not stop: skipped\n", pp->port_no, i);
		goto out;
	}
	pa = virt_to_phys(pp->mem);
	port_writel(pp, PORT_LST_ADDR, (uint32_t)(pa + AHCI_CMD_LIST));
	port_writel(pp, PORT_LST_ADDR_HI, (uint32_t)((pa + AHCI_CMD_LIST) >> 32));
	port_writel(pp, PORT_FIS_ADDR, (uint32_t)(pa + AHCI_RX_FIS));
	port_writel(pp, PORT_FIS_ADDR_HI, (uint32_t)((pa + AHCI_RX_FIS) >> 32));
	port_writel(pp, PORT_SCR_ERR, ~0u);
	port_writel(pp, PORT_IRQ_STAT, ~0u);
	ahci_start_engine(pp);
	sig = port_readl(pp, PORT_SIG);
	atapi = sig == SATA_SIG_ATAPI;
	if (!atapi && sig != SATA_SIG_ATA) {
		printk("ata%u: SATA link up, signature %08x: not a disk, skipped\n", pp->port_no,
		       sig);
		goto out;
	}
	if (ahci_exec_polled(pp, atapi ? ATA_CMD_ID_ATAPI : ATA_CMD_ID_ATA, id, 512)) {
		printk("ata%u: IDENTIFY failed\n", pp->port_no);
		goto out;
	}
	ata_id_parse(id, atapi, &info);
	pp->q->poll = ahci_poll;
	pp->q->irq = irq;
	if (!ata_add_disk(pp->port_no, 0, &info, pp->q, pp))
		goto out;
	ahci_ports[i] = pp;
	/* add_disk's reads of the partition table (polled: interrupts are off during the
	 * initcalls) leave status bits; cleared, or the port interrupts the moment they are
	 * enabled, before the kernel has set up its interrupt controllers */
	port_writel(pp, PORT_IRQ_STAT, ~0u);
	port_writel(pp, PORT_IRQ_MASK, DEF_PORT_IRQ);
	ok = true;
out:
	kfree(id);
	if (!ok) {
		if (page)
			__free_page(page);
		if (pp)
			kfree(pp->q);
		kfree(pp);
	}
	return ok;
}

/*
 * Map ABAR (BAR 5), reset the HBA, put it in AHCI mode, bring up each implemented port whose
 * link is up (PxSSTS.DET = 3), then enable the HBA's interrupt if the firmware routed INTx to
 * a PIC line; without one every request is polled.
 */
static int ahci_init_one(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	uint32_t pi, ver;
	bool irq = pdev->irq != 0;
	int disks = 0;

	(void)ent;
	if (ahci_mmio) {
		printk("ahci: one controller is driven; %02x:%02x.%u skipped\n", pdev->bus,
		       PCI_SLOT(pdev->devfn), PCI_FUNC(pdev->devfn));
		return -EBUSY;
	}
	if (!(pci_resource_flags(pdev, 5) & IORESOURCE_MEM) || !pci_resource_len(pdev, 5))
		return -ENODEV;
	ahci_mmio = ioremap(pci_resource_start(pdev, 5), pci_resource_len(pdev, 5));
	if (!ahci_mmio)
		return -ENOMEM;
	pci_enable_device(pdev);
	pci_set_master(pdev);
	pci_write_config_word(pdev, PCI_COMMAND, pci_read_config_word(pdev, PCI_COMMAND) &
					       ~PCI_COMMAND_INTX_DISABLE);
	writel(HOST_AHCI_EN, ahci_mmio + HOST_CTL);
	writel(HOST_AHCI_EN | HOST_RESET, ahci_mmio + HOST_CTL);
	if (!ahci_wait(ahci_mmio + HOST_CTL, HOST_RESET, 0)) {
		printk("ahci: the HBA does not come out of reset\n");
		return -EIO;
	}
	writel(HOST_AHCI_EN, ahci_mmio + HOST_CTL);
	ahci_dma64 = readl(ahci_mmio + HOST_CAP) & HOST_CAP_64;
	pi = readl(ahci_mmio + HOST_PORTS_IMPL);
	ver = readl(ahci_mmio + HOST_VERSION);
	printk("ahci %02x:%02x.%u: AHCI %x.%x, %u slots, ports %x, abar %lx, %s\n", pdev->bus,
	       PCI_SLOT(pdev->devfn), PCI_FUNC(pdev->devfn), ver >> 16, (ver >> 8) & 0xff,
	       ((readl(ahci_mmio + HOST_CAP) >> 8) & 0x1f) + 1, pi, pci_resource_start(pdev, 5),
	       irq ? "interrupts" : "no interrupt line: polling");
	for (unsigned int i = 0; i < 32; i++) {
		uint32_t ssts;

		if (!(pi & (1u << i)))
			continue;
		ssts = readl(ahci_mmio + 0x100 + 0x80 * i + PORT_SCR_STAT);
		if ((ssts & 0xf) != 3)
			continue; /* no device, or no link */
		if (ahci_port_init(i, irq))
			disks++;
	}
	writel(~0u, ahci_mmio + HOST_IRQ_STAT);
	if (irq && disks) {
		irq_register((int)pdev->irq, ahci_interrupt);
		writel(HOST_AHCI_EN | HOST_IRQ_EN, ahci_mmio + HOST_CTL);
	}
	printk("ahci: %d disks\n", disks);
	return 0;
}

static const struct pci_device_id ahci_pci_tbl[] = {
	{ PCI_DEVICE(0x8086, 0x2922) },               /* ICH9, QEMU's q35 */
	{ PCI_DEVICE_CLASS(0x010601, 0xffffff) },     /* any AHCI 1.0 SATA controller */
	{ 0 },
};

static struct pci_driver ahci_pci_driver = {
	.name = "ahci",
	.id_table = ahci_pci_tbl,
	.probe = ahci_init_one,
};

static void ahci_init(void)
{
	pci_register_driver(&ahci_pci_driver);
}
device_initcall(ahci_init);
