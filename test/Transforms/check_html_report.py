"""Checks a `ckpt-report=html` page on its own terms, without the code that
drew it: the page parses as HTML with balanced tags and no script or
external reference; every memory chart's stacked layers stay inside the plot;
the peak marker sits on the top of the stack at its highest point; the plan's
peak is on or below the budget line and the unplanned peak above it; the
frontier's chosen plan is drawn. Usage: check_html_report.py page.html
[--expect-plan]."""

from html.parser import HTMLParser
import sys

VOID = {"meta", "br", "img", "hr", "input", "link", "line", "circle", "polyline", "path", "rect"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []
        self.charts = []  # memory charts: dict(attrs, polygons, peak, budget)
        self.frontiers = []
        self.errors = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.errors.append("a script")
        for key in ("src", "href"):
            if key in a:
                self.errors.append(f"an external reference {key}={a[key]}")
        cls = a.get("class", "")
        if tag == "svg" and cls == "memory-chart":
            self.charts.append({"attrs": a, "polygons": [], "peak": None, "budget": None})
        elif tag == "svg" and cls == "frontier-chart":
            self.frontiers.append({"chosen": None, "points": 0})
        elif tag == "polygon" and self.charts and "layer" in cls:
            pts = [tuple(map(float, p.split(","))) for p in a["points"].split()]
            self.charts[-1]["polygons"].append((cls, pts))
        elif tag == "circle" and cls == "peak":
            self.charts[-1]["peak"] = (float(a["cx"]), float(a["cy"]))
        elif tag == "line" and cls == "budget":
            self.charts[-1]["budget"] = float(a["y1"])
        elif tag == "circle" and cls == "chosen-plan":
            self.frontiers[-1]["chosen"] = (float(a["cx"]), float(a["cy"]))
        elif tag == "circle" and cls == "frontier-point":
            self.frontiers[-1]["points"] += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()


def top_edge(polygon):
    """The upper edge of a stacked layer: its first half of points."""
    pts = polygon[1]
    return pts[: len(pts) // 2]


def main():
    page = Page()
    page.feed(open(sys.argv[1], encoding="utf-8").read())
    page.close()
    assert not page.errors, page.errors
    assert not page.stack, f"unclosed tags {page.stack}"
    assert page.charts, "no memory chart"
    for chart in page.charts:
        assert chart["polygons"], "a chart without layers"
        xs = [x for _, pts in chart["polygons"] for x, _ in pts]
        ys = [y for _, pts in chart["polygons"] for _, y in pts]
        assert min(xs) >= 90 - 0.05 and max(xs) <= 936 + 0.05, (min(xs), max(xs))
        assert min(ys) >= 22 - 0.05 and max(ys) <= 258 + 0.05, (min(ys), max(ys))
        # The highest point of the whole stack is the top layer's upper edge
        # at its minimum y; the peak marker must be there.
        top = min(y for x, y in top_edge(chart["polygons"][-1]))
        assert chart["peak"] is not None, "no peak marker"
        assert abs(chart["peak"][1] - top) <= 0.11, (chart["peak"], top)
    if "--expect-plan" in sys.argv:
        before, after = page.charts[0], page.charts[1]
        budget = after["budget"]
        assert budget is not None and before["budget"] == budget, "no budget line"
        # y grows downwards: the plan's peak on or below the line, the
        # step without recomputation above it.
        assert after["peak"][1] >= budget - 0.11, (after["peak"], budget)
        assert before["peak"][1] < budget, (before["peak"], budget)
        assert page.frontiers and page.frontiers[0]["chosen"], "no chosen plan"
        assert page.frontiers[0]["points"] >= 2, "a frontier of fewer than 2 plans"
    print(f"html ok: {len(page.charts)} memory charts, {len(page.frontiers)} frontier charts")


if __name__ == "__main__":
    main()
