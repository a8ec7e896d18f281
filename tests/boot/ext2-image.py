#!/usr/bin/env python3
"""ext2 images for tests/boot/ext2.sh, made by mke2fs -d from a tree written here from fixed
seeds, and their manifests: what /etc/ext2-manifest.sh prints of the mounted tree.
usage: ext2-image.py make BS IMG    write IMG (BS = 1024 or 4096) and IMG.manifest
       ext2-image.py df IMG         the df -k line Linux's ext2 gives for IMG (from dumpe2fs -h)
       ext2-image.py tamper IMG     flip one byte of big/random.bin's first block (debugfs bmap)
The tree: a 50 MiB file of random bytes (double-indirect blocks at both block sizes), a sparse
one reaching a triple-indirect block at 1 KiB, 1000 files in nested directories (one of 300
entries, names up to 255 bytes), fast and slow symbolic links, sparse files, empty files, the
direct/indirect edges, hard links, set-id modes and owners above 65535. Every inode's owner and
times are set with debugfs afterwards, so the image depends on neither who makes it nor when."""
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

UUID = '3e2c7a51-5eed-4e2f-8a11-000000000e21'
STAMP = '20240101000000'  # every inode's times (debugfs's format)
FAKE_TIME = '1704067200'  # the same instant, for mke2fs's own (E2FSPROGS_FAKE_TIME)
IMG_MIB = 72
BIG = 50 << 20
# owners other than root's, by path: (uid, gid)
OWNERS = {'owners/big-ids': (70000, 80000), 'owners/user': (1000, 1000),
          'owners/dir': (65536, 65535), 'links/slow': (4242, 4243)}


class Tree:
    """The files written, with what the manifest says of each."""

    def __init__(self, top):
        self.top = top
        self.rng = random.Random(34)
        self.data = {}  # path: the bytes a reader sees (holes as zeros)
        self.links = {}  # path: target
        self.dirs = {''}
        self.hard = {}  # path: the first path of the same inode

    def mkdir(self, path, mode=0o755):
        os.makedirs(os.path.join(self.top, path), exist_ok=True)
        os.chmod(os.path.join(self.top, path), mode)
        parts = path.split('/')
        for i in range(1, len(parts) + 1):
            self.dirs.add('/'.join(parts[:i]))

    def file(self, path, data, mode=0o644):
        self.mkdir(os.path.dirname(path))
        with open(os.path.join(self.top, path), 'wb') as f:
            f.write(data)
        os.chmod(os.path.join(self.top, path), mode)
        self.data[path] = data

    def sparse(self, path, size, pieces):
        """A file of size bytes, zeros except pieces [(offset, bytes)], the rest holes."""
        self.mkdir(os.path.dirname(path))
        whole = bytearray(size)
        with open(os.path.join(self.top, path), 'wb') as f:
            for off, piece in pieces:
                f.seek(off)
                f.write(piece)
                whole[off:off + len(piece)] = piece
            f.truncate(size)
        os.chmod(os.path.join(self.top, path), 0o644)
        self.data[path] = bytes(whole)

    def symlink(self, path, target):
        self.mkdir(os.path.dirname(path))
        os.symlink(target, os.path.join(self.top, path))
        self.links[path] = target

    def link(self, old, new):
        self.mkdir(os.path.dirname(new))
        os.link(os.path.join(self.top, old), os.path.join(self.top, new))
        self.hard[new] = self.hard.get(old, old)
        self.data[new] = self.data[old]

    def name(self, n, length):
        """A file name of length bytes starting with its number."""
        head = 'f%04d-' % n
        return head + ''.join(self.rng.choice('abcdefghijklmnopqrstuvwxyz0123456789._-')
                              for _ in range(length - len(head)))


