//===- tile-run.cpp - Run and check a tile kernel -----------------------===//
//
// Part of TileLang-MLIR.
//
// Runs a kernel on seeded random (or .npy) inputs, compares every buffer
// with a reference (a reference function, or the CPU lowering of the same
// kernel for a GPU target), prints the max absolute and relative errors and
// the median time, and exits non-zero on a mismatch.
//
//===----------------------------------------------------------------------===//

#include "TileLang/JIT/JIT.h"
#include "TileLang/Runtime/CUDARuntime.h"
#include "TileLang/Runtime/HIPRuntime.h"
#include "TileLang/Runtime/Launch.h"
#include "TileLang/Support/CheckedSize.h"
#include "TileLang/Support/Version.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileOutputBuffer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <sys/resource.h>
#include <unistd.h>

using namespace mlir::tile::jit;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
namespace cl = llvm::cl;

static cl::OptionCategory category("tile-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<kernel.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the only public one)"),
              cl::cat(category));
static cl::opt<std::string>
    targetName("target", cl::init("cpu"),
               cl::desc("Target: cpu, sm_80, sm_90a, cuda:sm_90a:+ptx80, "
                        "gfx942, ..."),
               cl::cat(category));
static cl::list<std::string> argSpecs(
    "arg",
    cl::desc("One per function argument, in order. A buffer: its shape "
             "(300x200; the element type comes from the signature) or "
             "@file.npy. A scalar: its value (42, 0.5)"),
    cl::cat(category));
static cl::opt<std::string> referenceSpec(
    "reference",
    cl::desc("Reference function with the same signature: @name (in the "
             "kernel file) or file.mlir@name. Default: none on the cpu, the "
             "CPU lowering of the same kernel on a GPU target"),
    cl::cat(category));
static cl::opt<bool> noCheck(
    "no-check",
    cl::desc("Run and time without a reference: the outputs are not checked "
             "(large GPU shapes whose CPU reference would take minutes)"),
    cl::cat(category));
static cl::list<unsigned>
    outputArgs("outputs", cl::CommaSeparated,
               cl::desc("Indices of the output buffers, poisoned (NaN, or "
                        "0x5A bytes for integers) before each run unless "
                        "--no-poison (default: the last buffer argument)"),
               cl::cat(category));
static cl::opt<std::string> saveOutputs(
    "save-outputs",
    cl::desc("Directory to write the outputs (--outputs) of the kernel's "
             "first run to, as <index>.npy (bf16 as raw 16-bit words, '<u2')"),
    cl::cat(category));
static cl::opt<bool> noPoison("no-poison",
                              cl::desc("Start outputs from random values "
                                       "(for kernels that accumulate)"),
                              cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::init(0),
                              cl::desc("Seed of the random inputs"),
                              cl::cat(category));
static cl::opt<double> rtolOpt("rtol", cl::init(-1),
                               cl::desc("Relative tolerance (default by "
                                        "dtype: f32 1e-4, f16 1e-2, bf16 "
                                        "2e-2, integers 0)"),
                               cl::cat(category));
static cl::opt<double> atolOpt("atol", cl::init(-1),
                               cl::desc("Absolute tolerance (default by "
                                        "dtype: f32 1e-5, f16 1e-2, bf16 "
                                        "2e-2, integers 0)"),
                               cl::cat(category));
static cl::opt<unsigned> repeat("repeat", cl::init(10),
                                cl::desc("Timed runs (the median is printed)"),
                                cl::cat(category));
static cl::opt<bool> deviceTimingOpt(
    "device-timing", cl::init(true),
    cl::desc("CUDA: time each run's kernels with CUDA events besides the "
             "wall clock (=false: the wall clock only, nothing added to the "
             "launches: the host launch overhead)"),
    cl::cat(category));
static cl::opt<bool> streamOpt(
    "stream", cl::init(false),
    cl::desc("CUDA: run on a stream of tile-run's own as a framework's "
             "caller does (the C++ API's LaunchTarget): launches are queued "
             "with no wait of their own, tile-run waits once before reading "
             "results, and the timed runs are one batch whose wall time is "
             "divided by the runs (the rate of back-to-back calls)"),
    cl::cat(category));
static cl::opt<unsigned> warmup("warmup", cl::init(2),
                                cl::desc("Untimed runs before timing"),
                                cl::cat(category));
static cl::opt<bool> explain(
    "explain",
    cl::desc("Print the specialization inputs, the target, every component "
             "of the cache key and whether the cache hit"),
    cl::cat(category));
static cl::opt<bool> noSpecialize(
    "no-specialize",
    cl::desc("Keep dynamic dimensions dynamic (one binary for all shapes)"),
    cl::cat(category));
