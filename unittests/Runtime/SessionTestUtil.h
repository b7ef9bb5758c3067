//===- SessionTestUtil.h - Helpers of the Session unit tests -----*- C++
//-*-===//
#ifndef CKPT_UNITTESTS_RUNTIME_SESSIONTESTUTIL_H
#define CKPT_UNITTESTS_RUNTIME_SESSIONTESTUTIL_H

#include "ckpt/Runtime/Session.h"

#include <stdexcept>
#include <string>

namespace ckpt::rt::test {

/// A binding of an f32 vector of 4 elements at `offset` (-1: a buffer the
/// session owns).
inline Binding vectorBinding(const char *name, Role role, int64_t offset) {
  Binding b{};
  b.name = name;
  b.role = role;
  b.dtype = DType::F32;
  b.rank = 1;
  b.shape[0] = 4;
  b.offset = offset;
  b.gradOf = -1;
  return b;
}

/// Runs one step of `session`; returns the message of the runtime_error it
/// throws, or "" if it runs.
inline std::string runError(Session &session) {
  try {
    session.run();
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "";
}

} // namespace ckpt::rt::test

#endif // CKPT_UNITTESTS_RUNTIME_SESSIONTESTUTIL_H
