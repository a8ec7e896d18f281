/* The legacy 8259A PIC pair. The BIOS maps its lines onto vectors 8..15, which collide with
 * CPU exceptions, so they are moved to 32..47 before interrupts are ever enabled. */
#include "drivers/pic.h"
#include "kernel/arch/x86.h"
#include "kernel/irq.h"

#define PIC1_CMD 0x20
#define PIC1_DATA 0x21
#define PIC2_CMD 0xa0
#define PIC2_DATA 0xa1
#define PIC_EOI 0x20
#define PIC_READ_ISR 0x0b

static uint16_t pic_masks = 0xffff;
static const struct irq_chip pic_chip;

static void pic_write_masks(void)
{
	outb(PIC1_DATA, (uint8_t)pic_masks);
	outb(PIC2_DATA, (uint8_t)(pic_masks >> 8));
}

void pic_init(void)
{
	outb(PIC1_CMD, 0x11); /* ICW1: edge triggered, cascade, ICW4 follows */
	outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, IRQ_BASE); /* ICW2: vector base */
	outb(PIC2_DATA, IRQ_BASE + 8);
	outb(PIC1_DATA, 4); /* ICW3: slave on line 2 */
	outb(PIC2_DATA, 2);
	outb(PIC1_DATA, 1); /* ICW4: 8086 mode */
	outb(PIC2_DATA, 1);
	pic_masks &= ~(1u << 2); /* the cascade line opens */
	pic_write_masks();
	irq_set_chip(&pic_chip); /* and the lines registered before */
}

static void pic_unmask(int irq)
{
	pic_masks &= (uint16_t)~(1u << irq);
	pic_write_masks();
}

static void pic_mask(int irq)
{
	pic_masks |= (uint16_t)(1u << irq);
	pic_write_masks();
}

static void pic_eoi(int irq)
{
	if (irq >= 8)
		outb(PIC2_CMD, PIC_EOI);
	outb(PIC1_CMD, PIC_EOI);
}

/* Lines 7 and 15 fire spuriously when a request vanishes before it is acknowledged; the
 * in-service register tells a real interrupt from a ghost (which gets no EOI on its own PIC). */
static bool pic_is_spurious(int irq)
{
	if (irq == 7) {
		outb(PIC1_CMD, PIC_READ_ISR);
		return !(inb(PIC1_CMD) & 0x80);
	}
	if (irq == 15) {
		outb(PIC2_CMD, PIC_READ_ISR);
		if (!(inb(PIC2_CMD) & 0x80)) {
			outb(PIC1_CMD, PIC_EOI);
			return true;
		}
	}
	return false;
}

void pic_mask_all(void)
{
	pic_masks = 0xffff;
	pic_write_masks();
}

static const struct irq_chip pic_chip = {
	.name = "8259",
	.unmask = pic_unmask,
	.mask = pic_mask,
	.eoi = pic_eoi,
	.is_spurious = pic_is_spurious,
};
