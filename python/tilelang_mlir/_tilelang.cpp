//===- _tilelang.cpp - Python bindings of the TileLang-MLIR JIT ----------===//
//
// Part of TileLang-MLIR.
//
// `tilelang_mlir._tilelang.Kernel`: jit::Kernel from Python. A kernel is
// created from tile IR text (what the T.* language traces) and a target,
// and runs on numpy arrays or on any tensor that exports DLPack
// (`__dlpack__`: torch, cupy, numpy itself): buffers are passed by address
// with their shapes and element strides, scalars by value. On a GPU target,
// host buffers go through device copies and device tensors (DLPack CUDA or
// ROCm memory) are used in place. Every error of the
// C++ API (parse and verifier diagnostics with the user's Python locations,
// argument mismatches, compile failures) becomes a TileError.
//
//===----------------------------------------------------------------------===//

#include "IRBuilder.h"
#include "TileLang/Target/NVIDIA/Lowering.h"
#include "TileLang/JIT/Cache.h"
#include "TileLang/JIT/JIT.h"
#include "TileLang/Runtime/CUDARuntime.h"
#include "TileLang/Runtime/HIPRuntime.h"
#include "TileLang/Runtime/Launch.h"
#include "TileLang/Support/CheckedSize.h"
#include "TileLang/Support/Version.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SwapByteOrder.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include <algorithm>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir::tile;
using namespace mlir::tile::jit;

namespace {

struct TileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A call's numpy array (exactly numpy.ndarray) that is not C-contiguous
/// where the kernel's parameter is: raised before anything runs, for the
/// caller (JITKernel) to pass a contiguous copy and write it back.
struct NonContiguousArray : std::runtime_error {
  using std::runtime_error::runtime_error;
};

//===----------------------------------------------------------------------===//
// DLPack (the ABI of dlpack.h that `__dlpack__` capsules carry)
//===----------------------------------------------------------------------===//

struct DLDevice {
  int32_t deviceType;
  int32_t deviceId;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; // In elements; null for a compact row-major tensor.
  uint64_t byteOffset;
};
struct DLManagedTensor {
  DLTensor tensor;
  void *managerContext;
  void (*deleter)(DLManagedTensor *);
};
/// DLPack 1.0's capsule ("dltensor_versioned"): a version the consumer
/// must check and flags that say whether the memory may be written.
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *managerContext;
  void (*deleter)(DLManagedTensorVersioned *);
  uint64_t flags;
  DLTensor tensor;
};
constexpr uint32_t kDLPackMajorVersion = 1;
constexpr uint64_t kDLPackFlagReadOnly = 1ull << 0;
constexpr uint64_t kDLPackFlagIsCopied = 1ull << 1;
enum DLDeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLROCM = 10,
  kDLCUDAManaged = 13,
};
enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLBool = 6,
  kDLFloat8_e4m3fn = 10,
  kDLFloat8_e5m2 = 12,
  kDLFloat8_e8m0fnu = 14,
};

/// DLPack 1.2's C exchange table: a framework puts it on its tensor type
/// (`__dlpack_c_exchange_api__`, a capsule named "dlpack_exchange_api") so
/// that a consumer describes one of its tensors and finds its current stream
/// without Python calls. Only the two functions a kernel call needs are
/// typed.
struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  DLPackExchangeAPIHeader *previous;
};
struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  void *managedTensorAllocator;
  void *managedTensorFromPyObjectNoSync;
  void *managedTensorToPyObjectNoSync;
  /// Fills `out` (shape and strides owned by the tensor, valid while it
  /// lives and is not resized); 0 on success, else -1 with a Python error.
  int (*dltensorFromPyObjectNoSync)(void *object, DLTensor *out);
  int (*currentWorkStream)(int32_t deviceType, int32_t deviceId,
                           void **stream);
};

/// A tensor taken from a `__dlpack__` capsule (either version); its
/// producer's deleter runs when the call is done with it.
struct DLPackTensor {
  DLManagedTensor *managed = nullptr;
  DLManagedTensorVersioned *versioned = nullptr;
  explicit DLPackTensor(DLManagedTensor *managed) : managed(managed) {}
  explicit DLPackTensor(DLManagedTensorVersioned *versioned)
      : versioned(versioned) {}
  DLPackTensor(const DLPackTensor &) = delete;
  DLPackTensor &operator=(const DLPackTensor &) = delete;
  ~DLPackTensor() {
    if (managed && managed->deleter)
      managed->deleter(managed);
    if (versioned && versioned->deleter)
      versioned->deleter(versioned);
  }
};

/// Where a buffer argument lives (None: a scalar, or a buffer passed as
/// None, which has no memory).
enum class Residence { Host, CUDA, ROCm, None };

const char *residenceName(Residence residence) {
  switch (residence) {
  case Residence::None:
    return "no memory";
  case Residence::Host:
    return "host memory";
  case Residence::CUDA:
    return "a CUDA device";
  case Residence::ROCm:
    return "a ROCm device";
  }
  return "?";
}

/// The buffer element types, as the error messages list them.
constexpr const char *kSupportedTypes =
    "float16/32/64, bfloat16, float8_e4m3fn, float8_e5m2, float8_e8m0fnu, "
    "int8/16/32/64, "
    "uint8/16/32/64 or bool";

/// The element type of `bytes`-byte elements of kind `kind`, in numpy's
/// letters: 'f' float, 'i' signed integer, 'u' unsigned integer, 'b' bool.
std::optional<DType> getDType(char kind, int64_t bytes) {
  static const struct {
    char kind;
    int64_t bytes;
    DType type;
  } kTypes[] = {{'f', 2, DType::F16}, {'f', 4, DType::F32},
                {'f', 8, DType::F64}, {'i', 1, DType::I8},
                {'i', 2, DType::I16}, {'i', 4, DType::I32},
                {'i', 8, DType::I64}, {'u', 1, DType::U8},
                {'u', 2, DType::U16}, {'u', 4, DType::U32},
                {'u', 8, DType::U64}, {'b', 1, DType::I1}};
  for (const auto &t : kTypes)
    if (t.kind == kind && t.bytes == bytes)
      return t.type;
  return std::nullopt;
}

/// The element type of a DLPack tensor, if this package reads it.
std::optional<DType> findDType(const DLDataType &type) {
  if (type.lanes != 1 || type.bits % 8)
    return std::nullopt;
  if (type.code == kDLBfloat && type.bits == 16)
    return DType::BF16;
  if (type.code == kDLFloat8_e4m3fn && type.bits == 8)
    return DType::F8E4M3FN;
  if (type.code == kDLFloat8_e5m2 && type.bits == 8)
    return DType::F8E5M2;
  if (type.code == kDLFloat8_e8m0fnu && type.bits == 8)
    return DType::F8E8M0FNU;
  char kind = type.code == kDLFloat  ? 'f'
              : type.code == kDLInt  ? 'i'
              : type.code == kDLUInt ? 'u'
              : type.code == kDLBool ? 'b'
                                     : '?';
  return getDType(kind, type.bits / 8);
}

