/* fbdemo: draws into /dev/fb0 through a shared device mapping (every page is a NOPAGE fault):
 * a colour gradient band with known corner colours on top, a Mandelbrot set below. It keeps
 * the mapping for a few seconds (argv[1], default 3) so a screenshot can be taken, then the
 * console redraws its text. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct fb_bitfield { uint32_t offset, length, msb_right; };
struct fb_var_screeninfo {
	uint32_t xres, yres, xres_virtual, yres_virtual, xoffset, yoffset, bits_per_pixel;
	uint32_t grayscale;
	struct fb_bitfield red, green, blue, transp;
	uint32_t rest[20];
};
struct fb_fix_screeninfo {
	char id[16];
	unsigned long smem_start;
	uint32_t smem_len, type, type_aux, visual;
	uint16_t xpanstep, ypanstep, ywrapstep;
	uint32_t line_length;
	unsigned long mmio_start;
	uint32_t mmio_len, accel;
	uint16_t capabilities, reserved[2];
};

static struct fb_var_screeninfo v;

static uint32_t rgb(unsigned r, unsigned g, unsigned b)
{
	return (r >> (8 - v.red.length)) << v.red.offset |
	       (g >> (8 - v.green.length)) << v.green.offset |
	       (b >> (8 - v.blue.length)) << v.blue.offset;
}

int main(int argc, char **argv)
{
	struct fb_fix_screeninfo f;
	struct timespec hold = { argc > 1 ? atoi(argv[1]) : 3, 0 };
	int fd = open("/dev/fb0", O_RDWR);
	uint8_t *fb;

	if (fd < 0 || ioctl(fd, 0x4600, &v) || ioctl(fd, 0x4602, &f) || v.bits_per_pixel != 32) {
		printf("fbdemo: no 32-bpp /dev/fb0\n");
		return 1;
	}
	fb = mmap(NULL, f.smem_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fb == MAP_FAILED) {
		printf("fbdemo: mmap failed\n");
		return 1;
	}
	for (uint32_t y = 0; y < v.yres; y++) {
		uint32_t *row = (uint32_t *)(fb + (size_t)y * f.line_length);

		for (uint32_t x = 0; x < v.xres; x++) {
			if (y < v.yres / 4) { /* red rises left to right, blue top to bottom */
				row[x] = rgb(x * 255 / (v.xres - 1), 0, y * 255 / (v.yres / 4 - 1));
				continue;
			}
			double cr = (x - v.xres * 0.65) * 3.0 / v.xres, ci = (y - v.yres * 0.625) *
									     2.2 / v.yres;
			double zr = 0, zi = 0;
			int i = 0;

			while (i < 48 && zr * zr + zi * zi < 4) {
				double t = zr * zr - zi * zi + cr;

				zi = 2 * zr * zi + ci;
				zr = t;
				i++;
			}
			row[x] = i == 48 ? rgb(0, 0, 0) : rgb(i * 5, 40 + i * 4, 255 - i * 5);
		}
	}
	printf("fbdemo: drawn %ux%u\n", v.xres, v.yres);
	fflush(stdout);
	nanosleep(&hold, NULL);
	munmap(fb, f.smem_len);
	return 0;
}
