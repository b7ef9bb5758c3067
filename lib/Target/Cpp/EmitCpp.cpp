//===- EmitCpp.cpp - Planned training steps as C++ for the host runtime ---===//
//
// Formats the StepModel of a planned step as C++ (the StepProgram and its
// straight-line `run`), a header and the plan JSON (docs/codegen.md), and
// writes them atomically into an output directory. The CUDA target
// (docs/gpu.md) is the same program for the device runtime: only the
// `Flavor` below differs.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Target/Cpp/EmitCpp.h"

#include "StepModel.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <limits>

using namespace mlir;
using namespace mlir::ckpt;
using namespace mlir::ckpt::cpp;

//===----------------------------------------------------------------------===//
// C++ literals
//===----------------------------------------------------------------------===//

/// `text` as a C++ string literal. Octal escapes (always three digits, so a
/// following digit is never absorbed) for anything outside printable ASCII,
/// and `??` split so no trigraph can form.
static std::string cString(StringRef text) {
  std::string out = "\"";
  char previous = 0;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '?' && previous == '?') {
      out += "\\?";
    } else if (u < 0x20 || u >= 0x7f) {
      char octal[5];
      std::snprintf(octal, sizeof octal, "\\%03o", static_cast<unsigned>(u));
      out += octal;
    } else {
      out += c;
    }
    previous = c;
  }
  return out + "\"";
}

/// `text` made safe inside a `//` comment: one line, no backslash (a
/// trailing one would continue the comment onto the next line), no `??`.
static std::string commentText(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r')
      c = ' ';
    else if (c == '\\')
      c = '/';
    if (c == '?' && !out.empty() && out.back() == '?')
      out += ' ';
    out += c;
  }
  return out;
}

static std::string intLiteral(int64_t value) {
  if (value == std::numeric_limits<int64_t>::min())
    return "(-9223372036854775807 - 1)";
  return std::to_string(value);
}

/// A double literal that reads back to exactly `value`.
static std::string floatLiteral(double value) {
  if (std::isnan(value))
    return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(value))
    return value > 0 ? "std::numeric_limits<double>::infinity()"
                     : "-std::numeric_limits<double>::infinity()";
  std::string text = llvm::formatv("{0}", llvm::format("%.17g", value)).str();
  if (text.find_first_of(".eE") == std::string::npos)
    text += ".0";
  return text;
}

static std::string intList(ArrayRef<int64_t> values) {
  std::string out = "{";
  for (auto [i, v] : llvm::enumerate(values))
    out += (i ? ", " : "") + intLiteral(v);
  return out + "}";
}

//===----------------------------------------------------------------------===//
// The .cpp / .cu file
//===----------------------------------------------------------------------===//

/// What differs between the host and the CUDA translation unit; the program
/// itself (ops, offsets, acquires, segments) is the same text for both.
struct Flavor {
  bool cuda;
  /// `cpp` / `cuda`: the value of `--emit=`.
  const char *emitName;
  /// The execution context `run` receives, and the kernels' namespace as
  /// seen from inside `using namespace ckpt::rt`.
  const char *context;
  const char *kernels;
  /// Prefix of the entry points (`ckpt_step_` / `ckpt_cuda_step_`).
  const char *entryPrefix;
};

/// Whether the plan holds the CUDA runtime's scratch block: a
/// `ckpt.device_workspace` of at least its size, so the budget counted it.
static bool scratchIsPlanned(const StepModel &m) {
  return m.deviceWorkspace >= kCudaDeviceScratchBytes;
}

/// Where a CUDA step keeps the device scratch block: in the planned device
/// workspace when there is one; otherwise right after the planned arena,
/// 256-byte aligned (what CudaSession requires), so that the session's one
/// device allocation holds every byte the step uses.
static int64_t deviceScratchOffset(const StepModel &m) {
  if (scratchIsPlanned(m))
    return m.deviceWorkspaceOffset;
  return static_cast<int64_t>(llvm::alignTo(m.arenaSize, 256));
}

/// Bytes of a CUDA step's device arena: the plan's arena, plus the scratch
/// when the plan does not hold it.
static int64_t deviceArenaBytes(const StepModel &m) {
  if (scratchIsPlanned(m))
    return m.arenaSize;
  return deviceScratchOffset(m) + kCudaDeviceScratchBytes;
}

