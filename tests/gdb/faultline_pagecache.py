# gdb helpers for a file's page cache and its read-ahead (docs/gdb.md, "File, from a disk"):
#
#   pageflags PAGE   a struct page *: its PG_* flags by name, _count, _mapcount, and which
#                    file's page it is (mapping, index) or that it is in no file's cache
#   fl-ra FILE       a struct file *: the file, its size and device, its file_ra_state
#                    (mm/readahead.c) and the pages of it the page cache holds, in runs of
#                    pages with the same flags
#
# Loaded by tests/gdb/faultline.gdb after faultline.py. The page cache is the kernel's own
# hash (mm/filemap.c's page_hash[], chained by page->next_hash): every chain is walked, so no
# copy of the hash function is needed.
import gdb

import faultline as fl


def page_hash_pages():
    """Every page in the page cache's hash, chain by chain."""
    table = gdb.parse_and_eval("page_hash")
    n = table.type.strip_typedefs().range()[1] + 1
    ptr = gdb.lookup_type("struct page").pointer()
    heads = bytes(gdb.selected_inferior().read_memory(int(table.address), 8 * n))
    out = []
    for i in range(n):
        addr = int.from_bytes(heads[8 * i:8 * i + 8], "little")
        while addr:
            p = gdb.Value(addr).cast(ptr)
            out.append(p)
            addr = int(p["next_hash"])
    return out


def cached_pages(mapping):
    """{index: struct page *} of the pages of mapping in the page cache."""
    return {int(p["index"]): p for p in page_hash_pages() if int(p["mapping"]) == int(mapping)}


def runs(pages):
    """[(first, last, flags)]: consecutive indexes whose pages have the same flags."""
    out = []
    for i in sorted(pages):
        flags = int(pages[i]["flags"])
        if out and out[-1][1] == i - 1 and out[-1][2] == flags:
            out[-1][1] = i
        else:
            out.append([i, i, flags])
    return [tuple(r) for r in out]


def page_text(p):
    """pageflags' lines for the struct page * p."""
    pfn = int(p - gdb.parse_and_eval("mem_map"))
    flags, mc = int(p["flags"]), int(p["_mapcount"])
    mapping = p["mapping"]
    owner = "in no file's page cache"
    if int(mapping) and not int(mapping) & 1:  # PAGE_MAPPING_ANON (mm/rmap.h): an anon_vma
        ino = mapping.cast(gdb.lookup_type("struct address_space").pointer())["host"]
        owner = "page %d of %s" % (int(p["index"]), fl.inode_path(ino) or "an unnamed inode")
    return ("pageflags 0x%x: frame 0x%x, %s\n  flags 0x%x (%s), _count %d, _mapcount %d\n"
            % (int(p), pfn << fl.PAGE_SHIFT, owner, flags, fl.page_flags_str(flags),
               int(p["_count"]), mc))


def ra_text(f):
    """fl-ra's lines for the struct file * f."""
    ino = f["f_inode"]
    mapping = ino["i_mapping"]
    size = int(ino["i_size"])
    npages = (size + fl.PAGE_SIZE - 1) >> fl.PAGE_SHIFT
    sb = ino["i_sb"]
    bdi = mapping["backing_dev_info"]
    where = "on %s (%s, the device's ra_pages %d)" % (
        fl.cstr(sb["s_id"]), fl.cstr(sb["s_type"]["name"]),
        int(bdi["ra_pages"])) if int(bdi) else "in memory (no device: no read-ahead)"
    ra = f["f_ra"]
    prev = int(ra["prev_index"])
    out = ["fl-ra 0x%x %s: %d bytes, pages 0-%d, %s\n"
           % (int(f), fl.inode_path(ino), size, npages - 1, where),
           "  f_ra: ra_pages %d, start %d, size %d, async_size %d, mmap_miss %d, "
           "prev_index %s\n" % (int(ra["ra_pages"]), int(ra["start"]), int(ra["size"]),
                                int(ra["async_size"]), int(ra["mmap_miss"]),
                                "-1 (none yet)" if prev == (1 << 64) - 1 else prev)]
    pages = cached_pages(mapping)
    if not pages:
        out.append("  page cache: none of its pages (nrpages %d)\n" % int(mapping["nrpages"]))
    else:
        out.append("  page cache: %d of its pages (nrpages %d)\n"
                   % (len(pages), int(mapping["nrpages"])))
        for first, last, flags in runs(pages):
            out.append("    %-10s %s\n" % ("%d-%d" % (first, last) if last > first else first,
                                           fl.page_flags_str(flags)))
    return "".join(out)


class PointerCommand(gdb.Command):
    """A command whose one argument is an expression for a pointer to struct_name, shown by
    text(pointer)."""

    def __init__(self, name, struct_name, text, doc):
        self.__doc__ = doc
        super().__init__(name, gdb.COMMAND_DATA)
        self.name, self.struct_name, self.text = name, struct_name, text

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: %s EXPR (a struct %s *)" % (self.name, self.struct_name))
        ptr = gdb.parse_and_eval(arg).cast(gdb.lookup_type("struct " + self.struct_name).pointer())
        if not int(ptr):
            raise gdb.GdbError("%s: %s is NULL" % (self.name, arg))
        gdb.write(self.text(ptr))


PointerCommand("pageflags", "page", page_text,
               "The flags of a struct page: pageflags PAGE (an expression: page, $page, "
               "vmf->page): PG_* by name, _count, _mapcount, the file and index it caches.")
PointerCommand("fl-ra", "file", ra_text,
               "An open file's read-ahead and page cache: fl-ra FILE (a struct file *: $file, "
               "vma->vm_file): its file_ra_state, and its cached pages in runs of the same "
               "flags.")