static cl::opt<bool> jsonOpt(
    "json",
    cl::desc("Print one JSON object on stdout (the report below; the text "
             "goes to stderr): entry, target, specialization, pipeline, "
             "cache, compile times, each buffer's comparison with the "
             "reference, timings in ms with every sample, status, and the "
             "error if any"),
    cl::cat(category));
static cl::opt<bool> compileOnly(
    "compile-only",
    cl::desc("Compile the specialization into the cache and stop: no run, no "
             "check (a GPU target needs no GPU)"),
    cl::cat(category));
static cl::opt<bool> timePassesOpt(
    "time-compile", cl::init(false),
    cl::desc("Print the compile's wall time per pass and the host code's "
             "to stderr (on a cache miss)"),
    cl::cat(category));
static cl::opt<bool> verifyPassesOpt(
    "verify-passes", cl::init(false),
    cl::desc("Verify the IR after every pass of the lowering (=false: the "
             "input and the lowered module only; the binary is the same)"),
    cl::cat(category));
static cl::OptionCategory compileCategory(
    "Compile options (one per row of CompileOptions.def)");
// --FLAG for every compile option, with the table's default and description.
#define TILE_COMPILE_OPTION(VENDOR, TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)   \
  static cl::opt<TYPE> NAME##Flag(FLAG, cl::init(DEFAULT),                     \
                                  cl::desc(#VENDOR ": " DESCRIPTION),          \
                                  cl::cat(compileCategory));
#include "TileLang/Pipelines/CompileOptions.def"
static cl::opt<unsigned> optLevel("O", cl::init(2),
                                  cl::desc("LLVM optimization level (0-3)"),
                                  cl::cat(category));

//===----------------------------------------------------------------------===//
// Host buffers
//===----------------------------------------------------------------------===//

namespace {
struct HostBuffer {
  DType dtype;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<uint8_t> bytes;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  BufferArg view() {
    BufferArg arg;
    // A zero-size buffer still needs a non-null pointer.
    if (bytes.empty())
      bytes.resize(8);
    arg.data = bytes.data();
    arg.dtype = dtype;
    arg.shape = shape;
    return arg;
  }
};
} // namespace

static double getElement(const HostBuffer &b, int64_t i) {
  return readElement(b.dtype, b.bytes.data() + i * getByteSize(b.dtype));
}

static void setElement(HostBuffer &b, int64_t i, double v) {
  writeElement(b.dtype, b.bytes.data() + i * getByteSize(b.dtype),
               ScalarArg{v});
}

/// Uniform in [-1, 1) for floats, in [-8, 8) for integers (small enough
/// for exact integer GEMMs; [0, 16) unsigned), {0, 1} for i1, [-128, 128)
/// for i8 and [0, 256) for ui8 (packed data).
/// Chunks of 2^16 elements draw from their own generator, seeded from
/// (`seed`, `stream`, chunk), on all cores: the values depend on the seed
/// only, and a gigabyte of inputs takes a fraction of a second.
static void fillRandom(HostBuffer &b, uint64_t seed, uint64_t stream) {
  constexpr int64_t kChunk = int64_t(1) << 16;
  int64_t n = b.numElements();
  llvm::parallelFor(0, llvm::divideCeil(n, kChunk), [&](size_t chunk) {
    std::seed_seq seq{seed, stream, static_cast<uint64_t>(chunk)};
    std::mt19937_64 rng(seq);
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    for (int64_t i = chunk * kChunk, e = std::min(n, i + kChunk); i < e;
         ++i) {
      double v;
      if (isFloat(b.dtype))
        v = real(rng);
      else if (b.dtype == DType::I1)
        v = rng() & 1;
      else if (b.dtype == DType::I8)
        v = static_cast<int64_t>(rng() % 256) - 128;
      else if (b.dtype == DType::U8)
        v = static_cast<int64_t>(rng() % 256);
      else if (isUnsigned(b.dtype))
        v = static_cast<int64_t>(rng() % 16);
      else
        v = static_cast<int64_t>(rng() % 16) - 8;
      setElement(b, i, v);
    }
  });
}

static void poison(HostBuffer &b) {
  if (!isFloat(b.dtype)) {
    std::fill(b.bytes.begin(), b.bytes.end(), 0x5A);
    return;
  }
  for (int64_t i = 0, n = b.numElements(); i < n; ++i)
    setElement(b, i, std::nan(""));
}

//===----------------------------------------------------------------------===//
// .npy input
//===----------------------------------------------------------------------===//