static Flavor flavorOf(EmitTarget target) {
  if (target == EmitTarget::Cuda)
    return {true, "cuda", "cuda::CudaExecContext", "cuda::kernels",
            "ckpt_cuda_step_"};
  return {false, "cpp", "ExecContext", "kernels", "ckpt_step_"};
}

static std::string tensorExpr(const TensorRef &t) {
  if (!t.present)
    return "Tensor()";
  return "Tensor(arena + " + intLiteral(t.offset) + ", DType::" + t.dtype +
         ", " + intList(t.shape) + ")";
}

static std::string attrExpr(const AttrValue &a, StringRef intsName) {
  std::string name = cString(a.name);
  switch (a.kind) {
  case AttrValue::Kind::Int:
    return "intAttr(" + name + ", " + intLiteral(a.intValue) + ")";
  case AttrValue::Kind::Float:
    return "floatAttr(" + name + ", " + floatLiteral(a.floatValue) + ")";
  case AttrValue::Kind::Ints:
    if (a.ints.empty())
      return "intsAttr(" + name + ", nullptr, 0)";
    return "intsAttr(" + name + ", " + intsName.str() + ", " +
           std::to_string(a.ints.size()) + ")";
  case AttrValue::Kind::String:
    return "stringAttr(" + name + ", " + cString(a.stringValue) + ")";
  case AttrValue::Kind::Unit:
    return "unitAttr(" + name + ")";
  }
  return "";
}

static void writeBindings(raw_ostream &os, StringRef name,
                          ArrayRef<BindingEntry> bindings) {
  if (bindings.empty())
    return;
  os << "const Binding " << name << "[] = {\n";
  for (const BindingEntry &b : bindings)
    os << "    {" << cString(b.name) << ", Role::" << b.roleEnum
       << ", DType::" << b.dtype << ", " << b.shape.size() << ", "
       << intList(b.shape) << ", " << b.offset << ", " << b.gradOf << "},\n";
  os << "};\n";
}

/// The most ops one generated function holds (see generateSource).
static constexpr size_t kOpsPerPart = 128;

/// One op: a comment with the op and its location, then (unless a view) its
/// tensors, attributes, acquires, the kernel call and the releases.
/// A copy op: the host and device ranges it begins, the copy (or the wait
/// for one) and the ranges it ends.
static void writeCopy(raw_ostream &os, const OpEntry &op) {
  const CopyEntry &c = *op.copy;
  os << "  {\n";
  os << "    static const OpInfo op = {" << op.index << ", "
     << cString(op.mnemonic) << ", " << cString(op.location)
     << ", Phase::" << op.phase << ", false, -1};\n";
  for (const Range &r : op.hostAcquires)
    os << "    ctx.acquireHost(" << r.offset << ", " << r.bytes << ");\n";
  for (const Range &r : op.acquires)
    os << "    ctx.acquire(" << r.offset << ", " << r.bytes << ");\n";
  switch (c.kind) {
  case CopyEntry::Kind::Offload:
    os << "    ctx.offload(op, " << c.copy << ", " << c.deviceOffset << ", "
       << c.hostOffset << ", " << c.bytes << ");\n";
    break;
  case CopyEntry::Kind::Wait:
    os << "    ctx.waitOffload(op, " << c.copy << ");\n";
    break;
  case CopyEntry::Kind::Prefetch:
    os << "    ctx.prefetch(op, " << c.copy << ", " << c.hostOffset << ", "
       << c.deviceOffset << ", " << c.bytes << ");\n";
    break;
  }
  for (const Range &r : op.releases)
    os << "    ctx.release(" << r.offset << ", " << r.bytes << ");\n";
  for (const Range &r : op.hostReleases)
    os << "    ctx.releaseHost(" << r.offset << ", " << r.bytes << ");\n";
  os << "  }\n";
}

