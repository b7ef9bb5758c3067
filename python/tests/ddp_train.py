"""Started by torchrun (2 processes, gloo, CPU) from test_torch_backend.py:
trains a tiny GPT-2 under DistributedDataParallel with the ckpt_torch backend
at 0.5x and without a budget, and checks that both give bit-identical
parameters on every rank, and that the ranks agree."""

import gc
import os
import sys
import warnings

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

warnings.simplefilter("ignore")

import ckpt_torch  # noqa: E402
from ckpt_export.library_models import LIBRARY  # noqa: E402


def train(budget, rank):
    torch._dynamo.reset()
    spec = LIBRARY["hf:gpt2"]("tiny", dropout=0.1)
    model = DDP(spec.model)
    backend = ckpt_torch.backend(budget, ckpt_opt=os.environ.get("CKPT_OPT"), time_limit=5)
    compiled = torch.compile(model, backend=backend)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = spec.inputs[0][rank:rank + 1]  # each rank its own micro-batch
    torch.manual_seed(100 + rank)
    for _ in range(2):
        opt.zero_grad()
        compiled(ids, ids.clone()).backward()
        opt.step()
    planned = [g for g in backend.report.graphs if g.planned]
    assert planned, str(backend.report)
    if budget:
        assert planned[0].recomputed, str(backend.report)
    params = [p.detach().clone() for p in spec.model.parameters()]
    # Dynamo's caches hold the DDP wrapper (and through it the process
    # group's pending work) until reset: release them before the group goes.
    del compiled, model, opt
    torch._dynamo.reset()
    gc.collect()
    return params


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    unplanned = train("", rank)
    planned = train("0.5x", rank)
    assert all(torch.equal(a, b) for a, b in zip(unplanned, planned)), "planned differs from unplanned"
    flat = torch.cat([p.flatten() for p in planned])
    others = [torch.empty_like(flat) for _ in range(dist.get_world_size())]
    dist.all_gather(others, flat)
    assert all(torch.equal(others[0], o) for o in others), "ranks disagree"
    dist.barrier()
    dist.destroy_process_group()
    if rank == 0:
        print("ddp: ranks agree, planned equals unplanned", flush=True)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    sys.stderr.flush()
    # The result is settled and printed. Interpreter finalization can abort in
    # Gloo's teardown ("terminate called without an active exception", seen
    # once in CI, 5 s after compilation began: when a passing run ends; worker
    # threads still holding tensors while Python shuts down, pytorch/pytorch
    # PR 179291); that is
    # PyTorch's shutdown, not the training this test checks, so skip it.
    os._exit(0)
