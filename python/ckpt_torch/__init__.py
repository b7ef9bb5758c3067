"""ckpt_torch: ckpt-opt's activation-memory plans inside ``torch.compile``.

```python
import ckpt_torch
backend = ckpt_torch.backend(budget="0.5x")        # or "8GiB", "min"
model = torch.compile(model, backend=backend)
loss = model(*inputs); loss.backward(); opt.step()
print(backend.report)
```

See :mod:`ckpt_torch.dynamo_backend` and docs/torch-backend.md.
"""

from .dynamo_backend import CkptBackend, backend, boxed_eager, saved_bytes  # noqa: F401
from .planner import PlanError  # noqa: F401
from .report import Report  # noqa: F401

__all__ = ["backend", "boxed_eager", "CkptBackend", "PlanError", "Report", "saved_bytes"]
