//===- ckpt-run-cuda.cpp - Run one generated CUDA step on the device ------===//
//
// The device twin of ckpt-run (docs/gpu.md). It is not built by CMake: it is
// compiled and linked together with ONE generated step (`ckpt-opt
// --emit=cuda -o DIR` writes DIR/<step>.cu) and the device runtime:
//
//   nvcc -std=c++17 -arch=sm_90 -Xcompiler=-fexceptions,-frtti
//     -Iruntime/include -Iruntime/cuda/include -IDIR
//     DIR/<step>.cu tools/ckpt-run-cuda/ckpt-run-cuda.cpp
//     libCkptRuntimeCuda.a libCkptRuntime.a -lcublasLt -lopenblas -lpthread
//
// (one command; docs/gpu.md has it ready to paste)
//
// `--describe` prints the linked program's facts without touching a GPU
// (what CI runs). Otherwise it binds parameters and inputs from bundles
// (TensorBundle.h; the loss-gradient seed is 1), runs warm-up and timed
// steps, and writes the results and the measurements (median step time,
// arena, scratch, peak bytes in use, device memory in use) as JSON.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Cuda/CudaSession.h"
#include "ckpt/Runtime/Program.h"
#include "ckpt/Runtime/TensorBundle.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <string>
#include <vector>

extern "C" const ckpt::rt::cuda::CudaStepProgram *ckpt_cuda_step_program();

using namespace ckpt::rt;
using namespace ckpt::rt::cuda;

namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  bool describe = false;
  std::string params, inputs, dump, statsJson;
  uint64_t seed = 0;
  int warmup = 1, steps = 5;
  bool tf32 = false;
  /// Time every copy of an offload plan with cudaEvents.
  bool timeCopies = false;
};

const char *kUsage =
    "usage: ckpt-run-cuda --describe\n"
    "       ckpt-run-cuda --params FILE.ckptb --inputs FILE.ckptb\n"
    "                     [--warmup N] [--steps N] [--seed N] [--tf32]\n"
    "                     [--time-copies]\n"
    "                     [--dump FILE.ckptb] [--stats-json FILE]\n";

int parseCount(const std::string &flag, const std::string &value, int least) {
  char *end = nullptr;
  long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end || v < least || v > 1000000)
    throw Failure(flag + ": expected an integer >= " + std::to_string(least) +
                  ", got '" + value + "'");
  return static_cast<int>(v);
}

Options parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--describe") {
      o.describe = true;
      continue;
    }
    if (arg == "--tf32") {
      o.tf32 = true;
      continue;
    }
    if (arg == "--time-copies") {
      o.timeCopies = true;
      continue;
    }
    if (i + 1 >= argc)
      throw Failure("unknown option or missing value: '" + arg + "'");
    std::string value = argv[++i];
    if (arg == "--params")
      o.params = value;
    else if (arg == "--inputs")
      o.inputs = value;
    else if (arg == "--dump")
      o.dump = value;
    else if (arg == "--stats-json")
      o.statsJson = value;
    else if (arg == "--seed")
      o.seed = static_cast<uint64_t>(parseCount(arg, value, 0));
    else if (arg == "--warmup")
      o.warmup = parseCount(arg, value, 0);
    else if (arg == "--steps")
      o.steps = parseCount(arg, value, 1);
    else
      throw Failure("unknown option '" + arg + "'");
  }
  if (!o.describe && (o.params.empty() || o.inputs.empty()))
    throw Failure("give --params and --inputs (or --describe)");
  return o;
}

uint64_t numel(const Binding &b) {
  uint64_t n = 1;
  for (int d = 0; d < b.rank; ++d)
    n *= static_cast<uint64_t>(b.shape[d]);
  return n;
}

const char *roleName(Role role) {
  switch (role) {
  case Role::Param: return "param";
  case Role::Input: return "input";
  case Role::Seed: return "seed";
  case Role::State: return "state";
  case Role::Loss: return "loss";
  case Role::Grad: return "grad";
  case Role::Output: return "output";
  }
  return "?";
}