/// The element type of a DLPack tensor.
DType getDType(const DLDataType &type, size_t position) {
  if (std::optional<DType> dtype = findDType(type))
    return *dtype;
  throw TileError("argument " + std::to_string(position) +
                  ": unsupported DLPack dtype (code " +
                  std::to_string(type.code) + ", " +
                  std::to_string(type.bits) + " bits, " +
                  std::to_string(type.lanes) + " lanes; expected " +
                  kSupportedTypes + ")");
}

/// The buffer a DLTensor describes, of element type `dtype` (compact
/// row-major strides where it has none).
BufferArg toBuffer(const DLTensor &tensor, DType dtype) {
  BufferArg buffer;
  buffer.dtype = dtype;
  buffer.data = static_cast<char *>(tensor.data) + tensor.byteOffset;
  buffer.shape.assign(tensor.shape, tensor.shape + tensor.ndim);
  if (tensor.strides) {
    buffer.strides.assign(tensor.strides, tensor.strides + tensor.ndim);
  } else {
    buffer.strides.resize(tensor.ndim);
    int64_t stride = 1;
    for (int64_t d = tensor.ndim - 1; d >= 0; --d) {
      buffer.strides[d] = stride;
      stride *= tensor.shape[d];
    }
  }
  return buffer;
}

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value)
    throw TileError(llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error error) {
  if (error)
    throw TileError(llvm::toString(std::move(error)));
}

/// What a call needs to know of a numpy dtype: its element type, item size
/// and byte order, read once per dtype object through its Python attributes
/// (pybind11's accessors read the descriptor struct, whose layout NumPy 2
/// changed) and then found by identity: numpy's dtypes of native byte order
/// are shared objects, so a call's arrays hit the cache after the first.
struct NumpyDType {
  std::optional<DType> dtype; // None: unsupported (`name` says which).
  int64_t itemSize = 0;
  /// The byte order is not this machine's ('>' on a little-endian host).
  bool foreign = false;
  std::string name, str;
};

static NumpyDType describe(const py::dtype &dtype) {
  NumpyDType info;
  info.itemSize = dtype.attr("itemsize").cast<int64_t>();
  // numpy's byte order: '=' native, '|' not applicable, '<' / '>' explicit.
  std::string order = dtype.attr("byteorder").cast<std::string>();
  info.foreign = order == (llvm::sys::IsLittleEndianHost ? ">" : "<");
  info.name = py::str(dtype.attr("name"));
  info.str = py::str(dtype.attr("str"));
  // The kind and size name numpy's own types; the name only the ml_dtypes
  // types, whose kind is 'V'.
  char kind = dtype.attr("kind").cast<std::string>().front();
  if (kind != 'V')
    info.dtype = getDType(kind, info.itemSize);
  if (!info.dtype) {
    if (info.name == "bfloat16")
      info.dtype = DType::BF16;
    else if (info.name == "float8_e4m3fn")
      info.dtype = DType::F8E4M3FN;
    else if (info.name == "float8_e5m2")
      info.dtype = DType::F8E5M2;
    else if (info.name == "float8_e8m0fnu")
      info.dtype = DType::F8E8M0FNU;
  }
  return info;
}

/// describe(`dtype`), from a cache of the dtype objects seen (each kept
/// alive by the cache, so an address is never reused for another dtype
/// while it is there; a bounded number, enough for any program's types).
static const NumpyDType &getNumpyDType(const py::dtype &dtype) {
  static std::vector<std::pair<PyObject *, NumpyDType>> cache;
  static NumpyDType last;
  for (const auto &[object, info] : cache)
    if (object == dtype.ptr())
      return info;
  NumpyDType info = describe(dtype);
  if (cache.size() >= 64) {
    last = std::move(info);
    return last;
  }
  cache.emplace_back(py::object(dtype).release().ptr(), std::move(info));
  return cache.back().second;
}

BufferArg toBuffer(const py::array &array, size_t position,
                   const Param &param) {
  auto fail = [&](const std::string &why) {
    return TileError("argument " + std::to_string(position) + " ('" +
                     param.name + "'): " + why);
  };
  const NumpyDType &info = getNumpyDType(array.dtype());
  if (info.foreign)
    throw fail("the array is " +
               std::string(llvm::sys::IsLittleEndianHost ? "big" : "little") +
               "-endian (dtype '" + info.str +
               "'); kernels read native byte order: pass "
               "a.astype(a.dtype.newbyteorder('='))");
  if (!info.dtype)
    throw TileError("unsupported numpy dtype " + info.name + " (expected " +
                    kSupportedTypes + ")");
  // A read-only array (writeable=False, a view of immutable bytes, a
  // read-only memmap) must not be written.
  if (param.isWritten && !array.writeable())
    throw fail("the kernel writes this buffer, but the array is read-only "
               "(writeable=False, or a view of read-only memory); pass a "
               "writable copy");
  BufferArg buffer;
  buffer.dtype = *info.dtype;
  buffer.data = const_cast<void *>(array.data());
  py::ssize_t rank = array.ndim();
  const py::ssize_t *shape = array.shape(), *strides = array.strides();
  buffer.shape.reserve(rank);
  buffer.strides.reserve(rank);
  for (py::ssize_t d = 0; d < rank; ++d) {
    buffer.shape.push_back(shape[d]);
    if (strides[d] % info.itemSize)
      throw TileError("argument " + std::to_string(position) +
                      ": strides that are not whole elements");
    buffer.strides.push_back(strides[d] / info.itemSize);
  }
  return buffer;
}

/// Sets `member` from pass_configs[`name`], which must be a bool.
static void setConfig(bool &member, const std::string &name,
                      const py::handle &value) {
  if (!py::isinstance<py::bool_>(value))
    throw TileError("pass_configs['" + name + "'] is a bool");
  member = value.cast<bool>();
}
/// ... an integer.
static void setConfig(int64_t &member, const std::string &name,
                      const py::handle &value) {
  if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value))
    throw TileError("pass_configs['" + name + "'] is an integer");
  member = value.cast<int64_t>();
}

