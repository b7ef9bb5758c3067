//===- Compile.h - Finding, compiling and caching a generated step -*- C++ -*-===//
//
// The part of ckpt-run that turns `ckpt-opt --emit=cpp` output into a loaded
// shared object: which step, where the runtime headers are, the compiler
// call and the cache (docs/codegen.md, "ckpt-run").
//
//===----------------------------------------------------------------------===//
#ifndef CKPT_RUN_COMPILE_H
#define CKPT_RUN_COMPILE_H

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ckpt_run {

/// A failure reported as `ckpt-run: error: <message>`, exit status 1.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string dir;
  std::string step;
  std::string cxx;
  /// Where compiled steps are cached (--cache-dir); empty: the step's own
  /// directory.
  std::string cacheDir;
  std::string params;
  std::optional<uint64_t> initSeed;
  /// Random initial weights were asked for (--random-weights or
  /// --init-seed): without them or --params, ckpt-run refuses to run.
  bool randomWeights = false;
  std::string inputs;
  uint64_t seed = 0;
  int steps = 1;
  std::optional<double> lr;
  int threads = 0;
  std::string dump;
  std::string statsJson;
};

/// True if `path` exists.
bool fileExists(const std::string &path);
/// The whole file at `path`; throws Failure if it cannot be read.
std::string readFile(const std::string &path);
/// FNV-1a, 64 bits.
uint64_t fnv1a(const std::string &data, uint64_t hash = 0xcbf29ce484222325ULL);
/// The step's file stem: `--step`, or the one `*.plan.json` in `dir`.
std::string findStep(const Options &o);
/// Compiles `<dir>/<stem>.cpp` into a shared object unless one for the same
/// source, header, runtime headers and compiler command is cached (in
/// `cacheDir`, else in `dir`; the key leaves out the step directory's path,
/// so byte-identical steps in several directories share one entry); returns
/// its path. Throws Failure with the compiler's output if compiling fails.
std::string compileStep(const Options &o, const std::string &stem);

} // namespace ckpt_run

#endif // CKPT_RUN_COMPILE_H