static void writeOp(raw_ostream &os, const OpEntry &op, const Flavor &f) {
  os << "\n  // [" << op.index << "] " << commentText(op.text) << "\n";
  if (!op.location.empty())
    os << "  //     at " << commentText(op.location) << "\n";
  if (op.copy)
    return writeCopy(os, op);
  for (const std::string &note : op.inPlaceNotes)
    os << "  //     in place: " << commentText(note) << "\n";
  if (op.view) {
    os << "  //     view: aliases its operand's storage at offset "
       << op.results.front().offset << ", no kernel call\n";
    for (const Range &r : op.releases)
      os << "  ctx.release(" << r.offset << ", " << r.bytes << ");\n";
    return;
  }
  os << "  {\n";
  os << "    static const OpInfo op = {" << op.index << ", "
     << cString(op.mnemonic) << ", " << cString(op.location)
     << ", Phase::" << op.phase << ", " << (op.recompute ? "true" : "false")
     << ", " << op.segment << "};\n";
  for (auto [i, a] : llvm::enumerate(op.attrs))
    if (a.kind == AttrValue::Kind::Ints && !a.ints.empty())
      os << "    static const int64_t ints" << i << "[] = " << intList(a.ints)
         << ";\n";
  if (!op.attrs.empty()) {
    os << "    static const Attr attrs[] = {";
    for (auto [i, a] : llvm::enumerate(op.attrs))
      os << (i ? ",\n                                 " : "")
         << attrExpr(a, "ints" + std::to_string(i));
    os << "};\n";
  }
  auto writeTensors = [&](StringRef name, ArrayRef<TensorRef> tensors) {
    if (tensors.empty())
      return;
    os << "    const Tensor " << name << "[] = {";
    for (auto [i, t] : llvm::enumerate(tensors))
      os << (i ? ",\n        " : "") << tensorExpr(t);
    os << "};\n";
  };
  writeTensors("operands", op.operands);
  writeTensors("results", op.results);
  for (const Range &r : op.acquires)
    os << "    ctx.acquire(" << r.offset << ", " << r.bytes << ");\n";
  if (op.workspace)
    os << "    ctx.acquire(" << op.workspace->offset << ", "
       << op.workspace->bytes << "); // workspace\n";
  for (int64_t copy : op.awaitsPrefetches)
    os << "    ctx.waitPrefetch(op, " << copy << ");\n";
  auto list = [](StringRef name, size_t size) {
    return size ? ("TensorList{" + name + ", " + Twine(size) + "}").str()
                : std::string("TensorList{}");
  };
  os << "    ctx.call(op, &" << f.kernels << "::" << op.mnemonic << ", "
     << list("operands", op.operands.size()) << ", "
     << list("results", op.results.size()) << ", "
     << (op.attrs.empty()
             ? std::string("Attrs{}")
             : "Attrs{attrs, " + std::to_string(op.attrs.size()) + "}")
     << ", ";
  if (op.workspace)
    os << "Tensor(arena + " << op.workspace->offset << ", DType::I1, {"
       << op.workspace->bytes << "})";
  else
    os << "Tensor()";
  os << ");\n";
  if (op.workspace)
    os << "    ctx.release(" << op.workspace->offset << ", "
       << op.workspace->bytes << "); // workspace\n";
  for (const Range &r : op.releases)
    os << "    ctx.release(" << r.offset << ", " << r.bytes << ");\n";
  os << "  }\n";
}

/// One op, preceded by the start of the recompute segment it begins (if any)
/// and followed by the end of the one it ends.
static void writeOpInSegments(raw_ostream &os, const OpEntry &op,
                              const SegmentEntry *begins,
                              const SegmentEntry *ends, const Flavor &f) {
  if (begins) {
    os << "\n  // ---- recompute segment " << begins->id << ": recomputes ";
    for (auto [i, v] : llvm::enumerate(begins->recomputed))
      os << (i ? ", " : "") << v;
    if (begins->consumerOp >= 0) {
      os << "\n  //      for [" << begins->consumerOp << "] "
         << commentText(begins->consumerText);
      if (!begins->consumerLocation.empty())
        os << "\n  //      at " << commentText(begins->consumerLocation);
    }
    os << "\n  ctx.beginSegment(" << begins->id << ");\n";
  }
  writeOp(os, op, f);
  if (ends)
    os << "  ctx.endSegment(" << ends->id << ");\n"
       << "  // ---- end of recompute segment " << ends->id << "\n";
}

