//===- Compile.cpp - Finding, compiling and caching a generated step ------===//

#include "Compile.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace ckpt_run;

#ifndef CKPT_RUNTIME_SOURCE_INCLUDE_DIR
#define CKPT_RUNTIME_SOURCE_INCLUDE_DIR ""
#endif

bool ckpt_run::fileExists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string ckpt_run::readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Failure("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// FNV-1a, 64 bits: the cache key of a compiled step.
uint64_t ckpt_run::fnv1a(const std::string &data, uint64_t hash) {
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

static std::string hex(uint64_t v) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx",
                static_cast<unsigned long long>(v));
  return buffer;
}

/// The step's file stem: `--step`, or the one `*.plan.json` in `dir`.
std::string ckpt_run::findStep(const Options &o) {
  if (!o.step.empty()) {
    if (!fileExists(o.dir + "/" + o.step + ".cpp"))
      throw Failure("no generated step '" + o.step + "' in '" + o.dir +
                    "' (expected " + o.step + ".cpp)");
    return o.step;
  }
  DIR *d = ::opendir(o.dir.c_str());
  if (!d)
    throw Failure("cannot open directory '" + o.dir +
                  "': " + std::strerror(errno));
  std::vector<std::string> stems;
  const std::string suffix = ".plan.json";
  while (dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > suffix.size() && name[0] != '.' &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      stems.push_back(name.substr(0, name.size() - suffix.size()));
  }
  ::closedir(d);
  std::sort(stems.begin(), stems.end());
  if (stems.empty())
    throw Failure("no generated step in '" + o.dir +
                  "' (no *.plan.json; run ckpt-opt --emit=cpp -o " + o.dir +
                  ")");
  if (stems.size() > 1) {
    std::string all;
    for (const std::string &s : stems)
      all += " " + s;
    throw Failure("'" + o.dir + "' holds several steps (" + all.substr(1) +
                  "): choose one with --step");
  }
  return stems[0];
}

/// The runtime headers: next to the executable in an install tree
/// (`<prefix>/bin/ckpt-run`, `<prefix>/include`), else the source tree the
/// build was configured from.
static std::string runtimeIncludeDir() {
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    std::string exe(self);
    std::string bin = exe.substr(0, exe.rfind('/'));
    std::string installed = bin.substr(0, bin.rfind('/')) + "/include";
    if (fileExists(installed + "/ckpt/Runtime/Program.h"))
      return installed;
  }
  std::string source = CKPT_RUNTIME_SOURCE_INCLUDE_DIR;
  if (!source.empty() && fileExists(source + "/ckpt/Runtime/Program.h"))
    return source;
  throw Failure("cannot find the runtime headers (ckpt/Runtime/Program.h) "
                "next to this executable or in '" +
                source + "'");
}

/// Runs `argv`, returning its exit status; `output` gets stdout and stderr.
static int runCommand(const std::vector<std::string> &argv, std::string &output) {
  int fds[2];
  if (::pipe(fds) != 0)
    throw Failure(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0)
    throw Failure(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run '%s': %s\n", args[0],
                 std::strerror(errno));
    ::_exit(127);
  }
  ::close(fds[1]);
  char buffer[4096];
  ssize_t got;
  while ((got = ::read(fds[0], buffer, sizeof buffer)) > 0 ||
         (got < 0 && errno == EINTR))
    if (got > 0)
      output.append(buffer, static_cast<size_t>(got));
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Creates `path` and its missing parents (as `mkdir -p`); throws Failure
/// naming `path` if one cannot be created.
static void makeDirectories(const std::string &path) {
  for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    std::string prefix = path.substr(0, end);
    struct stat st;
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      throw Failure("cannot create the cache directory '" + path +
                    "': " + std::strerror(errno));
    if (::stat(prefix.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw Failure("cannot create the cache directory '" + path +
                    "': " + std::strerror(ENOTDIR));
    if (end == std::string::npos)
      return;
  }
}

/// Compiles `<dir>/<stem>.cpp` unless a shared object for the same source,
/// runtime headers and command is cached in `dir`; returns its path.
std::string ckpt_run::compileStep(const Options &o, const std::string &stem) {
  std::string include = runtimeIncludeDir();
  std::string cxx = o.cxx;
  if (cxx.empty())
    cxx = std::getenv("CXX") && *std::getenv("CXX") ? std::getenv("CXX")
                                                      : "c++";
  std::string source = o.dir + "/" + stem + ".cpp";
  // -O0: a step is glue (tensors at fixed offsets and one call per op); the
  // kernels are the runtime's, compiled with the project's flags. On the
  // Llama e2e step (4,978 lines) g++ takes 0.9 s at -O0 and 6.0 s at -O2,
  // and 300 steps run 0.03 s slower in total (docs/codegen.md).
  std::vector<std::string> flags = {"-O0",   "-fPIC",   "-shared",
                                    "-std=c++17", "-Wall", "-Wextra",
                                    "-Werror", "-I" + include};
  // The key: everything the object depends on -- the step's source and
  // header, the runtime headers, the compiler and its flags -- but not the
  // step directory's path (only its two files are read from there).
  std::string key = readFile(source) + readFile(o.dir + "/" + stem + ".h");
  for (const char *h : {"Program.h", "Tensor.h", "Kernels.h"})
    key += readFile(include + "/ckpt/Runtime/" + h);
  key += cxx;
  for (const std::string &f : flags)
    key += "\n" + f;
  std::string cacheDir = o.cacheDir.empty() ? o.dir : o.cacheDir;
  if (!o.cacheDir.empty())
    makeDirectories(cacheDir);
  std::string object =
      cacheDir + "/." + stem + "-" + hex(fnv1a(key)) + ".so";
  if (fileExists(object))
    return object;
  std::string temp = object + ".tmp." + std::to_string(::getpid());
  std::vector<std::string> argv = {cxx};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-I" + o.dir, source, "-o", temp});
  std::string output;
  int status = runCommand(argv, output);
  if (status != 0) {
    ::unlink(temp.c_str());
    std::string command;
    for (const std::string &a : argv)
      command += (command.empty() ? "" : " ") + a;
    throw Failure("compiling the step failed (exit status " +
                  std::to_string(status) + "):\n  " + command + "\n" + output);
  }
  if (::rename(temp.c_str(), object.c_str()) != 0) {
    ::unlink(temp.c_str());
    throw Failure("cannot write '" + object + "': " + std::strerror(errno));
  }
  return object;
}
