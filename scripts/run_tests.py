#!/usr/bin/env python3
"""Runs every TileLang-MLIR test suite and ends with `N passed, N failed`.

Suites:
  lit    the lit regression tests (test/): dialect, passes, examples, docs.
  unit   the gtest unit tests (compilation cache, JIT driver API).
  embed  installs the project and runs the installed tools, then builds the
         README's consumer (verbatim) and test/Embed against the install with
         find_package(TileLang) and runs them.
  python pytest of the Python package (python/tests: @jit, profiler,
         autotuner) against the build tree's package.
  pip    `pip install .` into a fresh virtual environment (scikit-build-core
         and pybind11 from PyPI, numpy and pytest from the system), then the
         same pytest suite against the installed package; then `pip install
         -e .` and a check that it imports the source tree's files.

Usage: run_tests.py [--build DIR] [--suite NAME ...]
"""

import argparse
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_BIN = "/usr/lib/llvm-22/bin"


class Result:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []


def run_lit(build, result):
    xml_path = os.path.join(build, "lit-results.xml")
    if os.path.exists(xml_path):
        os.remove(xml_path)
    cmd = [os.path.join(LLVM_BIN, "lit"), "-sv", "--xunit-xml-output", xml_path,
           os.path.join(build, "test")]
    print("[lit] " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd)
    if not os.path.exists(xml_path):
        result.failed += 1
        result.failures.append("lit: no results (exit code %d)" % proc.returncode)
        return
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        name = case.get("classname", "") + "/" + case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            result.failed += 1
            result.failures.append("lit: " + name)
        elif case.find("skipped") is not None:
            result.skipped += 1
        else:
            result.passed += 1


def run_unit(build, result):
    binary = os.path.join(build, "unittests", "TileLangUnitTests")
    xml_path = os.path.join(build, "unit-results.xml")
    if os.path.exists(xml_path):
        os.remove(xml_path)
    print("[unit] " + binary, flush=True)
    env = dict(os.environ)
    env.pop("TILE_CACHE_DIR", None)
    env.pop("TILE_DISABLE_CACHE", None)
    proc = subprocess.run([binary, "--gtest_output=xml:" + xml_path], env=env)
    if not os.path.exists(xml_path):
        result.failed += 1
        result.failures.append("unit: no results (exit code %d)" % proc.returncode)
        return
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        name = case.get("classname", "") + "." + case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            result.failed += 1
            result.failures.append("unit: " + name)
        elif case.get("result") == "skipped" or case.find("skipped") is not None:
            result.skipped += 1
        else:
            result.passed += 1


def readme_snippets():
    """{file name: text} of the README blocks marked `<!-- embed: NAME -->`."""
    import re
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    return dict(re.findall(r"<!-- embed: (\S+) -->\n```\w*\n(.*?)```", text, re.S))


def run_steps(label, steps, result):
    """Runs (name, command, expected substrings) steps in order; the check
    passes when every step exits 0 and prints what it should."""
    for name, cmd, expected in steps:
        print("[embed] %s: %s: %s" % (label, name, " ".join(cmd)), flush=True)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        missing = [e for e in expected if e not in proc.stdout]
        if proc.returncode != 0 or missing:
            print(proc.stdout[-4000:])
            result.failed += 1
            result.failures.append("embed: %s: step '%s' %s" % (
                label, name, "exit code %d" % proc.returncode if proc.returncode
                else "output lacks %r" % missing[0]))
            return None
    result.passed += 1
    return proc.stdout


