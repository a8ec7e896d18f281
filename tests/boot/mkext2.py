#!/usr/bin/env python3
"""The disk of tests/boot/ext2-read.sh and what the guest must print about it. A tree made here
goes into three ext2 file systems by mke2fs -d (1, 2 and 4 KiB blocks: sda1 with flex_bg, sda2
with meta_bg, sda3 without filetype); logical partitions hold what faultline must refuse or
report: no ext2 at all (sda5), ext3 needing recovery (sda6), ext4 (sda7), a directory entry with
rec_len 0 (sda8), a group descriptor with its inode table past the end (sda9), a super block
larger than its partition (sda10), an RO_COMPAT feature it cannot write (sda11), 8 KiB blocks
(sda12), a file whose first block lies past the end (sda13). Expectations come from the tree
itself, debugfs and the images' super blocks, never from faultline.
usage: mkext2.py make WORK IMG    the tree and images in WORK, the disk in IMG
       mkext2.py expect WORK      the guest's lines about sda1-3 (ext2: pN ...)
       mkext2.py fact WORK NAME   one number the checks need (see fact())"""
import hashlib
import os
import random
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkparts import put_table  # noqa: E402

MIB = 2048  # sectors
# partition: block size, inode size, features (flex_bg puts group 1's tables in group 0;
# without filetype, getdents' d_type is DT_UNKNOWN)
TREE = {1: (1024, 128, 'flex_bg'), 2: (2048, 256, 'meta_bg,^resize_inode'),
        3: (4096, 256, '^filetype')}
LOGICAL = {5: 1, 6: 4, 7: 8, 8: 2, 9: 2, 10: 1, 11: 1, 12: 1, 13: 1}  # partition: MiB
LONG = './' * 40 + 'a/b/c/d/deep.txt'  # a target too long for i_block: a slow symlink
MANY = 'many/a-file-with-a-long-name-%03d'
# Pairs of names fsread same asks about: a hard link, a name looked up again by another path,
# a directory reached through "..", and two files (the control).
SAME = (('hard', MANY % 8), ('big', 'a/../big'), ('a', 'a/b/..'), ('big', 'edge'))
# Blocks of big and sparse asked of FIBMAP: each level of the block map in 1, 2 and 4 KiB
# blocks, holes, and past the end of the file.
BMAP = (0, 11, 12, 75, 267, 268, 300, 1035, 1036, 5120, 16896, 65804, 67584)


def tree(top):
    """Files reaching double (and, in 1 KiB blocks, triple) indirect blocks, holes, a
    directory of several blocks, nested directories, links of every kind, odd owners."""
    rnd = random.Random(34)
    os.makedirs(top + '/many')
    os.makedirs(top + '/a/b/c/d')
    with open(top + '/big', 'wb') as f:
        f.write(rnd.randbytes(5 * 1024 * 1024 + 123))
    with open(top + '/edge', 'wb') as f:
        f.write(rnd.randbytes(12 * 1024 + 1))  # one byte past 12 direct 1 KiB blocks
    with open(top + '/sparse', 'wb') as f:
        f.write(b'start')
        f.seek(300 * 1024)
        f.write(rnd.randbytes(5000))
        f.seek(66 * 1024 * 1024)
        f.write(b'end of the sparse file\n')
    for i in range(300):
        with open(top + '/' + MANY % i, 'w') as f:
            f.write('file %d\n' % i * (i % 7))
    with open(top + '/a/b/c/d/deep.txt', 'w') as f:
        f.write('four directories down\n')
    open(top + '/empty', 'w').close()
    os.symlink('a/b/c/d/deep.txt', top + '/short')
    os.symlink(LONG, top + '/long')
    os.symlink('nowhere', top + '/dangling')
    os.link(top + '/' + MANY % 8, top + '/hard')
    os.chown(top + '/edge', 70000, 80000)  # the high halves of uid and gid
    os.chmod(top + '/edge', 0o4750)


