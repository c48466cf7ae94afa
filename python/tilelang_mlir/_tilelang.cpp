//===- _tilelang.cpp - Python bindings of the TileLang-MLIR JIT ----------===//
//
// Part of TileLang-MLIR.
//
// `tilelang_mlir._tilelang.Kernel`: jit::Kernel from Python. A kernel is
// created from tile IR text (what the T.* language traces) and a target,
// and runs on numpy arrays (CPU target): buffers are passed by address with
// their shapes and element strides, scalars by value. Every error of the
// C++ API (parse and verifier diagnostics with the user's Python locations,
// argument mismatches, compile failures) becomes a TileError.
//
//===----------------------------------------------------------------------===//

#include "TileLang/Conversion/TileToNVGPU.h"
#include "TileLang/JIT/JIT.h"
#include "TileLang/Runtime/CUDARuntime.h"
#include "TileLang/Runtime/HIPRuntime.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
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

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value)
    throw TileError(llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error error) {
  if (error)
    throw TileError(llvm::toString(std::move(error)));
}

/// The element type of a numpy array, by dtype kind and size (bfloat16,
/// which numpy lacks, by name: ml_dtypes' bfloat16).
DType getDType(const py::array &array) {
  py::dtype dtype = array.dtype();
  std::string name = py::str(dtype.attr("name"));
  if (name == "bfloat16")
    return DType::BF16;
  char kind = dtype.kind();
  switch (dtype.itemsize()) {
  case 1:
    if (kind == 'b')
      return DType::I1;
    if (kind == 'i')
      return DType::I8;
    break;
  case 2:
    if (kind == 'f')
      return DType::F16;
    if (kind == 'i')
      return DType::I16;
    break;
  case 4:
    if (kind == 'f')
      return DType::F32;
    if (kind == 'i')
      return DType::I32;
    break;
  case 8:
    if (kind == 'f')
      return DType::F64;
    if (kind == 'i')
      return DType::I64;
    break;
  }
  throw TileError("unsupported numpy dtype " + name +
                  " (expected float16/32/64, bfloat16, int8/16/32/64 or bool)");
}

BufferArg toBuffer(const py::array &array, size_t position) {
  BufferArg buffer;
  buffer.dtype = getDType(array);
  buffer.data = const_cast<void *>(array.data());
  int64_t itemSize = array.itemsize();
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    buffer.shape.push_back(array.shape(d));
    if (array.strides(d) % itemSize)
      throw TileError("argument " + std::to_string(position) +
                      ": strides that are not whole elements");
    buffer.strides.push_back(array.strides(d) / itemSize);
  }
  return buffer;
}

class PyKernel {
public:
  PyKernel(const std::string &source, const std::string &target,
           const std::string &entry, bool reuseSharedMemory,
           bool pipelineCopies) {
    CompileOptions options;
    options.target = unwrap(Target::parse(target));
    options.entry = entry;
    options.reuseSharedMemory = reuseSharedMemory;
    options.pipelineCopies = pipelineCopies;
    kernel = unwrap(Kernel::create(source, options, "<python>"));
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
      result.append(entry);
    }
    return result;
  }

  std::string entry() const { return kernel->getEntry().str(); }

  /// Compiles (or loads from the cache) the specialization `args` select.
  py::dict prepare(const py::args &args) {
    std::vector<py::object> keep;
    std::vector<KernelArg> kernelArgs = convert(args, keep);
    const CompileReport &report = unwrap(kernel->prepare(kernelArgs));
    py::dict result;
    result["pipeline"] = report.pipeline;
    result["key"] = report.key;
    result["cache_hit"] = report.cacheHit;
    result["seconds"] = report.seconds;
    result["target"] = report.target.str();
    return result;
  }

  /// Runs on the arguments; on a GPU target through device copies of the
  /// numpy buffers (copied back afterwards).
  void run(const py::args &args) {
    std::vector<py::object> keep;
    std::vector<KernelArg> kernelArgs = convert(args, keep);
    check(kernel->checkArgs(kernelArgs));
    py::gil_scoped_release release;
    TargetKind kind = kernel->getOptions().target.kind;
    if (kind == TargetKind::CPU)
      return check(kernel->run(kernelArgs));
    runOnDevice(kernelArgs, kind == TargetKind::ROCm);
  }