void describe(const CudaStepProgram &p) {
  const StepProgram &s = p.step;
  std::printf("step @%s: %llu ops, %llu recomputed in %llu segments\n", s.name,
              (unsigned long long)s.numOps,
              (unsigned long long)s.numRecomputedOps,
              (unsigned long long)s.numSegments);
  std::printf("device arena %llu bytes, planned peak %llu bytes, alignment "
              "%llu\n",
              (unsigned long long)s.arenaSize,
              (unsigned long long)s.plannedPeakBytes,
              (unsigned long long)s.alignment);
  if (p.scratchOffset < 0)
    std::printf("device scratch %llu bytes outside the arena\n",
                (unsigned long long)kDeviceScratchBytes);
  else
    std::printf("device scratch %llu bytes at arena offset %lld\n",
                (unsigned long long)kDeviceScratchBytes,
                (long long)p.scratchOffset);
  if (s.numOffloads > 0)
    std::printf("host arena %llu bytes, planned host peak %llu bytes, %llu "
                "offloads\n",
                (unsigned long long)s.hostArenaSize,
                (unsigned long long)s.plannedHostPeakBytes,
                (unsigned long long)s.numOffloads);
  std::printf("run %s\n", p.run ? "present" : "missing");
  for (uint64_t i = 0; i < s.numArguments; ++i)
    std::printf("argument %llu: %s %s, %llu elements\n",
                (unsigned long long)i, roleName(s.arguments[i].role),
                s.arguments[i].name,
                (unsigned long long)numel(s.arguments[i]));
  for (uint64_t i = 0; i < s.numResults; ++i)
    std::printf("result %llu: %s %s, %llu elements\n", (unsigned long long)i,
                roleName(s.results[i].role), s.results[i].name,
                (unsigned long long)numel(s.results[i]));
}

void bindArguments(CudaSession &session, const Options &o) {
  const StepProgram &p = session.program().step;
  std::vector<NamedTensor> bundles[2] = {readTensorBundle(o.params),
                                         readTensorBundle(o.inputs)};
  std::map<std::string, const NamedTensor *> byName;
  for (auto &bundle : bundles)
    for (const NamedTensor &t : bundle)
      byName[t.name] = &t;
  for (uint64_t i = 0; i < p.numArguments; ++i) {
    const Binding &b = p.arguments[i];
    uint64_t bytes = bindingBytes(b);
    if (b.role == Role::Seed) {
      if (b.dtype != DType::F32)
        throw Failure(std::string("seed argument '") + b.name +
                      "' is not f32");
      std::vector<float> ones(numel(b), 1.0f);
      session.setArgument(i, ones.data(), bytes);
      continue;
    }
    auto it = byName.find(b.name);
    if (it == byName.end())
      throw Failure(std::string("no tensor '") + b.name +
                    "' in the parameter or input bundle");
    const NamedTensor &t = *it->second;
    if (t.dtype != b.dtype || t.data.size() != bytes)
      throw Failure(std::string("tensor '") + b.name +
                    "' has the wrong dtype or size for the step");
    session.setArgument(i, t.data.data(), bytes);
  }
}

void dumpResults(CudaSession &session, const std::string &path) {
  const StepProgram &p = session.program().step;
  std::vector<NamedTensor> out;
  for (uint64_t i = 0; i < p.numResults; ++i) {
    const Binding &b = p.results[i];
    NamedTensor t;
    t.name = b.name;
    t.dtype = b.dtype;
    t.shape.assign(b.shape, b.shape + b.rank);
    t.data.resize(bindingBytes(b));
    session.readResult(i, t.data.data(), t.data.size());
    out.push_back(std::move(t));
  }
  writeTensorBundle(path, out);
}

