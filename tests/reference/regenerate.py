"""Re-run the R snippets of the committed references and rewrite their files (needs R).

    python tests/reference/regenerate.py                      # every reference
    python tests/reference/regenerate.py 'local_parity_r/*'   # names matching shell patterns

Run it by hand after changing a snippet, its inputs or a sourced R file (the tests then say
"reference ... is stale"), or to record a new R; it runs R on freshly made inputs and stores
them with R's output. Review the diff of the numbers before committing. See
tests/rreference.py for the file format.
"""

from __future__ import annotations

import fnmatch
import sys
import time
from pathlib import Path


def main(patterns: list[str]) -> int:
    from tests.rreference import all_references, reference_files

    refs = all_references()
    chosen = [ref for name, ref in refs.items()
              if not patterns or any(fnmatch.fnmatch(name, p) for p in patterns)]
    if not chosen:
        print(f"no reference matches {patterns}; known: {', '.join(refs)}", file=sys.stderr)
        return 1
    for ref in chosen:
        start = time.perf_counter()
        ref.regenerate()
        print(f"{ref.name:60s} {time.perf_counter() - start:6.1f} s")
    unused = sorted(reference_files() - refs.keys())
    if unused:
        print("files no test uses (delete them):", *(f"{n}.json" for n in unused), sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root
    sys.exit(main(sys.argv[1:]))
