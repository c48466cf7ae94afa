#!/usr/bin/env python3
"""Checks that generic code never depends on vendor code.

  scripts/check_layering.py [--root SRC] [--build BUILD]

The generic libraries (the dialect, the target interface, the tile-level
passes, the shared lowering, convert-tile-to-gpu, the CPU lowering) ask a
target what it can do through TileLang/Target/TargetInfo.h; the vendor
libraries (the NVIDIA and AMD lowerings and their TargetInfo
implementations) depend on them, never the reverse. Three checks, each over
what the tree itself says:

  links     no generic library links a vendor library, directly or through
            another library (the LINK_LIBS of add_tile_library in
            lib/**/CMakeLists.txt);
  includes  no source of a generic library and no generic header includes a
            vendor header, directly or through other project headers;
  symbols   (with --build) no generic archive references a symbol that only
            a vendor archive defines (llvm-nm over the built archives).

Prints one line per violation and exits 1 if there is any.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NM = "/usr/lib/llvm-22/bin/llvm-nm"

GENERIC = ["TileLangTileDialect", "TileLangTargetInfo", "TileLangTransforms",
           "TileLangTileLowering", "TileLangTileToGPU", "TileLangTileToSCF"]
VENDOR = ["TileLangNVIDIALowering", "TileLangAMDLowering",
          "TileLangNVIDIATarget", "TileLangAMDTarget"]
# Headers (relative to include/) that are vendor code: a file or a folder.
VENDOR_HEADERS = ["TileLang/Target/NVIDIA/", "TileLang/Target/AMD/"]

LIBRARY = re.compile(r"add_tile_library\(\s*(\w+)(.*?)\n\)", re.S)
KEYWORDS = {"DEPENDS", "LINK_LIBS", "MLIR_LIBS", "LINK_COMPONENTS"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def parse_libraries(root):
    """{name: (sources, project libraries it links)} from lib/**/CMakeLists."""
    libraries = {}
    for folder, _, files in os.walk(os.path.join(root, "lib")):
        if "CMakeLists.txt" not in files:
            continue
        with open(os.path.join(folder, "CMakeLists.txt")) as f:
            text = re.sub(r"#.*", "", f.read())
        for match in LIBRARY.finditer(text):
            sources, links, section = [], [], None
            for word in match.group(2).split():
                if word in KEYWORDS:
                    section = word
                elif section is None:
                    sources.append(os.path.join(folder, word))
                elif section == "LINK_LIBS":
                    links.append(word)
            libraries[match.group(1)] = (sources, links)
    return libraries


def closure(name, libraries):
    """{library: the library it is linked through} for everything `name`
    links, directly or not."""
    via = {}
    stack = [(link, name) for link in libraries.get(name, ([], []))[1]]
    while stack:
        lib, parent = stack.pop()
        if lib in via:
            continue
        via[lib] = parent
        stack.extend((link, lib) for link in libraries.get(lib, ([], []))[1])
    return via


def is_vendor_header(header):
    return any(header == v or (v.endswith("/") and header.startswith(v))
               for v in VENDOR_HEADERS)


def project_includes(path, include_dir):
    with open(path, errors="replace") as f:
        for header in INCLUDE.findall(f.read()):
            if os.path.exists(os.path.join(include_dir, header)):
                yield header
            elif os.path.exists(os.path.join(os.path.dirname(path), header)):
                yield os.path.relpath(
                    os.path.join(os.path.dirname(path), header), include_dir)


def vendor_include_chain(path, include_dir):
    """The chain of project headers from `path` to a vendor header, or None."""
    seen = set()
    stack = [(path, [])]
    while stack:
        file, chain = stack.pop()
        for header in project_includes(file, include_dir):
            if is_vendor_header(header):
                return chain + [header]
            full = os.path.normpath(os.path.join(include_dir, header))
            if full not in seen:
                seen.add(full)
                stack.append((full, chain + [header]))
    return None


def check_links(libraries):
    problems = []
    for name in GENERIC:
        if name not in libraries:
            problems.append("links: %s is not defined by any CMakeLists" % name)
            continue
        for lib, parent in sorted(closure(name, libraries).items()):
            if lib in VENDOR:
                how = "" if parent == name else " (through %s)" % parent
                problems.append("links: %s links %s%s" % (name, lib, how))
    return problems


def check_includes(root, libraries):
    include_dir = os.path.join(root, "include")
    files = []
    for name in GENERIC:
        files += [s for s in libraries.get(name, ([], []))[0]
                  if s.endswith((".cpp", ".h"))]
    for folder, _, names in os.walk(include_dir):
        for n in names:
            path = os.path.join(folder, n)
            if n.endswith(".h") and not is_vendor_header(
                    os.path.relpath(path, include_dir)):
                files.append(path)
    problems = []
    for path in sorted(set(files)):
        chain = vendor_include_chain(path, include_dir)
        if chain:
            problems.append("includes: %s includes %s" % (
                os.path.relpath(path, root), " -> ".join(chain)))
    return problems


def symbols(archive, defined):
    """The defined (or undefined) external symbols of `archive`."""
    flag = "--defined-only" if defined else "--undefined-only"
    out = subprocess.run([NM, "--extern-only", flag, "--format=just-symbols",
                          archive], capture_output=True, text=True, check=True)
    return {line.strip() for line in out.stdout.splitlines()
            if line.strip() and not line.endswith(":")}


def check_symbols(build):
    archive = lambda name: os.path.join(build, "lib", "lib%s.a" % name)
    missing = [n for n in GENERIC + VENDOR if not os.path.exists(archive(n))]
    if missing:
        return ["symbols: no archive of %s in %s" % (", ".join(missing), build)]
    generic_defined = set()
    for name in GENERIC:
        generic_defined |= symbols(archive(name), True)
    vendor_only = set()
    for name in VENDOR:
        vendor_only |= symbols(archive(name), True)
    vendor_only -= generic_defined
    problems = []
    for name in GENERIC:
        for symbol in sorted(symbols(archive(name), False) & vendor_only):
            problems.append("symbols: %s references %s, defined only by "
                            "vendor code" % (name, symbol))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=ROOT, help="the source tree")
    parser.add_argument("--build", help="a build tree: check its archives too")
    args = parser.parse_args()
    libraries = parse_libraries(args.root)
    problems = check_links(libraries) + check_includes(args.root, libraries)
    checks = "links, includes"
    if args.build:
        problems += check_symbols(args.build)
        checks += ", symbols"
    print("generic: " + ", ".join(GENERIC))
    print("vendor: " + ", ".join(VENDOR))
    for problem in problems:
        print(problem)
    if problems:
        print("%d layering violations" % len(problems))
        return 1
    print("no generic library depends on vendor code (%s)" % checks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
