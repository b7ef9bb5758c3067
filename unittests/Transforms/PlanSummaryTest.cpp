//===- PlanSummaryTest.cpp - Module scopes folded for the plan in words ---===//

#include "ckpt/Dialect/Ckpt/Transforms/PlanSummary.h"

#include "gtest/gtest.h"

using namespace mlir::ckpt;

namespace {

TEST(PlanSummary, RepeatedBlocksFoldIntoRanges) {
  EXPECT_EQ(foldScopes({"h.0.attn", "h.1.attn", "h.2.attn"}), "h.0-2.attn");
  EXPECT_EQ(foldScopes({"h.11.mlp", "h.3.mlp"}), "h.{3,11}.mlp");
  EXPECT_EQ(foldScopes({"layer1.0.conv3", "layer1.1.conv3"}), "layer1.0-1.conv3");
}

TEST(PlanSummary, EveryNumberedComponentFoldsOnItsOwn) {
  EXPECT_EQ(foldScopes({"stage.0.block.1", "stage.1.block.1", "stage.1.block.2"}),
            "stage.0-1.block.1-2");
}

TEST(PlanSummary, ScopesWithoutNumbersStayAsTheyAre) {
  EXPECT_EQ(foldScopes({"lm_head"}), "lm_head");
  EXPECT_EQ(foldScopes({"h.7.ln_1"}), "h.7.ln_1");
  EXPECT_EQ(foldScopes({}), "");
}

} // namespace