static std::string generateSource(const StepModel &m, StringRef stem,
                                  const Flavor &f) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// " << stem << (f.cuda ? ".cu" : ".cpp") << " - training step @"
     << commentText(m.name) << ", generated by ckpt-opt --emit=" << f.emitName
     << ".\n"
     << "// Do not edit: regenerate it from the planned IR.\n//\n"
     << "// arena: " << m.arenaSize << " bytes, planned peak: " << m.lowerBound
     << " bytes, alignment: " << m.alignment << "\n"
     << "// ops: " << m.ops.size() << " (" << m.numKernelCalls
     << " kernel calls), recomputed: " << m.numRecomputedOps << " in "
     << m.segments.size() << " segments, in place: " << m.numInPlace << "\n"
     << (m.numOffloads > 0
             ? "// host arena: " + std::to_string(m.hostArenaSize) +
                   " bytes, planned host peak: " +
                   std::to_string(m.hostLowerBound) +
                   ", offloads: " + std::to_string(m.numOffloads) +
                   ", prefetches: " + std::to_string(m.numPrefetches) + "\n"
             : std::string())
     << "#include \"" << stem << ".h\"\n\n";
  if (f.cuda)
    os << "// device scratch (cuBLASLt workspace and scalars, "
       << kCudaDeviceScratchBytes << " bytes) at offset "
       << deviceScratchOffset(m) << ",\n"
       << (scratchIsPlanned(m)
               ? "// in the planned device workspace: the device arena is "
               : "// after the planned arena: the device arena is ")
       << deviceArenaBytes(m) << " bytes, one allocation.\n"
       << "#include \"ckpt/Runtime/Cuda/CudaKernels.h\"\n";
  else
    os << "#include \"ckpt/Runtime/Kernels.h\"\n";
  os << "#include \"ckpt/Runtime/Program.h\"\n\n"
     << "#include <cstdint>\n#include <limits>\n\n"
     << "namespace {\nusing namespace ckpt::rt;\n\n";
  writeBindings(os, "kArguments", m.arguments);
  writeBindings(os, "kResults", m.results);
  if (f.cuda)
    os << "static_assert(ckpt::rt::cuda::kDeviceScratchBytes == "
       << kCudaDeviceScratchBytes
       << "ull,\n              \"regenerate: the runtime's device scratch "
          "changed size\");\n";
  std::vector<const SegmentEntry *> beginsAt(m.ops.size(), nullptr),
      endsAt(m.ops.size(), nullptr);
  for (const SegmentEntry &s : m.segments) {
    beginsAt[s.firstOp] = &s;
    endsAt[s.lastOp] = &s;
  }
  // The ops go into functions of at most kOpsPerPart ops each, called in
  // order by `run`: a compiler's register allocation grows faster than
  // linearly with a function's size (g++ -O0 spent 51 of its 60 s on the
  // full Llama step's 4,872 ops in one function), and every op's block is
  // self-contained (it reads only `ctx` and `arena`).
  size_t numParts = (m.ops.size() + kOpsPerPart - 1) / kOpsPerPart;
  for (size_t part = 0; part < numParts; ++part) {
    size_t first = part * kOpsPerPart;
    size_t count = std::min(kOpsPerPart, m.ops.size() - first);
    os << "\n// ops [" << first << "] to [" << first + count - 1 << "]\n"
       << "void runPart" << part << "([[maybe_unused]] " << f.context
       << " &ctx, [[maybe_unused]] char *const arena) {";
    for (const OpEntry &op : ArrayRef<OpEntry>(m.ops).slice(first, count))
      writeOpInSegments(os, op, beginsAt[op.index], endsAt[op.index], f);
    os << "}\n";
  }
  os << "\nvoid run(" << f.context << " &ctx) {\n"
     << "  [[maybe_unused]] char *const arena = ctx.arena();\n";
  for (size_t part = 0; part < numParts; ++part)
    os << "  runPart" << part << "(ctx, arena);\n";
  os << "}\n\n} // namespace\n\n";
  std::string entry = f.entryPrefix + m.identifier;
  const char *programType =
      f.cuda ? "ckpt::rt::cuda::CudaStepProgram" : "ckpt::rt::StepProgram";
  // The CUDA program wraps the host facts (with no host `run` and the
  // device arena's size) and adds the device `run` and the scratch offset.
  os << "extern \"C\" const " << programType << " *" << entry << "() {\n"
     << "  static const " << programType << " program = {\n"
     << (f.cuda ? "      {" : "      ") << cString(m.name) << ", "
     << (f.cuda ? deviceArenaBytes(m) : m.arenaSize) << ", " << m.lowerBound
     << ", " << m.alignment << ", " << m.ops.size() << ", "
     << m.numRecomputedOps << ", " << m.segments.size() << ",\n"
     << (f.cuda ? "       " : "      ")
     << (m.arguments.empty() ? "nullptr" : "kArguments") << ", "
     << m.arguments.size() << ", "
     << (m.results.empty() ? "nullptr" : "kResults") << ", " << m.results.size()
     << (f.cuda ? ", nullptr,\n       " : ", &run,\n      ") << m.hostArenaSize
     << ", " << m.hostLowerBound << ", " << m.numOffloads
     << (f.cuda ? "},\n      &run, " + std::to_string(deviceScratchOffset(m)) +
                      "};\n"
                : std::string("};\n"))
     << "  return &program;\n}\n\n"
     << "extern \"C\" const " << programType << " *" << f.entryPrefix
     << "program() {\n"
     << "  return " << entry << "();\n}\n";
  return text;
}

