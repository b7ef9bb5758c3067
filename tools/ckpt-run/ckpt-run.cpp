//===- ckpt-run.cpp - Compile and run a generated training step -----------===//
//
// Takes the directory `ckpt-opt --emit=cpp -o DIR` wrote, compiles the step
// into a shared object (cached next to it, keyed by a hash of the source, the
// runtime headers and the compiler command), loads it, binds parameters,
// inputs and the loss seed, runs training steps (optionally with host SGD in
// between) and reports the runtime's own measurements next to the plan's
// numbers (docs/codegen.md). Links the host runtime only, never MLIR: the
// loaded step resolves the runtime's symbols from this executable.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "ckpt/Runtime/Program.h"
#include "ckpt/Runtime/Session.h"
#include "ckpt/Runtime/TensorBundle.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ckpt::rt;
using namespace ckpt_run;

namespace {

const char *const kUsage =
    "usage: ckpt-run <dir> [--step NAME] [--cxx COMPILER] [--cache-dir DIR]\n"
    "                (--params FILE.ckptb | --random-weights | --init-seed "
    "N)\n"
    "                [--inputs FILE.ckptb]\n"
    "                [--seed N] [--steps N] [--lr F] [--threads N]\n"
    "                [--dump FILE.ckptb] [--stats-json FILE]\n"
    "       ckpt-run --help | --version\n"
    "\n"
    "Compiles the training step that `ckpt-opt --emit=cpp -o <dir>` "
    "generated,\nruns it and prints the loss, the gradient norm and the "
    "runtime's measurements\nnext to the plan's (docs/codegen.md).\n";

uint64_t parseUnsigned(const std::string &flag, const std::string &text) {
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || text[0] == '-')
    throw Failure(flag + " expects a non-negative integer, got '" + text + "'");
  return v;
}

Options parseOptions(int argc, char **argv) {
  Options o;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (arg == "--version") {
      std::cout << "ckpt-run " CKPT_OPT_VERSION "\n";
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0) {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--random-weights") {
      o.randomWeights = true;
      continue;
    }
    std::string value;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else {
      if (i + 1 >= argc)
        throw Failure(arg + " expects a value");
      value = argv[++i];
    }
    if (arg == "--step")
      o.step = value;
    else if (arg == "--cxx")
      o.cxx = value;
    else if (arg == "--cache-dir")
      o.cacheDir = value;
    else if (arg == "--params")
      o.params = value;
    else if (arg == "--init-seed") {
      o.initSeed = parseUnsigned(arg, value);
      o.randomWeights = true;
    }
    else if (arg == "--inputs")
      o.inputs = value;
    else if (arg == "--seed")
      o.seed = parseUnsigned(arg, value);
    else if (arg == "--steps")
      o.steps = static_cast<int>(parseUnsigned(arg, value));
    else if (arg == "--threads")
      o.threads = static_cast<int>(parseUnsigned(arg, value));
    else if (arg == "--lr") {
      char *end = nullptr;
      double lr = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || !std::isfinite(lr))
        throw Failure("--lr expects a number, got '" + value + "'");
      o.lr = lr;
    } else if (arg == "--dump")
      o.dump = value;
    else if (arg == "--stats-json")
      o.statsJson = value;
    else
      throw Failure("unknown option '" + arg + "' (see --help)");
  }
  if (positional.size() != 1)
    throw Failure("expects exactly one directory (see --help)");
  o.dir = positional[0];
  if (!o.params.empty() && o.randomWeights)
    throw Failure(std::string("--params and ") +
                  (o.initSeed ? "--init-seed" : "--random-weights") +
                  " exclude each other");
  if (o.steps < 1)
    throw Failure("--steps must be at least 1");
  return o;
}

/// True if `json` is one complete JSON object: brackets balance outside
/// strings and nothing follows the closing brace. A plan file cut short
/// (a full disk, an interrupted copy) fails this.
bool isCompleteObject(const std::string &json) {
  size_t begin = json.find_first_not_of(" \t\r\n");
  size_t end = json.find_last_not_of(" \t\r\n");
  if (begin == std::string::npos || json[begin] != '{' || json[end] != '}')
    return false;
  int64_t depth = 0;
  for (size_t i = begin; i <= end; ++i) {
    char c = json[i];
    if (c == '"') {
      for (++i; i <= end && json[i] != '"'; ++i)
        if (json[i] == '\\')
          ++i;
      if (i > end)
        return false;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth < 0)
        return false;
      if (depth == 0 && i != end)
        return false;
    }
  }
  return depth == 0;
}