def run_embed(build, result):
    """Installs the project, runs the installed tools, then builds the README's
    consumer (verbatim) and test/Embed against the install and runs them."""
    prefix = os.path.join(build, "embed-install")
    shutil.rmtree(prefix, ignore_errors=True)
    example = os.path.join(ROOT, "examples", "gemm_relu.mlir")
    package = ["-DCMAKE_PREFIX_PATH=" + prefix]
    if run_steps("install", [
            ("install", ["cmake", "--install", build, "--prefix", prefix], []),
            ("tile-opt --version", [os.path.join(prefix, "bin", "tile-opt"), "--version"],
             ["TileLang-MLIR version", "MLIR/LLVM"]),
            ("tile-opt", [os.path.join(prefix, "bin", "tile-opt"), example,
                          "--tile-attach-target=kind=cuda chip=sm_90a"],
             ["tile.gemm", '#tile.target<cuda, "sm_90a"']),
            ("tile-run --version", [os.path.join(prefix, "bin", "tile-run"), "--version"],
             ["TileLang-MLIR version"])], result) is None:
        return

    # The README's snippet, as a user copies it: the default compiler and
    # generator, only CMAKE_PREFIX_PATH pointing at the install.
    snippets = readme_snippets()
    readme_src = os.path.join(build, "embed-readme")
    readme_build = os.path.join(build, "embed-readme-build")
    shutil.rmtree(readme_src, ignore_errors=True)
    shutil.rmtree(readme_build, ignore_errors=True)
    if sorted(snippets) != ["CMakeLists.txt", "main.cpp"]:
        result.failed += 1
        result.failures.append("embed: README has snippets %s, expected CMakeLists.txt and main.cpp"
                               % sorted(snippets))
    else:
        os.makedirs(readme_src)
        for name, text in snippets.items():
            with open(os.path.join(readme_src, name), "w") as f:
                f.write(text)
        run_steps("README consumer", [
            ("configure", ["cmake", "-S", readme_src, "-B", readme_build] + package, []),
            ("build", ["cmake", "--build", readme_build, "-j2"], []),
            ("run", [os.path.join(readme_build, "my-compiler"), example,
                     "tile-attach-target{kind=cuda chip=sm_90a},cse,canonicalize"],
             ["tile.gemm", '#tile.target<cuda, "sm_90a"']),
        ], result)

    # Configuring where no MLIR can be found stops with what to install.
    nomlir = os.path.join(build, "embed-no-mlir")
    shutil.rmtree(nomlir, ignore_errors=True)
    proc = subprocess.run(
        ["cmake", "-S", ROOT, "-B", nomlir, "-DCMAKE_IGNORE_PREFIX_PATH=/usr/lib/llvm-22;/usr",
         "-DCMAKE_IGNORE_PATH=/usr/lib/llvm-22/lib/cmake/mlir;/usr/lib/cmake/mlir"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("[embed] configure without MLIR: exit %d" % proc.returncode, flush=True)
    if proc.returncode != 0 and "found no MLIR CMake package" in proc.stdout \
            and "scripts/setup.sh" in proc.stdout and "MLIR_DIR" in proc.stdout:
        result.passed += 1
    else:
        print(proc.stdout[-3000:])
        result.failed += 1
        result.failures.append("embed: configuring without MLIR does not say what is missing")

    consumer_build = os.path.join(build, "embed-consumer")
    shutil.rmtree(consumer_build, ignore_errors=True)
    output = run_steps("test/Embed", [
        ("configure", ["cmake", "-G", "Ninja", "-S", os.path.join(ROOT, "test", "Embed"),
                       "-B", consumer_build,
                       "-DCMAKE_CXX_COMPILER=clang++-22",
                       "-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld",
                       "-DCMAKE_BUILD_TYPE=Release"] + package, []),
        ("build", ["ninja", "-C", consumer_build], []),
        ("run", [os.path.join(consumer_build, "tile-embed-demo"), example], []),
    ], result)
    if output is None:
        return
    # The consumer checks its own results; its output is checked here too.
    check = subprocess.run([os.path.join(LLVM_BIN, "FileCheck"),
                            os.path.join(ROOT, "test", "Embed", "expected.txt")],
                           input=output, text=True)
    if check.returncode != 0:
        print(output)
        result.passed -= 1
        result.failed += 1
        result.failures.append("embed: output does not match test/Embed/expected.txt")


def run_pytest(suite, python, paths, build, result):
    """pytest of python/tests with `python`, `paths` first on its path."""
    tests = os.path.join(ROOT, "python", "tests")
    xml_path = os.path.join(build, suite + "-results.xml")
    if os.path.exists(xml_path):
        os.remove(xml_path)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(paths + [tests])
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           "--junitxml=" + xml_path, tests]
    print("[%s] %s" % (suite, " ".join(cmd)), flush=True)
    proc = subprocess.run(cmd, env=env, cwd=build)
    if not os.path.exists(xml_path):
        result.failed += 1
        result.failures.append("%s: no results (exit code %d)" % (suite, proc.returncode))
        return
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        name = case.get("classname", "") + "." + case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            result.failed += 1
            result.failures.append("%s: %s" % (suite, name))
        elif case.find("skipped") is not None:
            result.skipped += 1
        else:
            result.passed += 1


def run_python(build, result):
    """pytest against the build tree's package."""
    package = os.path.join(build, "python")
    if not os.path.isdir(os.path.join(package, "tilelang_mlir")):
        result.failed += 1
        result.failures.append("python: no package in %s (configure with "
                               "TILE_ENABLE_PYTHON=ON)" % package)
        return
    run_pytest("python", "/usr/bin/python3", [package], build, result)


def run_pip(build, result):
    """`pip install .` into a fresh venv, then pytest against the install."""
    venv = os.path.join(build, "pip-venv")
    shutil.rmtree(venv, ignore_errors=True)
    python = os.path.join(venv, "bin", "python")
    for name, cmd in [
            ("venv", ["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv]),
            ("install", [python, "-m", "pip", "install", "-q", ROOT])]:
        print("[pip] %s: %s" % (name, " ".join(cmd)), flush=True)
        # Paths under the source tree hash alike in every build directory,
        # so the objects of earlier builds (build-pip/, build-wheel/) serve.
        proc = subprocess.run(cmd, env=dict(os.environ, CCACHE_BASEDIR=ROOT))
        if proc.returncode != 0:
            result.failed += 1
            result.failures.append("pip: step '%s' failed (exit code %d)" % (name, proc.returncode))
            return
    run_pytest("pip", python, [], build, result)

    # An editable install (same build directory: only the install differs)
    # imports the source tree's .py files and the built module.
    venv = os.path.join(build, "pip-editable-venv")
    shutil.rmtree(venv, ignore_errors=True)
    python = os.path.join(venv, "bin", "python")
    probe = ("import sys, tilelang_mlir; "
             "print(sys.modules['tilelang_mlir.jit'].__file__); "
             "print(tilelang_mlir._tilelang.__file__)")
    steps = [("venv", ["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv]),
             ("install -e", [python, "-m", "pip", "install", "-q", "-e", ROOT]),
             ("import", [python, "-c", probe])]
    for name, cmd in steps:
        print("[pip] editable: %s: %s" % (name, " ".join(cmd)), flush=True)
        proc = subprocess.run(cmd, env=dict(os.environ, CCACHE_BASEDIR=ROOT), cwd="/",
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            print(proc.stdout[-4000:])
            result.failed += 1
            result.failures.append("pip: editable step '%s' failed (exit code %d)"
                                   % (name, proc.returncode))
            return
    jit_file, module_file = proc.stdout.split()[-2:]
    if jit_file != os.path.join(ROOT, "python", "tilelang_mlir", "jit.py") or \
            not os.path.exists(module_file):
        result.failed += 1
        result.failures.append("pip: the editable install imports %s and %s, not the source "
                               "tree's files" % (jit_file, module_file))
        return
    result.passed += 1


SUITES = {"lit": run_lit, "unit": run_unit, "embed": run_embed,
          "python": run_python, "pip": run_pip}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.environ.get("TILE_BUILD_DIR", os.path.join(ROOT, "build")))
    parser.add_argument("--suite", action="append", choices=sorted(SUITES),
                        help="run only these suites (default: all)")
    args = parser.parse_args()
    result = Result()
    for name in args.suite or list(SUITES):
        print("=== suite: %s ===" % name, flush=True)
        SUITES[name](os.path.abspath(args.build), result)
    print()
    for failure in result.failures:
        print("FAILED: " + failure)
    if result.skipped:
        print("%d skipped (unsupported here)" % result.skipped)
    print("%d passed, %d failed" % (result.passed, result.failed))
    return 0 if result.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