static std::string generateHeader(const StepModel &m, StringRef stem,
                                  const Flavor &f) {
  std::string guard = (f.cuda ? "CKPT_CUDA_STEP_" : "CKPT_STEP_") +
                      StringRef(m.identifier).upper() + "_H";
  const char *programType =
      f.cuda ? "ckpt::rt::cuda::CudaStepProgram" : "ckpt::rt::StepProgram";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// " << stem << ".h - entry points of training step @"
     << commentText(m.name) << ", generated by ckpt-opt --emit="
     << f.emitName << ".\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << (f.cuda ? "#include \"ckpt/Runtime/Cuda/CudaSession.h\"\n\n"
                : "#include \"ckpt/Runtime/Program.h\"\n\n")
     << "extern \"C\" {\n"
     << "/// The training step @" << commentText(m.name) << ".\n"
     << "const " << programType << " *" << f.entryPrefix << m.identifier
     << "();\n"
     << "/// The step of this translation unit (every generated step defines "
        "it).\n"
     << "const " << programType << " *" << f.entryPrefix << "program();\n"
     << "}\n\n#endif // " << guard << "\n";
  return text;
}

//===----------------------------------------------------------------------===//
// The plan JSON
//===----------------------------------------------------------------------===//

static llvm::json::Array jsonInts(ArrayRef<int64_t> values) {
  llvm::json::Array array;
  for (int64_t v : values)
    array.push_back(v);
  return array;
}

static llvm::json::Array jsonBindings(ArrayRef<BindingEntry> bindings) {
  llvm::json::Array array;
  for (auto [i, b] : llvm::enumerate(bindings)) {
    llvm::json::Object entry{{"index", static_cast<int64_t>(i)},
                             {"name", b.name},
                             {"role", b.role},
                             {"dtype", StringRef(b.dtype).lower()},
                             {"shape", jsonInts(b.shape)},
                             {"offset", b.offset},
                             {"bytes", b.bytes}};
    if (b.gradOf >= 0)
      entry["grad_of"] = b.gradOf;
    array.push_back(std::move(entry));
  }
  return array;
}