def mke2fs(img, mib, *args):
    subprocess.run(['mke2fs', '-q', '-F', *args, img, '%dM' % mib], check=True,
                   stdout=subprocess.DEVNULL)


def poke(img, offset, fmt, value):
    with open(img, 'r+b') as f:
        f.seek(offset)
        f.write(struct.pack(fmt, value))


def debugfs(img, *cmds):
    r = subprocess.run(['debugfs', '-f', '-', img], input='\n'.join(cmds) + '\n',
                       capture_output=True, text=True, check=True)
    return r.stdout


def dir_block(img, path):
    """The disk block of a directory's first block."""
    return int(debugfs(img, 'bmap %s 0' % path).split('\n')[1])


def images(work):
    """Each partition's image in WORK/pN.img."""
    src = work + '/tree'
    tree(src)
    for p, (bs, isz, features) in TREE.items():
        mke2fs('%s/p%d.img' % (work, p), 16, '-t', 'ext2', '-b', str(bs), '-I', str(isz),
               '-O', features, '-d', src)
    img = work + '/p%d.img'
    with open(img % 5, 'wb') as f:
        f.truncate(MIB * 512)  # zeroes: no magic
    mke2fs(img % 6, 4, '-t', 'ext3', '-b', '1024')
    poke(img % 6, 1024 + 96, '<I', incompat(img % 6) | 0x4)  # needs_recovery
    mke2fs(img % 7, 8, '-t', 'ext4')
    os.makedirs(work + '/small/d')
    for name in 'xyz':
        open('%s/small/d/%s' % (work, name), 'w').close()
    mke2fs(img % 8, 2, '-t', 'ext2', '-b', '1024', '-d', work + '/small')
    poke(img % 8, dir_block(img % 8, '/d') * 1024 + 24 + 4, '<H', 0)  # x's rec_len
    mke2fs(img % 9, 2, '-t', 'ext2', '-b', '1024')
    poke(img % 9, 2 * 1024 + 8, '<I', 2048 + 10)  # group 0's inode table
    mke2fs(img % 10, 2, '-t', 'ext2', '-b', '1024')  # in a partition of 1 MiB
    mke2fs(img % 11, 1, '-t', 'ext2', '-b', '1024')
    poke(img % 11, 1024 + 100, '<I', superblock(img % 11)['ro_compat'] | 0x20)  # dir_nlink
    subprocess.run(['mke2fs', '-q', '-F', '-t', 'ext2', '-b', '8192', img % 12, '1M'],
                   check=True, capture_output=True)  # blocks larger than a page
    os.makedirs(work + '/two')
    with open(work + '/two/f', 'wb') as f:
        f.write(bytes(range(256)) * 12)
    with open(work + '/two/g', 'w') as f:
        f.write('the sound one\n')
    mke2fs(img % 13, 1, '-t', 'ext2', '-b', '1024', '-d', work + '/two')
    poke(img % 13, inode_offset(img % 13, '/f') + 40, '<I', BAD_BLOCK)  # f's i_block[0]


BAD_BLOCK = 99999  # past the end of sda13's 1024 blocks


def inode_offset(img, path):
    """The byte of path's inode in img."""
    m = re.search(r'located at block (\d+), offset (0x[0-9a-f]+)', debugfs(img, 'imap ' + path))
    return int(m.group(1)) * 1024 + int(m.group(2), 16)


def superblock(img):
    with open(img, 'rb') as f:
        f.seek(1024)
        sb = f.read(1024)
    keys = ('blocks', 'r_blocks', 'free_blocks', 'free_inodes', 'first_data_block',
            'log_block_size')
    d = dict(zip(keys, struct.unpack_from('<6I', sb, 4)))
    d['inodes'] = struct.unpack_from('<I', sb, 0)[0]
    d['blocks_per_group'], d['inodes_per_group'] = struct.unpack_from('<I4xI', sb, 32)
    d['inode_size'] = struct.unpack_from('<H', sb, 88)[0]
    d['magic'] = struct.unpack_from('<H', sb, 56)[0]  # statfs's f_type too
    d['compat'], d['incompat'], d['ro_compat'] = struct.unpack_from('<3I', sb, 92)
    return d


