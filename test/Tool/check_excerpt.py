"""Checks the diagnostics ckpt-opt printed (stdin) for a one-line JSON input.

Usage: check_excerpt.py EXPECTED_TEXT MAX_BYTES
Every source line shown is at most 200 + 2 * 3 columns (an excerpt of a long
line, "..." where cut); the caret under the first diagnostic points at
EXPECTED_TEXT in its excerpt; the whole output is at most MAX_BYTES.
Prints "excerpts ok" or what is wrong.
"""
import sys

expected, max_bytes = sys.argv[1], int(sys.argv[2])
text = sys.stdin.read()
lines = text.splitlines()
problems = []
if len(text) > max_bytes:
    problems.append("output of %d bytes, over %d" % (len(text), max_bytes))
for line in lines:
    if len(line) > 206 and ": error: " not in line and ": note: " not in line:
        problems.append("a source line of %d columns is shown whole" % len(line))
if len(lines) < 3 or not lines[2].strip() == "^":
    problems.append("no caret line under the first diagnostic's excerpt")
else:
    excerpt, caret = lines[1], lines[2].index("^")
    if not excerpt.startswith("...") or not excerpt.endswith("..."):
        problems.append("the excerpt is not cut on both sides: %r" % excerpt)
    if not excerpt[caret:].startswith(expected):
        problems.append("the caret points at %r, not %r" % (excerpt[caret:caret + 20], expected))
print("; ".join(problems) if problems else "excerpts ok")