static std::string generatePlanJson(const StepModel &m, const Flavor &f) {
  llvm::json::Array buffers;
  for (auto [i, b] : llvm::enumerate(m.buffers)) {
    llvm::json::Object entry{{"id", static_cast<int64_t>(i)},
                             {"kind", b.kind},
                             {"offset", b.offset},
                             {"bytes", b.bytes},
                             {"tensor_bytes", b.tensorBytes},
                             {"first_op", b.firstOp},
                             {"last_op", b.lastOp}};
    if (!b.value.empty())
      entry["value"] = b.value;
    if (b.argument >= 0)
      entry["argument"] = b.argument;
    else {
      entry["op_index"] = b.opIndex;
      entry["op"] = b.op;
    }
    if (b.inPlaceOf >= 0)
      entry["in_place_of"] = b.inPlaceOf;
    buffers.push_back(std::move(entry));
  }
  llvm::json::Array segments;
  for (const SegmentEntry &s : m.segments) {
    llvm::json::Array values;
    for (const std::string &v : s.recomputed)
      values.push_back(v);
    llvm::json::Object entry{{"id", s.id},
                             {"first_op", s.firstOp},
                             {"last_op", s.lastOp},
                             {"ops", jsonInts(s.ops)},
                             {"recomputes", std::move(values)}};
    if (s.consumerOp >= 0)
      entry["consumer"] = llvm::json::Object{
          {"op_index", s.consumerOp},
          {"op", "ckpt." + m.ops[s.consumerOp].mnemonic},
          {"location", s.consumerLocation}};
    segments.push_back(std::move(entry));
  }
  int64_t views =
      llvm::count_if(m.ops, [](const OpEntry &op) { return op.view; });
  llvm::json::Object document{
      {"version", 1},
      {"function", m.name},
      {"entry_point", f.entryPrefix + m.identifier},
      {"arena_bytes", m.arenaSize},
      {"planned_peak_bytes", m.lowerBound},
      {"alignment", m.alignment},
      {"counts",
       llvm::json::Object{
           {"ops", static_cast<int64_t>(m.ops.size())},
           {"kernel_calls", m.numKernelCalls},
           {"views", views},
           {"recomputed_ops", m.numRecomputedOps},
           {"segments", static_cast<int64_t>(m.segments.size())},
           {"buffers", static_cast<int64_t>(m.buffers.size())},
           {"in_place", m.numInPlace},
           {"arguments", static_cast<int64_t>(m.arguments.size())},
           {"results", static_cast<int64_t>(m.results.size())}}},
      {"arguments", jsonBindings(m.arguments)},
      {"results", jsonBindings(m.results)},
      {"buffers", std::move(buffers)},
      {"segments", std::move(segments)}};
  if (m.budget)
    document["budget"] = budgetToJson(*m.budget);
  // The host arena of the offloaded values (docs/memory-plan.md).
  if (m.numOffloads > 0)
    document["host"] =
        llvm::json::Object{{"arena_bytes", m.hostArenaSize},
                           {"planned_peak_bytes", m.hostLowerBound},
                           {"offloads", m.numOffloads},
                           {"prefetches", m.numPrefetches}};
  // The device scratch block: in the planned device workspace, or after
  // the planned arena (docs/gpu.md).
  if (f.cuda)
    document["device_scratch"] =
        llvm::json::Object{{"offset", deviceScratchOffset(m)},
                           {"bytes", kCudaDeviceScratchBytes},
                           {"planned", scratchIsPlanned(m)},
                           {"device_arena_bytes", deviceArenaBytes(m)}};
  return llvm::formatv("{0:2}", llvm::json::Value(std::move(document))).str() +
         "\n";
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

LogicalResult mlir::ckpt::exportStepToCpp(func::FuncOp func,
                                          const EmitCppOptions &options,
                                          EmittedStep &out) {
  if (func.isExternal())
    return func.emitError() << "cannot generate code for @"
                            << func.getSymName() << ": it has no body";
  if (options.alignment < 0 ||
      (options.alignment > 0 && !llvm::isPowerOf2_64(options.alignment)))
    return func.emitError() << "cannot generate code for @"
                            << func.getSymName() << ": the alignment "
                            << options.alignment
                            << " is not a power of two (0: inferred)";
  FailureOr<StepModel> model = buildStepModel(func, options);
  if (failed(model))
    return failure();
  out.name = model->name;
  out.fileStem = model->identifier;
  Flavor flavor = flavorOf(options.target);
  if (flavor.cuda && model->deviceWorkspace > 0 && !scratchIsPlanned(*model))
    return func.emitError()
           << "cannot generate CUDA code for @" << model->name
           << ": its device workspace ('ckpt.device_workspace') of "
           << model->deviceWorkspace
           << " bytes is smaller than the CUDA runtime's scratch block ("
           << kCudaDeviceScratchBytes
           << " bytes); plan it with device-workspace=cuda";
  if (flavor.cuda && scratchIsPlanned(*model) &&
      model->deviceWorkspaceOffset % 256 != 0)
    return func.emitError()
           << "cannot generate CUDA code for @" << model->name
           << ": its device workspace is at arena offset "
           << model->deviceWorkspaceOffset
           << ", which is not 256-byte aligned (plan with alignment=256)";
  if (flavor.cuda && model->deviceWorkspace == 0)
    func.emitWarning()
        << "the memory plan of @" << model->name
        << " does not count the CUDA runtime's scratch block ("
        << kCudaDeviceScratchBytes
        << " bytes, the cuBLASLt workspace): it is placed after the planned "
           "arena, outside the budget; plan with device-workspace=cuda to "
           "count it";
  out.sourceSuffix = flavor.cuda ? ".cu" : ".cpp";
  out.source = generateSource(*model, out.fileStem, flavor);
  out.header = generateHeader(*model, out.fileStem, flavor);
  out.planJson = generatePlanJson(*model, flavor);
  return success();
}

LogicalResult mlir::ckpt::exportModuleToCpp(ModuleOp module,
                                            const EmitCppOptions &options,
                                            SmallVectorImpl<EmittedStep> &out) {
  bool ok = true;
  llvm::StringMap<func::FuncOp> stems;
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    EmittedStep step;
    if (failed(exportStepToCpp(func, options, step))) {
      ok = false;
      continue;
    }
    auto [it, inserted] = stems.try_emplace(step.fileStem, func);
    if (!inserted) {
      func.emitError() << "cannot generate code for @" << func.getSymName()
                       << ": its files would be named like those of @"
                       << it->second.getSymName() << " ('" << step.fileStem
                       << step.sourceSuffix << "')";
      ok = false;
      continue;
    }
    out.push_back(std::move(step));
  }
  if (ok && out.empty())
    return module.emitError()
           << "cannot generate code: the module has no function with a body";
  return success(ok);
}

