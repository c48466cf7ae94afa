"""Prints the PTX of every gpu.binary in tile-opt output (format=isa) read
from stdin, so that ptxas can assemble it (for its -v resource report)."""
import re
import sys

text = sys.stdin.read()
for asm in re.findall(r'assembly = "(.*?)"(?:>|,)', text, re.S):
    print(re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), asm))
