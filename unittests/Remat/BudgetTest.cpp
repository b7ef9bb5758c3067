//===- BudgetTest.cpp - Budgets as users write them -----------------------===//

#include "ckpt/Remat/Budget.h"

#include "gtest/gtest.h"

using namespace mlir::ckpt::remat;

namespace {

TEST(Budget, SizesWithUnitsAreBytes) {
  std::string error;
  EXPECT_EQ(parseBudget("4096B", error)->bytes, 4096);
  EXPECT_EQ(parseBudget("1.5KiB", error)->bytes, 1536);
  EXPECT_EQ(parseBudget("512 MiB", error)->bytes, 512ll << 20);
  EXPECT_EQ(parseBudget("2GB", error)->bytes, 2000000000ll);
  EXPECT_EQ(parseBudget("1TiB", error)->bytes, 1ll << 40);
}

TEST(Budget, FractionsAreOfThePeak) {
  std::string error;
  std::optional<Budget> half = parseBudget("0.5x", error);
  ASSERT_TRUE(half && half->fraction);
  EXPECT_EQ(half->resolve(1001), 500);
  EXPECT_TRUE(parseBudget("100x", error));
}

TEST(Budget, BareNumbersAreRefusedWithBothReadings) {
  for (const char *text : {"0.5", "4096", "1e9"}) {
    std::string error;
    EXPECT_FALSE(parseBudget(text, error)) << text;
    EXPECT_NE(error.find("has no unit"), std::string::npos) << error;
    EXPECT_NE(error.find(std::string(text) + "x"), std::string::npos) << error;
    EXPECT_NE(error.find(std::string(text) + "MiB"), std::string::npos) << error;
  }
}

TEST(Budget, OutOfRangeIsRefused) {
  for (const char *text : {"0x", "1e14x", "100.5x", "0B", "0.4B", "1e30GiB", "-1x", "-5MiB", "nanx", "infGiB"}) {
    std::string error;
    EXPECT_FALSE(parseBudget(text, error)) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

TEST(Budget, UnknownUnitsAreNamed) {
  std::string error;
  EXPECT_FALSE(parseBudget("12parsecs", error));
  EXPECT_NE(error.find("'parsecs'"), std::string::npos) << error;
}

} // namespace
