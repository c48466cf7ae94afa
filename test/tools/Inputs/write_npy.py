"""Writes a float32 .npy file (format 1.0) without numpy: write_npy.py PATH N."""
import struct
import sys

path, n = sys.argv[1], int(sys.argv[2])
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % n, *[0.25 * i for i in range(n)]))