/// The .npy element types of the buffer dtypes (read and written).
static const std::pair<StringRef, DType> kNpyDescrs[] = {
    {"<f2", DType::F16}, {"<f4", DType::F32}, {"<f8", DType::F64},
    {"|i1", DType::I8},  {"<i2", DType::I16}, {"<i4", DType::I32},
    {"<i8", DType::I64}, {"|u1", DType::U8},  {"<u2", DType::U16},
    {"<u4", DType::U32}, {"<u8", DType::U64}, {"|b1", DType::I1}};

static Expected<HostBuffer> readNpy(StringRef path, DType expected) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!file)
    return llvm::createStringError("cannot read '" + path +
                                   "': " + file.getError().message());
  StringRef data = (*file)->getBuffer();
  auto bad = [&](const llvm::Twine &why) {
    return llvm::createStringError("'" + path + "' is not a valid .npy file: " +
                                   why);
  };
  if (!data.starts_with("\x93NUMPY") || data.size() < 10)
    return bad("missing magic");
  unsigned major = static_cast<uint8_t>(data[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = llvm::support::endian::read16le(data.data() + 8);
    headerStart = 10;
  } else {
    if (data.size() < 12)
      return bad("truncated header");
    headerLength = llvm::support::endian::read32le(data.data() + 8);
    headerStart = 12;
  }
  if (data.size() < headerStart + headerLength)
    return bad("truncated header");
  StringRef header = data.substr(headerStart, headerLength);
  auto field = [&](StringRef name) -> StringRef {
    size_t at = header.find("'" + name.str() + "'");
    if (at == StringRef::npos)
      return {};
    StringRef rest = header.drop_front(at + name.size() + 2).ltrim(" :");
    return rest;
  };
  StringRef descr = field("descr");
  if (!descr.consume_front("'"))
    return bad("no 'descr'");
  descr = descr.take_until([](char c) { return c == '\''; });
  std::optional<DType> dtype;
  for (const auto &[d, t] : kNpyDescrs)
    if (d == descr)
      dtype = t;
  // bfloat16 as writeNpy writes it: its raw 16-bit words.
  if (expected == DType::BF16 && descr == "<u2")
    dtype = DType::BF16;
  if (!dtype)
    return bad("unsupported dtype '" + descr + "'");
  if (*dtype != expected)
    return llvm::createStringError("'" + path + "' holds " + toString(*dtype) +
                                   " but the argument is " +
                                   toString(expected));
  if (field("fortran_order").starts_with("True"))
    return bad("Fortran order is not supported");
  StringRef shapeText = field("shape");
  if (!shapeText.consume_front("("))
    return bad("no 'shape'");
  shapeText = shapeText.take_until([](char c) { return c == ')'; });
  HostBuffer buffer;
  buffer.dtype = *dtype;
  llvm::SmallVector<StringRef> dims;
  shapeText.split(dims, ',', -1, /*KeepEmpty=*/false);
  for (StringRef dim : dims) {
    int64_t size;
    if (dim.trim().getAsInteger(10, size) || size < 0)
      return bad("bad shape");
    buffer.shape.push_back(size);
  }
  std::optional<int64_t> size =
      mlir::tile::getCheckedByteSize(buffer.shape, getByteSize(*dtype));
  if (!size)
    return bad("its shape's size does not fit in 64 bits");
  uint64_t bytes = *size;
  StringRef payload = data.drop_front(headerStart + headerLength);
  if (payload.size() != bytes)
    return bad("expected " + llvm::Twine(bytes) + " bytes of data, found " +
               llvm::Twine(payload.size()));
  buffer.bytes.assign(payload.bytes_begin(), payload.bytes_end());
  return buffer;
}

