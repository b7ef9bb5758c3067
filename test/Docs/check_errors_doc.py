"""Checks that every message documented in docs/errors.md is exercised.

Usage: check_errors_doc.py ERRORS_MD TEST_DIR [--exclude DIR]...

Reads the tables of ERRORS_MD whose first column is headed `Message`; each row's
first backticked text is a message pattern, `{name}` and `...` standing for
variable parts. A message is exercised if some expected-output line of a test
under TEST_DIR -- a FileCheck check line of any prefix (not a -NOT line) or an
`expected-error`/`expected-note`/`expected-warning` -- contains the pattern's
fixed parts in order. Prints one line per message and a summary; exits 1 if a
message is never exercised or no message was found.
"""

import argparse
import os
import re
import sys

CHECK_LINE = re.compile(r"\b[A-Z][A-Z0-9_-]*(?:-NEXT|-SAME|-DAG|-LABEL)?:")
NOT_LINE = re.compile(r"\b[A-Z][A-Z0-9_-]*-NOT:")
DIAG_LINE = re.compile(r"expected-(?:error|note|warning)")
PLACEHOLDER = re.compile(r"\{[A-Za-z ]+\}|\.\.\.")


def documented_messages(path):
    messages = []
    in_table = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("|"):
                in_table = False
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] == "Message":
                in_table = True
                continue
            if not in_table or set(cells[0]) <= set("-: "):
                continue
            match = re.search(r"`([^`]+)`", cells[0])
            if match:
                messages.append(match.group(1))
    return messages


def expected_lines(test_dir, excludes):
    lines = []
    for root, dirs, files in os.walk(test_dir):
        dirs[:] = [d for d in dirs
                   if os.path.abspath(os.path.join(root, d)) not in excludes]
        for name in files:
            if not name.endswith((".test", ".mlir")):
                continue
            with open(os.path.join(root, name), encoding="utf-8",
                      errors="replace") as f:
                for line in f:
                    if "RUN:" in line or NOT_LINE.search(line):
                        continue
                    if CHECK_LINE.search(line) or DIAG_LINE.search(line):
                        lines.append(line)
    return lines


def pattern_regex(message):
    fragments = [f for f in PLACEHOLDER.split(message) if f.strip()]
    return re.compile(".*".join(re.escape(f) for f in fragments))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("errors_md")
    parser.add_argument("test_dir")
    parser.add_argument("--exclude", action="append", default=[])
    args = parser.parse_args()
    excludes = {os.path.abspath(d) for d in args.exclude}
    messages = documented_messages(args.errors_md)
    lines = expected_lines(args.test_dir, excludes)
    missing = 0
    for message in messages:
        regex = pattern_regex(message)
        if any(regex.search(line) for line in lines):
            print(f"exercised: {message}")
        else:
            print(f"NOT EXERCISED: {message}")
            missing += 1
    if not messages:
        print("error: no documented messages found")
        return 1
    if missing:
        print(f"{len(messages)} documented messages, {missing} not exercised")
        return 1
    print(f"{len(messages)} documented messages, all exercised")
    return 0


if __name__ == "__main__":
    sys.exit(main())
