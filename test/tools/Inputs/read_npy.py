"""Prints a float32 .npy file (format 1.0) without numpy: its header, the
header's length with the magic (a multiple of 64), and its values."""
import struct
import sys

with open(sys.argv[1], "rb") as f:
    data = f.read()
assert data[:8] == b"\x93NUMPY\x01\x00", data[:8]
(length,) = struct.unpack("<H", data[8:10])
header = data[10:10 + length].decode()
print("header:", header.strip())
print("aligned:", (10 + length) % 64 == 0, header.endswith("\n"))
values = struct.unpack("<%df" % ((len(data) - 10 - length) // 4),
                       data[10 + length:])
print("values:", " ".join("%g" % v for v in values))