/// The value of the first `"key": <integer>` in `json` (our own plan file,
/// whose keys are unique where this is used), or -1.
int64_t jsonInteger(const std::string &json, const std::string &key) {
  size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos)
    return -1;
  return std::strtoll(json.c_str() + at + key.size() + 3, nullptr, 10);
}

//===----------------------------------------------------------------------===//
// Binding parameters and inputs
//===----------------------------------------------------------------------===//

std::string describe(DType dtype, const int64_t *shape, int rank) {
  std::string s = std::string(dtypeName(dtype)) + "[";
  for (int i = 0; i < rank; ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

uint64_t numel(const Binding &b) {
  uint64_t n = 1;
  for (int i = 0; i < b.rank; ++i)
    n *= static_cast<uint64_t>(b.shape[i]);
  return n;
}

uint64_t bytesOf(const Binding &b) { return numel(b) * elementBytes(b.dtype); }

/// Copies the bundle tensor named like argument `index` into the session,
/// checking its dtype and shape.
void bindFromBundle(Session &session, uint64_t index,
                    const std::map<std::string, NamedTensor *> &bundle,
                    const std::string &file, const char *what) {
  const Binding &b = session.program().arguments[index];
  auto it = bundle.find(b.name);
  if (it == bundle.end())
    throw Failure(std::string(what) + " '" + b.name + "' (" +
                  describe(b.dtype, b.shape, b.rank) + ") is not in '" + file +
                  "'");
  const NamedTensor &t = *it->second;
  bool same = t.dtype == b.dtype && static_cast<int>(t.shape.size()) == b.rank;
  for (int i = 0; same && i < b.rank; ++i)
    same = t.shape[i] == b.shape[i];
  if (!same)
    throw Failure(std::string(what) + " '" + b.name + "' is " +
                  describe(b.dtype, b.shape, b.rank) + " but '" + file +
                  "' holds " +
                  describe(t.dtype, t.shape.data(),
                           static_cast<int>(t.shape.size())));
  session.setArgument(index, t.data.data(), t.data.size());
}

/// SplitMix64: the generator of `--init-seed`.
uint64_t splitMix(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Deterministic initial value of a parameter (docs/codegen.md): rank >= 2
/// uniform in [-a, a), a = 1/sqrt(fan_in) with fan_in the product of all but
/// the first dimension, from SplitMix64 seeded by the seed and the name;
/// rank <= 1: 0 if the name's last component contains "bias", else 1.
std::vector<float> initialValue(const Binding &b, uint64_t seed) {
  std::vector<float> values(numel(b), 0.0f);
  if (b.rank <= 1) {
    std::string name = b.name;
    std::string last = name.substr(name.rfind('.') + 1);
    float v = last.find("bias") != std::string::npos ? 0.0f : 1.0f;
    std::fill(values.begin(), values.end(), v);
    return values;
  }
  double fanIn = static_cast<double>(values.size()) /
                 static_cast<double>(std::max<int64_t>(b.shape[0], 1));
  double a = 1.0 / std::sqrt(std::max(fanIn, 1.0));
  uint64_t state = fnv1a(b.name) ^ (seed * 0xd1b54a32d192ed03ULL);
  for (float &v : values) {
    double u = static_cast<double>(splitMix(state) >> 11) * 0x1.0p-53;
    v = static_cast<float>((2.0 * u - 1.0) * a);
  }
  return values;
}

void bindArguments(Session &session, const Options &o) {
  const StepProgram &p = session.program();
  std::vector<NamedTensor> params, inputs;
  std::map<std::string, NamedTensor *> paramsByName, inputsByName;
  if (!o.params.empty())
    params = readTensorBundle(o.params);
  if (!o.inputs.empty())
    inputs = readTensorBundle(o.inputs);
  for (NamedTensor &t : params)
    paramsByName[t.name] = &t;
  for (NamedTensor &t : inputs)
    inputsByName[t.name] = &t;
  uint64_t initSeed = o.initSeed.value_or(0);
  for (uint64_t i = 0; i < p.numArguments; ++i) {
    const Binding &b = p.arguments[i];
    switch (b.role) {
    case Role::Param:
      if (o.params.empty() && !o.randomWeights)
        throw Failure("no weights for parameter '" + std::string(b.name) +
                      "': give --params FILE.ckptb (the exporter's "
                      "params.ckptb), or --random-weights (or --init-seed N) "
                      "to train from random initial weights");
      if (!o.params.empty()) {
        bindFromBundle(session, i, paramsByName, o.params, "parameter");
      } else if (b.dtype == DType::F32) {
        std::vector<float> v = initialValue(b, initSeed);
        session.setArgument(i, v.data(), v.size() * sizeof(float));
      } else {
        std::vector<uint8_t> zeros(bytesOf(b), 0);
        session.setArgument(i, zeros.data(), zeros.size());
      }
      break;
    case Role::Seed: {
      // The loss-gradient seed: d(loss)/d(loss) = 1.
      if (b.dtype != DType::F32)
        throw Failure(std::string("seed argument '") + b.name +
                      "' is not f32");
      std::vector<float> ones(numel(b), 1.0f);
      session.setArgument(i, ones.data(), ones.size() * sizeof(float));
      break;
    }
    default:
      if (o.inputs.empty())
        throw Failure(std::string("the step needs input '") + b.name + "' (" +
                      describe(b.dtype, b.shape, b.rank) +
                      "): give --inputs FILE.ckptb");
      bindFromBundle(session, i, inputsByName, o.inputs, "input");
    }
  }
}

//===----------------------------------------------------------------------===//
// Steps and reports
//===----------------------------------------------------------------------===//

/// The first f32 scalar loss result's value, or NaN.
double lossOf(Session &session) {
  const StepProgram &p = session.program();
  for (uint64_t i = 0; i < p.numResults; ++i)
    if (p.results[i].role == Role::Loss && p.results[i].dtype == DType::F32 &&
        numel(p.results[i]) == 1)
      return *static_cast<const float *>(session.result(i));
  return std::nan("");
}

/// sqrt of the sum of squares of every f32 gradient result, in order.
double gradNorm(Session &session) {
  const StepProgram &p = session.program();
  double sum = 0;
  for (uint64_t i = 0; i < p.numResults; ++i) {
    const Binding &b = p.results[i];
    if (b.role != Role::Grad || b.dtype != DType::F32)
      continue;
    const float *g = static_cast<const float *>(session.result(i));
    for (uint64_t k = 0, n = numel(b); k < n; ++k)
      sum += static_cast<double>(g[k]) * g[k];
  }
  return std::sqrt(sum);
}

/// p -= lr * grad for every f32 gradient result with its parameter.
void sgdUpdate(Session &session, double lr) {
  const StepProgram &p = session.program();
  float rate = static_cast<float>(lr);
  for (uint64_t i = 0; i < p.numResults; ++i) {
    const Binding &b = p.results[i];
    if (b.role != Role::Grad || b.gradOf < 0 || b.dtype != DType::F32)
      continue;
    const float *g = static_cast<const float *>(session.result(i));
    float *w = static_cast<float *>(session.argumentData(b.gradOf));
    for (uint64_t k = 0, n = numel(b); k < n; ++k)
      w[k] -= rate * g[k];
  }
}

void dumpResults(Session &session, const std::string &path) {
  const StepProgram &p = session.program();
  std::vector<NamedTensor> out;
  auto add = [&](const std::string &name, const Binding &b, const void *data) {
    NamedTensor t;
    t.name = name;
    t.dtype = b.dtype;
    t.shape.assign(b.shape, b.shape + b.rank);
    const uint8_t *bytes = static_cast<const uint8_t *>(data);
    t.data.assign(bytes, bytes + bytesOf(b));
    out.push_back(std::move(t));
  };
  for (uint64_t i = 0; i < p.numResults; ++i)
    add(p.results[i].name, p.results[i], session.result(i));
  for (uint64_t i = 0; i < p.numArguments; ++i)
    if (p.arguments[i].role == Role::Param)
      add(std::string("param:") + p.arguments[i].name, p.arguments[i],
          session.argumentData(i));
  writeTensorBundle(path, out);
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else
      out += c;
  }
  return out + "\"";
}

/// The plan's figures: from the program, and the kernel-call count from
/// `<stem>.plan.json`.
struct PlanNumbers {
  uint64_t arenaBytes, plannedPeakBytes, alignment, ops, recomputedOps,
      segments;
  int64_t kernelCalls;
  /// The host arena of offloaded values (0 without copies).
  uint64_t hostArenaBytes, plannedHostPeakBytes, offloads;
};

void writeStatsJson(const std::string &path, const StepProgram &p,
                    const PlanNumbers &plan, const Stats &s, int steps,
                    const std::vector<double> &losses,
                    const std::vector<double> &norms) {
  std::ostringstream os;
  auto list = [](const std::vector<double> &v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i)
      out += (i ? ", " : "") + jsonNumber(v[i]);
    return out + "]";
  };
  os << "{\n  \"step\": " << jsonString(p.name) << ",\n  \"steps\": " << steps
     << ",\n  \"runtime\": {\n"
     << "    \"arena_bytes\": " << s.arenaBytes << ",\n"
     << "    \"peak_bytes_in_use\": " << s.peakBytesInUse << ",\n"
     << "    \"high_water_bytes\": " << s.highWaterBytes << ",\n"
     << "    \"ops_run\": " << s.opsRun << ",\n"
     << "    \"recomputed_ops\": " << s.recomputedOps << ",\n"
     << "    \"segments_run\": " << s.segmentsRun << ",\n"
     << "    \"forward_seconds\": " << jsonNumber(s.forwardSeconds) << ",\n"
     << "    \"recompute_seconds\": " << jsonNumber(s.recomputeSeconds) << ",\n"
     << "    \"backward_seconds\": " << jsonNumber(s.backwardSeconds) << ",\n"
     << "    \"optimizer_seconds\": " << jsonNumber(s.optimizerSeconds) << ",\n"
     << "    \"host_arena_bytes\": " << s.hostArenaBytes << ",\n"
     << "    \"host_peak_bytes_in_use\": " << s.hostPeakBytesInUse << ",\n"
     << "    \"offloads\": " << s.offloads << ",\n"
     << "    \"prefetches\": " << s.prefetches << ",\n"
     << "    \"bytes_to_host\": " << s.bytesToHost << ",\n"
     << "    \"bytes_to_device\": " << s.bytesToDevice << ",\n"
     << "    \"copy_seconds\": " << jsonNumber(s.copySeconds) << ",\n"
     << "    \"losses\": " << list(losses) << ",\n"
     << "    \"grad_norms\": " << list(norms) << "\n  },\n"
     << "  \"plan\": {\n"
     << "    \"arena_bytes\": " << plan.arenaBytes << ",\n"
     << "    \"planned_peak_bytes\": " << plan.plannedPeakBytes << ",\n"
     << "    \"alignment\": " << plan.alignment << ",\n"
     << "    \"ops\": " << plan.ops << ",\n"
     << "    \"kernel_calls\": " << plan.kernelCalls << ",\n"
     << "    \"recomputed_ops\": " << plan.recomputedOps << ",\n"
     << "    \"segments\": " << plan.segments << ",\n"
     << "    \"host_arena_bytes\": " << plan.hostArenaBytes << ",\n"
     << "    \"planned_host_peak_bytes\": " << plan.plannedHostPeakBytes
     << ",\n"
     << "    \"offloads\": " << plan.offloads << "\n  }\n}\n";
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary);
    out << os.str();
    if (!out.flush()) {
      ::unlink(temp.c_str());
      throw Failure("cannot write '" + path + "'");
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    throw Failure("cannot write '" + path + "': " + std::strerror(errno));
  }
}