/// A compile option's pass_configs key: its flag with '_' for '-'.
static std::string toConfigKey(llvm::StringRef flag) {
  std::string key = flag.str();
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

/// TileLang's `pass_configs`: compile options by name, the rows of
/// CompileOptions.def ("warp_specialize": tile-run's flag with underscores)
/// and the JIT's own (opt_level, specialize_shapes, verify_passes).
static void applyPassConfigs(CompileOptions &options, const py::dict &configs) {
  for (auto [key, value] : configs) {
    std::string name = toConfigKey(py::str(key).cast<std::string>());
    if (name == "opt_level") {
      if (!py::isinstance<py::int_>(value) || value.cast<int64_t>() < 0 ||
          value.cast<int64_t>() > 3)
        throw TileError("pass_configs['opt_level'] is 0, 1, 2 or 3");
      options.optLevel = value.cast<unsigned>();
      continue;
    }
    if (name == "specialize_shapes") {
      setConfig(options.specializeShapes, name, value);
      continue;
    }
    if (name == "verify_passes") {
      setConfig(options.verifyPasses, name, value);
      continue;
    }
#define TILE_COMPILE_OPTION(VENDOR, TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)   \
  if (name == toConfigKey(FLAG)) {                                             \
    setConfig(options.NAME, name, value);                                      \
    continue;                                                                  \
  }
#include "TileLang/Pipelines/CompileOptions.def"
    std::string names = "opt_level, specialize_shapes, verify_passes";
#define TILE_COMPILE_OPTION(VENDOR, TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)   \
  names += ", " + toConfigKey(FLAG);
#include "TileLang/Pipelines/CompileOptions.def"
    throw TileError("unknown pass_configs key '" + name + "' (known: " +
                    names + ")");
  }
}

/// The compile options, one dict per row of CompileOptions.def.
static py::list getCompileOptions() {
  py::list rows;
#define TILE_COMPILE_OPTION(VENDOR, TYPE, NAME, FLAG, DEFAULT, DESCRIPTION)   \
  {                                                                            \
    py::dict row;                                                              \
    row["key"] = toConfigKey(FLAG);                                            \
    row["flag"] = FLAG;                                                        \
    row["targets"] = std::string(#VENDOR) == "GPU" ? "cuda, rocm" : "cuda";    \
    row["type"] = std::is_same_v<TYPE, bool> ? "bool" : "int";                 \
    row["default"] = TYPE(DEFAULT);                                            \
    row["description"] = DESCRIPTION;                                          \
    rows.append(row);                                                          \
  }
#include "TileLang/Pipelines/CompileOptions.def"
  return rows;
}

class PyKernel {
public:
  PyKernel(const std::string &source, const std::string &target,
           const std::string &entry, bool reuseSharedMemory,
           bool pipelineCopies, const py::dict &passConfigs) {
    kernel = unwrap(Kernel::create(
        source,
        makeOptions(target, entry, reuseSharedMemory, pipelineCopies,
                    passConfigs),
        "<python>"));
  }

  /// From a traced module (the T.* tracer's IRBuilder): the kernel shares
  /// its context and keeps a clone of it.
  PyKernel(const mlir::tile::python::IRBuilder &module,
           const std::string &target, const std::string &entry,
           bool reuseSharedMemory, bool pipelineCopies,
           const py::dict &passConfigs) {
    kernel = unwrap(Kernel::create(
        module.getContext(), module.getModule(),
        makeOptions(target, entry, reuseSharedMemory, pipelineCopies,
                    passConfigs)));
  }

  static CompileOptions makeOptions(const std::string &target,
                                    const std::string &entry,
                                    bool reuseSharedMemory,
                                    bool pipelineCopies,
                                    const py::dict &passConfigs) {
    CompileOptions options;
    options.target = unwrap(Target::parse(target));
    options.entry = entry;
    options.reuseSharedMemory = reuseSharedMemory;
    options.pipelineCopies = pipelineCopies;
    applyPassConfigs(options, passConfigs);
    return options;
  }

  /// The entry's parameters: name, buffer or scalar, dtype, shape (-1 for
  /// a dynamic dimension), constexpr.
  py::list params() const {
    py::list result;
    for (const Param &p : kernel->getParams()) {
      py::dict entry;
      entry["name"] = p.name;
      entry["is_buffer"] = p.isBuffer;
      entry["dtype"] = toString(p.dtype).str();
      py::list shape;
      for (int64_t d : p.shape)
        shape.append(mlir::ShapedType::isDynamic(d) ? -1 : d);
      entry["shape"] = shape;
      entry["constexpr"] = p.isConstexpr;
      entry["written"] = p.isWritten;
      result.append(entry);
    }
    return result;
  }

  std::string entry() const { return kernel->getEntry().str(); }

  /// Compiles (or loads from the cache) the specialization `args` select.
  py::dict prepare(const py::args &args) {
    CallArgs call = convert(args);
    exportDeferred(call, std::nullopt);
    const CompileReport &report = unwrap(kernel->prepare(call.args));
    py::dict result;
    result["pipeline"] = report.pipeline;
    result["passes"] = report.passes;
    result["key"] = report.key;
    py::dict components;
    for (const auto &[name, value] : report.keyComponents)
      components[py::str(name)] = value;
    result["key_components"] = components;
    result["cache_hit"] = report.cacheHit;
    result["seconds"] = report.seconds;
    result["target"] = report.target.str();
    return result;
  }

  /// Runs on the arguments: on the CPU in place. On a GPU target, device
  /// tensors are used in place and the kernels queued on the caller's
  /// stream without waiting (`stream=`: a handle, a torch.cuda.Stream or
  /// anything with `cuda_stream` / `ptr`; by default torch's current stream
  /// of the tensors' device for torch tensors, else the legacy default
  /// stream); host buffers go through device copies and make the call
  /// synchronous.
  void run(const py::args &args, const py::kwargs &kwargs) {
    std::optional<int64_t> stream;
    for (auto [key, value] : kwargs) {
      std::string name = py::str(key);
      if (name != "stream")
        throw TileError("unexpected keyword argument '" + name +
                        "' (a kernel takes its arguments by position and "
                        "stream=)");
      stream = getStreamHandle(value);
    }
    CallArgs call = convert(args);
    TargetKind kind = kernel->getOptions().target.kind;
    Residence expected = kind == TargetKind::CUDA   ? Residence::CUDA
                         : kind == TargetKind::ROCm ? Residence::ROCm
                                                    : Residence::Host;
    for (auto [i, residence] : llvm::enumerate(call.residence))
      if (residence != Residence::Host && residence != Residence::None &&
          residence != expected)
        throw TileError(
            "argument " + std::to_string(i) + " ('" +
            kernel->getParams()[i].name + "') lives on " +
            residenceName(residence) + ", but the kernel's target is " +
            kernel->getOptions().target.str() +
            ": pass host memory or compile for that device");
    if (kind == TargetKind::CPU) {
      exportDeferred(call, std::nullopt);
      py::gil_scoped_release release;
      return check(kernel->run(call.args));
    }
    // The launch target: the tensors' device; the stream given, else the
    // current torch stream of that device, else the legacy default stream
    // (DLPack's 1; the driver's handle 0 means the same). A call with no
    // device tensor and no stream runs synchronously on device 0.
    runtime::LaunchTarget target;
    target.device = std::max(call.device, 0);
    if (!stream && call.device >= 0)
      stream = call.torchDevice ? getTorchStream(call.device) : 0;
    if (stream) {
      if (*stream == 1)
        stream = 0;
      target.stream = reinterpret_cast<void *>(*stream);
    }
    exportDeferred(call, stream ? std::optional<int64_t>(*stream == 0 ? 1 : *stream)
                                : std::nullopt);
    // (Scalars and None buffers have no memory to copy: a call of device
    // tensors and scalars is queued too.)
    bool queued = !llvm::is_contained(call.residence, Residence::Host);
    // Released while the call compiles, loads or waits; a launch queued
    // from a loaded specialization takes microseconds and keeps it. Taken
    // again before `call` lets go of the tensors (their deleters may need
    // it).
    std::optional<py::gil_scoped_release> release;
    if (!queued || !kernel->isPrepared(call.args))
      release.emplace();
    if (queued)
      return check(kernel->run(call.args, target));
    runWithHostCopies(call, target, kind == TargetKind::ROCm);
  }

private:
  /// The arguments of one call and what keeps their memory alive.
  struct CallArgs {
    std::vector<KernelArg> args;
    std::vector<Residence> residence; // Host for scalars.
    std::vector<py::object> keep;
    std::vector<std::unique_ptr<DLPackTensor>> tensors;
    /// The device of the device tensors (-1: none), whether one of them is
    /// a torch tensor, and the first of them (for messages).
    int device = -1;
    bool torchDevice = false;
    size_t deviceArg = 0;
    /// DLPack producers exported once the stream is known: (position,
    /// object).
    std::vector<std::pair<size_t, py::handle>> deferred;
  };

  /// A stream handle from `stream=`: None or -1 (the default), an integer,
  /// or an object with `cuda_stream` (torch) or `ptr` (cupy).
  static std::optional<int64_t> getStreamHandle(const py::handle &value) {
    if (value.is_none())
      return std::nullopt;
    py::object handle = py::reinterpret_borrow<py::object>(value);
    if (py::hasattr(value, "cuda_stream"))
      handle = value.attr("cuda_stream");
    else if (py::hasattr(value, "ptr"))
      handle = value.attr("ptr");
    if (!py::isinstance<py::int_>(handle) || py::isinstance<py::bool_>(handle))
      throw TileError("stream= takes a stream handle (an int), a "
                      "torch.cuda.Stream or an object with 'cuda_stream' or "
                      "'ptr'; got " +
                      py::str(py::type::handle_of(value).attr("__name__"))
                          .cast<std::string>());
    int64_t raw = handle.cast<int64_t>();
    if (raw == -1)
      return std::nullopt;
    if (raw < 0)
      throw TileError("stream=" + std::to_string(raw) +
                      " is not a stream handle");
    return raw;
  }

  /// torch's current stream of CUDA device `device` (what torch's own ops
  /// on its tensors use).
  static int64_t getTorchStream(int device) {
    if (const Torch *torch = getTorch(); torch && torch->exchange) {
      void *stream = nullptr;
      if (torch->exchange->currentWorkStream(
              torch->rocm ? kDLROCM : kDLCUDA, device, &stream) == 0)
        return static_cast<int64_t>(reinterpret_cast<intptr_t>(stream));
      PyErr_Clear(); // Asked again below, where an error is reported.
    }
    // Kept for the process (released: a static py::object would be
    // destroyed after the interpreter finalizes).
    static PyObject *current =
        py::module_::import("torch")
            .attr("_C")
            .attr("_cuda_getCurrentRawStream")
            .cast<py::object>()
            .release()
            .ptr();
    return py::handle(current)(device).cast<int64_t>();
  }

  /// Device copies of the host buffer arguments (the vendor's runtime), the
  /// run on `target`, the copies back once the run is done; device memory
  /// is released whatever happens.
  void runWithHostCopies(CallArgs &call, const runtime::LaunchTarget &target,
                         bool rocm) {
    namespace rt = mlir::tile::runtime;
    auto allocate = rocm ? rt::hip::allocate : rt::allocate;
    auto release = rocm ? rt::hip::release : rt::release;
    auto toDevice = rocm ? rt::hip::copyToDevice : rt::copyToDevice;
    auto toHost = rocm ? rt::hip::copyToHost : rt::copyToHost;
    auto synchronize = rocm ? rt::hip::synchronize : rt::synchronize;
    auto synchronizeStream =
        rocm ? rt::hip::synchronizeStream : rt::synchronizeStream;
    rt::LaunchScope scope(target);
    if (!rocm && target.stream && unwrap(rt::isCapturing(*target.stream)))
      throw TileError("host arrays go through device copies and a wait for "
                      "the kernels, which a CUDA graph being captured cannot "
                      "hold: pass device tensors to a call inside a capture");
    struct Device {
      void (*release)(void *);
      std::vector<std::pair<void *, size_t>> buffers; // device, bytes
      ~Device() {
        for (auto [ptr, bytes] : buffers)
          if (ptr)
            release(ptr);
      }
    } device{release, {}};
    std::vector<KernelArg> &args = call.args;
    // Compile or load first: a kernel that cannot run here says why before
    // any device memory is asked for.
    if (auto prepared = kernel->prepare(args); !prepared)
      throw TileError(llvm::toString(prepared.takeError()));
    std::vector<void *> hostData(args.size(), nullptr);
    for (auto [i, arg] : llvm::enumerate(args)) {
      auto *buffer = std::get_if<BufferArg>(&arg);
      if (!buffer || call.residence[i] != Residence::Host)
        continue;
      // Contiguous (checkArgs): the bytes are the elements'. At least 8
      // bytes on the device (a non-null pointer), but only the array's
      // own bytes move: copying the rounded size back would write past the
      // end of a 1-element float32 array.
      size_t bytes = getByteSize(buffer->dtype);
      for (int64_t extent : buffer->shape)
        bytes *= extent;
      void *ptr = unwrap(allocate(std::max<size_t>(bytes, 8)));
      device.buffers.push_back({ptr, bytes});
      check(toDevice(ptr, buffer->data, bytes));
      hostData[i] = buffer->data;
      buffer->data = ptr;
    }
    // The copies are complete before the kernels read them, whatever
    // stream those run on.
    check(synchronize());
    check(kernel->run(args, target));
    if (target.stream)
      check(synchronizeStream(*target.stream));
    size_t next = 0;
    for (auto [i, arg] : llvm::enumerate(args))
      if (hostData[i]) {
        auto [ptr, bytes] = device.buffers[next++];
        check(toHost(hostData[i], ptr, bytes));
      }
  }

  /// Where a DLPack device type lives.
  static Residence getDLPackResidence(int32_t type, size_t position,
                                      const Param &param) {
    switch (type) {
    case kDLCPU:
    case kDLCUDAHost:
      return Residence::Host;
    case kDLCUDA:
    case kDLCUDAManaged:
      return Residence::CUDA;
    case kDLROCM:
      return Residence::ROCm;
    default:
      throw TileError("argument " + std::to_string(position) + " ('" +
                      param.name + "'): DLPack device type " +
                      std::to_string(type) +
                      " is not supported (host, CUDA or ROCm memory)");
    }
  }

  /// Records that argument `position` lives on device `id`: every device
  /// tensor of a call must be on the same device.
  void noteDevice(CallArgs &call, size_t position, int id,
                  bool torch) const {
    if (call.device >= 0 && call.device != id) {
      llvm::ArrayRef<Param> params = kernel->getParams();
      throw TileError("argument " + std::to_string(position) + " ('" +
                      params[position].name + "') is on device " +
                      std::to_string(id) + ", but argument " +
                      std::to_string(call.deviceArg) + " ('" +
                      params[call.deviceArg].name + "') is on device " +
                      std::to_string(call.device) +
                      ": a kernel runs on one device; move the tensors there");
    }
    if (call.device < 0) {
      call.device = id;
      call.deviceArg = position;
    }
    call.torchDevice |= torch;
  }

  /// A buffer argument from a DLPack producer (`__dlpack__`): a DLPack 1.0
  /// capsule where the producer makes one (its read-only and copied flags
  /// checked against what the kernel does with the buffer), else the
  /// unversioned one.
  ///
  /// `stream` is the consumer's stream in DLPack's terms (1: the legacy
  /// default stream, 2: the per-thread one, else a handle; none for host
  /// memory or a call that only compiles): the producer makes it wait for
  /// its pending writes, so the launch there needs no other wait.
  static BufferArg fromDLPack(const py::handle &object, size_t position,
                              const Param &param, CallArgs &call,
                              std::optional<int64_t> stream) {
    auto fail = [&](const std::string &why) {
      return TileError("argument " + std::to_string(position) + " ('" +
                       param.name + "'): " + why);
    };
    int32_t type = kDLCPU, id = 0;
    if (py::hasattr(object, "__dlpack_device__")) {
      py::tuple where = object.attr("__dlpack_device__")();
      type = where[0].cast<int32_t>();
      id = where[1].cast<int32_t>();
    }
    (void)id; // Checked against the other tensors' by the caller.
    Residence residence = getDLPackResidence(type, position, param);
    py::dict kwargs;
    if (residence != Residence::Host && stream)
      kwargs["stream"] = *stream;
    py::object capsule;
    try {
      capsule = object.attr("__dlpack__")(
          **kwargs, py::arg("max_version") = py::make_tuple(kDLPackMajorVersion, 0));
    } catch (py::error_already_set &error) {
      // Producers older than DLPack 1.0 take no max_version.
      if (!error.matches(PyExc_TypeError))
        throw;
      capsule = object.attr("__dlpack__")(**kwargs);
    }
    PyObject *raw = capsule.ptr();
    const DLTensor *found = nullptr;
    if (PyCapsule_IsValid(raw, "dltensor_versioned")) {
      auto *versioned = static_cast<DLManagedTensorVersioned *>(
          PyCapsule_GetPointer(raw, "dltensor_versioned"));
      if (versioned->version.major != kDLPackMajorVersion)
        throw fail("the producer gave a DLPack " +
                   std::to_string(versioned->version.major) + "." +
                   std::to_string(versioned->version.minor) +
                   " capsule; this build reads DLPack 1.x");
      PyCapsule_SetName(raw, "used_dltensor_versioned");
      call.tensors.push_back(std::make_unique<DLPackTensor>(versioned));
      if (param.isWritten && (versioned->flags & kDLPackFlagReadOnly))
        throw fail("the kernel writes this buffer, but the tensor is "
                   "read-only (its DLPack export says so); pass a writable "
                   "copy");
      if (param.isWritten && (versioned->flags & kDLPackFlagIsCopied))
        throw fail("the kernel writes this buffer, but the producer "
                   "exported a copy of it, so the writes would not reach "
                   "the tensor");
      found = &versioned->tensor;
    } else if (PyCapsule_IsValid(raw, "dltensor")) {
      auto *managed =
          static_cast<DLManagedTensor *>(PyCapsule_GetPointer(raw, "dltensor"));
      PyCapsule_SetName(raw, "used_dltensor");
      call.tensors.push_back(std::make_unique<DLPackTensor>(managed));
      found = &managed->tensor;
    } else {
      throw fail("__dlpack__ did not return an unused DLPack capsule");
    }
    const DLTensor &tensor = *found;
    if (tensor.ndim < 0 || (tensor.ndim > 0 && !tensor.shape))
      throw fail("the DLPack tensor has rank " + std::to_string(tensor.ndim) +
                 (tensor.ndim > 0 ? " but no shape" : ""));
    BufferArg buffer = toBuffer(tensor, getDType(tensor.dtype, position));
    // (A negative extent is the JIT's argument check to report.)
    if (llvm::all_of(buffer.shape, [](int64_t n) { return n >= 0; }) &&
        !mlir::tile::getCheckedByteSize(buffer.shape,
                                        getByteSize(buffer.dtype)))
      throw fail("the DLPack tensor's shape has more bytes than fit in 64 "
                 "bits");
    return buffer;
  }

  /// torch's classes and dtypes, once torch is imported (a process
  /// without torch has no torch tensors to pass).
  struct Torch {
    PyTypeObject *tensor = nullptr;
    std::vector<std::pair<PyObject *, DType>> dtypes;
    bool rocm = false;
    /// torch's DLPack exchange table (torch 2.10 and later), else null.
    const DLPackExchangeAPI *exchange = nullptr;
  };

  /// The DLPack exchange table of `type` (DLPack 1.2 or a later 1.x), or
  /// null; the environment variable TILELANG_MLIR_DLPACK_EXCHANGE=0 turns
  /// its use off (the attribute path below then describes every tensor).
  static const DLPackExchangeAPI *getExchangeAPI(const py::handle &type) {
    if (const char *use = std::getenv("TILELANG_MLIR_DLPACK_EXCHANGE");
        use && llvm::StringRef(use) == "0")
      return nullptr;
    const DLPackExchangeAPI *api = nullptr;
    if (py::hasattr(type, "__dlpack_c_exchange_api__")) {
      py::object capsule = type.attr("__dlpack_c_exchange_api__");
      if (PyCapsule_IsValid(capsule.ptr(), "dlpack_exchange_api"))
        api = static_cast<const DLPackExchangeAPI *>(
            PyCapsule_GetPointer(capsule.ptr(), "dlpack_exchange_api"));
    } else if (py::hasattr(type, "__c_dlpack_exchange_api__")) {
      // The name torch 2.9 gave it: the table's address as an int.
      py::object address = type.attr("__c_dlpack_exchange_api__");
      if (py::isinstance<py::int_>(address))
        api = reinterpret_cast<const DLPackExchangeAPI *>(
            static_cast<uintptr_t>(address.cast<uint64_t>()));
    }
    PyErr_Clear();
    if (!api || api->header.version.major != kDLPackMajorVersion ||
        api->header.version.minor < 2 || !api->dltensorFromPyObjectNoSync ||
        !api->currentWorkStream)
      return nullptr;
    return api;
  }
  static const Torch *getTorch() {
    static std::optional<Torch> torch;
    if (torch)
      return &*torch;
    PyObject *module = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
    if (!module)
      return nullptr;
    py::module_ t = py::reinterpret_borrow<py::module_>(module);
    if (!py::hasattr(t, "Tensor") || !py::hasattr(t, "float8_e5m2"))
      return nullptr; // Still importing, or too old for this table.
    Torch found;
    found.tensor = reinterpret_cast<PyTypeObject *>(t.attr("Tensor").ptr());
    static const std::pair<const char *, DType> kNames[] = {
        {"float16", DType::F16},      {"bfloat16", DType::BF16},
        {"float32", DType::F32},      {"float64", DType::F64},
        {"int8", DType::I8},          {"int16", DType::I16},
        {"int32", DType::I32},        {"int64", DType::I64},
        {"bool", DType::I1},          {"float8_e4m3fn", DType::F8E4M3FN},
        {"float8_e5m2", DType::F8E5M2}};
    for (auto [name, dtype] : kNames)
      found.dtypes.push_back({py::object(t.attr(name)).release().ptr(), dtype});
    // uint16/32/64 are torch 2.3's.
    static const std::pair<const char *, DType> kUnsigned[] = {
        {"uint8", DType::U8},
        {"uint16", DType::U16},
        {"uint32", DType::U32},
        {"uint64", DType::U64},
        // The OCP MX scale factor (torch 2.7).
        {"float8_e8m0fnu", DType::F8E8M0FNU},
        // Pairs of 4-bit floats, one per byte: the storage of a packed
        // 4-bit parameter (`tile.packed`), taken as its bytes.
        {"float4_e2m1fn_x2", DType::U8}};
    for (auto [name, dtype] : kUnsigned)
      if (py::hasattr(t, name))
        found.dtypes.push_back(
            {py::object(t.attr(name)).release().ptr(), dtype});
    found.rocm = !t.attr("version").attr("hip").is_none();
    found.exchange = getExchangeAPI(t.attr("Tensor"));
    Py_INCREF(found.tensor);
    torch = std::move(found);
    return &*torch;
  }

  /// A torch tensor through torch's DLPack exchange table: a DLTensor
  /// filled in C, no Python call (what TileLang's tvm-ffi calls use). None
  /// when there is no table or the tensor is one it does not describe as a
  /// call takes it (an element type or device this package reads
  /// otherwise): the attribute path then takes it, or says why not.
  std::optional<BufferArg> fromTorchExchange(const py::handle &tensor,
                                             size_t position,
                                             const Torch &torch,
                                             CallArgs &call) const {
    if (!torch.exchange)
      return std::nullopt;
    DLTensor view;
    if (torch.exchange->dltensorFromPyObjectNoSync(tensor.ptr(), &view) != 0) {
      PyErr_Clear();
      return std::nullopt;
    }
    Residence residence;
    switch (view.device.deviceType) {
    case kDLCPU:
      residence = Residence::Host;
      break;
    case kDLCUDA:
      residence = Residence::CUDA;
      break;
    case kDLROCM:
      residence = Residence::ROCm;
      break;
    default:
      return std::nullopt;
    }
    std::optional<DType> dtype = findDType(view.dtype);
    if (!dtype || view.ndim < 0 || (view.ndim > 0 && !view.shape))
      return std::nullopt;
    BufferArg buffer = toBuffer(view, *dtype);
    if (residence != Residence::Host)
      noteDevice(call, position, view.device.deviceId, /*torch=*/true);
    call.residence.push_back(residence);
    return buffer;
  }

  /// A torch tensor by its attributes (what TileLang's and Triton's calls
  /// read): cheaper than a DLPack export, and a tensor that requires
  /// gradient is taken by its storage.
  BufferArg fromTorch(const py::handle &tensor, size_t position,
                      const Param &param, const Torch &torch,
                      CallArgs &call) const {
    if (std::optional<BufferArg> buffer =
            fromTorchExchange(tensor, position, torch, call))
      return std::move(*buffer);
    // Every call reads these: interned names and the C API's method calls
    // (no bound-method objects), a few tens of nanoseconds each.
    static PyObject *const kDtype = PyUnicode_InternFromString("dtype");
    static PyObject *const kDataPtr = PyUnicode_InternFromString("data_ptr");
    static PyObject *const kShape = PyUnicode_InternFromString("shape");
    static PyObject *const kStride = PyUnicode_InternFromString("stride");
    static PyObject *const kIsCuda = PyUnicode_InternFromString("is_cuda");
    static PyObject *const kGetDevice =
        PyUnicode_InternFromString("get_device");
    auto get = [&](PyObject *name) {
      PyObject *value = PyObject_GetAttr(tensor.ptr(), name);
      if (!value)
        throw py::error_already_set();
      return py::reinterpret_steal<py::object>(value);
    };
    auto call0 = [&](PyObject *name) {
      PyObject *value = PyObject_CallMethodNoArgs(tensor.ptr(), name);
      if (!value)
        throw py::error_already_set();
      return py::reinterpret_steal<py::object>(value);
    };
    auto toInt64 = [](PyObject *object) {
      long long value = PyLong_AsLongLong(object);
      if (value == -1 && PyErr_Occurred())
        throw py::error_already_set();
      return static_cast<int64_t>(value);
    };
    BufferArg buffer;
    py::object dtype = get(kDtype);
    auto found = llvm::find_if(torch.dtypes, [&](const auto &entry) {
      return entry.first == dtype.ptr();
    });
    if (found == torch.dtypes.end())
      throw TileError("argument " + std::to_string(position) + " ('" +
                      param.name + "'): unsupported torch dtype " +
                      py::str(dtype).cast<std::string>() + " (expected " +
                      kSupportedTypes + ")");
    buffer.dtype = found->second;
    buffer.data = reinterpret_cast<void *>(
        static_cast<uintptr_t>(toInt64(call0(kDataPtr).ptr())));
    py::object shape = get(kShape), strides = call0(kStride);
    if (!PyTuple_Check(shape.ptr()) || !PyTuple_Check(strides.ptr()))
      throw TileError("argument " + std::to_string(position) + " ('" +
                      param.name + "'): the tensor's shape or strides are "
                      "not tuples");
    for (Py_ssize_t d = 0, e = PyTuple_GET_SIZE(shape.ptr()); d < e; ++d)
      buffer.shape.push_back(toInt64(PyTuple_GET_ITEM(shape.ptr(), d)));
    for (Py_ssize_t d = 0, e = PyTuple_GET_SIZE(strides.ptr()); d < e; ++d)
      buffer.strides.push_back(toInt64(PyTuple_GET_ITEM(strides.ptr(), d)));
    Residence residence = Residence::Host;
    if (get(kIsCuda).ptr() == Py_True) {
      residence = torch.rocm ? Residence::ROCm : Residence::CUDA;
      noteDevice(call, position,
                 static_cast<int>(toInt64(call0(kGetDevice).ptr())),
                 /*torch=*/true);
    } else if (!tensor.attr("is_cpu").cast<bool>()) {
      throw TileError("argument " + std::to_string(position) + " ('" +
                      param.name + "'): a torch tensor on " +
                      py::str(tensor.attr("device")).cast<std::string>() +
                      " (kernels take CPU and CUDA tensors)");
    }
    call.residence.push_back(residence);
    return buffer;
  }

  /// The arguments as the JIT takes them; DLPack producers other than
  /// torch are left in `deferred` until the stream is known.
  CallArgs convert(const py::args &args) const {
    CallArgs call;
    llvm::ArrayRef<Param> params = kernel->getParams();
    if (args.size() != params.size())
      throw TileError("'" + kernel->getEntry().str() + "' takes " +
                      std::to_string(params.size()) + " arguments, got " +
                      std::to_string(args.size()));
    const Torch *torch = nullptr;
    for (auto [i, arg] : llvm::enumerate(args)) {
      if (params[i].isBuffer) {
        if (arg.is_none()) {
          // TileLang's optional tensor (a bias the kernel was traced
          // without): a null buffer of the parameter's static shape, for a
          // parameter the kernel never uses.
          if (params[i].isUsed)
            throw TileError("argument " + std::to_string(i) + " ('" +
                            params[i].name +
                            "') is None, but the kernel uses it: pass a "
                            "tensor (None is for a buffer it never touches)");
          BufferArg none;
          none.dtype = params[i].dtype;
          for (int64_t extent : params[i].shape)
            none.shape.push_back(mlir::ShapedType::isDynamic(extent) ? 1
                                                                   : extent);
          call.args.push_back(none);
          call.residence.push_back(Residence::None);
          continue;
        }
        if (py::isinstance<py::array>(arg)) {
          py::array array = py::reinterpret_borrow<py::array>(arg);
          if (params[i].strides.empty() &&
              Py_TYPE(arg.ptr()) == reinterpret_cast<PyTypeObject *>(
                                        py::detail::npy_api::get().PyArray_Type_) &&
              !(array.flags() & py::array::c_style))
            throw NonContiguousArray("argument " + std::to_string(i) + " ('" +
                                     params[i].name +
                                     "') is not C-contiguous");
          call.keep.push_back(array);
          call.args.push_back(toBuffer(array, i, params[i]));
          call.residence.push_back(Residence::Host);
          continue;
        }
        if (!torch)
          torch = getTorch();
        if (torch && PyObject_TypeCheck(arg.ptr(), torch->tensor)) {
          call.args.push_back(fromTorch(arg, i, params[i], *torch, call));
          continue;
        }
        if (!py::hasattr(arg, "__dlpack__"))
          throw TileError("argument " + std::to_string(i) + " ('" +
                          params[i].name +
                          "') must be a numpy array or a DLPack tensor "
                          "(torch, cupy, ...)");
        int32_t type = kDLCPU, id = 0;
        if (py::hasattr(arg, "__dlpack_device__")) {
          py::tuple where = arg.attr("__dlpack_device__")();
          type = where[0].cast<int32_t>();
          id = where[1].cast<int32_t>();
        }
        Residence residence = getDLPackResidence(type, i, params[i]);
        if (residence != Residence::Host)
          noteDevice(call, i, id, /*torch=*/false);
        call.residence.push_back(residence);
        call.args.push_back(BufferArg());
        call.deferred.push_back({i, arg});
        continue;
      }
      ScalarArg scalar;
      std::string where =
          "argument " + std::to_string(i) + " ('" + params[i].name + "')";
      // Python and numpy integers (anything with __index__, bools
      // included), then Python and numpy floats (__float__).
      if (py::isinstance<py::bool_>(arg) || py::hasattr(arg, "__index__")) {
        py::int_ value = py::reinterpret_steal<py::int_>(
            PyNumber_Index(arg.ptr()));
        if (!value)
          throw py::error_already_set();
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
        bool isU64 = params[i].dtype == DType::U64;
        if (overflow > 0 && isU64) {
          // Above INT64_MAX: its bit pattern (ScalarArg).
          unsigned long long u = PyLong_AsUnsignedLongLong(value.ptr());
          if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
            PyErr_Clear();
            throw TileError(where + ": " + py::str(value).cast<std::string>() +
                            " is out of the range of uint64");
          }
          v = static_cast<long long>(u);
        } else if (overflow) {
          throw TileError(where + ": " + py::str(value).cast<std::string>() +
                          " does not fit in 64 bits");
        } else if (isU64 && v < 0) {
          throw TileError(where + ": " + std::to_string(v) +
                          " is out of the range of uint64 (0 to "
                          "18446744073709551615)");
        }
        scalar.value = static_cast<int64_t>(v);
      } else if (py::isinstance<py::float_>(arg) ||
                 py::hasattr(arg, "__float__")) {
        scalar.value = py::reinterpret_borrow<py::object>(arg).cast<double>();
      } else {
        throw TileError(where + " must be a number, got " +
                        py::str(py::type::handle_of(arg).attr("__name__"))
                            .cast<std::string>());
      }
      call.args.push_back(scalar);
      call.residence.push_back(Residence::None);
    }
    return call;
  }


  /// Exports the deferred DLPack arguments for use on `stream` (DLPack's
  /// consumer stream; none: no synchronization).
  void exportDeferred(CallArgs &call, std::optional<int64_t> stream) const {
    llvm::ArrayRef<Param> params = kernel->getParams();
    for (auto [i, object] : call.deferred)
      call.args[i] = fromDLPack(
          object, i, params[i], call,
          call.residence[i] == Residence::Host ? std::nullopt : stream);
    call.deferred.clear();
  }

  std::unique_ptr<Kernel> kernel;
};

} // namespace

