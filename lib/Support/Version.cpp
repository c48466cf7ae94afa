//===- Version.cpp - The project's version and build identity -----------===//
//
// Part of TileLang-MLIR.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Support/Version.h"

#include "VersionInfo.inc"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

#include <cstring>
#include <elf.h>
#include <link.h>

using namespace llvm;

StringRef mlir::tile::getVersion() { return TILELANG_VERSION_STRING; }

StringRef mlir::tile::getCommit() { return TILELANG_COMMIT_STRING; }

void mlir::tile::printVersion(raw_ostream &os) {
  os << "TileLang-MLIR version " << getVersion() << " (commit " << getCommit()
     << ")\n  built with MLIR/LLVM " << LLVM_VERSION_STRING << "\n";
}

void mlir::tile::setVersionPrinter() {
  cl::SetVersionPrinter([](raw_ostream &os) { printVersion(os); });
}

void mlir::tile::runOnLargeStack(function_ref<void()> fn, unsigned bytes) {
#if defined(__SANITIZE_ADDRESS__) || LLVM_ADDRESS_SANITIZER_BUILD
  // AddressSanitizer's runtime fails to unmap the state of a thread started
  // with a custom stack size ("failed to deallocate ... error code: 22") and
  // aborts: ASan builds (scripts/asan-check.sh) keep the caller's stack.
  (void)bytes;
  fn();
#else
  llvm::thread worker(std::optional<unsigned>(bytes), [&] { fn(); });
  worker.join();
#endif
}

namespace {
/// One loaded object that is part of the compiler.
struct CompilerObject {
  std::string name;
  std::string identity;
};

struct ObjectSearch {
  uintptr_t self;
  SmallVector<CompilerObject> found;
};
} // namespace

/// The hex GNU build ID in the PT_NOTE segments of a loaded object, or "".
static std::string findBuildID(const dl_phdr_info *info) {
  for (unsigned i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &phdr = info->dlpi_phdr[i];
    if (phdr.p_type != PT_NOTE)
      continue;
    const char *note =
        reinterpret_cast<const char *>(info->dlpi_addr + phdr.p_vaddr);
    const char *end = note + phdr.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) header;
      std::memcpy(&header, note, sizeof(header));
      const char *name = note + sizeof(header);
      const char *desc = name + alignTo(header.n_namesz, 4);
      const char *next = desc + alignTo(header.n_descsz, 4);
      if (next > end || next <= note)
        break;
      if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0 && header.n_descsz > 0)
        return toHex(StringRef(desc, header.n_descsz), /*LowerCase=*/true);
      note = next;
    }
  }
  return "";
}

static int visitObject(dl_phdr_info *info, size_t, void *data) {
  auto *search = static_cast<ObjectSearch *>(data);
  bool holdsSelf = false;
  for (unsigned i = 0; i < info->dlpi_phnum && !holdsSelf; ++i) {
    const ElfW(Phdr) &phdr = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + phdr.p_vaddr;
    holdsSelf = phdr.p_type == PT_LOAD && search->self >= start &&
                search->self < start + phdr.p_memsz;
  }
  // The main program has an empty name.
  std::string path = info->dlpi_name && *info->dlpi_name
                         ? std::string(info->dlpi_name)
                         : std::string();
  StringRef file = sys::path::filename(path);
  bool isMLIR = file.starts_with("libMLIR") || file.starts_with("libLLVM");
  if (!holdsSelf && !isMLIR)
    return 0;
  if (path.empty())
    path = sys::fs::getMainExecutable(nullptr, nullptr);
  CompilerObject object;
  object.name = holdsSelf ? "tilelang" : file.str();
  object.identity = findBuildID(info);
  if (object.identity.empty()) {
    // No build ID: the file's size and modification time (not its path,
    // which depends on how the binary was reached).
    sys::fs::file_status status;
    object.identity =
        sys::fs::status(path, status)
            ? std::string("unknown")
            : formatv("size {0} mtime {1}", status.getSize(),
                      status.getLastModificationTime()
                          .time_since_epoch()
                          .count())
                  .str();
  }
  search->found.push_back(std::move(object));
  return 0;
}

const std::string &mlir::tile::getCompilerIdentity() {
  static const std::string identity = [] {
    ObjectSearch search{reinterpret_cast<uintptr_t>(&getCompilerIdentity), {}};
    dl_iterate_phdr(visitObject, &search);
    llvm::sort(search.found, [](const CompilerObject &a,
                                const CompilerObject &b) {
      return std::tie(a.name, a.identity) < std::tie(b.name, b.identity);
    });
    std::string text;
    for (const CompilerObject &object : search.found)
      text += (text.empty() ? "" : " ") + object.name + ":" + object.identity;
    return text.empty() ? std::string("unknown") : text;
  }();
  return identity;
}