void printStats(const PlanNumbers &plan, const Stats &s) {
  auto row = [](const char *what, const std::string &runtime,
                const std::string &planned) {
    std::printf("  %-22s %16s %16s\n", what, runtime.c_str(), planned.c_str());
  };
  auto n = [](uint64_t v) { return std::to_string(v); };
  auto sec = [](double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6f s", v);
    return std::string(buffer);
  };
  std::printf("stats of the last step:\n");
  row("", "runtime", "plan");
  row("arena bytes", n(s.arenaBytes), n(plan.arenaBytes));
  row("peak bytes in use", n(s.peakBytesInUse), n(plan.plannedPeakBytes));
  row("high water bytes", n(s.highWaterBytes), "-");
  row("kernel calls", n(s.opsRun),
      plan.kernelCalls >= 0 ? std::to_string(plan.kernelCalls) : "?");
  row("recomputed ops", n(s.recomputedOps), n(plan.recomputedOps));
  row("recompute segments", n(s.segmentsRun), n(plan.segments));
  row("forward time", sec(s.forwardSeconds), "-");
  row("recompute time", sec(s.recomputeSeconds), "-");
  row("backward time", sec(s.backwardSeconds), "-");
  row("optimizer time", sec(s.optimizerSeconds), "-");
  if (plan.offloads == 0 && s.offloads == 0)
    return;
  row("host arena bytes", n(s.hostArenaBytes), n(plan.hostArenaBytes));
  row("host peak bytes in use", n(s.hostPeakBytesInUse),
      n(plan.plannedHostPeakBytes));
  row("offloads", n(s.offloads), n(plan.offloads));
  row("prefetches", n(s.prefetches), "-");
  row("bytes to host", n(s.bytesToHost), "-");
  row("bytes to device", n(s.bytesToDevice), "-");
  row("copy time", sec(s.copySeconds), "-");
}