def incompat(img):
    return superblock(img)['incompat']


def make(work, out):
    os.makedirs(work, exist_ok=True)
    images(work)
    sizes = {p: 16 for p in TREE}
    sizes.update(LOGICAL)
    disk = bytearray(MIB * 512)  # the MBR, then a gap as partitioners leave
    starts = {}
    for p in (1, 2, 3):
        starts[p] = len(disk) // 512
        disk += open('%s/p%d.img' % (work, p), 'rb').read()
    ext = len(disk) // 512
    ebrs = []
    for p in sorted(LOGICAL):
        ebr = len(disk) // 512
        disk += bytes(MIB * 512)
        starts[p] = len(disk) // 512
        disk += open('%s/p%d.img' % (work, p), 'rb').read()[:LOGICAL[p] * MIB * 512]
        ebrs.append(ebr)
    ext_size = len(disk) // 512 - ext
    put_table(disk, 0, [(0x83, starts[p], sizes[p] * MIB) for p in (1, 2, 3)] +
              [(0x05, ext, ext_size)])
    for i, ebr in enumerate(ebrs):
        p = sorted(LOGICAL)[i]
        entries = [(0x83, starts[p] - ebr, LOGICAL[p] * MIB)]
        if i + 1 < len(ebrs):
            entries.append((0x05, ebrs[i + 1] - ext, ebrs[i + 1] - ebrs[i]))
        put_table(disk, ebr, entries)
    with open(out, 'wb') as f:
        f.write(disk)


def walk(top):
    """Every path of the tree as find(1) names it from the root, sorted."""
    paths = ['.', './lost+found']
    for d, dirs, files in os.walk(top):
        rel = '.' + d[len(top):]
        paths += ['%s/%s' % (rel, n) for n in dirs + files]
    return sorted(paths)


def stats(img, paths):
    """debugfs's stat of each path: ino, links, mode, uid, gid, size, blocks, mtime."""
    out = debugfs(img, *('stat "%s"' % p[1:] if p != '.' else 'stat /' for p in paths))
    res = []
    for chunk in out.split('debugfs: stat ')[1:]:
        ino, typ, mode = re.search(r'Inode: (\d+)\s+Type: (\w+)\s+Mode:\s+(\d+)', chunk).groups()
        uid, gid, size = re.search(r'User:\s+(\d+)\s+Group:\s+(\d+).*Size: (\d+)',
                                   chunk).groups()
        links, blocks = re.search(r'Links: (\d+)\s+Blockcount: (\d+)', chunk).groups()
        mtime = int(re.search(r'mtime: 0x([0-9a-f]+)', chunk).group(1), 16)
        ftype = {'regular': 0o100000, 'directory': 0o40000, 'symlink': 0o120000}[typ]
        res.append((ino, links, '%x' % (ftype | int(mode, 8)), uid, gid, size, blocks, mtime))
    return res


