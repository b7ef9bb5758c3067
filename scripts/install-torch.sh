#!/usr/bin/env bash
# Installs the pinned PyTorch 2 stack (python/requirements-torch.txt) into a
# virtual environment of Debian's python3, for the exporter's torch 2 path and
# its tests. Idempotent: a stamp holding the requirements' hash makes a second
# run a no-op (no network). Prints the environment's python on the last line.
# Environment: CKPT_TORCH_VENV (default /opt/ckpt-opt/torch-venv).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${CKPT_TORCH_VENV:-/opt/ckpt-opt/torch-venv}
requirements=python/requirements-torch.txt
want=$(sha256sum "$requirements" | cut -d' ' -f1)
stamp="$venv/.ckpt-requirements.sha256"

# The project's own packages (ckpt_export, ckpt_torch, ckpt_graphs) are
# installed into the environment as this checkout's python/ directory (a .pth
# file, as an editable install would): rewritten on every run, so the
# environment follows the checkout that ran this script last.
install_project() {
  local site
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$(pwd)/python" > "$site/ckpt-opt.pth"
}

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  install_project
  echo "install-torch: $venv is current" >&2
  echo "$venv/bin/python"
  exit 0
fi

start=$(date +%s)
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ]; then
  # An environment this script made from other requirements: brought to these
  # in place (pip replaces what changed and keeps what did not, so a new test
  # plugin does not download torch again), then whatever these requirements
  # do not list is removed: the environment is exactly the pinned closure.
  rm -f "$stamp"
  verb=updated
else
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  /usr/bin/python3 -m venv "$venv"
  verb=installed
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  --no-deps --only-binary=:all: -r "$requirements" >&2
unlisted=$("$venv/bin/python" - "$requirements" <<'PY'
import re, sys
from importlib.metadata import distributions

def norm(name):  # PEP 503
    return re.sub(r"[-_.]+", "-", name).lower()

listed = {"pip"}
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        listed.add(norm(re.split(r"[=<>!~; ]", line)[0]))
print(" ".join(sorted({norm(d.metadata["Name"]) for d in distributions()} - listed)))
PY
)
if [ -n "$unlisted" ]; then
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pip uninstall --quiet --disable-pip-version-check -y $unlisted >&2
fi
"$venv/bin/python" -c 'import torch, torchvision, transformers' >&2
install_project
echo "$want" > "$stamp"
echo "install-torch: $verb $venv in $(( $(date +%s) - start )) s ($(du -sh "$venv" | cut -f1))" >&2
echo "$venv/bin/python"
