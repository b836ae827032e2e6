#!/usr/bin/env python3
"""What each page of a store would hold on disk if it were compressed alone, by page size and
codec, as docs/performance.md ("Store size") quotes it.

A measurement, not a test. A disk allocates whole 4 KiB blocks, so a page compressed in place
(written at its own offset, the rest of its slot given back to the file system) holds its
compressed bytes plus a 4-byte header rounded up to whole blocks, and never more than the page
itself. For each page size, a copy of the store is vacuumed at that size, every page is
compressed alone, and the blocks it would hold are summed and divided by the messages. The
time to compress and to decompress one page is the mean over all of them (one core, through
Python's bindings to the C libraries, so a microsecond or so of it is Python's).

Usage: scripts/page_codecs.py STORE [PAGE_SIZE ...] (default 4096 8192 16384 32768), on a store
no process is writing, for example the one `KEEP_STORE=/tmp/s.sqlite3 cargo run --release
--example store_bytes_cost 100000` keeps. Deflate comes with Python; LZ4 and zstd are measured
when `pip install lz4 zstandard` has put them in place, and skipped otherwise.
"""

import os
import shutil
import sqlite3
import sys
import tempfile
import time
import zlib

BLOCK = 4096
HEADER = 4


def codecs(page_size):
    """Name, compress and decompress of each codec this Python has."""
    found = [
        ("deflate 1", lambda page: zlib.compress(page, 1), zlib.decompress),
        ("deflate 6", lambda page: zlib.compress(page, 6), zlib.decompress),
    ]
    try:
        import lz4.block

        def lz4_decompress(data):
            return lz4.block.decompress(data, uncompressed_size=page_size)

        found.append(
            ("lz4", lambda page: lz4.block.compress(page, store_size=False), lz4_decompress)
        )
        found.append(
            (
                "lz4 hc 9",
                lambda page: lz4.block.compress(
                    page, mode="high_compression", compression=9, store_size=False
                ),
                lz4_decompress,
            )
        )
    except ImportError:
        print("lz4 not installed: skipped", file=sys.stderr)
    try:
        import zstandard

        for level in (1, 3):
            found.append(
                (
                    f"zstd {level}",
                    zstandard.ZstdCompressor(level=level).compress,
                    zstandard.ZstdDecompressor().decompress,
                )
            )
    except ImportError:
        print("zstandard not installed: skipped", file=sys.stderr)
    return found


def held(compressed_length, page_size):
    """The bytes a page holds on disk: its blocks when compressing saves one, else all of it."""
    blocks = -(-(compressed_length + HEADER) // BLOCK)
    return blocks * BLOCK if blocks < page_size // BLOCK else page_size


def copy_at(store, page_size, folder):
    """A vacuumed copy of `store` whose pages are `page_size` bytes."""
    copy = os.path.join(folder, f"pages-{page_size}.sqlite3")
    source = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    source.execute(f"VACUUM INTO '{copy}'")
    source.close()
    connection = sqlite3.connect(copy, isolation_level=None)
    connection.execute("PRAGMA journal_mode=DELETE")
    connection.execute(f"PRAGMA page_size={page_size}")
    connection.execute("VACUUM")
    actual = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    if actual != page_size:
        sys.exit(f"the copy kept pages of {actual} bytes, not {page_size}")
    return copy


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    store = sys.argv[1]
    sizes = [int(size) for size in sys.argv[2:]] or [4096, 8192, 16384, 32768]
    connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    messages = connection.execute("SELECT count(*) FROM messages").fetchone()[0]
    connection.close()
    print(f"{messages} messages; bytes held a message, then µs to compress / decompress a page")
    folder = tempfile.mkdtemp()
    try:
        for page_size in sizes:
            copy = copy_at(store, page_size, folder)
            with open(copy, "rb") as file:
                data = file.read()
            os.remove(copy)
            pages = [data[at : at + page_size] for at in range(0, len(data), page_size)]
            cells = [f"{page_size} B pages: as written {len(data) / messages:.0f} B"]
            for name, compress, decompress in codecs(page_size):
                started = time.perf_counter()
                compressed = [compress(page) for page in pages]
                compressing = time.perf_counter() - started
                started = time.perf_counter()
                for one in compressed:
                    decompress(one)
                decompressing = time.perf_counter() - started
                total = sum(held(len(one), page_size) for one in compressed)
                cells.append(
                    f"{name} {total / messages:.0f} B "
                    f"({compressing / len(pages) * 1e6:.0f} / "
                    f"{decompressing / len(pages) * 1e6:.0f} µs)"
                )
            print(" | ".join(cells), flush=True)
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
