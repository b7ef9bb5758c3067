//===- HtmlReportTest.cpp - The HTML report from plain data ---------------===//

#include "ckpt/Dialect/Ckpt/Transforms/HtmlReport.h"

#include "gtest/gtest.h"

using namespace mlir::ckpt;

namespace {

/// A timeline of `n` ops whose op `i` holds `live[i]` activation bytes.
MemoryTimeline makeTimeline(std::vector<int64_t> live, int64_t backward) {
  MemoryTimeline t;
  t.ops.assign(live.size(), nullptr);
  t.backwardStart = backward;
  for (int64_t bytes : live) {
    KindBytes kinds{};
    kinds[static_cast<size_t>(BufferKind::Activation)] = bytes;
    kinds[static_cast<size_t>(BufferKind::Parameter)] = 100;
    t.liveDuringByKind.push_back(kinds);
    t.liveDuring.push_back(bytes + 100);
    t.liveAfter.push_back(bytes + 100);
    t.workspace.push_back(0);
  }
  t.liveAtEntry = 100;
  for (size_t i = 0; i < live.size(); ++i)
    if (t.liveDuring[i] > t.peakBytes) {
      t.peakBytes = t.liveDuring[i];
      t.peakOp = static_cast<int64_t>(i);
    }
  return t;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(HtmlReport, SamplingKeepsThePeak) {
  std::vector<int64_t> live(1000, 10);
  live[637] = 5000; // a one-op spike between samples of a 10-point chart
  MemoryChart chart =
      buildMemoryChart(makeTimeline(live, 500), BudgetScope::Step, 10);
  ASSERT_EQ(chart.sampleOps.size(), 10u);
  EXPECT_EQ(chart.peakBytes, 5100);
  EXPECT_EQ(chart.peakOp, 637);
  EXPECT_NE(std::find(chart.sampleOps.begin(), chart.sampleOps.end(), 637),
            chart.sampleOps.end());
}

TEST(HtmlReport, ScopesDropWhatTheyDoNotCount) {
  MemoryTimeline t = makeTimeline({10, 20, 30}, 2);
  MemoryChart step = buildMemoryChart(t, BudgetScope::Step);
  MemoryChart activations = buildMemoryChart(t, BudgetScope::Activations);
  EXPECT_EQ(step.layers[2][static_cast<size_t>(BufferKind::Parameter)], 100);
  EXPECT_EQ(activations.layers[2][static_cast<size_t>(BufferKind::Parameter)],
            0);
  EXPECT_EQ(activations.peakBytes, 30);
  EXPECT_EQ(step.peakBytes, 130);
}

TEST(HtmlReport, PageShowsBudgetPlanAndEscapesNames) {
  HtmlStep step;
  step.name = "f<script>";
  step.budgetText = "0.5x";
  step.budgetBytes = 60;
  step.before = buildMemoryChart(makeTimeline({10, 90, 40}, 2),
                                 BudgetScope::Activations);
  step.after = buildMemoryChart(makeTimeline({10, 50, 40, 30}, 2),
                                BudgetScope::Activations);
  step.objective = "time";
  step.overhead = 0.125;
  step.recomputed.push_back({"h.0-1.attn", 64, 2, {{"softmax", 64}}});
  std::string page;
  llvm::raw_string_ostream os(page);
  writeHtmlReport({step}, os);
  EXPECT_EQ(count(page, "<svg class=\"memory-chart\""), 2u);
  EXPECT_EQ(count(page, "<line class=\"budget\""), 2u);
  EXPECT_EQ(count(page, "<script"), 0u);
  EXPECT_NE(page.find("@f&lt;script&gt;"), std::string::npos);
  EXPECT_NE(page.find("predicted overhead +12.50% (time)"), std::string::npos);
  EXPECT_NE(page.find("<td>h.0-1.attn</td><td>2</td><td>64 B</td><td>softmax 64 B</td>"),
            std::string::npos);
  // The same data, the same bytes.
  std::string again;
  llvm::raw_string_ostream os2(again);
  writeHtmlReport({step}, os2);
  EXPECT_EQ(page, again);
}

TEST(HtmlReport, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(escapeHtml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
}

} // namespace
