"""torch.use_deterministic_algorithms (issue 9, item 5: the everyday API), ours and upstream each
in its own process: the mode and its warn_only form as the getters report them; the factories
that leave memory uninitialised filling it while the mode is on (NaN, NaN + 0j, an integer
dtype's largest value, True; resize_'s new elements only; meta tensors untouched;
torch.utils.deterministic.fill_uninitialized_memory turning it off); put_ without accumulate
raising RuntimeError (or warning, with warn_only) with upstream's words."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import BITS_PRELUDE, CASES_PRELUDE, cases_differing  # noqa: E402

CODE = CASES_PRELUDE + BITS_PRELUDE + r"""
import torch.utils.deterministic
warnings.simplefilter("always")
def state():
    return [torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
            torch.get_deterministic_debug_mode(),
            torch.utils.deterministic.fill_uninitialized_memory]
def warned(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = f()
    # (upstream's build appends where it warned: " (Triggered internally at ...)")
    return [bits(r), [str(x.message).split(" (Triggered internally")[0] for x in w]]
def grown():
    x = torch.arange(3.)
    x.resize_(2, 3)
    return x
def put(acc=False):
    return torch.zeros(4).put_(torch.tensor([0, 0]), torch.tensor([1., 2.]), accumulate=acc)
case("off", state)
torch.use_deterministic_algorithms(True)
case("on", state)
for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64,
           torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool):
    case(f"empty_{dt}", lambda: bits(torch.empty(2, 3, dtype=dt)) if not dt.is_complex
         else bits(torch.view_as_real(torch.empty(2, 3, dtype=dt))))
case("empty_strided", lambda: bits(torch.empty_strided((2, 3), (1, 2))))
case("empty_like", lambda: bits(torch.empty_like(torch.ones(3, dtype=torch.int32))))
case("new_empty", lambda: bits(torch.ones(2).new_empty(4)))
case("new_empty_strided", lambda: bits(torch.ones(2).new_empty_strided((2,), (2,))))
case("empty_permuted", lambda: bits(torch.empty_permuted((2, 3), (1, 0))))
case("resize_grown", lambda: bits(grown()))
case("resize_shrunk", lambda: bits(torch.arange(6.).resize_(2)))
case("meta", lambda: str(torch.empty(2, device="meta").device))
case("put", lambda: put())
case("put_accumulate", lambda: bits(put(True)))
torch.use_deterministic_algorithms(True, warn_only=True)
case("warn_only", state)
case("put_warn_only", lambda: warned(put))
case("empty_warn_only", lambda: bits(torch.empty(2)))
torch.utils.deterministic.fill_uninitialized_memory = False
case("no_fill", state)
case("no_fill_resize", lambda: bits(torch.zeros(0).resize_(0)))
torch.utils.deterministic.fill_uninitialized_memory = True
torch.set_deterministic_debug_mode("warn")
case("debug_mode_warn", state)
torch.set_deterministic_debug_mode(0)
case("off_again", state)
case("put_off", lambda: bits(put()))
case("bad_mode", lambda: torch.use_deterministic_algorithms("yes"))
case("kw_only", lambda: torch._C._set_deterministic_algorithms(True, True))
case("bad_warn_only", lambda: torch._C._set_deterministic_algorithms(True, warn_only=1))
case("bad_kw", lambda: torch._C._set_deterministic_algorithms(True, only=True))
print(json.dumps(out))
"""


def test_deterministic_mode_agrees_with_upstream():
    ours, upstream, differ = cases_differing(CODE)
    assert not differ, differ
    # not vacuous: the mode was on, empty filled, put_ refused then warned
    assert upstream["on"][:2] == [True, False]
    assert upstream["empty_torch.int8"][-1] == [[127] * 3] * 2
    assert upstream["put"][:2] == ["raises", "RuntimeError"]
    assert "warn_only=True" in upstream["put_warn_only"][1][0]
