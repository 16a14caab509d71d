"""torchnative's command line: `python -m torchnative demo [--out DIR]`."""

from __future__ import annotations

import sys

COMMANDS = {"demo": "all-MiniLM-L6-v2 embeddings under ours and upstream, compared"}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print("usage: python -m torchnative COMMAND [options]\n\ncommands:", file=sys.stderr)
        for name, what in COMMANDS.items():
            print(f"  {name:8} {what}", file=sys.stderr)
        return 2
    from torchnative import demo

    return demo.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
