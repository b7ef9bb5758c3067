//===- EnumOption.h - Enum-valued pass and pipeline options ------*- C++ -*-===//
//
// One command-line parser for every enum a pass or pipeline option holds
// (budget-scope, strategy, objective): the value is checked while the options
// are parsed, and a bad one is an option error that names the option and
// lists the accepted spellings.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_ENUMOPTION_H
#define CKPT_ANALYSIS_ENUMOPTION_H

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
/// `llvm::cl::parser<T>` derives from it.
template <typename T>
class EnumOptionParser : public llvm::cl::basic_parser<T> {
public:
  using Spelling = EnumOptionSpelling<T>;

  EnumOptionParser(llvm::cl::Option &option)
      : llvm::cl::basic_parser<T>(option) {}

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

  /// Prints `value` and the default (for option dumps).
  void printOptionDiff(const llvm::cl::Option &option, T value,
                       const llvm::cl::OptionValue<T> &defaultValue,
                       size_t globalWidth) const {
    this->printOptionName(option, globalWidth);
    llvm::outs() << "= " << Spelling::name(value) << " (default: ";
    if (defaultValue.hasValue())
      llvm::outs() << Spelling::name(defaultValue.getValue());
    else
      llvm::outs() << "*no default*";
    llvm::outs() << ")\n";
  }

  /// Prints `value` as its spelling (when a pass pipeline is printed).
  static void print(llvm::raw_ostream &os, T value) {
    os << Spelling::name(value);
  }
};

} // namespace mlir::ckpt

#endif // CKPT_ANALYSIS_ENUMOPTION_H
