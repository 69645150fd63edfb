# SPDX-License-Identifier: MIT
"""What the importer's test scripts share (test_reader.py, test_render.py,
test_import_damaged.py): the list of failed checks each script reports at
its end, and the CRC-32 rewrite that keeps a damaged record consistent."""
import struct
import zlib

failures = []


def check(ok, what):
    """Notes `what` as a failure unless ok; the script goes on."""
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def recrc(buf, start, size, at):
    """Rewrites the CRC-32 at start + at of the record buf[start:start + size]."""
    struct.pack_into("<I", buf, start + at, 0)
    struct.pack_into("<I", buf, start + at, zlib.crc32(bytes(buf[start:start + size])) & 0xFFFFFFFF)
