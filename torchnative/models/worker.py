"""One interpreter's half of the architecture sweep (`python -I worker.py`, ours or upstream's).

Commands, one per line on stdin (torchnative/_child.py's protocol), each answered by one message:
- `LIST`: every (model type, head, class) the installed transformers offers (recipes.py).
- `BUILD TYPE HEAD CLASS DIR` (upstream): builds the class from the type's small config under
  the sweep's seed, draws the inputs, runs forward in float32, saves the model with
  save_pretrained into DIR and checks that upstream's own from_pretrained loads it, then runs
  forward with the model and floating inputs in float64; writes DIR/upstream.pkl.
- `RUN CLASS DIR OUT` (ours): loads DIR with the real from_pretrained, runs forward on the
  recorded inputs, writes OUT.
A step that raises is answered with its exception (type, first message line, innermost frame
of torch or transformers), never by ending the worker; a crash ends it, and the parent notes it.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from torchnative._child import commands, progress, send  # noqa: E402


def failure(exc: BaseException, step: str) -> dict:
    frames = traceback.extract_tb(exc.__traceback__)
    inner = [f for f in frames if "site-packages" in f.filename] or frames
    where = ""
    if inner:
        parts = Path(inner[-1].filename).parts
        short = parts[parts.index("site-packages") + 1:] if "site-packages" in parts else parts
        where = f"{Path(*short)}:{inner[-1].lineno}"
    lines = str(exc).strip().splitlines()
    return {"ok": False, "step": step, "exc": type(exc).__name__,
            "msg": (lines[0] if lines else "")[:400], "where": where}


def encoded(tensors) -> dict:
    from torchnative.harness import codec

    enc = codec.Encoder()
    tree = enc.encode(tuple(t.detach() for t in tensors))
    return {"tree": tree, **enc.state()}


def build(model_type: str, head: str, class_name: str, folder: Path) -> dict:
    import torch

    from torchnative.harness import codec
    from torchnative.models import recipes

    step = "config"
    try:
        config = recipes.small_config(model_type)
        step = "build"
        torch.manual_seed(recipes.SEED)
        model = recipes.model_class(class_name)(config).eval()
        step = "inputs"
        inputs = recipes.make_inputs(model, config)
        step = "forward"
        # Each forward starts from the same generator state, so that a model that samples in
        # its forward (VITS draws noise) draws the same numbers in float32, in float64 and in
        # ours (run() seeds the same way).
        torch.manual_seed(recipes.SEED)
        with torch.no_grad():
            out32 = recipes.float_outputs(model(**inputs))
        if not out32:
            raise LookupError("the forward returned no floating tensor")
        step = "save"
        folder.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(folder)
        # The folder must load in upstream too: else the recipe, not ours, is at fault.
        step = "from_pretrained (upstream's own)"
        recipes.model_class(class_name).from_pretrained(folder)
        step = "forward in float64"
        model = model.to(torch.float64)
        wide = {k: v.double() if v.is_floating_point() else v for k, v in inputs.items()}
        torch.manual_seed(recipes.SEED)
        with torch.no_grad():
            out64 = recipes.float_outputs(model(**wide))
    except Exception as e:  # noqa: BLE001 - upstream's own failure is a result of the sweep
        traceback.print_exc()
        return failure(e, step)
    names = list(inputs)
    record = {"inputs": encoded([inputs[k] for k in names]), "input_names": names,
              "out32": encoded(out32), "out64": encoded(out64)}
    codec.dump(record, folder / "upstream.pkl")
    return {"ok": True, "outputs": [list(t.shape) for t in out32]}


def run(class_name: str, folder: Path, out: Path) -> dict:
    import torch

    from torchnative.harness import codec
    from torchnative.models import recipes

    record = codec.load(folder / "upstream.pkl")
    step = "from_pretrained"
    try:
        model = recipes.model_class(class_name).from_pretrained(folder).eval()
        step = "inputs"
        tensors = codec.rebuild(record["inputs"])
        inputs = dict(zip(record["input_names"], codec.decode(record["inputs"]["tree"], tensors)))
        step = "forward"
        torch.manual_seed(recipes.SEED)  # as build() seeds each of upstream's forwards
        with torch.no_grad():
            outputs = recipes.float_outputs(model(**inputs))
        if os.environ.get("TN_MODELS_INJECT") == "scale":  # the sweep's own test of its judge
            outputs = [t * (1 + 2.0 ** -10) for t in outputs]
    except Exception as e:  # noqa: BLE001 - every exception is the sweep's result
        traceback.print_exc()
        return failure(e, step)
    codec.dump(encoded(outputs), out)
    return {"ok": True}


def main() -> int:
    import torch  # noqa: F401 - loaded once, before the first command
    import transformers

    transformers.logging.set_verbosity_error()
    send({"ok": True, "torch": torch.__file__, "transformers": transformers.__version__})
    for command in commands():
        verb, *args = command.split()
        progress(command)
        if verb == "LIST":
            from torchnative.models import recipes

            pairs = []
            for t in recipes.model_types():
                try:
                    pairs += [(t, h, c) for h, c in recipes.heads_for(t)]
                except Exception:  # noqa: BLE001 - a type whose mappings cannot be read
                    pairs.append((t, "?", ""))
            send({"ok": True, "pairs": pairs})
        elif verb == "BUILD":
            send(build(args[0], args[1], args[2], Path(args[3])))
        elif verb == "RUN":
            send(run(args[0], Path(args[1]), Path(args[2])))
        else:
            send({"ok": False, "step": "command", "exc": "ValueError", "msg": command,
                  "where": ""})
    return 0


if __name__ == "__main__":
    sys.exit(main())
