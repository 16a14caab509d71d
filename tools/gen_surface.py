"""Generate torch._C's name surface from the wheel's stubs and a scan of the Python tree.

With --upstream-names (listed from the official wheel's torch._C at build time), a top-level
name exists here exactly when upstream's CPU build has it, and so does a name of
torch._C._distributed_c10d or torch._C._distributed (c10d is on; rpc and distributed autograd
are off here, see Note [torch.distributed in one process]); without it, names the tree probes
with hasattr are left out.

Reads torch/_C/**/*.pyi (what upstream's _C declares) and scans torch/, torchgen/, functorch/ for
names the tree reads from torch._C (attribute uses, `from torch._C import`) and for `hasattr`
probes (absence is an off switch). Writes one C++ table, `surface_table.inc`, that
csrc/python/surface.cpp turns into placeholders for every name no hand-written code supplies.
Run at build time by CMake; nothing it writes is committed.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

# Names whose absence tells the tree a subsystem is off (see PRIOR_ART.md, "absence is an off
# switch"). Any name the tree probes with hasattr/getattr(torch._C, ...) is left out too.
OFF_PREFIXES = (
    "_cuda", "_xpu", "_mps", "_mtia", "_nccl", "_gds", "_Cuda", "_CUDA", "_Xpu", "_XPU",
    "_cudnn", "_nvtx", "_cusparselt", "_c10d", "_rpc", "_dist_autograd",
    "_faulty_agent", "_distributed", "_MemPool",
    "_xpu", "_XpuDeviceProperties",
)
# Stub modules for subsystems that are off: they are not created at all.
OFF_MODULES = {
    "torch._C._distributed_c10d", "torch._C._distributed_rpc", "torch._C._distributed_autograd",
    "torch._C._distributed_rpc_testing", "torch._C._cudnn", "torch._C._nvtx",
    "torch._C._cusparselt", "torch._C._distributed",
}
# Probed names that must exist even though a probe reads them.
KEEP_PROBED = {"_DistError", "_DistBackendError", "_DistNetworkError", "_DistStoreError",
               "_MTIAGraph"}

# Enums the tree uses but the stubs omit (PRIOR_ART.md, wall 9), with upstream's member order.
EXTRA_ENUMS = {
    "_ScalingType": ["TensorWise", "RowWise", "BlockWise1x16", "BlockWise1x32",
                     "BlockWise1x128", "BlockWise128x128"],
    "_SwizzleType": ["NO_SWIZZLE", "SWIZZLE_32_4_4"],
}

# Values the stubs declare in torch._C but upstream's _initExtension puts into torch itself.
TORCH_LEVEL_VALUES = {"dtype", "layout", "memory_format", "qscheme"}
LEGACY_TENSOR_TYPES = {"DoubleTensor", "FloatTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
                       "ShortTensor", "HalfTensor", "CharTensor", "ByteTensor", "BoolTensor"}

KIND = {"module": 0, "function": 1, "class": 2, "method": 3, "attr": 4, "value": 5,
        "enum": 6, "member": 7, "scanned": 8}


def module_name(pyi: Path, root: Path) -> str:
    rel = pyi.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["torch", "_C"] + parts)


def base_names(cls: ast.ClassDef) -> list[str]:
    out = []
    for b in cls.bases:
        node = b.value if isinstance(b, ast.Subscript) else b
        text = ast.unparse(node)
        out.append(text.split(".")[-1])
    return out


def is_enum(cls: ast.ClassDef) -> bool:
    return any(b in ("Enum", "IntEnum") for b in base_names(cls))


class Surface:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str]] = []
        self.seen: set[tuple[str, str, str]] = set()

    def add(self, module: str, cls: str, name: str, kind: str, extra: str = "") -> None:
        key = (module, cls, name)
        if key in self.seen:
            return
        self.seen.add(key)
        self.rows.append((module, cls, name, kind, extra))


# Names upstream's CPU build has (listed from the upstream environment at build time), or None.
UPSTREAM_NAMES: set[str] | None = None
# Subsystems that are off here although upstream's CPU wheel has them: rpc and distributed
# autograd (their tree packages probe _rpc_init / _dist_autograd_init and switch themselves off).
OFF_EVEN_IF_UPSTREAM = ("_rpc", "_dist_autograd", "_faulty_agent", "_distributed_rpc",
                        "_distributed_autograd")
# Names of mirrored modules that upstream has and we do not: there is no Gloo here, so
# torch.distributed.is_gloo_available() says False and init_process_group("gloo") refuses.
ABSENT_HERE = {"_distributed_c10d.ProcessGroupGloo", "_distributed_c10d._ProcessGroupWrapper"}
# Stub modules that exist here when upstream's names are known; their names mirror upstream's.
MIRRORED_MODULES = {"torch._C._distributed_c10d", "torch._C._distributed"}


def off(name: str, probed: set[str], module: str = "torch._C") -> bool:
    if name in KEEP_PROBED:
        return False
    if UPSTREAM_NAMES is not None:
        if module in MIRRORED_MODULES:
            key = f"{module.rsplit('.', 1)[1]}.{name}"
            return key not in UPSTREAM_NAMES or key in ABSENT_HERE
        if module != "torch._C":
            return name.startswith(OFF_EVEN_IF_UPSTREAM)
        # Mirror upstream's CPU build: absent there, absent here (its probes then agree).
        return name not in UPSTREAM_NAMES or name.startswith(OFF_EVEN_IF_UPSTREAM)
    return name in probed or name.startswith(OFF_PREFIXES)


def read_stub(surface: Surface, module: str, tree: ast.Module, probed: set[str]) -> None:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not off(node.name, probed, module):
                surface.add(module, "", node.name, "function")
        elif isinstance(node, ast.ClassDef):
            if off(node.name, probed, module) or (base_names(node) == ["Tensor"] and
                                          node.name in LEGACY_TENSOR_TYPES):
                continue
            read_class(surface, module, node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
            ann = ast.unparse(node.annotation)
            if ann == "TypeAlias" or ann in TORCH_LEVEL_VALUES or off(name, probed, module):
                continue
            surface.add(module, "", name, "value", ann)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and not off(t.id, probed, module):
                    val = node.value
                    if isinstance(val, ast.Call) and ast.unparse(val.func) in (
                            "TypeVar", "ParamSpec"):
                        continue
                    surface.add(module, "", t.id, "value", "")


def read_class(surface: Surface, module: str, node: ast.ClassDef) -> None:
    if is_enum(node):
        surface.add(module, "", node.name, "enum", ",".join(base_names(node)))
        for item in node.body:
            if isinstance(item, ast.Assign):
                for t in item.targets:
                    if isinstance(t, ast.Name):
                        surface.add(module, node.name, t.id, "member")
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                surface.add(module, node.name, item.target.id, "member")
        return
    bases = base_names(node)
    # The stubs' JitType is upstream's torch._C.Type (the real base of every JIT type class).
    bases = [("Type" if b == "JitType" and node.name != "Type" else b) for b in bases
             if not (b == "JitType" and node.name == "Type")]
    surface.add(module, "", node.name, "class", ",".join(bases))
    for item in node.body:
        # A nested class (Backend.Options) is a placeholder class on its outer class; nested
        # enums are hand-written where the tree needs them (ProcessGroup.BackendType).
        if isinstance(item, ast.ClassDef) and not is_enum(item):
            surface.add(module, node.name, item.name, "class", ",".join(base_names(item)))
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decos = {ast.unparse(d) for d in item.decorator_list}
            kind = "attr" if "property" in decos else "method"
            surface.add(module, node.name, item.name, kind)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            surface.add(module, node.name, item.target.id, "attr")
        elif isinstance(item, ast.Assign):
            for t in item.targets:
                if isinstance(t, ast.Name):
                    surface.add(module, node.name, t.id, "attr")


PROBE_RE = re.compile(r"""(?:hasattr|getattr)\(\s*torch\._C\s*,\s*["']([A-Za-z_0-9]+)["']""")
USE_RE = re.compile(r"\btorch\._C\.([A-Za-z_][A-Za-z_0-9]*)")
FROM_RE = re.compile(r"^\s*from torch\._C import (?:\(([^)]*)\)|([^\n(]*))", re.M)


def scan_tree(site: Path) -> tuple[set[str], set[str]]:
    """Return (probed names, names the tree reads as torch._C.X) over torch/torchgen/functorch."""
    probed: set[str] = set()
    used: set[str] = set()
    for pkg in ("torch", "torchgen", "functorch"):
        for path in (site / pkg).rglob("*.py"):
            text = path.read_text(encoding="utf-8", errors="replace")
            if "_C" not in text:
                continue
            probed.update(PROBE_RE.findall(text))
            used.update(USE_RE.findall(text))
            for paren, line in FROM_RE.findall(text):
                group = paren or line.split("#")[0]
                for piece in re.sub(r"#[^\n]*", "", group).replace("\n", ",").split(","):
                    word = piece.split(" as ")[0].strip().strip("()")
                    if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", word or "-"):
                        used.add(word)
    return probed, used


DOCSTR_RE = re.compile(r"add_docstr_all\(\s*[\"']([A-Za-z_0-9]+)[\"']")
BASE_USE_RE = re.compile(r"\b(?:torch\._C\.)?TensorBase\.([A-Za-z_][A-Za-z_0-9]*)")


def scan_tensor_members(site: Path) -> set[str]:
    """TensorBase members the tree documents (add_docstr_all) or reads (TensorBase.X)."""
    names: set[str] = set()
    for path in (site / "torch").rglob("*.py"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "TensorBase" in text or "add_docstr_all" in text:
            names.update(DOCSTR_RE.findall(text))
            names.update(BASE_USE_RE.findall(text))
    return names


def cstr(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("site", type=Path, help="site-packages holding the assembled torch tree")
    ap.add_argument("out", type=Path)
    ap.add_argument("--upstream-names", type=Path,
                    help="JSON list of the names upstream's torch._C has (from its environment)")
    args = ap.parse_args()
    global UPSTREAM_NAMES
    if args.upstream_names:
        import json

        UPSTREAM_NAMES = set(json.loads(args.upstream_names.read_text()))
    stub_root = args.site / "torch" / "_C"
    probed, used = scan_tree(args.site)
    surface = Surface()
    stubs = sorted(stub_root.rglob("*.pyi"))
    off_modules = OFF_MODULES - (MIRRORED_MODULES if UPSTREAM_NAMES is not None else set())
    for pyi in stubs:
        module = module_name(pyi, stub_root)
        if module in off_modules:
            continue
        if module != "torch._C":
            surface.add(module, "", "", "module")
    for pyi in stubs:
        module = module_name(pyi, stub_root)
        if module in off_modules:
            continue
        read_stub(surface, module, ast.parse(pyi.read_text()), probed)
    for name, members in EXTRA_ENUMS.items():
        surface.add("torch._C", "", name, "enum", "Enum")
        for member in members:
            surface.add("torch._C", name, member, "member")
    for name in sorted(scan_tensor_members(args.site)):
        surface.add("torch._C", "TensorBase", name, "method")
    known = {name for (m, c, name) in surface.seen if m == "torch._C" and not c}
    known |= {m.rsplit(".", 1)[1] for (m, c, name) in surface.seen if m.count(".") == 2}
    known.add("__dict__")
    for name in sorted(used - known):
        if not off(name, probed) and name not in {"_C"}:
            surface.add("torch._C", "", name, "scanned")
    lines = [
        "// Generated by tools/gen_surface.py from the wheel's torch/_C stubs; do not edit.",
        "// module, class, name, kind, extra",
    ]
    for module, cls, name, kind, extra in surface.rows:
        lines.append(f"{{{cstr(module)}, {cstr(cls)}, {cstr(name)}, {KIND[kind]}, {cstr(extra)}}},")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    if not args.out.exists() or args.out.read_text() != text:
        args.out.write_text(text)
    print(f"gen_surface: {len(surface.rows)} entries, {len(probed)} probed names left out",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
