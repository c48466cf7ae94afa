"""Prints the assembly (PTX, or AMDGPU ISA) of every gpu.binary in tile-opt
output (format=isa) read from stdin, one instruction per line: ptxas can
assemble it (for its -v resource report), FileCheck can check the order of
instructions; with an argument N, only the N-th binary's (from 0: ptxas
takes one module per file)."""
import re
import sys

text = sys.stdin.read()
binaries = re.findall(r'assembly = "(.*?)"(?:>|,)', text, re.S)
if len(sys.argv) > 1:
    binaries = [binaries[int(sys.argv[1])]]
for asm in binaries:
    print(re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), asm))
