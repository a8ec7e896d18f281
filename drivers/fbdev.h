/* /dev/fb0 (drivers/fbdev.c). */
#ifndef DRIVERS_FBDEV_H
#define DRIVERS_FBDEV_H

void fbdev_init(void); /* after fb_map and the ramdisk: create /dev/fb0 if there is a framebuffer */

#endif