int runTool(const Options &o) {
  std::string stem = findStep(o);
  std::string object = compileStep(o, stem);
  void *handle = ::dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw Failure("cannot load '" + object + "': " + ::dlerror());
  using EntryFn = const StepProgram *(*)();
  auto entry = reinterpret_cast<EntryFn>(::dlsym(handle, "ckpt_step_program"));
  if (!entry)
    throw Failure("'" + object + "' has no ckpt_step_program()");
  const StepProgram *program = entry();
  if (!program)
    throw Failure("ckpt_step_program() returned no program");
  std::string planPath = o.dir + "/" + stem + ".plan.json";
  std::string planText = readFile(planPath);
  if (!isCompleteObject(planText))
    throw Failure("the plan file '" + planPath +
                  "' is truncated or not one JSON object: write the step "
                  "again with ckpt-opt --emit=cpp");
  if (jsonInteger(planText, "kernel_calls") < 0)
    throw Failure("the plan file '" + planPath +
                  "' has no \"kernel_calls\": it is not a plan ckpt-opt "
                  "--emit=cpp wrote");
  PlanNumbers plan{program->arenaSize,
                   program->plannedPeakBytes,
                   program->alignment,
                   program->numOps,
                   program->numRecomputedOps,
                   program->numSegments,
                   jsonInteger(planText, "kernel_calls"),
                   program->hostArenaSize,
                   program->plannedHostPeakBytes,
                   program->numOffloads};

  SessionOptions options;
  options.seed = o.seed;
  options.threads = o.threads;
  Session session(*program, options);
  bindArguments(session, o);
  std::printf("step @%s: %llu ops, arena %llu bytes, planned peak %llu "
              "bytes, %llu recomputed ops in %llu segments\n",
              program->name, static_cast<unsigned long long>(program->numOps),
              static_cast<unsigned long long>(program->arenaSize),
              static_cast<unsigned long long>(program->plannedPeakBytes),
              static_cast<unsigned long long>(program->numRecomputedOps),
              static_cast<unsigned long long>(program->numSegments));
  std::vector<double> losses, norms;
  for (int step = 0; step < o.steps; ++step) {
    session.run();
    losses.push_back(lossOf(session));
    norms.push_back(gradNorm(session));
    std::printf("step %d: loss %.9g grad-norm %.9g\n", step, losses.back(),
                norms.back());
    std::fflush(stdout);
    if (o.lr)
      sgdUpdate(session, *o.lr);
  }
  const Stats &stats = session.stats();
  printStats(plan, stats);
  if (!o.dump.empty())
    dumpResults(session, o.dump);
  if (!o.statsJson.empty())
    writeStatsJson(o.statsJson, *program, plan, stats, o.steps, losses, norms);
  // The program lives in the shared object: keep it loaded until exit.
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return runTool(parseOptions(argc, argv));
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "ckpt-run: error: %s\n", e.what());
    return 1;
  }
}
