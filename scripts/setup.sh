#!/usr/bin/env bash
# Installs everything TileLang-MLIR needs on a fresh Debian bookworm machine:
# Debian packages only (LLVM/MLIR 22, clang, lld, Ninja, ccache, the ROCm
# device libraries) and the PyPI packages of the Python bindings. Idempotent:
# a second run installs nothing.
set -euo pipefail

APT_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  clang-22 lld-22 libclang-rt-22-dev libzstd-dev zlib1g-dev rocm-device-libs
  cmake ninja-build ccache python3 python3-pip git libgtest-dev
  python3-dev python3-venv pybind11-dev python3-numpy python3-pytest
)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -ne 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

# Sanity: the toolchain the build expects.
for tool in /usr/lib/llvm-22/bin/mlir-tblgen /usr/lib/llvm-22/bin/FileCheck \
            /usr/lib/llvm-22/bin/lit clang++-22 ninja; do
  command -v "$tool" >/dev/null || { echo "setup: $tool missing after install" >&2; exit 1; }
done
echo "setup: done"
