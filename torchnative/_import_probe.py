"""Does `import MODULE` complete under this interpreter? Used by tools/status.py.

Run by path, `python -I _import_probe.py MODULE [EXPECTED_C]`; one `@json` message: ok with the
module's file and whether torch got imported along the way, or the failure (step, type, last line
of the message, innermost file:line). With EXPECTED_C, first checks which _C torch would load.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # for torchnative._child, stdlib only
from torchnative import _child  # noqa: E402


def main(module: str, expect_c: str | None) -> None:
    if expect_c is not None:
        with _child.step("locate torch", announce=False):
            _child.locate_torch(expect_c)
    start = time.perf_counter()
    with _child.step(f"import {module}", announce=False):
        loaded = importlib.import_module(module)
    _child.send({"ok": True, "file": getattr(loaded, "__file__", None),
                 "seconds": time.perf_counter() - start, "imported_torch": "torch" in sys.modules})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
