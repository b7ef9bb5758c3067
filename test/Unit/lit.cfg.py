# -*- Python -*-
# lit configuration that runs the GoogleTest unit tests (lit runs each test
# binary in shards and reports every GoogleTest case).

import os

import lit.formats

config.name = "CKPT-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.ckpt_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
# CKPT_GTEST_FILTER, a GoogleTest filter that each test binary reads from
# GTEST_FILTER: scripts/sanitize.sh names the cases it leaves to the normal
# build's run (test/sanitizer-skip.txt), and scripts/check.sh the cases the
# sanitized run ran, which the normal build's run leaves out.
if os.environ.get("CKPT_GTEST_FILTER"):
    config.environment["GTEST_FILTER"] = os.environ["CKPT_GTEST_FILTER"]