def statfs(img):
    """Linux's ext2_statfs from the super block: the metadata is not counted in f_blocks."""
    sb = superblock(img)
    bs = 1024 << sb['log_block_size']
    groups = -(-(sb['blocks'] - sb['first_data_block']) // sb['blocks_per_group'])
    gdb = -(-groups // (bs // 32))
    itb = sb['inodes_per_group'] * sb['inode_size'] // bs

    def has_super(g):
        if not sb['ro_compat'] & 1 or g <= 1:
            return True
        return any(b ** k == g for b in (3, 5, 7) for k in range(1, 20))
    overhead = sb['first_data_block'] + groups * (2 + itb)
    overhead += sum(1 + gdb for g in range(groups) if has_super(g))
    avail = max(sb['free_blocks'] - sb['r_blocks'], 0)
    return '%x %d %d %d %d %d %d' % (sb['magic'], bs, sb['blocks'] - overhead, sb['free_blocks'],
                                     avail, sb['inodes'], sb['free_inodes'])


def md5(path):
    return hashlib.md5(open(path, 'rb').read()).hexdigest()


def fnv(path):
    h = 0xcbf29ce484222325
    for b in open(path, 'rb').read():
        h = ((h ^ b) * 0x100000001b3) & (2 ** 64 - 1)
    return '%016x' % h


def expect(work):
    src = work + '/tree'
    for name in ('big', 'sparse'):  # read again from sda2 after its umount and mount
        print('ext2: again md5 %s  %s' % (md5(src + '/' + name), name))
    for name in ('big', MANY % 8, 'sparse'):
        path = src + '/' + name
        h = fnv(path)
        print('ext2: hash /mnt/p1/%s %d %s %s' % (name, os.path.getsize(path), h, h))
    for p in TREE:
        img = '%s/p%d.img' % (work, p)
        paths = walk(src)
        for path, st in zip(paths, stats(img, paths)):
            print('ext2: p%d stat %s %s' % (p, path, ' '.join(str(x) for x in st)))
        for path in paths:
            full = src + path[1:]
            if os.path.isfile(full) and not os.path.islink(full):
                print('ext2: p%d md5 %s  %s' % (p, md5(full), path))
        for path in paths:
            if os.path.islink(src + path[1:]):
                print('ext2: p%d link %s %s' % (p, path, os.readlink(src + path[1:])))
        print('ext2: p%d statfs %s' % (p, statfs(img)))
        print('ext2: p%d dev %d' % (p, 8 * 256 + p))
        types = superblock(img)['incompat'] & 0x2  # filetype
        for line in debugfs(img, 'ls -p /many').split('\n')[1:]:
            f = line.split('/')
            if len(f) > 5:
                dtype = int(f[2], 8) >> 12 if types else 0
                print('ext2: p%d ls %s %d %s' % (p, f[1], dtype, f[5]))
        print('ext2: p%d ls fsread: ./many: end' % p)
        for a, b in SAME:
            one = os.stat(src + '/' + a).st_ino == os.stat(src + '/' + b).st_ino
            print('ext2: p%d same %s %s: %s' % (p, a, b, 'one inode' if one else 'two inodes'))
        for name in ('big', 'sparse'):
            cmds = ['bmap /%s %d' % (name, b) for b in BMAP]
            out = debugfs(img, *cmds).split('\n')
            got = [out[i + 1] for i, line in enumerate(out) if line.startswith('debugfs: bmap')]
            for b, disk in zip(BMAP, got):
                print('ext2: p%d bmap %s %d %s' % (p, name, b, disk))


def fact(work, name):
    """ino-d: sda8's directory /d; ino-x: the inode of the entry whose rec_len is 0;
    blocks-N: the blocks of image N."""
    img = work + '/p8.img'
    if name == 'ino-f':
        return re.search(r'Inode: (\d+)', debugfs(work + '/p13.img', 'stat /f')).group(1)
    if name == 'bad-block':
        return str(BAD_BLOCK)
    if name == 'ino-d':
        return re.search(r'Inode: (\d+)', debugfs(img, 'stat /d')).group(1)
    if name == 'ino-x':  # the directory is corrupt to debugfs too: read the entry
        with open(img, 'rb') as f:
            f.seek(dir_block(img, '/d') * 1024 + 24)
            return str(struct.unpack('<I', f.read(4))[0])
    return str(superblock('%s/p%s.img' % (work, name.split('-')[1]))['blocks'])


if __name__ == '__main__':
    if sys.argv[1] == 'make':
        make(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == 'expect':
        expect(sys.argv[2])
    else:
        print(fact(sys.argv[2], sys.argv[3]))
