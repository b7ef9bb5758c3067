//===- DeviceWorkspaceOption.h - device-workspace=, parsed once -*- C++ -*-===//
//
// `device-workspace=` of the pipeline and `size=` of
// `ckpt-reserve-device-workspace` hold a `DeviceWorkspaceOption`: none, the
// CUDA runtime's scratch block (`cuda`) or bytes, parsed when the option is
// set (a bad value is an option error naming the option), so no pass parses
// the text.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_DIALECT_CKPT_TRANSFORMS_DEVICEWORKSPACEOPTION_H
#define CKPT_DIALECT_CKPT_TRANSFORMS_DEVICEWORKSPACEOPTION_H

#include "ckpt/Analysis/TypedOption.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::ckpt {

/// The value of a `device-workspace=` / `size=` option: none (empty text),
/// `cuda` or bytes with a unit (`64MiB`; a bare number is bytes), as given
/// and as parsed.
class DeviceWorkspaceOption : public TextOptionValue<DeviceWorkspaceOption> {
public:
  /// What the option holds.
  enum class Kind {
    /// No device workspace given (empty text), or an invalid one.
    None,
    /// The CUDA runtime's scratch block (`kCudaDeviceScratchBytes`).
    Cuda,
    /// A number of bytes (0 removes a reservation).
    Bytes,
  };

  /// No device workspace.
  DeviceWorkspaceOption() = default;
  /// Parses `text`; an invalid text keeps the reason in `getError()`.
  DeviceWorkspaceOption(std::string text);
  DeviceWorkspaceOption(const char *text)
      : DeviceWorkspaceOption(std::string(text)) {}

  /// What the option holds (None when empty or invalid).
  Kind getKind() const { return kind; }
  /// The bytes to reserve (`cuda`: the CUDA runtime's scratch block); none
  /// when empty or invalid.
  std::optional<int64_t> getBytes() const;

  /// The value name --help shows after the option.
  static llvm::StringRef valueName() { return "cuda|bytes"; }

private:
  Kind kind = Kind::None;
  int64_t bytes = 0;
};

} // namespace mlir::ckpt

/// Parses `device-workspace=` and `size=` values: anything but `cuda`, 0 or
/// bytes is an option error ("for the --size option: bad device workspace
/// size '0.5x': ...").
CKPT_OPTION_PARSER(mlir::ckpt::DeviceWorkspaceOption, TextOptionParser);

#endif // CKPT_DIALECT_CKPT_TRANSFORMS_DEVICEWORKSPACEOPTION_H
