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

# lit runs the tests it has seen take longest first, from the times it
# records in the build (.lit_test_times.txt in the exec root); a fresh build
# has none, and the unit-test shards, whose names sort after the main suite's,
# would start last, one of them a minute long (CkptRematTests' second shard).
# The main suite's seed is test/.lit_test_times.txt, which lit reads from
# the source root by itself; this suite's source root is its exec root, so
# its seed, unit-test-times.txt here, is copied there (docs/building.md).
_times = os.path.join(config.test_exec_root, ".lit_test_times.txt")
_seed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unit-test-times.txt")
if not os.path.exists(_times) and os.path.exists(_seed) and os.path.isdir(config.test_exec_root):
    import shutil

    shutil.copyfile(_seed, _times)
