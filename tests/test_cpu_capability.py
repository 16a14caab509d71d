"""The CPU build our kernels run at follows upstream's, and each build agrees with upstream's.

Upstream picks its kernels' instruction set once (AVX-512, AVX2 or the baseline, lowered by
ATEN_CPU_CAPABILITY), and oneDNN and MKL, inside it, pick their own (lowered by
ONEDNN_MAX_CPU_ISA and MKL_ENABLE_INSTRUCTIONS). Bits that differ between those builds (NaN
payloads of softmax, gelu's special values) differ in ours the same way (csrc/kernels/cpu/
cpu_isa.h). A machine runs one build natively; here the numeric suites run again with all three
variables at AVX2 for ours and upstream alike, so an AVX-512 machine checks the AVX2 build too
(the project's machines have been both).
"""

import os
import subprocess
import sys

import pytest

from tests.helpers import OURS, ROOT, UPSTREAM

CAPABILITY = "import torch; print(torch.backends.cpu.get_cpu_capability())"

# The suites whose answers depend on the instruction set: the op tests, the elementwise
# agreement cases and the whole model.
NUMERIC_SUITES = ["tests/ops", "tests/test_elementwise_agreement.py", "tests/test_minilm.py"]
AVX2 = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2"}


def capability(python, value):
    env = {k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"}
    if value is not None:
        env["ATEN_CPU_CAPABILITY"] = value
    proc = subprocess.run([str(python), "-I", "-c", CAPABILITY], capture_output=True, text=True,
                          env=env, cwd="/", timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout.strip()


@pytest.mark.parametrize("value", [None, "avx512", "avx2", "default"])
def test_capability_is_upstreams(value):
    if value == "avx512" and capability(OURS, None) != "AVX512":
        pytest.skip("no AVX-512 here: upstream would take the value and fault at its first "
                    "AVX-512 kernel, ours keeps the CPU's build")
    ours, up = capability(OURS, value), capability(UPSTREAM, value)
    assert ours == up
    assert ours in ("AVX512", "AVX2", "DEFAULT")


def test_an_unknown_capability_is_ignored_as_upstream_ignores_it():
    assert capability(OURS, "avx9000") == capability(OURS, None) == capability(UPSTREAM,
                                                                                  "avx9000")


def test_numeric_suites_agree_at_the_avx2_build():
    if os.environ.get("ATEN_CPU_CAPABILITY"):
        pytest.skip("already running at a chosen build")
    if capability(OURS, None) != "AVX512":
        pytest.skip("this machine's own build is AVX2 or narrower: the plain run covers it")
    env = dict(os.environ, **AVX2)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *NUMERIC_SUITES], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=1800)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
