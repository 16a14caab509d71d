"""Print the names upstream's torch._C has, as JSON (run under the upstream environment at build
time; tools/gen_surface.py mirrors which names exist). Nothing it writes is committed."""

import json
import sys

import torch

with open(sys.argv[1], "w") as f:
    json.dump(sorted(dir(torch._C)), f)