double medianOf(std::vector<double> values) {
  if (values.empty())
    return 0.0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

void writeStats(const CudaSession &session, const std::vector<double> &times,
                const std::string &path) {
  const CudaStats &s = session.stats();
  const StepProgram &p = session.program().step;
  double median = medianOf(times);
  std::ofstream os(path);
  if (!os)
    throw Failure("cannot write '" + path + "'");
  char number[64];
  auto num = [&](double v) {
    std::snprintf(number, sizeof number, "%.9g", v);
    return std::string(number);
  };
  os << "{\n  \"function\": \"" << p.name << "\",\n"
     << "  \"plan\": {\"arena_bytes\": " << p.arenaSize
     << ", \"planned_peak_bytes\": " << p.plannedPeakBytes
     << ", \"recomputed_ops\": " << p.numRecomputedOps
     << ", \"host_arena_bytes\": " << p.hostArenaSize
     << ", \"planned_host_peak_bytes\": " << p.plannedHostPeakBytes
     << ", \"offloads\": " << p.numOffloads << "},\n"
     << "  \"runtime\": {\"arena_bytes\": " << s.arenaBytes
     << ", \"scratch_bytes\": " << s.scratchBytes
     << ", \"bound_buffer_bytes\": " << s.boundBufferBytes
     << ", \"peak_bytes_in_use\": " << s.peakBytesInUse
     << ", \"device_bytes_used\": " << s.deviceBytesUsed
     << ", \"device_bytes_baseline\": " << s.deviceBytesBaseline
     << ", \"ops_run\": " << s.opsRun
     << ", \"recomputed_ops\": " << s.recomputedOps
     << ", \"host_arena_bytes\": " << s.hostArenaBytes
     << ", \"host_peak_bytes_in_use\": " << s.hostPeakBytesInUse
     << ", \"offloads\": " << s.offloads << ", \"prefetches\": " << s.prefetches
     << ", \"bytes_to_host\": " << s.bytesToHost
     << ", \"bytes_to_device\": " << s.bytesToDevice
     << ", \"to_host_seconds\": " << num(s.toHostSeconds)
     << ", \"to_device_seconds\": " << num(s.toDeviceSeconds)
     << ", \"median_step_seconds\": " << num(median)
     << ",\n              \"step_seconds\": [";
  for (size_t i = 0; i < times.size(); ++i)
    os << (i ? ", " : "") << num(times[i]);
  os << "]}\n}\n";
}

} // namespace

int main(int argc, char **argv) {
  try {
    if (argc == 1) {
      std::fputs(kUsage, stderr);
      return 2;
    }
    Options o = parseOptions(argc, argv);
    const CudaStepProgram *program = ckpt_cuda_step_program();
    if (o.describe) {
      describe(*program);
      return 0;
    }
    CudaSessionOptions options;
    options.seed = o.seed;
    options.allowTf32 = o.tf32;
    options.timeCopies = o.timeCopies;
    CudaSession session(*program, options);
    bindArguments(session, o);
    for (int i = 0; i < o.warmup; ++i)
      session.run();
    std::vector<double> times;
    for (int i = 0; i < o.steps; ++i) {
      session.run();
      times.push_back(session.stats().stepSeconds);
    }
    if (!o.dump.empty())
      dumpResults(session, o.dump);
    if (!o.statsJson.empty())
      writeStats(session, times, o.statsJson);
    std::printf("step @%s: median %.6f s over %d steps, peak in use %llu "
                "bytes, device used %llu bytes\n",
                program->step.name,
                medianOf(times), o.steps,
                (unsigned long long)session.stats().peakBytesInUse,
                (unsigned long long)session.stats().deviceBytesUsed);
    const CudaStats &last = session.stats();
    if (last.offloads > 0)
      std::printf("copies of the last step: %llu offloads (%llu bytes), %llu "
                  "prefetches (%llu bytes), host peak in use %llu bytes\n",
                  (unsigned long long)last.offloads,
                  (unsigned long long)last.bytesToHost,
                  (unsigned long long)last.prefetches,
                  (unsigned long long)last.bytesToDevice,
                  (unsigned long long)last.hostPeakBytesInUse);
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ckpt-run-cuda: %s\n", e.what());
    return 1;
  }
}
