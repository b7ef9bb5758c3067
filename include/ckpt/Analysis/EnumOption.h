//===- EnumOption.h - Enum-valued pass and pipeline options -----*- C++ -*-===//
//
// One command-line parser for every enum a pass or pipeline option holds
// (budget-scope, strategy, objective, algorithm): the value is checked while
// the options are parsed, and a bad one is an option error that names the
// option and lists the accepted spellings.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_ENUMOPTION_H
#define CKPT_ANALYSIS_ENUMOPTION_H

#include "ckpt/Analysis/TypedOption.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::ckpt {

/// The spellings of an enum option; specialized for each enum with
/// - `static std::optional<T> parse(llvm::StringRef)`: the value spelled so;
/// - `static llvm::StringRef name(T)`: the spelling of a value;
/// - `static std::string choices()`: every spelling, for messages
///   ("step or activations");
/// - `static llvm::StringRef valueName()`: the value name --help shows
///   after the option ("step|activations").
template <typename T>
struct EnumOptionSpelling;

/// The `llvm::cl` parser of an enum option with `EnumOptionSpelling<T>`:
/// `CKPT_OPTION_PARSER(T, EnumOptionParser)` makes it `llvm::cl::parser<T>`.
template <typename T>
class EnumOptionParser : public TypedOptionParser<T, EnumOptionParser<T>> {
public:
  using Spelling = EnumOptionSpelling<T>;

  EnumOptionParser(llvm::cl::Option &option)
      : TypedOptionParser<T, EnumOptionParser<T>>(option) {}

  /// Returns true (after reporting through `option.error`, which LLVM
  /// prefixes with "for the --<name> option: ") on a bad value.
  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             T &value) {
    if (std::optional<T> parsed = Spelling::parse(arg)) {
      value = *parsed;
      return false;
    }
    return option.error("unknown value '" + arg + "' (expected " +
                        Spelling::choices() + ")");
  }

  /// The value name --help shows after the option.
  llvm::StringRef getValueName() const override {
    return Spelling::valueName();
  }

  /// Prints `value` as its spelling (when a pass pipeline is printed).
  static void print(llvm::raw_ostream &os, T value) {
    os << Spelling::name(value);
  }
};

} // namespace mlir::ckpt

#endif // CKPT_ANALYSIS_ENUMOPTION_H
