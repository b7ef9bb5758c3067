//===- ChildProcessTest.cpp - Tests of runInChildProcess ------------------===//
//
// The helper the exact engine runs CBC through: a child's result comes back
// whole (large results too), the child's changes to memory do not, a child
// still running at the deadline is killed on time, and a child that dies is
// reported with the reason.
//
//===----------------------------------------------------------------------===//

#include "ChildProcess.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdlib>
#include <thread>

#include <unistd.h>

using namespace mlir::ckpt::remat::detail;

namespace {

TEST(ChildProcess, ReturnsTheChildsBytesAndNothingElse) {
  ASSERT_TRUE(childProcessesAvailable());
  // Larger than a pipe's buffer many times over: the parent must read while
  // the child writes.
  std::string expected;
  for (int i = 0; i < (3 << 20); ++i)
    expected.push_back(static_cast<char>(i * 7 + (i >> 11)));
  int touched = 0;
  ChildRun run = runInChildProcess(60, [&] {
    touched = 1;
    return expected;
  });
  ASSERT_EQ(run.ending, ChildRun::Ending::Finished) << run.failure;
  EXPECT_TRUE(run.output == expected);
  EXPECT_EQ(touched, 0) << "the child's memory is its own";
  EXPECT_GE(run.seconds, 0);
}

TEST(ChildProcess, EmptyResult) {
  ChildRun run = runInChildProcess(60, [] { return std::string(); });
  ASSERT_EQ(run.ending, ChildRun::Ending::Finished) << run.failure;
  EXPECT_TRUE(run.output.empty());
}

TEST(ChildProcess, KillsAtTheDeadline) {
  auto start = std::chrono::steady_clock::now();
  ChildRun run = runInChildProcess(0.3, [] {
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return std::string("late");
  });
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  EXPECT_EQ(run.ending, ChildRun::Ending::Killed);
  EXPECT_TRUE(run.output.empty());
  EXPECT_GE(run.seconds, 0.3);
  EXPECT_LT(seconds, 10) << "the child was not killed at its deadline";
}

TEST(ChildProcess, ReportsAChildThatDies) {
  ChildRun crashed = runInChildProcess(60, []() -> std::string {
    std::abort();
  });
  EXPECT_EQ(crashed.ending, ChildRun::Ending::Failed);
  EXPECT_NE(crashed.failure.find("killed by signal 6"), std::string::npos)
      << crashed.failure;
  ChildRun exited = runInChildProcess(60, []() -> std::string {
    ::_exit(7);
  });
  EXPECT_EQ(exited.ending, ChildRun::Ending::Failed);
  EXPECT_EQ(exited.failure, "exited with status 7");
}

} // namespace
