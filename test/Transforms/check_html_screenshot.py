"""Checks the structure of a headless Chromium screenshot of a
`ckpt-report=html` page with a plan (html-report-chromium.test): the page was
rendered (not blank, not an error page), both memory charts drew their
stacked layers, the budget is drawn as a red dashed line across each memory
chart, the frontier line and the plan's red ring are there, and in the
after-plan chart no layer pixel lies above the budget line while in the
before-plan chart some do (Debian's python3-pil reads the PNG).
Usage: check_html_screenshot.py shot.png"""

from PIL import Image, ImageChops
import sys

ACTIVATION, TEMPORARY = (242, 142, 43), (225, 87, 89)
BUDGET_RED, FRONTIER_BLUE, WHITE = (204, 0, 0), (78, 121, 167), (255, 255, 255)


class Shot:
    """A screenshot as per-colour masks: rows of bytes, 255 where a pixel is
    within `tolerance` of the colour in every channel, else 0."""

    def __init__(self, path):
        self.image = Image.open(path).convert("RGB")
        self.width, self.height = self.image.size
        self.bands = self.image.split()

    def mask(self, colour, tolerance):
        masks = [band.point(lambda v, c=c: 255 if abs(v - c) <= tolerance else 0)
                 for band, c in zip(self.bands, colour)]
        both = ImageChops.logical_and(masks[0].convert("1"), masks[1].convert("1"))
        both = ImageChops.logical_and(both, masks[2].convert("1")).convert("L")
        data = both.tobytes()
        return [data[y * self.width : (y + 1) * self.width] for y in range(self.height)]


def longest_run(row):
    """Length of the longest stretch of consecutive matching pixels."""
    return max(map(len, row.split(b"\x00")))


def main():
    shot = Shot(sys.argv[1])
    width, height = shot.width, shot.height
    white = sum(row.count(255) for row in shot.mask(WHITE, 0))
    assert white < 0.97 * width * height, "the page is blank"
    # A layer is a filled area: a stretch of at least 6 pixels of its colour
    # (anti-aliased red text is never that wide).
    activation, temporary = shot.mask(ACTIVATION, 40), shot.mask(TEMPORARY, 40)
    layer_rows = [y for y in range(height)
                  if max(longest_run(activation[y]), longest_run(temporary[y])) >= 6]
    # Budget lines: rows where red covers a long dashed stretch.
    red = shot.mask(BUDGET_RED, 50)
    red_rows = [y for y in range(height) if red[y].count(255) > 0.4 * width]
    lines = [y for i, y in enumerate(red_rows) if i == 0 or y > red_rows[i - 1] + 1]
    assert len(lines) == 2, f"expected one budget line per memory chart, found rows {red_rows}"
    blue = sum(row.count(255) for row in shot.mask(FRONTIER_BLUE, 30))
    assert blue > 200, f"no frontier line ({blue} blue pixels)"
    # The charts: layer pixels between consecutive budget lines belong to
    # the first chart; a chart spans about 300 px at this width.
    assert layer_rows, "no memory layers drawn"
    before_top = min(y for y in layer_rows if y < lines[1] - 60)
    after_rows = [y for y in layer_rows if y > lines[1] - 240 and y > lines[0] + 60]
    assert after_rows, "the after-plan chart drew no layers"
    assert before_top < lines[0], f"before the plan the layers stay under the budget line ({before_top} >= {lines[0]})"
    assert min(after_rows) >= lines[1] - 1, f"after the plan a layer rises above the budget line ({min(after_rows)} < {lines[1]})"
    print(f"screenshot ok: {width}x{height}, budget lines at rows {lines}")


if __name__ == "__main__":
    main()
