# The checks of docs/gdb.md's walkthrough "File, from a disk" (session ext2): fsread maps
# /mnt/numbers.txt of make debug's ext2 disk and faults its page 0; filemap_fault misses the
# cache, reads the 32 pages around it (__do_page_cache_readahead -> ext2_readpages ->
# mpage_readpages -> blk_submit) and sleeps in lock_page; the disk's interrupt on the other CPU
# ends the request (mpage_end_io_read: uptodate, unlocked); the fault returns MAJOR|LOCKED.
import os
import re

import gdb
import faultline as fl
import faultline_pagecache as pc
from fault_checks import REPO, Session, comm, frame_names, quiet, run_to_end, where

PATH = "/mnt/numbers.txt"
LINES = 40000  # the Makefile's build/disk.img: seq 1 40000 >numbers.txt
RA_PAGES = 32  # drivers/block/blk-core.c: VM_MAX_READAHEAD (128 KiB) of 4 KiB pages
RUN = 8        # kernel/fs/buffer_head.h: BOUNCE_SIZE (32 KiB), the pages of one request


def fnv(data):
    """user/fsread.c's FNV-1a hash."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def header_define(path, name):
    with open(os.path.join(REPO, path)) as f:
        m = re.search(r"#define\s+%s\s+(\d+)" % name, f.read())
    return int(m.group(1)) if m else None


def in_order(names, chain):
    it = iter(names)
    return all(n in it for n in chain)


def flag(p, name):
    return int(p["flags"]) >> fl.PG(name) & 1


class Ext2(Session):
    PROG = "fsread"
    EXPECT = ("stop", "bt", "miss", "submit", "readaround", "sleep", "pageflags", "irq",
              "unlocked", "major", "after", "exit")

    def __init__(self, name):
        super().__init__(name)
        self.sleeping = header_define("kernel/sched/sched.h", "TASK_UNINTERRUPTIBLE")
        self.running = header_define("kernel/sched/sched.h", "TASK_RUNNING")
        self.page = None  # the page lock_page waits for (check_sleep)

    def page_addr(self):
        return int(self.page) if self.page is not None else 0

    def pages(self):
        return pc.cached_pages(self.mapping)

    def stopped(self, fn):
        if fn == "filemap_fault" and self.once("stop"):
            self.first_stop()
        elif fn == "blk_submit" and "stop" in self.done and self.once("submit"):
            self.check_submit()
        elif fn == "schedule" and "submit" in self.done and self.once("sleep"):
            self.check_sleep()
        elif fn == "mpage_end_io_read" and "sleep" in self.done and self.once("irq"):
            self.check_irq()

    def first_stop(self):
        self.from_pf("stop", "filemap_fault", self.PROG)
        self.check_bt("bt", ["filemap_fault", "__do_fault", "handle_mm_fault"])
        self.t = fl.current_task()
        vma = gdb.parse_and_eval("vma")
        self.file = vma["vm_file"]
        ino = self.file["f_inode"]
        self.mapping = ino["i_mapping"]
        sb = ino["i_sb"]
        pgoff = int(gdb.parse_and_eval("vmf->pgoff"))
        ra = int(self.file["f_ra"]["ra_pages"])
        out = quiet("fl-ra 0x%x" % int(self.file))
        self.report("miss", fl.inode_path(ino) == PATH and
                    fl.cstr(sb["s_type"]["name"]) == "ext2" and fl.cstr(sb["s_id"]) == "sdb" and
                    pgoff == 0 and ra == RA_PAGES and
                    int(self.mapping["backing_dev_info"]["ra_pages"]) == RA_PAGES and
                    not self.pages() and "none of its pages" in out and
                    "ra_pages %d," % RA_PAGES in out and fl.selected_cpu() == 1,
                    "filemap_fault for page 0 of %s (ext2 on sdb, ra_pages %d) on CPU 1: "
                    "none of its pages cached, and fl-ra says so" % (PATH, RA_PAGES),
                    "path %s fs %s dev %s pgoff %d ra %d cached %d cpu %d; %s"
                    % (fl.inode_path(ino), fl.cstr(sb["s_type"]["name"]), fl.cstr(sb["s_id"]),
                       pgoff, ra, len(self.pages()), fl.selected_cpu(), out.strip()))

    def check_submit(self):
        names = frame_names()
        chain = ["blk_submit", "mpage_submit", "mpage_readpages", "ext2_readpages",
                 "__do_page_cache_readahead", "filemap_readahead", "filemap_fault",
                 "do_page_fault"]
        block = None
        f = gdb.newest_frame()
        while f is not None and f.name() != "mpage_submit":
            f = f.older()
        if f is not None:
            block = int(f.read_var("block"))
        mr = gdb.parse_and_eval("(struct mpage_read *)end_io_data")
        count, sector = int(gdb.parse_and_eval("count")), int(gdb.parse_and_eval("sector"))
        end_io = int(gdb.parse_and_eval("end_io"))
        self.report("submit", in_order(names, chain) and comm() == self.PROG and
                    int(gdb.parse_and_eval("cmd")) == 0 and
                    fl.cstr(gdb.parse_and_eval("disk->disk_name")) == "sdb" and
                    end_io == int(gdb.parse_and_eval("&mpage_end_io_read")) and
                    int(mr["n"]) == RUN and count == RUN * 8 and block is not None and
                    sector == block * 8 and int(mr["pages"][0]["index"]) == 0,
                    "blk_submit from the read-around (mpage_readpages <- ext2_readpages <- "
                    "__do_page_cache_readahead <- filemap_fault): a READ of %d sectors of sdb "
                    "for pages 0-%d, mpage_end_io_read to end it" % (RUN * 8, RUN - 1),
                    "frames %s cmd %s count %d sector %d block %s end_io 0x%x n %d"
                    % (names, gdb.parse_and_eval("cmd"), count, sector, block, end_io,
                       int(mr["n"])))
        pages = self.pages()
        out = quiet("fl-ra 0x%x" % int(self.file))
        locked = all(flag(p, "PG_locked") and not flag(p, "PG_uptodate")
                     for p in pages.values())
        self.report("readaround", sorted(pages) == list(range(RA_PAGES)) and locked and
                    int(self.file["f_ra"]["mmap_miss"]) == 1 and
                    "0-%d " % (RA_PAGES - 1) in out and "%d of its pages" % RA_PAGES in out,
                    "one fault, %d pages: 0-%d in the page cache, each locked and not "
                    "uptodate until its read ends; mmap_miss 1; fl-ra shows them"
                    % (RA_PAGES, RA_PAGES - 1),
                    "indexes %s locked-not-uptodate %s mmap_miss %d; %s"
                    % (sorted(pages), locked, int(self.file["f_ra"]["mmap_miss"]), out.strip()))

    def check_sleep(self):
        names = frame_names()
        f = gdb.newest_frame().older()
        page = f.read_var("page") if f is not None and f.name() == "lock_page" else None
        self.page = page
        state = int(gdb.parse_and_eval("current->state"))
        self.report("sleep", comm() == self.PROG and names[:3] == ["schedule", "lock_page",
                                                                    "filemap_fault"] and
                    state == self.sleeping and page is not None and
                    int(page) == int(self.pages().get(0, 0)) and flag(page, "PG_locked") and
                    not flag(page, "PG_uptodate"),
                    "schedule from lock_page in filemap_fault: fsread, TASK_UNINTERRUPTIBLE, "
                    "waits for page 0, still locked and not uptodate",
                    "comm %s frames %s state %d page %s" % (comm(), names[:4], state, page))
        out = quiet("pageflags 0x%x" % int(page)) if page is not None else ""
        self.report("pageflags", page is not None and "page 0 of %s" % PATH in out and
                    "0x%x (%s)" % (int(page["flags"]), fl.page_flags_str(int(page["flags"])))
                    in out and "locked" in out and "uptodate" not in out,
                    "pageflags: page 0 of %s, its flags by name (locked, not uptodate)" % PATH,
                    out.strip())

    def check_irq(self):
        names = frame_names()
        mr = gdb.parse_and_eval("(struct mpage_read *)req->end_io_data")
        cpu = fl.selected_cpu()
        idle = int(gdb.parse_and_eval("cpu_data[0].idle"))
        self.report("irq", cpu == 0 and int(fl.current_task()) == idle and
                    in_order(names, ["mpage_end_io_read", "end_request", "ata_interrupt",
                                     "trap_common", "cpu_idle"]) and
                    not {"lock_page", "filemap_fault", "do_page_fault"} & set(names) and
                    int(mr["pages"][0]) == self.page_addr() != 0 and int(mr["n"]) == RUN and
                    int(gdb.parse_and_eval("error")) == 0 and
                    int(self.t["state"]) == self.sleeping,
                    "mpage_end_io_read from the disk's interrupt on CPU 0, on its idle task's "
                    "stack: the request of pages 0-%d; fsread still asleep on CPU 1" % (RUN - 1),
                    "cpu %d current 0x%x idle 0x%x frames %s pages[0] 0x%x n %d fsread state %d"
                    % (cpu, int(fl.current_task()), idle, names, int(mr["pages"][0]),
                       int(mr["n"]), int(self.t["state"])))

    def finished(self, fn, ret):
        if fn == "mpage_end_io_read" and "irq" in self.done and self.once("unlocked"):
            pages = self.pages()
            done = all(i in pages and flag(pages[i], "PG_uptodate") and
                       not flag(pages[i], "PG_locked") for i in range(RUN))
            self.report("unlocked", done and where() == "end_request" and
                        int(self.t["state"]) == self.running,
                        "finish: pages 0-%d uptodate and unlocked; unlock_page woke fsread "
                        "(TASK_RUNNING)" % (RUN - 1),
                        "in %s, pages 0-%d done %s, fsread state %d"
                        % (where(), RUN - 1, done, int(self.t["state"])))
        elif fn == "filemap_fault" and "unlocked" in self.done and self.once("major"):
            bits = dict(fl.VM_FAULT_BITS)
            want = bits["VM_FAULT_MAJOR"] | bits["VM_FAULT_LOCKED"]
            vpage = int(gdb.parse_and_eval("vmf->page"))
            self.report("major", ret == want and where() == "__do_fault" and
                        vpage == self.page_addr() != 0 and flag(self.page, "PG_locked") and
                        flag(self.page, "PG_uptodate"),
                        "finish: filemap_fault returned VM_FAULT_MAJOR|VM_FAULT_LOCKED to "
                        "__do_fault, vmf->page page 0, locked again by the fault, uptodate",
                        "returned %s in %s, vmf->page 0x%x" % (ret, where(), vpage))
            pages = self.pages()
            st = {i: (flag(p, "PG_locked"), flag(p, "PG_uptodate")) for i, p in pages.items()}
            want_st = {i: ((1, 1) if i == 0 else (0, 1) if i < RUN else (1, 0))
                       for i in range(RA_PAGES)}
            self.report("after", st == want_st,
                        "after: page 0 locked and uptodate, 1-%d uptodate, %d-%d still locked: "
                        "their request waits for CPU 0, which gdb holds"
                        % (RUN - 1, RUN, RA_PAGES - 1), "locked, uptodate: %s" % st)

    def epilogue(self, interrupted):
        """The debugged fsread still passes: both hashes are the host's, and it exits 0."""
        if interrupted:
            return
        text = run_to_end()
        h = fnv("".join("%d\n" % i for i in range(1, LINES + 1)).encode())
        line = "%s %d %016x %016x" % (PATH, sum(len("%d\n" % i) for i in range(1, LINES + 1)),
                                     h, h)
        self.report("exit", line in text and
                    "run: /bin/busybox taskset 2 /bin/fsread hash %s: exit 0" % PATH in text,
                    "the debugged fsread still passes: its mmap and read hashes are the "
                    "host's, exit 0", text.strip().splitlines()[-1] if text.strip() else
                    "no serial log")
