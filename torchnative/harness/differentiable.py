"""Which aten overloads upstream's autograd differentiates, decided by torchgen from the wheel.

Runs under .venv-upstream (`python differentiable.py OUT.json`); imports torchgen, not torch.
Writes, for every overload of native_functions.yaml, its class and the formula it takes:
  differentiable      a derivatives.yaml formula (its own, or, for an in-place overload or a
                      foreach one, the one torchgen matches to it) with a differentiable output
                      and an input it differentiates; or a CompositeImplicitAutograd overload
                      with no formula and a Tensor output (differentiated through its pieces);
                      or one whose autograd upstream writes by hand (copy_)
  non_differentiable  no Tensor input (a factory); no Tensor output (nor a Tensor it
                      writes); a formula whose outputs are all marked non-differentiable,
                      or whose every input is `non_differentiable`; exempted by torchgen's
                      DONT_REQUIRE_DERIVATIVE (empty_like, ones_like, ...); or no formula
                      where upstream's autograd records nothing
  no_formula          no formula and not composite (or an in-place foreach op whose per-tensor
                      op has none to derive from): upstream records its NotImplemented node
  out                 an out= overload: upstream's autograd refuses out= arguments that
                      require grad, so there is no gradient to grade
A differentiable overload with a formula also lists its Tensor arguments the formula does not
differentiate ("frozen": nll_loss_forward's weight, native_batch_norm's running_mean), which
upstream refuses to see requiring grad; draw_bwd.py's top-up cases leave them as they are.
The rule is docs/AGREEMENT_RULES.md's "Backward coverage"; report.py applies it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from gen_ops import MANUAL_DIFFERENTIABLE as MANUAL  # noqa: E402
from gen_ops import upstream_no_derivative  # noqa: E402


def classify() -> dict[str, dict]:
    """Overload key (aten.exp_.default) -> {"class", "why", "formula"}."""
    import torchgen
    from torchgen.api.autograd import gen_differentiable_outputs, match_differentiability_info
    from torchgen.context import native_function_manager
    from torchgen.gen import parse_native_yaml
    from torchgen.model import SchemaKind
    from torchgen.packaged.autograd.gen_variable_type import DONT_REQUIRE_DERIVATIVE
    from torchgen.packaged.autograd.load_derivatives import load_derivatives

    root = Path(torchgen.__file__).parent / "packaged"
    native = root / "ATen" / "native"
    parsed = parse_native_yaml(str(native / "native_functions.yaml"), str(native / "tags.yaml"))
    infos, _ = load_derivatives(str(root / "autograd" / "derivatives.yaml"),
                                str(native / "native_functions.yaml"), str(native / "tags.yaml"))
    # The overloads whose calls upstream gives its NotImplemented node: gen_ops.py's rule.
    refused = upstream_no_derivative(native, parsed)
    out: dict[str, dict] = {}
    for fn in match_differentiability_info(parsed.native_functions, infos):
        f = fn.func
        key = f"aten.{f.func.name.name}.{f.func.name.overload_name or 'default'}"
        name = f.func.name.name
        info = (fn.info or {}).get("Default")
        # An in-place op that returns nothing (_foreach_add_) has its written inputs as outputs.
        writes = [a.name for a in f.func.arguments.flat_all
                  if a.annotation is not None and a.annotation.is_write
                  and a.type.is_tensor_like()]
        tensor_out = any(r.type.is_tensor_like() for r in f.func.returns) or bool(writes)
        tensor_in = any(a.type.is_tensor_like() for a in f.func.arguments.flat_all)
        formula = str(info.func.func.name) if info is not None else None
        frozen: list[str] = []
        if f.func.kind() == SchemaKind.out:
            cls, why = "out", "an out= overload (autograd refuses out= arguments)"
        elif str(name) in MANUAL:
            cls, why = "differentiable", "autograd written by hand upstream"
        elif name.base in DONT_REQUIRE_DERIVATIVE or str(name) in DONT_REQUIRE_DERIVATIVE:
            cls, why = "non_differentiable", "torchgen's DONT_REQUIRE_DERIVATIVE"
        elif not tensor_in:
            cls, why = "non_differentiable", "no Tensor input"
        elif not tensor_out:
            cls, why = "non_differentiable", "no Tensor output"
        elif info is not None:
            with native_function_manager(f):
                outputs = gen_differentiable_outputs(fn) if f.func.returns else writes
            if not outputs:
                cls, why = "non_differentiable", "every output marked non-differentiable"
            elif not info.args_with_derivatives:
                cls, why = "non_differentiable", "every input non_differentiable"
            else:
                cls, why = "differentiable", f"formula of {formula}"
                wrt = {a.name for a in info.args_with_derivatives}
                frozen = [a.name for a in f.func.arguments.flat_non_out
                          if a.type.is_tensor_like() and a.name not in wrt]
        elif f.has_composite_implicit_autograd_kernel:
            cls, why = "differentiable", "CompositeImplicitAutograd (through its pieces)"
        elif str(f.func.name) in refused:
            cls, why = "no_formula", "no formula: upstream records its NotImplemented node"
        elif str(name).startswith("_foreach_") and f.func.kind() == SchemaKind.inplace:
            # tools/gen_ops.py's foreach_derivatives: no per-tensor formula to derive from.
            cls, why = "no_formula", "no formula: upstream records its NotImplemented node"
        else:
            cls, why = "non_differentiable", "no formula, and upstream's autograd records none"
        out[key] = {"class": cls, "why": why, "formula": formula, "frozen": frozen}
    return out


def main(argv: list[str]) -> int:
    Path(argv[0]).write_text(json.dumps(classify(), indent=0, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