def populate(t):
    rng = t.rng
    t.file('big/random.bin', rng.randbytes(BIG))
    # the direct/indirect edge of both block sizes: 12 and 13 blocks of 1 KiB and of 4 KiB
    for blocks in (12, 13):
        for bs in (1024, 4096):
            t.file('edge/%d-blocks-of-%d' % (blocks, bs), rng.randbytes(blocks * bs))
    t.file('edge/12-blocks-and-a-byte', rng.randbytes(12 * 4096 + 1))
    # holes at the start, in the middle, at the end, and a file that is one hole
    t.sparse('sparse/hole-start', 300000, [(200000, rng.randbytes(100000))])
    t.sparse('sparse/hole-middle', 600000, [(0, rng.randbytes(70000)),
                                            (500000, rng.randbytes(100000))])
    t.sparse('sparse/hole-end', 1 << 20, [(0, rng.randbytes(5000))])
    t.sparse('sparse/all-hole', 3 << 20, [])
    # data past 12 + 256 + 256 * 256 blocks of 1 KiB: a triple-indirect block at that size
    t.sparse('sparse/triple-indirect', (65 << 20) + 4096, [(65 << 20, rng.randbytes(4096))])
    for name in ('empty/a', 'empty/b', 'empty/.hidden'):
        t.file(name, b'')
    t.mkdir('empty/dir')
    # 1000 files: 300 in one wide directory (long names: it spans several blocks at 4 KiB),
    # the rest in a tree four levels deep
    n = 0
    for i in range(300):
        length = 255 if i % 10 == 0 else rng.randrange(8, 255)
        t.file('files/wide/' + t.name(n, length), rng.randbytes(rng.randrange(0, 3000)))
        n += 1
    while n < 1000:
        depth = 1 + n % 4
        path = '/'.join('d%d' % (n // 7 ** k % 7) for k in range(depth, 0, -1))
        t.file('files/deep/%s/%s' % (path, t.name(n, rng.randrange(6, 40))),
               rng.randbytes(rng.randrange(0, 9000)))
        n += 1
    # symbolic links: fast (the target in the inode, < 60 bytes) and slow (in a block)
    t.symlink('links/fast', '../big/random.bin')
    t.symlink('links/fast-59', 'x' * 59)
    t.symlink('links/slow', '../' + 'long-target/' * 4 + 'y' * 12)  # 60 bytes
    t.symlink('links/slow-500', '/' + '/'.join('z' * 9 for _ in range(50)))
    t.symlink('links/to-dir', '../files/wide')
    t.symlink('links/dangling', 'nowhere')
    # hard links: three names of one file, two in another directory
    t.file('hard/one', rng.randbytes(5000))
    t.link('hard/one', 'hard/two')
    t.link('hard/one', 'links/three')
    # modes and owners
    t.file('owners/big-ids', b'uid 70000 gid 80000\n', 0o640)
    t.file('owners/user', b'uid 1000\n', 0o600)
    t.file('owners/setuid', b'#!/bin/sh\n', 0o4755)
    t.file('owners/setgid', b'#!/bin/sh\n', 0o2711)
    t.file('owners/none', b'mode 0\n', 0o000)
    t.mkdir('owners/dir', 0o750)
    t.mkdir('owners/sticky', 0o1777)


def debugfs(img, cmds, write=False):
    with tempfile.NamedTemporaryFile('w', suffix='.debugfs') as f:
        f.write(''.join(c + '\n' for c in cmds))
        f.flush()
        out = subprocess.run(['debugfs'] + (['-w'] if write else []) + ['-f', f.name, img],
                             capture_output=True, text=True, check=True)
    return out.stdout


def set_owners_times(t, img):
    """Owners (root's unless OWNERS says) and times of every inode, lost+found's too."""
    paths = sorted(t.dirs | set(t.data) | set(t.links) | {'lost+found'})
    cmds = []
    for p in paths:
        if p in t.hard:
            continue
        uid, gid = OWNERS.get(p, (0, 0))
        where = '/' + p
        cmds += ['sif %s uid %d' % (where, uid), 'sif %s gid %d' % (where, gid)]
        cmds += ['sif %s %s %s' % (where, f, STAMP) for f in ('atime', 'mtime', 'ctime')]
    debugfs(img, cmds, write=True)


def mode_of(t, p):
    return os.lstat(os.path.join(t.top, p)).st_mode


def make(bs, img):
    top = tempfile.mkdtemp(prefix='ext2-image-', dir=os.path.dirname(os.path.abspath(img)))
    try:
        t = Tree(top)
        populate(t)
        os.chmod(top, 0o755)
        if os.path.exists(img):
            os.unlink(img)
        with open(img, 'wb') as f:
            f.truncate(IMG_MIB << 20)  # sparse: the image file holds only what is written
        env = dict(os.environ, E2FSPROGS_FAKE_TIME=FAKE_TIME)
        # no resize_inode: its reserved descriptor blocks are overhead to the ext4 driver
        # that mounts ext2 on today's hosts, not to fs/ext2, and df would differ
        subprocess.run(['mke2fs', '-q', '-F', '-t', 'ext2', '-O', '^resize_inode',
                        '-b', str(bs), '-U', UUID, '-E', 'root_owner=0:0,hash_seed=' + UUID,
                        '-L', 'faultline-%d' % bs, '-d', top, img], env=env, check=True)
        set_owners_times(t, img)
        modes = {p: mode_of(t, p) for p in t.dirs | set(t.data) | set(t.links) if p}
    finally:
        shutil.rmtree(top)
    with open(img + '.manifest', 'w') as f:
        f.write(manifest(t, img, modes))


def manifest(t, img, modes):
    """ext2-manifest.sh's lines: stat of every path, md5 of each file, each link's
    target; directories' sizes and lost+found's from the image (mke2fs lays them out)."""
    dirs = sorted(d for d in t.dirs if d) + ['lost+found']
    out = debugfs(img, ['stat /' + d for d in [''] + dirs])
    sizes = [int(s) for s in re.findall(r'Group: .*Size: (\d+)', out)]
    modes[''] = 0o40755
    modes['lost+found'] = 0o40700
    dsize = dict(zip([''] + dirs, sizes))
    nlink = {}
    for p in t.data:
        first = t.hard.get(p, p)
        nlink[first] = nlink.get(first, 0) + 1
    lines, md5s, links = [], [], []
    for p in sorted(set(dsize) | set(t.data) | set(t.links), key=lambda p: ('./' + p).encode()):
        uid, gid = OWNERS.get(t.hard.get(p, p), (0, 0))
        name = './' + p if p else '.'
        if p in dsize:
            subdirs = sum(1 for d in dsize if d and os.path.dirname(d) == p)
            size, n = dsize[p], 2 + subdirs
        elif p in t.links:
            size, n = len(t.links[p]), 1
            links.append('link %s %s' % (name, t.links[p]))
        else:
            size, n = len(t.data[p]), nlink[t.hard.get(p, p)]
            md5s.append('md5 %s %s' % (name, hashlib.md5(t.data[p]).hexdigest()))
        lines.append('stat %s %x %d %d %d %d' % (name, modes[p], uid, gid, size, n))
    return ''.join(x + '\n' for x in lines + md5s + links)


def df(img):
    """Linux's ext2_statfs (the BSD df, the default): the blocks each group's metadata takes
    (superblock and descriptor copies, the bitmaps, the inode table) are not counted."""
    out = subprocess.run(['dumpe2fs', '-h', img], capture_output=True, text=True,
                         check=True).stdout
    f = dict(re.findall(r'^([A-Za-z ]+):\s+(.*)$', out, re.M))
    bs, count = int(f['Block size']), int(f['Block count'])
    first, per = int(f['First block']), int(f['Blocks per group'])
    itb = int(f['Inode blocks per group'])
    groups = (count - first + per - 1) // per
    desc = (groups * 32 + bs - 1) // bs
    overhead = first
    for g in range(groups):
        if has_super(g):
            overhead += 1 + desc
    overhead += groups * (2 + itb)
    total = count - overhead
    free = int(f['Free blocks'])
    avail = max(free - int(f['Reserved block count']), 0)
    k = bs // 1024
    return '%d %d %d' % (total * k, (total - free) * k, avail * k)


def has_super(g):
    """sparse_super: copies in groups 0, 1 and powers of 3, 5 and 7"""
    if g <= 1:
        return True
    for p in (3, 5, 7):
        n = p
        while n < g:
            n *= p
        if n == g:
            return True
    return False


def tamper(img):
    out = debugfs(img, ['bmap /big/random.bin 0'])
    block = int(out.split()[-1])
    bs = int(re.search(r'Block size:\s+(\d+)', subprocess.run(
        ['dumpe2fs', '-h', img], capture_output=True, text=True, check=True).stdout)[1])
    with open(img, 'r+b') as f:
        f.seek(block * bs + 100)
        b = f.read(1)
        f.seek(block * bs + 100)
        f.write(bytes([b[0] ^ 0xff]))
    print('block %d (%d bytes): byte 100 flipped' % (block, bs))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'make':
        make(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == 'df':
        print(df(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == 'tamper':
        tamper(sys.argv[2])
    else:
        sys.exit(__doc__)


main()
