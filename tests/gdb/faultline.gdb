# gdb set-up for faultline (`make gdb`): the 64-bit ELF is loaded first so gdb never
# believes the target is i386, then gdb attaches to `make debug`'s stub.
set architecture i386:x86-64
set pagination off
set confirm off
target remote localhost:1234
# A software breakpoint set before GRUB loads the kernel would be overwritten by the load:
# a hardware breakpoint is safe at any time.
hbreak kmain
echo faultline: connected; 'continue' runs to kmain\n
