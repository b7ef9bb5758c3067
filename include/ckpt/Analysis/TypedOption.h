//===- TypedOption.h - What the typed pass options share -------*- C++ -*-===//
//
// The typed pass and pipeline options (the enums of EnumOption.h, `budget=`,
// `device-workspace=`) are parsed when the option is set and printed back as
// the text they read: the `llvm::cl` parsers share how a value and its
// default are printed (`TypedOptionParser`), and the option values parsed
// from free text share how they keep that text and why it is bad
// (`TextOptionValue`, `TextOptionParser`).
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_TYPEDOPTION_H
#define CKPT_ANALYSIS_TYPEDOPTION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>

namespace mlir::ckpt {

/// The base of the `llvm::cl` parser of a typed option value `T`: `Derived`
/// provides `static void print(llvm::raw_ostream &, const T &)`, which writes
/// the value as the option reads it.
template <typename T, typename Derived>
class TypedOptionParser : public llvm::cl::basic_parser<T> {
public:
  TypedOptionParser(llvm::cl::Option &option)
      : llvm::cl::basic_parser<T>(option) {}

  /// Prints `value` and the default (for option dumps).
  void printOptionDiff(const llvm::cl::Option &option, const T &value,
                       const llvm::cl::OptionValue<T> &defaultValue,
                       size_t globalWidth) const {
    this->printOptionName(option, globalWidth);
    llvm::outs() << "= ";
    Derived::print(llvm::outs(), value);
    llvm::outs() << " (default: ";
    if (defaultValue.hasValue())
      Derived::print(llvm::outs(), defaultValue.getValue());
    else
      llvm::outs() << "*no default*";
    llvm::outs() << ")\n";
  }
};

/// The base of an option value class `Derived` parsed from free text: the
/// text as given (empty: no value) and why it is not a valid value. Values
/// compare by their text. `Derived` has a constructor from `std::string`
/// that parses and sets `error`, and `static llvm::StringRef valueName()`,
/// the value name --help shows after the option.
template <typename Derived>
class TextOptionValue {
public:
  /// Whether no value was given.
  bool empty() const { return text.empty(); }
  /// The value as given, for messages and printed pipelines.
  const std::string &getText() const { return text; }
  /// Why the text is not a valid value; "" when it is one or empty. Set
  /// from C++ (where no option parser runs), the passes report it.
  const std::string &getError() const { return error; }

  bool operator==(const Derived &other) const { return text == other.text; }
  bool operator!=(const Derived &other) const { return !(*this == other); }

protected:
  TextOptionValue() = default;
  explicit TextOptionValue(std::string text) : text(std::move(text)) {}

  std::string text;
  std::string error;
};

/// Prints an option value as given (used when pass options are printed).
template <typename Derived>
llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                              const TextOptionValue<Derived> &value) {
  return os << value.getText();
}

/// The `llvm::cl` parser of a `TextOptionValue` `T`: a text that `T` finds
/// bad is an option error, which LLVM prefixes with "for the --<name>
/// option: ".
template <typename T>
class TextOptionParser : public TypedOptionParser<T, TextOptionParser<T>> {
public:
  TextOptionParser(llvm::cl::Option &option)
      : TypedOptionParser<T, TextOptionParser<T>>(option) {}

  /// Returns true (after reporting through `option.error`) on a bad value.
  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             T &value) {
    value = T(arg.str());
    if (value.getError().empty())
      return false;
    return option.error(value.getError());
  }

  /// The value name --help shows after the option.
  llvm::StringRef getValueName() const override { return T::valueName(); }

  /// Prints `value` as given.
  static void print(llvm::raw_ostream &os, const T &value) {
    os << value.getText();
  }
};

} // namespace mlir::ckpt

/// Makes `PARSER<TYPE>` (`EnumOptionParser` or `TextOptionParser`, in
/// mlir::ckpt) the `llvm::cl` parser of the options holding a `TYPE`. Used at
/// global scope.
#define CKPT_OPTION_PARSER(TYPE, PARSER)                                       \
  template <>                                                                  \
  class llvm::cl::parser<TYPE> : public mlir::ckpt::PARSER<TYPE> {             \
  public:                                                                      \
    using mlir::ckpt::PARSER<TYPE>::PARSER;                                    \
  }

#endif // CKPT_ANALYSIS_TYPEDOPTION_H
