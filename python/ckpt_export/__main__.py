"""Command line: ``python3 -m ckpt_export MODEL -o out.json [--size tiny|full] [--batch N] ...``.

MODEL is a corpus name (``gpt2``, ``llama``, ``bert``, ``resnet50``,
``mobilenet_v2``, ``unet``, ``mlp32``; with the PyTorch 2 environment also the
library models ``hf:gpt2``, ``hf:llama``, ``hf:bert``, ``hf:t5``, ``hf:vit``,
``tv:resnet18``, ``tv:resnet50``, ``tv:mobilenet_v3_large``,
``tv:efficientnet_b0``, ``tv:vit_b_16``) or ``package.module:factory`` where the
factory returns a :class:`ckpt_export.models.ModelSpec` or a ``(model,
example_inputs)`` pair; it receives the size/override keywords it accepts.
"""

import argparse
import importlib
import inspect
import json
import sys
import time
import warnings

from .export import export
from .models import MODELS, ModelSpec


def load(spec_name, size, overrides):
    if spec_name in MODELS:
        return MODELS[spec_name](size, **overrides)
    if spec_name.startswith(("hf:", "tv:")):
        try:
            from .library_models import LIBRARY
            import transformers  # noqa: F401
            import torchvision  # noqa: F401
        except ImportError as e:
            raise SystemExit(f"{spec_name} needs transformers and torchvision ({e}); use the PyTorch 2 "
                             "environment of scripts/install-torch.sh")
        if spec_name not in LIBRARY:
            raise SystemExit(f"unknown model {spec_name!r}; library models: {', '.join(LIBRARY)}")
        return LIBRARY[spec_name](size, **overrides)
    if ":" not in spec_name:
        raise SystemExit(f"unknown model {spec_name!r}; corpus models: {', '.join(MODELS)}, and with "
                         "transformers/torchvision hf:gpt2, hf:llama, hf:bert, hf:t5, hf:vit, tv:resnet18, "
                         "tv:resnet50, tv:mobilenet_v3_large, tv:efficientnet_b0, tv:vit_b_16")
    mod, fn = spec_name.split(":", 1)
    factory = getattr(importlib.import_module(mod), fn)
    try:
        sig = inspect.signature(factory)
        accepts_kw = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
        kw = {k: v for k, v in dict(overrides, size=size).items()
              if v is not None and (accepts_kw or k in sig.parameters)}
    except (TypeError, ValueError):
        kw = {}
    r = factory(**kw)
    if isinstance(r, ModelSpec):
        return r
    model, inputs = r
    return ModelSpec(fn, model, tuple(inputs), {})


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m ckpt_export", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--size", choices=["tiny", "full"], default="full")
    for k in ("batch", "seq", "layers", "hidden", "heads", "vocab", "inter", "res", "classes"):
        ap.add_argument("--" + k, type=int)
    ap.add_argument("--dropout", type=float)
    ap.add_argument("--name")
    ap.add_argument("--real", action="store_true", help="trace on real tensors instead of fake ones")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)
    ov = {k: getattr(a, k) for k in ("batch", "seq", "layers", "hidden", "heads", "vocab", "inter", "res",
                                      "classes", "dropout")}
    spec = load(a.model, a.size, ov)
    t0 = time.time()
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        res = export(spec.model, spec.inputs, a.output, name=a.name or spec.name, fake=not a.real,
                     input_names=getattr(spec, "input_names", None))
    for w in ws:
        if "ckpt_export" in str(w.message):
            print(f"warning: {w.message}", file=sys.stderr)
    if not a.quiet:
        g = res.graph
        ph = {}
        for n in g["nodes"]:
            ph[n["phase"]] = ph.get(n["phase"], 0) + 1
        print(f"{a.output}: {len(g['nodes'])} nodes ({', '.join(f'{v} {k}' for k, v in ph.items())}), "
              f"{len(g['inputs'])} inputs, {len(g['outputs'])} outputs, {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
