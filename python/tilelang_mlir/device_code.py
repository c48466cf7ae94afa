"""The device code inside a lowered module, and its SASS.

``tile-to-nvvm`` / ``tile-to-rocdl`` leave each kernel's device code in a
``gpu.binary`` op: ``assembly = "..."`` with ``format=isa`` (PTX, AMDGCN
assembly), ``bin = "..."`` with ``format=bin`` (a cubin, an HSA code
object). MLIR prints those strings with the backslash doubled and every
other byte that is not printable ASCII, the quote included, as ``\\XX``
(two hex digits), so the bytes come back exactly.

::

    from tilelang_mlir import device_code, lower
    text = lower(source, "tile-to-nvvm{chip=sm_90a format=bin}")
    for cubin in device_code.binaries(text):
        print(device_code.sass(cubin))   # cuobjdump (or nvdisasm) needed
"""

import os
import re
import shutil
import subprocess
import tempfile

__all__ = ["assembly", "binaries", "find_cuda_tool", "sass", "opcodes"]

_ESCAPE = re.compile(rb"\\(\\|[0-9A-Fa-f]{2})")
# Where the CUDA toolkit is looked for after PATH and $CUDA_HOME.
DEFAULT_CUDA_HOME = "/usr/local/cuda"


def _objects(text, field):
    """The `field` strings (assembly or bin) of the module's gpu.objects, in
    order, as bytes."""
    pattern = r'\b%s = "((?:[^"\\]|\\\\|\\[0-9A-Fa-f]{2})*)"' % field

    def unescape(m):
        code = m.group(1)
        return code if code == b"\\" else bytes([int(code, 16)])
    return [_ESCAPE.sub(unescape, match.encode("ascii"))
            for match in re.findall(pattern, text)]


def assembly(text):
    """The device assembly (PTX, AMDGCN) of a module lowered with
    format=isa, one string per kernel module."""
    return [blob.decode("utf-8") for blob in _objects(text, "assembly")]


def binaries(text):
    """The device binaries (cubins, code objects) of a module lowered with
    format=bin, one bytes object per kernel module."""
    return _objects(text, "bin")


def find_cuda_tool(name):
    """The path of a CUDA toolkit program: on PATH, in $CUDA_HOME/bin or in
    /usr/local/cuda/bin; None when it is in none of them."""
    dirs = [os.environ.get("PATH", "")]
    for root in (os.environ.get("CUDA_HOME"), DEFAULT_CUDA_HOME):
        if root:
            dirs.append(os.path.join(root, "bin"))
    return shutil.which(name, path=os.pathsep.join(dirs))


def sass(cubin):
    """The SASS of a cubin, by cuobjdump -sass (or nvdisasm when cuobjdump
    is missing). Raises RuntimeError naming what is missing or what the
    tool said."""
    if cubin[:4] != b"\x7fELF" or len(cubin) < 20 or \
            int.from_bytes(cubin[18:20], "little") != 190:
        raise ValueError("not a cubin (an ELF for EM_CUDA, machine 190)")
    tools = [(find_cuda_tool("cuobjdump"), ["-sass"]),
             (find_cuda_tool("nvdisasm"), ["-c"])]
    tools = [(path, flags) for path, flags in tools if path]
    if not tools:
        raise RuntimeError(
            "SASS needs cuobjdump or nvdisasm (the CUDA toolkit); neither is "
            "on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin")
    path, flags = tools[0]
    with tempfile.TemporaryDirectory() as tmp:
        name = os.path.join(tmp, "kernel.cubin")
        with open(name, "wb") as f:
            f.write(cubin)
        done = subprocess.run([path] + flags + [name], capture_output=True,
                              text=True)
    if done.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (
            os.path.basename(path), done.returncode, done.stderr.strip()))
    return done.stdout


_OPCODE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)",
                     re.M)


def opcodes(text):
    """How often each opcode (the mnemonic before the first dot) stands in a
    SASS listing, as a dict."""
    counts = {}
    for op in _OPCODE.findall(text):
        counts[op] = counts.get(op, 0) + 1
    return counts
