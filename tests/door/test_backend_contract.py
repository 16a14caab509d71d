"""The back-end contract, proved with torchnative's test back end (csrc/kernels/test_backend/,
the PrivateUse1 row of the device table; enabled by TORCHNATIVE_TEST_BACKEND=1).

An nn forward on the test device agrees with the same forward on our CPU; bytes cross between
host and device only through the contract, which counts them (a forward moves nothing back; item()
and .cpu() are counted readbacks); ops the test back end lacks, and dtypes it does not compute,
are refused by name; and the device refuses allocation, naming its probe, when it is off. Adding
the back end touched only its folder and the device table's row (checked by reading the tree).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from helpers import OURS

FORWARD = r'''
import json, torch
C = torch._C
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
x = torch.randn(5, 8)
ref = m(x).detach()
out = {"available": list(C._tn_device_availability("privateuseone"))}
C._tn_reset_transfer_counts("privateuseone")
m.to("privateuseone")
xd = x.to("privateuseone")
moved_in = C._tn_transfer_counts("privateuseone")
y = m(xd)
after_forward = C._tn_transfer_counts("privateuseone")
first = y[0, 0].item()
after_item = C._tn_transfer_counts("privateuseone")
yc = y.cpu()
after_cpu = C._tn_transfer_counts("privateuseone")
out.update(device=str(y.device), param_device=str(m[0].weight.device), shape=list(y.shape),
           max_diff=(yc - ref).abs().max().item(), scale=ref.abs().max().item(),
           first=first, ref_first=ref[0, 0].item(), moved_in=moved_in,
           after_forward=after_forward, after_item=after_item, after_cpu=after_cpu)
def refusal(fn):
    try:
        fn()
        return None
    except Exception as e:
        return [type(e).__name__, str(e)]
out["sigmoid"] = refusal(lambda: torch.sigmoid(xd))
out["double relu"] = refusal(lambda: torch.relu(torch.ones(2, dtype=torch.float64).to(
    "privateuseone")))
out["mixed"] = refusal(lambda: torch.mm(xd, torch.ones(8, 2)))
print(json.dumps(out))
'''


def run_ours(code: str, test_backend: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "TORCHNATIVE_TEST_BACKEND"}
    if test_backend:
        env["TORCHNATIVE_TEST_BACKEND"] = "1"
    proc = subprocess.run([str(OURS), "-I", "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, cwd="/", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_an_nn_forward_on_the_test_device_agrees_with_cpu_and_reads_nothing_back():
    r = run_ours(FORWARD, test_backend=True)
    assert r["available"][0] is True
    assert r["device"] == "privateuseone" and r["param_device"] == "privateuseone"
    assert r["shape"] == [5, 4]
    # The test device sums each dot product in k order in float; our CPU's oneMKL blocks it:
    # the two agree to float32 rounding of sums of 16 terms.
    assert r["max_diff"] <= 16 * 2.0**-23 * max(1.0, r["scale"]) * 4, r
    # Four parameters and the input went in; the forward itself moved nothing either way.
    assert r["moved_in"]["to_device"] == 5 and r["moved_in"]["to_host"] == 0, r["moved_in"]
    assert r["after_forward"] == r["moved_in"], r
    # item() is one counted readback of 4 bytes; .cpu() one more of 5 x 4 floats.
    assert r["after_item"]["to_host"] == 1 and r["after_item"]["bytes_to_host"] == 4, r
    assert r["after_cpu"]["to_host"] == 2
    assert r["after_cpu"]["bytes_to_host"] == 4 + 5 * 4 * 4
    assert abs(r["first"] - r["ref_first"]) <= 1e-5


def test_what_the_test_device_lacks_is_refused_by_name():
    r = run_ours(FORWARD, test_backend=True)
    name, msg = r["sigmoid"]
    assert name == "NotImplementedError" and "aten.sigmoid.default" in msg and "PrivateUse1" in msg
    name, msg = r["double relu"]
    assert name == "NotImplementedError" and "float64" in msg and "aten.relu" in msg
    name, msg = r["mixed"]
    assert name == "RuntimeError" and "same device" in msg


def test_the_device_refuses_allocation_when_its_probe_says_off():
    r = run_ours(r'''
import json, torch
out = {"available": list(torch._C._tn_device_availability("privateuseone"))}
try:
    torch.empty(2, device="privateuseone")
    out["empty"] = None
except Exception as e:
    out["empty"] = [type(e).__name__, str(e)]
print(json.dumps(out))
''', test_backend=False)
    available, probe, reason = r["available"]
    assert available is False and "TORCHNATIVE_TEST_BACKEND" in probe and reason
    assert r["empty"][0] == "RuntimeError" and "TORCHNATIVE_TEST_BACKEND" in r["empty"][1]


def test_adding_the_test_back_end_touched_only_its_folder_and_its_table_row():
    """Our name of the back end (PrivateUse1, its switch) appears nowhere in csrc/ but in its
    folder and the device table: the core, the door and the binder know no back end by name."""
    allowed = {ROOT / "csrc/core/device_table.h"}
    folder = ROOT / "csrc/kernels/test_backend"
    found = set()
    for path in (ROOT / "csrc").rglob("*"):
        if path.suffix not in {".h", ".cpp"}:
            continue
        text = path.read_text()
        if re.search(r"PrivateUse1|TORCHNATIVE_TEST_BACKEND", text):
            found.add(path)
    assert any(p.parent == folder for p in found)
    assert {p for p in found if p.parent != folder} <= allowed, sorted(map(str, found))


# The lines of shared kernel code (not a back end's own folder) that test a representation or a
# device type, per file, each for a check rather than for what to compute.
TESTS_OF_THE_REPRESENTATION = {
    "csrc/kernels/rules/elementwise.cpp": 3,  # CPU 0-dim operands; a meta out= of CPU operands
    "csrc/kernels/rules/factory_rules.cpp": 1,  # meta ignores pin_memory
    "csrc/kernels/cpu/copy.cpp": 1,  # copy_ refuses to read a meta tensor
    "csrc/kernels/cpu/index.cpp": 1,  # a bool mask's coordinates need its bytes: refused by name
    "csrc/kernels/cpu/range.cpp": 1,  # meta arange refuses pin_memory, as upstream's reference
    "csrc/kernels/composite/predicates.cpp": 1,  # _has_compatible_shallow_copy_type compares them
    "csrc/kernels/composite/shape.cpp": 1,  # _to_copy refuses to read a meta tensor
    # sdpa's back-end choice (upstream's _fused_sdp_choice has a kernel per device: the CPU
    # flash kernel is chosen on CPU only, meta takes the math path)
    "csrc/kernels/composite/attention.cpp": 1,
    # _foreach_addcmul/addcdiv's packed scalars must be a CPU tensor (upstream's check)
    "csrc/kernels/composite/foreach.cpp": 1,
    # _fused_adam(w)_.tensor_lr: lr must be a CPU tensor (upstream's check)
    "csrc/kernels/cpu/fused_adam.cpp": 1,
    # the RNNs' check_attributes: a CPU 0-dim hidden or parameter may sit on another device
    "csrc/kernels/composite/rnn.cpp": 1,
    # tensor_split's tensor of indices or sections must be a CPU tensor (upstream's check)
    "csrc/kernels/composite/stack_split.cpp": 1,
    # the Python-operator shifts' meta function checks self's dtype (their CPU kernels refuse
    # by the common dtype)
    "csrc/kernels/cpu/elementwise_shift.cpp": 1,
    # _pack_padded_sequence: lengths must be a 1-D CPU int64 tensor (upstream's checkLongTensor)
    "csrc/kernels/composite/packed_sequence.cpp": 1,
    # torch.fft's promote_type_fft: a meta tensor may stand for a CUDA one, so float16 passes
    # there (upstream's check); the CPU refuses it
    "csrc/kernels/composite/fft.cpp": 1,
    # quantile's q-in-[0, 1] check reads q's values on the CPU only (upstream's is_cpu(): the
    # .item() would wait on another device)
    "csrc/kernels/composite/quantile.cpp": 1,
}


def test_kernels_do_not_branch_on_the_representation():
    """What differs between back ends is the kernel (or compute) registered for each, never a
    test of the representation inside shared code (docs/ARCHITECTURE.md, "Adding an op"): Meta's
    kernel is the checks alone, a template flag away from the CPU's."""
    pattern = re.compile(r"representation\(\) [!=]=|[!=]= (Representation|DeviceType)::")
    found = {}
    for p in sorted((ROOT / "csrc/kernels").rglob("*")):
        if p.suffix not in {".h", ".cpp"} or p.parent.name in {"meta", "test_backend"}:
            continue
        n = sum(1 for line in p.read_text().splitlines() if pattern.search(line))
        if n:
            found[str(p.relative_to(ROOT))] = n
    assert found == TESTS_OF_THE_REPRESENTATION


def test_composites_build_no_views_by_hand():
    """Composites call the door's view ops (STYLE.md; issue 7 item 5): make_view lives in the
    view ops (csrc/kernels/views/) and in back ends' own kernels, never in kernels/composite/."""
    offenders = [str(p) for p in (ROOT / "csrc/kernels/composite").rglob("*")
                 if p.suffix in {".h", ".cpp"} and "make_view" in p.read_text()]
    assert offenders == []
