#!/usr/bin/env python3
"""Partitioned disk images for tests/boot/partitions.sh: MBR and GPT tables written here with
struct and zlib.crc32, each sector stamped "NAME NNNNNNNN" (the partition holding it and the
sector's number within it) and filled with dots.
usage: mkparts.py make KIND IMG     write the image
       mkparts.py expect KIND       the guest's lines (/proc/partitions, then each partition)
       mkparts.py check KIND IMG    the image holds the original plus the guest's writes only
KIND: mbr, mbr-bad (a partition past the end), gpt, gpt-backup (the primary's entry array
corrupt), gpt-bad (the primary's header and the backup's entry array corrupt)."""
import struct
import sys
import uuid
import zlib

SECTORS = 32768  # 16 MiB
SS = 512
LINUX_DATA = uuid.UUID('0fc63daf-8483-4772-8e79-3d69d8477de4').bytes_le
DISK_GUID = uuid.UUID('5eb1e3d2-1a2b-4c3d-8e4f-0123456789ab').bytes_le
WRITES = {'sda3': 'last', 'sda5': 'first'}  # what partitions.sh write changes (mbr only)


def layout(kind):
    """(partitions {number: (start, size)}, the extended one's number or None, the EBRs
    [(sector, [(type, start relative, size)])])"""
    if kind == 'mbr':
        ext = (6144, 16384)
        parts = {1: (2048, 4096), 2: ext, 3: (24576, 6144),
                 5: (8192, 4096), 6: (16384, 2048)}
        ebrs = [(6144, [(0x83, 2048, 4096), (0x05, 8192, 8192)]),
                (14336, [(0x83, 2048, 2048)])]
        return parts, 2, ebrs
    if kind == 'mbr-bad':
        return {1: (2048, 4096), 2: (8192, 32768)}, None, []
    # GPT: entry 2 (sda2) unused; sda4's odd size shows /proc/partitions rounding down
    return {1: (2048, 4096), 3: (8192, 8192), 4: (20480, SECTORS - 34 - 20480 + 1)}, None, []


def owner(kind, sector):
    """The stamp's name and number for a sector: its partition's (logical ones before the
    extended one that holds them), else the disk's."""
    parts, ext, _ = layout(kind)
    for n in sorted(parts, key=lambda n: n == ext):
        start, size = parts[n]
        if kind == 'mbr-bad' and n == 2:
            size = SECTORS - start
        if start <= sector < start + size:
            return 'sda%d' % n, sector - start
    return 'disk', sector


def stamp(name, num):
    s = b'%-4s %08d\n' % (name.encode(), num)
    return s + b'.' * (SS - len(s))


def mbr_entry(ptype, start, size, boot=0):
    return struct.pack('<B3sB3sII', boot, b'\0' * 3, ptype, b'\0' * 3, start, size)


def put_table(img, sector, entries):
    """A partition table (MBR or EBR) of up to four entries into sector, 55 aa at its end."""
    off = sector * SS
    table = b''.join(mbr_entry(*e) for e in entries).ljust(64, b'\0')
    img[off + 446:off + 510] = table
    img[off + 510:off + 512] = b'\x55\xaa'


def gpt(img, kind):
    entries = bytearray(128 * 128)
    for n, (start, size) in layout(kind)[0].items():
        uniq = uuid.UUID(int=n).bytes_le
        name = ('part%d' % n).encode('utf-16-le').ljust(72, b'\0')
        entries[(n - 1) * 128:n * 128] = struct.pack('<16s16sQQQ72s', LINUX_DATA, uniq,
                                                      start, start + size - 1, 0, name)
    last = SECTORS - 1
    for my, alt, array in ((1, last, 2), (last, 1, last - 32)):
        ents = bytearray(entries)
        if (kind in ('gpt-backup',) and my == 1) or (kind == 'gpt-bad' and my == last):
            ents[32] ^= 0xff  # the first entry's starting LBA: the array's CRC32 fails
        hdr = struct.pack('<8sIIIIQQQQ16sQIII', b'EFI PART', 0x10000, 92, 0, 0, my, alt,
                          34, SECTORS - 34, DISK_GUID, array, 128, 128,
                          zlib.crc32(bytes(entries)))
        hdr = hdr[:16] + struct.pack('<I', zlib.crc32(hdr)) + hdr[20:]
        if kind == 'gpt-bad' and my == 1:
            hdr = hdr[:56] + bytes([hdr[56] ^ 0xff]) + hdr[57:]  # disk GUID: header CRC
        img[my * SS:(my + 1) * SS] = hdr.ljust(SS, b'\0')
        img[array * SS:(array + 32) * SS] = ents
    put_table(img, 0, [(0xee, 1, SECTORS - 1)])  # the protective MBR


def make(kind):
    img = bytearray(b''.join(stamp(*owner(kind, s)) for s in range(SECTORS)))
    if kind.startswith('gpt'):
        gpt(img, kind)
        return img
    parts, ext, ebrs = layout(kind)
    put_table(img, 0, [(0x05 if n == ext else 0x83, *parts[n]) for n in (1, 2, 3)
                       if n in parts])
    for sector, entries in ebrs:
        put_table(img, sector, entries)
    return img


def expect(kind):
    parts, ext, _ = layout(kind)
    if kind.endswith('-bad'):
        parts = {}
    print('   8        0 %10d sda' % (SECTORS // 2))
    for n in sorted(parts):
        size = min(parts[n][1], 2) if n == ext else parts[n][1]
        print('   8  %7d %10d sda%d' % (n, size // 2, n))
    print("parts: sda sector 100 '%s %08d'" % owner(kind, 100))
    for n in sorted(parts):
        size = min(parts[n][1], 2) if n == ext else parts[n][1]
        name = 'sda%d' % n
        print("parts: %s %d first '%s %08d' last '%s %08d' tail 512 past 0" %
              (name, size, name, 0, name, size - 1))


def written(img, kind):
    """The image as the guest leaves it: partitions.sh write's changes made here too."""
    parts = layout(kind)[0]
    for name, where in WRITES.items():
        start, size = parts[int(name[3:])]
        s = start + size - 1 if where == 'last' else start
        text = b'%s written!\n' % name.encode()
        old = img[s * SS:(s + 1) * SS]
        new = text + (bytes(SS - len(text)) if where == 'last' else old[len(text):])
        img[s * SS:(s + 1) * SS] = new
    return img


def check(kind, path):
    want = written(make(kind), kind)
    got = open(path, 'rb').read()
    if len(got) != len(want):
        print('size %d, want %d' % (len(got), len(want)))
        return 1
    bad = [s for s in range(SECTORS) if got[s * SS:(s + 1) * SS] != want[s * SS:(s + 1) * SS]]
    for s in bad[:10]:
        print('sector %d (%s %08d): %r' % (s, *owner(kind, s), got[s * SS:s * SS + 32]))
    print('%d sectors differ from the original plus the guest\'s writes' % len(bad))
    return 1 if bad else 0


def main():
    cmd, kind = sys.argv[1], sys.argv[2]
    if cmd == 'make':
        open(sys.argv[3], 'wb').write(make(kind))
    elif cmd == 'expect':
        expect(kind)
    elif cmd == 'check':
        sys.exit(check(kind, sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':  # mkext2.py imports put_table
    main()