/// Writes `buffer` as a version-1.0 .npy file, atomically (a complete file
/// or none).
static Error writeNpy(StringRef path, const HostBuffer &buffer) {
  // NumPy has no bfloat16 (written as its raw words) and no index type.
  StringRef descr = buffer.dtype == DType::BF16    ? "<u2"
                    : buffer.dtype == DType::Index ? "<i8"
                                                   : "";
  for (const auto &[d, t] : kNpyDescrs)
    if (t == buffer.dtype)
      descr = d;
  std::string shape;
  for (int64_t d : buffer.shape)
    shape += std::to_string(d) + ", ";
  std::string header = "{'descr': '" + descr.str() +
                       "', 'fortran_order': False, 'shape': (" + shape +
                       "), }";
  // Magic, version, length, header: padded with spaces to a multiple of 64
  // bytes, ending in a newline.
  size_t unpadded = 10 + header.size() + 1;
  header.append(llvm::alignTo(unpadded, 64) - unpadded, ' ');
  header += '\n';
  size_t payload = buffer.numElements() * getByteSize(buffer.dtype);
  Expected<std::unique_ptr<llvm::FileOutputBuffer>> file =
      llvm::FileOutputBuffer::create(path, 10 + header.size() + payload);
  if (!file)
    return file.takeError();
  uint8_t *out = (*file)->getBufferStart();
  std::memcpy(out, "\x93NUMPY\x01\x00", 8);
  llvm::support::endian::write16le(out + 8, header.size());
  std::memcpy(out + 10, header.data(), header.size());
  std::memcpy(out + 10 + header.size(), buffer.bytes.data(), payload);
  return (*file)->commit();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// With --json, the report printed at exit; the text goes to stderr.
static llvm::json::Object jsonReport;

/// Where the human-readable report goes: stdout, or stderr with --json.
static llvm::raw_ostream &text() {
  return jsonOpt ? llvm::errs() : llvm::outs();
}

/// Prints the JSON report (with --json) with `status` and returns it.
static int finish(int status) {
  if (jsonOpt) {
    jsonReport["status"] = status == 0   ? "passed"
                       : status == 1 ? "mismatch"
                                     : "error";
    llvm::outs() << llvm::formatv("{0:2}",
                                  llvm::json::Value(std::move(jsonReport)))
                 << "\n";
  }
  return status;
}

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tile-run") << message << "\n";
  jsonReport["error"] = message.str();
  return finish(2);
}

/// The parts of a compile report that --json prints.
static void addToReport(const CompileReport &compile) {
  jsonReport["target"] = compile.target.str();
  jsonReport["specialization"] = llvm::json::Array(compile.specialization);
  jsonReport["pipeline"] = compile.pipeline;
  jsonReport["cache"] = llvm::json::Object{{"key", compile.key},
                                       {"enabled", compile.cacheEnabled},
                                       {"hit", compile.cacheHit}};
  jsonReport["compile_seconds"] =
      llvm::json::Object{{"total", compile.seconds},
                         {"compilation", compile.compileSeconds},
                         {"load", compile.loadSeconds},
                         {"device_initialization", compile.initSeconds}};
}

static Expected<std::unique_ptr<Kernel>>
loadKernel(StringRef path, StringRef entry, const Target &target) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return llvm::createStringError("cannot read '" + path +
                                   "': " + file.getError().message());
  CompileOptions options;
  options.target = target;
  options.entry = entry.str();
  options.specializeShapes = !noSpecialize;
  options.optLevel = optLevel;
#define TILE_COMPILE_OPTION(VENDOR, TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)   \
  options.NAME = NAME##Flag;
#include "TileLang/Pipelines/CompileOptions.def"
  options.timePasses = timePassesOpt;
  options.verifyPasses = verifyPassesOpt;
  return Kernel::create((*file)->getBuffer(), options, path);
}

static double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static void printExplain(const Kernel &kernel, const CompileReport &report) {
  text() << "explain: entry '" << kernel.getEntry() << "'\n";
  text() << "  target: " << report.target.str() << "\n";
  text() << "  specialization inputs:";
  if (report.specialization.empty())
    text() << " none";
  text() << "\n";
  for (const std::string &input : report.specialization)
    text() << "    " << input << "\n";
  text() << "  pipeline: " << report.pipeline << "\n";
  text() << "  passes: " << report.passes << "\n";
  text() << "  host code: O" << kernel.getOptions().optLevel << "\n";
  text() << "  cache key: " << report.key << "\n";
  for (const auto &[name, value] : report.keyComponents)
    text() << "    " << name << " = " << value << "\n";
  text() << "  cache: "
               << (report.cacheEnabled
                       ? std::string(report.cacheHit ? "hit" : "miss") +
                             " in " + kernel.getOptions().cache.directory
                       : std::string("disabled"))
               << "\n";
  text() << llvm::formatv("  {0}: {1:f5} s\n",
                                report.cacheHit ? "load" : "compile",
                                report.seconds);
  text() << llvm::formatv("    of which compilation {0:f5} s, load "
                                "{1:f5} s",
                                report.compileSeconds, report.loadSeconds);
  if (report.target.kind != mlir::tile::TargetKind::CPU)
    text() << llvm::formatv("; device initialization {0:f5} s "
                                  "(concurrent with the compilation)",
                                  report.initSeconds);
  text() << "\n";
}

/// The machine's physical memory in bytes, when the system says.
static std::optional<uint64_t> availableMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return std::nullopt;
  return uint64_t(pages) * uint64_t(pageSize);
}

