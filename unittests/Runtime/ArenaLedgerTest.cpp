//===- ArenaLedgerTest.cpp - The runtimes' arena accounting ---------------===//

#include "ckpt/Runtime/ArenaLedger.h"

#include <gtest/gtest.h>

using namespace ckpt::rt;

namespace {

TEST(ArenaLedger, CountsLiveBytesPeakAndHighWater) {
  ArenaLedger ledger;
  ledger.reset(1024);
  ledger.acquire(0, 256);
  ledger.acquire(512, 256);
  // An exact re-acquire is an in-place reuse: counted once, released twice.
  ledger.acquire(512, 256);
  EXPECT_EQ(ledger.bytesInUse(), 512u);
  ledger.release(512, 256);
  EXPECT_EQ(ledger.bytesInUse(), 512u);
  ledger.release(512, 256);
  ledger.acquire(256, 256);
  ledger.release(0, 256);
  EXPECT_EQ(ledger.bytesInUse(), 256u);
  EXPECT_EQ(ledger.peakBytesInUse(), 512u);
  EXPECT_EQ(ledger.highWaterBytes(), 768u);
  ledger.finish();
  EXPECT_TRUE(ledger.violation().empty()) << ledger.violation();
}

TEST(ArenaLedger, KeepsTheFirstViolation) {
  ArenaLedger ledger;
  ledger.reset(1024);
  ledger.acquire(0, 512);
  ledger.acquire(256, 512); // Overlaps [0, 512).
  ledger.release(768, 64);  // Not live: a second violation, not kept.
  EXPECT_EQ(ledger.takeViolation(),
            "acquire of [256, 768) overlaps the live range [0, 512)");
  EXPECT_TRUE(ledger.violation().empty());
  ledger.release(768, 64);
  EXPECT_EQ(ledger.takeViolation(), "release of [768, 832), which is not live");
  ledger.acquire(1000, 100);
  EXPECT_EQ(ledger.takeViolation(),
            "acquire of [1000, 1100) outside the arena of 1024 bytes");
  ledger.acquire(512, 128); // Overlaps nothing: [0, 512) ends where it starts.
  EXPECT_TRUE(ledger.violation().empty()) << ledger.violation();
}

TEST(ArenaLedger, ChecksRecomputeSegments) {
  ArenaLedger ledger;
  ledger.reset(0);
  ledger.beginSegment(0);
  EXPECT_EQ(ledger.openSegmentId(), 0);
  ledger.endSegment(0);
  EXPECT_EQ(ledger.openSegmentId(), -1);
  ledger.endSegment(1);
  EXPECT_EQ(ledger.takeViolation(),
            "end of recompute segment 1 that was never begun");
  ledger.beginSegment(2);
  ledger.beginSegment(3);
  EXPECT_EQ(ledger.takeViolation(),
            "recompute segment 3 begins inside segment 2");
  ledger.finish();
  EXPECT_EQ(ledger.takeViolation(), "recompute segment 3 was never closed");
  EXPECT_EQ(ledger.segmentsRun(), 3u);
  // A new step starts clean.
  ledger.reset(64);
  EXPECT_EQ(ledger.segmentsRun(), 0u);
  EXPECT_EQ(ledger.openSegmentId(), -1);
  EXPECT_EQ(ledger.peakBytesInUse(), 0u);
}

} // namespace