llvm::Error mlir::ckpt::writeEmittedSteps(ArrayRef<EmittedStep> steps,
                                          StringRef dir) {
  namespace fs = llvm::sys::fs;
  auto error = [&](const Twine &what, std::error_code ec) {
    return llvm::createStringError(ec, "cannot write the generated code to '" +
                                           dir + "': " + what +
                                           ec.message());
  };
  llvm::StringSet<> stems;
  for (const EmittedStep &step : steps)
    if (!stems.insert(step.fileStem).second)
      return llvm::createStringError(
          std::make_error_code(std::errc::file_exists),
          "cannot write the generated code to '" + dir +
              "': two steps would be written to '" + step.fileStem +
              step.sourceSuffix + "' (@" + step.name + ")");
  // The directories this call creates (`dir` and missing parents, deepest
  // first), removed again if writing fails: a failure leaves nothing behind.
  std::vector<std::string> created;
  for (std::string path = dir.str(); !path.empty() && !fs::exists(path);
       path = llvm::sys::path::parent_path(path).str())
    created.push_back(path);
  auto removeCreated = [&] {
    for (const std::string &path : created)
      fs::remove(path); // only removes an empty directory
  };
  if (std::error_code ec = fs::create_directories(dir)) {
    removeCreated();
    return error("", ec);
  }
  if (!fs::is_directory(dir))
    return error("", std::make_error_code(std::errc::not_a_directory));
  // A fresh directory inside `dir`: renames from it stay on one file system.
  // (createUniqueDirectory puts relative names under the system's temporary
  // directory, hence the absolute path.)
  SmallString<128> prefix(dir);
  if (std::error_code ec = fs::make_absolute(prefix)) {
    removeCreated();
    return error("", ec);
  }
  llvm::sys::path::append(prefix, ".ckpt-emit-tmp");
  SmallString<128> temp;
  if (std::error_code ec = fs::createUniqueDirectory(prefix, temp)) {
    removeCreated();
    return error("", ec);
  }
  std::vector<std::pair<std::string, std::string>> written;
  auto cleanUp = [&] {
    for (auto &[from, to] : written)
      fs::remove(from);
    fs::remove(temp);
    removeCreated();
  };
  for (const EmittedStep &step : steps) {
    for (auto [suffix, contents] :
         {std::make_pair(step.sourceSuffix.c_str(), &step.source),
          std::make_pair(".h", &step.header),
          std::make_pair(".plan.json", &step.planJson)}) {
      std::string name = step.fileStem + suffix;
      SmallString<128> from(temp), to(dir);
      llvm::sys::path::append(from, name);
      llvm::sys::path::append(to, name);
      std::error_code ec;
      llvm::raw_fd_ostream os(from, ec);
      if (!ec) {
        written.emplace_back(from.str().str(), to.str().str());
        os << *contents;
        os.close();
        ec = os.error();
        if (ec)
          os.clear_error();
      }
      if (ec) {
        cleanUp();
        return error(name + ": ", ec);
      }
    }
  }
  for (auto &[from, to] : written)
    if (std::error_code ec = fs::rename(from, to)) {
      cleanUp();
      return error(llvm::sys::path::filename(to) + ": ", ec);
    }
  fs::remove(temp);
  return llvm::Error::success();
}
