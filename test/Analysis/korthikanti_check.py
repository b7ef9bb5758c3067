"""Checks saved-activation bytes per GPT layer against the exact formula.

Korthikanti et al. 2022 give s*b*h*(34 + 5*a*s/h) bytes per layer for a GPT
layer in 16-bit with dropout. With ckpt's fused flash-style attention the
per-layer figure is, exactly (derivation in docs/cost-model.md):

    fused attention:   s*b*(36*h + 4*a + 16)
    unfused attention: s*b*h*34 + 5*a*s*s*b + 16*s*b   (the paper's count
                       plus the f32 LayerNorm statistics the paper omits)

The layer's bytes are the difference between the saved activations of an
(L+1)-layer and an L-layer graph, so the loss head cancels out. The saved
activations are measured by ckpt-opt's memory simulation (--ckpt-report=json).

Usage: korthikanti_check.py CKPT_OPT WORKDIR
"""

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from ckpt_graphs import gpt  # noqa: E402

# (s, b, h, a): sequence, micro-batch, hidden, heads.
CONFIGS = [(16, 2, 64, 4), (128, 4, 256, 8), (512, 1, 1024, 16),
           (2048, 1, 12288, 96), (1024, 8, 768, 12)]


def saved_bytes(ckpt_opt, workdir, layers, s, b, h, a, attention):
    path = Path(workdir) / f"gpt_{attention}_{layers}_{s}_{b}_{h}_{a}.json"
    path.write_text(json.dumps(gpt.build(layers, h, a, s, b, dtype="bf16",
                                         dropout=0.1, attention=attention)))
    out = subprocess.run([ckpt_opt, str(path), "--ckpt-report=json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["functions"][0]["saved_activation_bytes"]


def main():
    ckpt_opt, workdir = sys.argv[1], sys.argv[2]
    Path(workdir).mkdir(parents=True, exist_ok=True)
    exact = total = 0
    for attention in ("unfused", "fused"):
        for s, b, h, a in CONFIGS:
            measured = (saved_bytes(ckpt_opt, workdir, 3, s, b, h, a, attention) -
                        saved_bytes(ckpt_opt, workdir, 2, s, b, h, a, attention))
            paper = s * b * h * 34 + 5 * a * s * s * b
            if attention == "fused":
                expected = s * b * (36 * h + 4 * a + 16)
            else:
                expected = paper + 16 * s * b
            status = "exact" if measured == expected else "MISMATCH"
            exact += measured == expected
            total += 1
            print(f"{attention} s={s} b={b} h={h} a={a}: measured {measured} "
                  f"B/layer, formula {expected} B ({status}); Korthikanti "
                  f"{paper} B, ratio {measured / paper:.3f}")
    print(f"{exact} of {total} configurations exact")
    return 0 if exact == total else 1


if __name__ == "__main__":
    sys.exit(main())