PYBIND11_MODULE(_tilelang, m) {
  m.doc() = "TileLang-MLIR JIT bindings";
  m.attr("__version__") = mlir::tile::getVersion().str();
  m.attr("__commit__") = mlir::tile::getCommit().str();
  m.attr("llvm_version") = LLVM_VERSION_STRING;
  m.def(
      "cache_settings",
      [] {
        auto options =
            mlir::tile::jit::CompilationCache::Options::fromEnvironment();
        py::dict settings;
        settings["directory"] = options.directory;
        settings["enabled"] = options.enabled;
        settings["max_bytes"] = options.maxBytes;
        return settings;
      },
      "The compilation cache's settings as the JIT reads them from "
      "TILE_CACHE_DIR, TILE_DISABLE_CACHE and TILE_CACHE_MAX_BYTES");
  m.def(
      "compiler_identity",
      [] { return mlir::tile::getCompilerIdentity(); },
      "The build IDs of the compiler's loaded objects (part of every cache "
      "key)");
  py::register_exception<TileError>(m, "TileError", PyExc_RuntimeError);
  py::register_exception<NonContiguousArray>(m, "NonContiguousArray",
                                             PyExc_ValueError);
  py::class_<PyKernel>(m, "Kernel")
      .def(py::init<const std::string &, const std::string &,
                    const std::string &, bool, bool, const py::dict &>(),
           py::arg("source"), py::arg("target") = "cpu",
           py::arg("entry") = "", py::arg("reuse_shared_memory") = true,
           py::arg("pipeline_copies") = true,
           py::arg("pass_configs") = py::dict(),
           "Parses and verifies tile IR; compiles on first use")
      .def(py::init<const mlir::tile::python::IRBuilder &,
                    const std::string &, const std::string &, bool, bool,
                    const py::dict &>(),
           py::arg("module"), py::arg("target") = "cpu",
           py::arg("entry") = "", py::arg("reuse_shared_memory") = true,
           py::arg("pipeline_copies") = true,
           py::arg("pass_configs") = py::dict(),
           "Verifies a traced module (an IRBuilder's); compiles on first use")
      .def_property_readonly("params", &PyKernel::params)
      .def_property_readonly("entry", &PyKernel::entry)
      .def("prepare", &PyKernel::prepare,
           "Compiles (or loads from the cache) the specialization of these "
           "arguments and returns its report")
      .def("run", &PyKernel::run, "Runs the kernel on these arguments");
  m.def(
      "ldmatrix_swizzle",
      [](const std::vector<int64_t> &shape,
         const std::string &element) -> py::object {
        mlir::MLIRContext context;
        context.loadDialect<TileDialect>();
        mlir::Type type = mlir::parseType(element, &context);
        if (!type || !type.isIntOrFloat())
          throw TileError("not an element type: " + element);
        SwizzleAttr swizzle =
            getLdmatrixSwizzle(mlir::MemRefType::get(shape, type));
        if (!swizzle)
          return py::none();
        std::string text;
        llvm::raw_string_ostream os(text);
        os << swizzle;
        return py::str(text);
      },
      py::arg("shape"), py::arg("element"),
      "The #tile.swizzle the compiler gives a shared tile that ldmatrix "
      "reads, or None");
  mlir::tile::python::bindIRBuilder(m);
  m.def(
      "lower",
      [](const std::string &source, const std::string &pipeline) {
        return unwrap(lowerToText(source, pipeline, "<python>"));
      },
      py::arg("source"), py::arg("pipeline"),
      "Runs a pass pipeline (as tile-opt takes it) on tile IR text and "
      "returns the result as text");
  m.def(
      "lower",
      [](const mlir::tile::python::IRBuilder &module,
         const std::string &pipeline) {
        return unwrap(lowerToText(*module.getContext(), module.getModule(),
                                  pipeline));
      },
      py::arg("module"), py::arg("pipeline"),
      "Runs a pass pipeline (as tile-opt takes it) on a copy of a traced "
      "module and returns the result as text");
  m.def(
      "pipeline",
      [](const std::string &target, const py::dict &passConfigs,
         const std::string &stopAfter, const std::string &format) {
        CompileOptions options;
        options.target = unwrap(Target::parse(target));
        applyPassConfigs(options, passConfigs);
        return getPipeline(options, stopAfter, format);
      },
      py::arg("target"), py::arg("pass_configs") = py::dict(),
      py::arg("stop_after") = "", py::arg("format") = "bin",
      "The pass pipeline a kernel compiles with for this target and these "
      "pass_configs (as tile-opt takes it), optionally stopped after a "
      "stage or with the device code as text (format='isa')");
  m.def(
      "cuda_compute_capability",
      []() -> py::object {
        // The driver and device 0 as a kernel launch would find them: the
        // capability (90 for sm_90), or None with the reason as a string
        // when there is no driver or no device (what target="auto"
        // reports when it falls back to the CPU).
        llvm::Expected<int> capability =
            mlir::tile::runtime::getComputeCapability();
        if (!capability)
          return py::make_tuple(py::none(),
                                llvm::toString(capability.takeError()));
        return py::make_tuple(*capability, py::none());
      },
      "(compute capability of CUDA device 0 as major * 10 + minor, None) or "
      "(None, why there is none)");
  m.def(
      "cuda_device_attribute",
      [](int attribute, int device) -> py::object {
        llvm::Expected<int> value =
            mlir::tile::runtime::getDeviceAttribute(attribute, device);
        if (!value)
          return py::make_tuple(py::none(), llvm::toString(value.takeError()));
        return py::make_tuple(*value, py::none());
      },
      py::arg("attribute"), py::arg("device") = 0,
      "(value of a CUdevice_attribute of a CUDA device, None) or (None, why "
      "there is none)");
  m.def("compile_options", &getCompileOptions,
        "The compile options (pass_configs keys): key, flag, targets, "
        "type, default and description of each");
}
