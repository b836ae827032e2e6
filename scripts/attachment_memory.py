#!/usr/bin/env python3
"""Peak memory and threads of `attachments_get` over MCP, as docs/security.md quotes them.

A measurement, not a test: it builds the demo store (`discord-manager seed`), puts hostile
files in place of its two kept attachments (the incident screenshot and the incident log are
read from the cache by their hash, so a file replaced there is what `attachments_get` reads),
then serves MCP over stdio (`discord-manager mcp`) and sends it calls, sampling the server's
/proc/PID/status (VmHWM: its peak resident memory; Threads) while they run:

  baseline   one call on the demo's own screenshot, as kept
  png        one call on a 9999 x 9999 greyscale PNG (about 100 KB of zeros)
  jpeg       one call on a 9999 x 9999 greyscale baseline JPEG (every block flat)
  png x16    16 calls on that PNG sent at once
  text x3000 3,000 calls on an 8 MiB text file, each from its own cursor, sent at once

Usage: scripts/attachment_memory.py [path/to/discord-manager] (default: the debug build under
CARGO_TARGET_DIR or target/). Needs only python3. Prints one line per case.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

SCREENSHOT = "1600000000000000001"  # the demo's incident screenshot (a PNG)
LOG = "1600000000000000002"  # the demo's incident log (text)
SIDE = 9999


def png_grey(side):
    """A greyscale PNG of side x side pixels, all black: small on disk, huge decoded."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    compressor = zlib.compressobj(9)
    row = b"\x00" * (side + 1)  # filter byte, then the row's pixels
    idat = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def jpeg_grey(side):
    """A greyscale baseline JPEG of side x side pixels, every 8x8 block flat grey.

    Its Huffman tables hold two codes each: `00` is a DC difference of 0 and, in the AC
    table, the end of the block; so every block is the four bits 0000 and the scan is zeros.
    """

    def segment(marker, data):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(data) + 2) + data

    quantisation = segment(0xDB, b"\x00" + b"\x01" * 64)
    frame = segment(0xC0, struct.pack(">BHHB", 8, side, side, 1) + b"\x01\x11\x00")
    counts = bytes([0, 2] + [0] * 14)
    dc = segment(0xC4, b"\x00" + counts + b"\x00\x01")
    ac = segment(0xC4, b"\x10" + counts + b"\x00\x01")
    scan = segment(0xDA, b"\x01\x01\x00\x00\x3f\x00")
    blocks = ((side + 7) // 8) ** 2
    data = b"\x00" * ((blocks * 4 + 7) // 8)
    return b"\xff\xd8" + quantisation + frame + dc + ac + scan + data + b"\xff\xd9"


def text_file(size):
    line = b"2026-12-01 03:12:44 eu-west-2 edge-7 p99 latency 840 ms, retrying upstream\n"
    return (line * (size // len(line) + 1))[:size]


class Server:
    """`discord-manager mcp` on a store, spoken to in JSON-RPC lines, sampled while it runs."""

    def __init__(self, binary, store):
        self.process = subprocess.Popen(
            [binary, "--db", store, "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "DISCORD_MANAGER_MEANING": "0"},
        )
        self.peak_threads = 0
        self.sampling = True
        self.sampler = threading.Thread(target=self.sample, daemon=True)
        self.sampler.start()
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "attachment_memory", "version": "1"}}})
        self.receive()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def status(self):
        fields = {}
        try:
            with open(f"/proc/{self.process.pid}/status") as status:
                for line in status:
                    key, _, value = line.partition(":")
                    fields[key] = value.split()[0] if value.split() else ""
        except (FileNotFoundError, ProcessLookupError):
            pass
        return fields

    def sample(self):
        while self.sampling:
            threads = int(self.status().get("Threads", 0))
            self.peak_threads = max(self.peak_threads, threads)
            time.sleep(0.002)

    def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def receive(self):
        return json.loads(self.process.stdout.readline())

    def calls(self, arguments_list):
        for number, arguments in enumerate(arguments_list, start=1):
            self.send({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                       "params": {"name": "attachments_get", "arguments": arguments}})
        answers = [self.receive() for _ in arguments_list]
        errors = [a for a in answers if a.get("error") or a["result"].get("isError")]
        return answers, errors

    def finish(self):
        peak_kib = int(self.status().get("VmHWM", 0))
        self.sampling = False
        self.sampler.join()
        self.process.stdin.close()
        self.process.wait()
        return peak_kib


def kept_file(store, starts_with):
    folder = store + ".attachments"
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        with open(path, "rb") as file:
            if starts_with(file.read(16)):
                return path
    raise SystemExit(f"no kept file in {folder} looks like the one wanted")


def place(path, content):
    os.chmod(path, 0o600)
    with open(path, "wb") as file:
        file.write(content)


def main():
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "debug", "discord-manager")
    folder = tempfile.mkdtemp(prefix="attachment-memory-")
    store = os.path.join(folder, "demo.sqlite3")
    try:
        subprocess.run([binary, "--db", store, "seed"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        screenshot = kept_file(store, lambda head: head.startswith(b"\x89PNG"))
        log = kept_file(store, lambda head: head[:1].isalnum())
        png, jpeg, text = png_grey(SIDE), jpeg_grey(SIDE), text_file(8 * 1024 * 1024)
        cases = [
            ("demo screenshot (baseline)", None, screenshot, [{"attachmentId": SCREENSHOT}]),
            ("png 9999x9999 grey", png, screenshot, [{"attachmentId": SCREENSHOT}]),
            ("jpeg 9999x9999 grey", jpeg, screenshot, [{"attachmentId": SCREENSHOT}]),
            ("png x16 at once", png, screenshot, [{"attachmentId": SCREENSHOT}] * 16),
            ("text 8 MiB x3000 at once", text, log,
             [{"attachmentId": LOG, "cursor": f"{LOG}_{(n * 2797) % len(text)}"}
              for n in range(3000)]),
        ]
        print(f"{'case':<26} {'file':>10} {'peak RSS':>10} {'threads':>8}  answers")
        for name, content, path, calls in cases:
            if content is not None:
                place(path, content)
            server = Server(binary, store)
            started = time.monotonic()
            answers, errors = server.calls(calls)
            seconds = time.monotonic() - started
            peak = server.finish()
            said = "ok" if not errors else f"{len(errors)} refused: " + (
                errors[0].get("error", {}).get("message")
                or errors[0]["result"]["content"][0]["text"])[:160]
            size = os.path.getsize(path)
            print(f"{name:<26} {size / 1e6:>8.2f}MB {peak / 1024:>8.1f}MiB "
                  f"{server.peak_threads:>8}  {len(answers)} in {seconds:.1f}s, {said}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
