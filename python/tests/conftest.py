import os
import sys
import warnings

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
warnings.filterwarnings("ignore", message="Your compiler for AOTAutograd")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Keeps the tests of test_export.py that export the same model on one
    pytest-xdist worker under ``--dist loadgroup`` (scripts/check.sh), so
    that the module's cache exports it once; every other test is scheduled
    on its own, which balances the two workers (whole files did not: the
    torch.compile backend's file alone is half the PyTorch 2 run). Runs
    before xdist's own hook, which reads the groups."""
    for item in items:
        if item.path.name == "test_export.py":
            callspec = getattr(item, "callspec", None)
            model = callspec.params.get("name", "-") if callspec else "-"
            item.add_marker(pytest.mark.xdist_group(f"test_export:{model}"))