/// The address space this process may still take (ulimit -v), if limited:
/// past it an allocation aborts the process (LLVM's out-of-memory handler)
/// instead of failing.
static std::optional<uint64_t> addressSpaceLimit() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return std::nullopt;
  return uint64_t(limit.rlim_cur);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&category, &compileCategory});
  mlir::tile::setVersionPrinter();
  cl::ParseCommandLineOptions(
      argc, argv,
      "tile-run: run a tile kernel on random or .npy inputs, check it "
      "against a reference and time it\n\n"
      "  tile-run examples/gemm_relu.mlir --entry=gemm_relu \\\n"
      "      --arg=300x200 --arg=200x170 --arg=300x170 \\\n"
      "      --reference=refs.mlir@gemm_relu_ref --outputs=2\n\n"
      "Exit status: 0 when the outputs match, 1 on a mismatch, 2 on an "
      "error.\n");

  // Settings that would otherwise be ignored or misread.
  for (auto [name, value] : {std::pair<const char *, double>{"rtol", rtolOpt},
                             {"atol", atolOpt}})
    if (std::isnan(value) || std::isinf(value) ||
        (value < 0 && value != -1))
      return fail(llvm::Twine("--") + name + " must be a finite number >= 0, got " +
                  llvm::formatv("{0}", value).str());
  if (optLevel > 3)
    return fail("-O must be 0, 1, 2 or 3, got " + llvm::Twine(optLevel));
  Expected<Target> target = Target::parse(targetName);
  if (!target)
    return fail(llvm::toString(target.takeError()));
  if (streamOpt && target->kind != mlir::tile::TargetKind::CUDA)
    return fail("--stream runs on a CUDA stream; the target is " +
                target->str());
  Expected<std::unique_ptr<Kernel>> kernel =
      loadKernel(inputFile, entryName, *target);
  if (!kernel)
    return fail(llvm::toString(kernel.takeError()));
  llvm::ArrayRef<Param> params = (*kernel)->getParams();
  jsonReport["entry"] = (*kernel)->getEntry().str();

  // The reference: a function of the same signature, run on the CPU.
  std::unique_ptr<Kernel> reference;
  if (noCheck && !referenceSpec.empty())
    return fail("--no-check and --reference exclude each other");
  if (!noCheck && (!referenceSpec.empty() ||
                   target->kind != mlir::tile::TargetKind::CPU)) {
    StringRef spec = referenceSpec;
    StringRef file = inputFile, entry = (*kernel)->getEntry();
    if (!spec.empty()) {
      auto [path, name] = spec.rsplit('@');
      if (name.empty() || spec.find('@') == StringRef::npos)
        return fail("--reference must be @name or file.mlir@name, got '" +
                    spec + "'");
      entry = name;
      if (!path.empty())
        file = path;
    }
    Expected<std::unique_ptr<Kernel>> ref =
        loadKernel(file, entry, Target::cpu());
    if (!ref)
      return fail("reference: " + llvm::toString(ref.takeError()));
    reference = std::move(*ref);
    llvm::ArrayRef<Param> refParams = reference->getParams();
    if (refParams.size() != params.size())
      return fail("the reference takes " + llvm::Twine(refParams.size()) +
                  " arguments, the kernel " + llvm::Twine(params.size()));
    for (auto [i, p, r] : llvm::enumerate(params, refParams))
      if (p.isBuffer != r.isBuffer || p.dtype != r.dtype ||
          p.shape.size() != r.shape.size())
        return fail("argument #" + llvm::Twine(i) + ": the kernel takes " +
                    p.describe() + ", the reference " + r.describe());
  }

  // Arguments.
  if (argSpecs.size() != params.size())
    return fail("'" + (*kernel)->getEntry() + "' takes " +
                llvm::Twine(params.size()) + " arguments; give one --arg "
                "for each, got " + llvm::Twine(argSpecs.size()));
  std::vector<HostBuffer> initial(params.size());
  // The arguments' bytes so far, against the address-space limit.
  uint64_t argumentBytes = 0;
  std::vector<KernelArg> scalars(params.size());
  llvm::SmallVector<unsigned> outputs(outputArgs.begin(), outputArgs.end());
  for (auto [i, param, spec] : llvm::enumerate(params, argSpecs)) {
    StringRef text = spec;
    if (!param.isBuffer) {
      ScalarArg scalar;
      int64_t asInt;
      double asDouble;
      StringRef digits = text;
      digits.consume_front("-") || digits.consume_front("+");
      bool integerLiteral = !digits.empty() && llvm::all_of(digits, llvm::isDigit);
      if (!text.getAsInteger(10, asInt))
        scalar.value = asInt;
      else if (integerLiteral)
        return fail("argument #" + llvm::Twine(i) + " (" + param.describe() +
                    "): " + text + " does not fit in 64 bits");
      else if (!text.getAsDouble(asDouble) &&
               (std::isfinite(asDouble) || !text.contains_insensitive("e")))
        scalar.value = asDouble;
      else if (!text.getAsDouble(asDouble))
        return fail("argument #" + llvm::Twine(i) + " (" + param.describe() +
                    "): " + text + " is out of the range of a double");
      else
        return fail("argument #" + llvm::Twine(i) + " (" + param.describe() +
                    "): '" + text + "' is not a number");
      scalars[i] = scalar;
      continue;
    }
    if (text.consume_front("@")) {
      Expected<HostBuffer> npy = readNpy(text, param.dtype);
      if (!npy)
        return fail("argument #" + llvm::Twine(i) + ": " +
                    llvm::toString(npy.takeError()));
      initial[i] = std::move(*npy);
      continue;
    }
    HostBuffer &buffer = initial[i];
    buffer.dtype = param.dtype;
    llvm::SmallVector<StringRef> dims;
    if (!text.empty() && text != "scalar")
      text.split(dims, 'x');
    for (StringRef dim : dims) {
      int64_t size;
      if (dim.getAsInteger(10, size) || size < 0)
        return fail("argument #" + llvm::Twine(i) + " (" + param.describe() +
                    "): '" + spec + "' is not a shape like 300x200");
      buffer.shape.push_back(size);
    }
    std::optional<int64_t> bytes =
        mlir::tile::getCheckedByteSize(buffer.shape, getByteSize(param.dtype));
    if (!bytes)
      return fail("argument #" + llvm::Twine(i) + " (" + param.describe() +
                  "): " + spec + " elements of " + toString(param.dtype) +
                  " do not fit in 64 bits");
    if (std::optional<uint64_t> available = availableMemory();
        available && uint64_t(*bytes) > *available)
      return fail("argument #" + llvm::Twine(i) + " (" + param.describe() +
                  "): " + spec + " needs " + llvm::Twine(*bytes) +
                  " bytes, more than this machine's memory");
    argumentBytes += uint64_t(*bytes);
    if (std::optional<uint64_t> limit = addressSpaceLimit();
        limit && argumentBytes > *limit)
      return fail("argument #" + llvm::Twine(i) + " (" + param.describe() +
                  "): " + spec + " needs " + llvm::Twine(*bytes) +
                  " bytes, which with the arguments before it is more than "
                  "this process's address-space limit (" +
                  llvm::Twine(*limit) + " bytes, ulimit -v)");
    buffer.bytes.resize(*bytes);
    // A compile needs shapes (and where the data starts), not values.
    if (!compileOnly)
      fillRandom(buffer, seed, i);
  }
  if (outputs.empty())
    for (unsigned i = params.size(); i-- > 0;)
      if (params[i].isBuffer) {
        outputs.push_back(i);
        break;
      }
  for (unsigned o : outputs) {
    if (o >= params.size() || !params[o].isBuffer)
      return fail("--outputs: argument #" + llvm::Twine(o) +
                  " is not a buffer argument");
    if (!noPoison && !compileOnly)
      poison(initial[o]);
  }

  // On a GPU target the kernel works on device copies of the buffers, in
  // the memory of that vendor's runtime.
  namespace rt = mlir::tile::runtime;
  bool rocm = target->kind == mlir::tile::TargetKind::ROCm;
  bool onDevice = target->kind == mlir::tile::TargetKind::CUDA || rocm;
  auto allocate = rocm ? rt::hip::allocate : rt::allocate;
  auto release = rocm ? rt::hip::release : rt::release;
  auto copyToDevice = rocm ? rt::hip::copyToDevice : rt::copyToDevice;
  auto copyToHost = rocm ? rt::hip::copyToHost : rt::copyToHost;
  struct DeviceBuffers {
    std::vector<void *> ptrs;
    void (*release)(void *);
    ~DeviceBuffers() {
      for (void *p : ptrs)
        if (p)
          release(p);
    }
  };
  auto toDevice = [&](std::vector<HostBuffer> &buffers,
                      DeviceBuffers &device) -> Error {
    device.ptrs.assign(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].isBuffer)
        continue;
      BufferArg host = buffers[i].view();
      size_t bytes = std::max<size_t>(buffers[i].bytes.size(), 8);
      Expected<void *> ptr = allocate(bytes);
      if (!ptr)
        return ptr.takeError();
      device.ptrs[i] = *ptr;
      if (Error err = copyToDevice(*ptr, host.data, bytes))
        return err;
    }
    return Error::success();
  };
  auto argsFor = [&](std::vector<HostBuffer> &buffers,
                     const DeviceBuffers *device) {
    std::vector<KernelArg> args(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].isBuffer) {
        args[i] = scalars[i];
        continue;
      }
      BufferArg arg = buffers[i].view();
      if (device)
        arg.data = device->ptrs[i];
      args[i] = arg;
    }
    return args;
  };
  // Runs `k` once on `buffers` (through device copies on a GPU target).
  // --stream: a stream of tile-run's own, released at exit.
  mlir::tile::runtime::LaunchTarget launch;
  struct OwnStream {
    void *stream = nullptr;
    ~OwnStream() {
      if (stream)
        mgpuStreamDestroy(stream);
    }
  } ownStream;
  if (streamOpt) {
    if (Error err = rt::initCUDA())
      return fail(llvm::toString(std::move(err)));
    ownStream.stream = mgpuStreamCreate();
    if (Error err = rt::takeError())
      return fail(llvm::toString(std::move(err)));
    launch.stream = ownStream.stream;
  }
  auto waitForStream = [&]() -> Error {
    return launch.stream ? rt::synchronizeStream(*launch.stream)
                         : Error::success();
  };
  auto runOnce = [&](Kernel &k, std::vector<HostBuffer> &buffers,
                     bool device) -> Error {
    if (!device)
      return k.run(argsFor(buffers, nullptr));
    DeviceBuffers copies{{}, release};
    if (Error err = toDevice(buffers, copies))
      return err;
    if (Error err = k.run(argsFor(buffers, &copies), launch))
      return err;
    if (Error err = waitForStream())
      return err;
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].isBuffer)
        if (Error err = copyToHost(
                buffers[i].view().data, copies.ptrs[i],
                std::max<size_t>(buffers[i].bytes.size(), 8)))
          return err;
    return Error::success();
  };

  // Compile (or load) and explain.
  if (compileOnly) {
    Expected<CompileReport> report =
        (*kernel)->compile(argsFor(initial, nullptr));
    if (!report)
      return fail(llvm::toString(report.takeError()));
    if (explain)
      printExplain(**kernel, *report);
    addToReport(*report);
    text() << "compiled for " << target->str() << "\n";
    return finish(0);
  }
  std::vector<HostBuffer> results = initial;
  {
    // Compiling needs no device memory: shapes and values suffice.
    Expected<const CompileReport &> report =
        (*kernel)->prepare(argsFor(results, nullptr));
    if (!report)
      return fail(llvm::toString(report.takeError()));
    if (explain)
      printExplain(**kernel, *report);
    addToReport(*report);
  }
  if (Error err = runOnce(**kernel, results, onDevice))
    return fail(llvm::toString(std::move(err)));
  if (!saveOutputs.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(saveOutputs))
      return fail("cannot create '" + saveOutputs + "': " + ec.message());
    for (unsigned i : outputs) {
      llvm::SmallString<128> path(saveOutputs);
      llvm::sys::path::append(path, std::to_string(i) + ".npy");
      if (Error err = writeNpy(path, results[i]))
        return fail("cannot write '" + path + "': " +
                    llvm::toString(std::move(err)));
    }
  }

  // Check against the reference.
  bool mismatch = false;
  jsonReport["checked"] = bool(reference);
  if (reference) {
    llvm::json::Array buffers;
    std::vector<HostBuffer> expected = initial;
    if (Error err = runOnce(*reference, expected, /*device=*/false))
      return fail("reference: " + llvm::toString(std::move(err)));
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].isBuffer)
        continue;
      DType dtype = params[i].dtype;
      double rtol = rtolOpt >= 0 ? rtolOpt
                    : dtype == DType::F32 || dtype == DType::F64 ? 1e-4
                    : dtype == DType::F16                        ? 1e-2
                    : dtype == DType::BF16                       ? 2e-2
                                                                 : 0;
      double atol = atolOpt >= 0 ? atolOpt
                    : dtype == DType::F32 || dtype == DType::F64 ? 1e-5
                    : dtype == DType::F16                        ? 1e-2
                    : dtype == DType::BF16                       ? 2e-2
                                                                 : 0;
      double maxAbs = 0, maxRel = 0;
      int64_t bad = 0, n = results[i].numElements();
      for (int64_t e = 0; e < n; ++e) {
        double got = getElement(results[i], e);
        double want = getElement(expected[i], e);
        if (std::isnan(got) || std::isnan(want)) {
          bad += std::isnan(got) != std::isnan(want);
          continue;
        }
        double abs = std::fabs(got - want);
        maxAbs = std::max(maxAbs, abs);
        if (want != 0)
          maxRel = std::max(maxRel, abs / std::fabs(want));
        bad += abs > atol + rtol * std::fabs(want);
      }
      bool isOutput = llvm::is_contained(outputs, unsigned(i));
      text() << llvm::formatv(
          "{0} #{1} {2} [{3}]: max abs err {4:e2}, max rel err {5:e2}, {6} of "
          "{7} elements outside rtol={8:e1} atol={9:e1}{10}\n",
          isOutput ? "output" : "buffer", i, params[i].name,
          llvm::join(llvm::map_range(results[i].shape,
                                     [](int64_t d) { return std::to_string(d); }),
                     "x"),
          maxAbs, maxRel, bad, n, rtol, atol, bad ? "  MISMATCH" : "");
      mismatch |= bad != 0;
      buffers.push_back(llvm::json::Object{
          {"index", int64_t(i)},
          {"name", params[i].name},
          {"shape", llvm::json::Array(results[i].shape)},
          {"output", isOutput},
          {"max_abs_err", maxAbs},
          {"max_rel_err", maxRel},
          {"outside", bad},
          {"elements", n},
          {"rtol", rtol},
          {"atol", atol}});
    }
    jsonReport["buffers"] = std::move(buffers);
  } else {
    text() << "no reference: outputs not checked\n";
  }

  // Time it on copies of the inputs (resident on the device for a GPU
  // target). Wall time includes each run's launch and synchronization; on
  // CUDA targets the kernels are also timed on the device (events around
  // each launch), which is what CUDA-event timings of other libraries
  // measure.
  bool deviceTiming =
      target->kind == mlir::tile::TargetKind::CUDA && deviceTimingOpt;
  std::vector<double> times, deviceTimes;
  std::vector<HostBuffer> scratch = initial;
  DeviceBuffers deviceScratch{{}, release};
  std::vector<KernelArg> timedArgs;
  if (warmup + repeat > 0) {
    if (onDevice)
      if (Error err = toDevice(scratch, deviceScratch))
        return fail(llvm::toString(std::move(err)));
    timedArgs = argsFor(scratch, onDevice ? &deviceScratch : nullptr);
  }
  for (unsigned r = 0; streamOpt && r < warmup + repeat;) {
    // One batch of warm-up runs, then one of timed runs, each queued back
    // to back and waited for once.
    bool timed = r >= warmup;
    unsigned runs = timed ? unsigned(repeat) : unsigned(warmup);
    if (deviceTiming && timed)
      rt::startKernelTiming();
    auto start = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < runs; ++i)
      if (Error err = (*kernel)->run(timedArgs, launch))
        return fail(llvm::toString(std::move(err)));
    if (Error err = waitForStream())
      return fail(llvm::toString(std::move(err)));
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    r += runs;
    if (!timed || runs == 0)
      continue;
    Expected<double> kernelMs =
        deviceTiming ? rt::stopKernelTiming() : Expected<double>(0.0);
    if (!kernelMs)
      return fail(llvm::toString(kernelMs.takeError()));
    times.assign(runs, seconds / runs);
    deviceTimes.assign(runs, *kernelMs * 1e-3 / runs);
  }
  for (unsigned r = 0; !streamOpt && r < warmup + repeat; ++r) {
    if (deviceTiming)
      rt::startKernelTiming();
    auto start = std::chrono::steady_clock::now();
    Error err = (*kernel)->run(timedArgs);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    Expected<double> kernelMs = deviceTiming ? rt::stopKernelTiming() : 0.0;
    if (err)
      return fail(llvm::toString(std::move(err)));
    if (!kernelMs)
      return fail(llvm::toString(kernelMs.takeError()));
    if (r >= warmup) {
      times.push_back(seconds);
      deviceTimes.push_back(*kernelMs * 1e-3);
    }
  }
  if (!times.empty()) {
    auto toMs = [](const std::vector<double> &seconds) {
      llvm::json::Array ms;
      for (double s : seconds)
        ms.push_back(s * 1e3);
      return ms;
    };
    llvm::json::Object time{{"runs", int64_t(times.size())},
                            {"warmup", int64_t(warmup)},
                            {"wall_median_ms", median(times) * 1e3},
                            {"wall_ms", toMs(times)}};
    if (deviceTiming) {
      time["device_median_ms"] = median(deviceTimes) * 1e3;
      time["device_ms"] = toMs(deviceTimes);
    }
    jsonReport["time"] = std::move(time);
  }
  if (!times.empty() && deviceTiming)
    text() << llvm::formatv(
        "time: median {0:f4} ms on the device (kernels, CUDA events), wall "
        "median {1:f3} ms (launch and synchronization included) over {2} "
        "runs ({3})\n",
        median(deviceTimes) * 1e3, median(times) * 1e3, times.size(),
        target->str());
  else if (!times.empty())
    text() << llvm::formatv("time: median {0:f3} ms over {1} runs ({2})\n",
                                  median(times) * 1e3, times.size(),
                                  target->str());
  if (mismatch) {
    text() << "FAILED: outputs differ from the reference\n";
    return finish(1);
  }
  if (reference)
    text() << "PASSED\n";
  return finish(0);
}
