"""Writes a float32 .npy file whose header claims SHAPE (e.g. 4611686018427387906,4)
but holds only N values: write_npy_header.py PATH SHAPE N."""
import struct
import sys

path, shape, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % shape
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % n, *[0.0] * n))
