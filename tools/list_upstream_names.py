"""Print the names upstream's torch._C has, as JSON (run under the upstream environment at build
time; tools/gen_surface.py mirrors which names exist). Top-level names are bare; the names of the
distributed submodules, which the stubs over-declare (NCCL, MPI, UCC, XCCL), are written
"submodule.name". Nothing it writes is committed."""

import json
import sys

import torch

DISTRIBUTED_SUBMODULES = ("_distributed_c10d", "_distributed")

names = set(dir(torch._C))
for sub in DISTRIBUTED_SUBMODULES:
    names.update(f"{sub}.{n}" for n in dir(getattr(torch._C, sub)))
with open(sys.argv[1], "w") as f:
    json.dump(sorted(names), f)
