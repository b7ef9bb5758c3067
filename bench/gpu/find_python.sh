#!/usr/bin/env bash
# Sourced by the GPU checks' run scripts: sets `python` to $PYTHON or the
# first interpreter with torch >= 2 and CUDA (and the modules named in
# $NEED_MODULES, comma-separated); empty if none.
python=${PYTHON:-}
if [ -z "$python" ]; then
  for p in python3 python /opt/conda/bin/python /usr/local/bin/python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 &&
       "$p" -c "import sys, torch${NEED_MODULES:+, $NEED_MODULES}; sys.exit(0 if int(torch.__version__.split('.')[0]) >= 2 and torch.cuda.is_available() else 1)" 2>/dev/null; then
      python=$p; break
    fi
  done
fi