private:
  /// Device copies of the buffer arguments (the vendor's runtime), the run,
  /// the copies back; device memory is released whatever happens.
  void runOnDevice(std::vector<KernelArg> &args, bool rocm) {
    namespace rt = mlir::tile::runtime;
    auto allocate = rocm ? rt::hip::allocate : rt::allocate;
    auto release = rocm ? rt::hip::release : rt::release;
    auto toDevice = rocm ? rt::hip::copyToDevice : rt::copyToDevice;
    auto toHost = rocm ? rt::hip::copyToHost : rt::copyToHost;
    struct Device {
      void (*release)(void *);
      std::vector<std::pair<void *, size_t>> buffers; // device, bytes
      ~Device() {
        for (auto [ptr, bytes] : buffers)
          if (ptr)
            release(ptr);
      }
    } device{release, {}};
    // Compile or load first: a kernel that cannot run here says why before
    // any device memory is asked for.
    if (auto prepared = kernel->prepare(args); !prepared)
      throw TileError(llvm::toString(prepared.takeError()));
    std::vector<void *> hostData(args.size(), nullptr);
    for (auto [i, arg] : llvm::enumerate(args)) {
      auto *buffer = std::get_if<BufferArg>(&arg);
      if (!buffer)
        continue;
      size_t bytes = getByteSize(buffer->dtype);
      int64_t stride = 1;
      for (int64_t d = buffer->shape.size() - 1; d >= 0; --d) {
        if (buffer->shape[d] > 1 && buffer->strides[d] != stride)
          throw TileError("argument " + std::to_string(i) +
                          ": a GPU target takes contiguous (C-order) arrays");
        stride *= buffer->shape[d];
      }
      bytes *= stride;
      bytes = std::max<size_t>(bytes, 8);
      void *ptr = unwrap(allocate(bytes));
      device.buffers.push_back({ptr, bytes});
      check(toDevice(ptr, buffer->data, bytes));
      hostData[i] = buffer->data;
      buffer->data = ptr;
    }
    check(kernel->run(args));
    size_t next = 0;
    for (auto [i, arg] : llvm::enumerate(args))
      if (hostData[i]) {
        auto [ptr, bytes] = device.buffers[next++];
        check(toHost(hostData[i], ptr, bytes));
      }
  }

  std::vector<KernelArg> convert(const py::args &args,
                                 std::vector<py::object> &keep) const {
    std::vector<KernelArg> result;
    llvm::ArrayRef<Param> params = kernel->getParams();
    if (args.size() != params.size())
      throw TileError("'" + kernel->getEntry().str() + "' takes " +
                      std::to_string(params.size()) + " arguments, got " +
                      std::to_string(args.size()));
    for (auto [i, arg] : llvm::enumerate(args)) {
      if (params[i].isBuffer) {
        if (!py::isinstance<py::array>(arg))
          throw TileError("argument " + std::to_string(i) + " ('" +
                          params[i].name + "') must be a numpy array");
        py::array array = py::reinterpret_borrow<py::array>(arg);
        keep.push_back(array);
        result.push_back(toBuffer(array, i));
        continue;
      }
      ScalarArg scalar;
      if (py::isinstance<py::bool_>(arg) || py::isinstance<py::int_>(arg))
        scalar.value = arg.cast<int64_t>();
      else if (py::isinstance<py::float_>(arg))
        scalar.value = arg.cast<double>();
      else
        throw TileError("argument " + std::to_string(i) + " ('" +
                        params[i].name + "') must be a number");
      result.push_back(scalar);
    }
    return result;
  }

  std::unique_ptr<Kernel> kernel;
};

} // namespace

PYBIND11_MODULE(_tilelang, m) {
  m.doc() = "TileLang-MLIR JIT bindings";
  py::register_exception<TileError>(m, "TileError", PyExc_RuntimeError);
  py::class_<PyKernel>(m, "Kernel")
      .def(py::init<const std::string &, const std::string &,
                    const std::string &, bool, bool>(),
           py::arg("source"), py::arg("target") = "cpu",
           py::arg("entry") = "", py::arg("reuse_shared_memory") = true,
           py::arg("pipeline_copies") = true,
           "Parses and verifies tile IR; compiles on first use")
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
  m.def(
      "lower",
      [](const std::string &source, const std::string &pipeline) {
        return unwrap(lowerToText(source, pipeline, "<python>"));
      },
      py::arg("source"), py::arg("pipeline"),
      "Runs a pass pipeline (as tile-opt takes it) on tile IR text and "
      "returns the result as text");
}
