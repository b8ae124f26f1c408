"""Generate the Python code of `proto/kafana/v1/*.proto` into `server/kafana/v1/`.

The one way generated code is made; nobody edits it by hand. A test regenerates into a
temporary directory and checks the committed files are the same. Beside the code it writes
`kafana.binpb`, the protos' descriptor set with their comments (`--include_source_info`):
server reflection answers from it, so tools show every field's documentation.

Usage: `python scripts/gen_proto.py [--out DIR]` (DIR defaults to `server`).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PACKAGE = Path("kafana") / "v1"
INIT_TEXT = '"""Generated protobuf and gRPC code of `proto/kafana/v1` (scripts/gen_proto.py)."""\n'
DESCRIPTOR_SET = "kafana.binpb"
"""The descriptor set (a `google.protobuf.FileDescriptorSet`, with source info) beside the code."""


def _plugin(name: str) -> str | None:
    """The path of a protoc plugin next to this interpreter, or on PATH."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    return shutil.which(name)


def generate(out_root: Path) -> list[Path]:
    """Generate into `out_root/kafana/v1`; return the files written, sorted."""
    target = out_root / PACKAGE
    if target.exists():
        for old in target.glob("*_pb2*.py*"):
            old.unlink()
    target.mkdir(parents=True, exist_ok=True)
    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / PACKAGE).glob("*.proto"))
    include = str(resources.files("grpc_tools") / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out_root}",
        f"--grpc_python_out={out_root}",
        "--include_imports",  # self-contained, in dependency order
        "--include_source_info",
        f"--descriptor_set_out={target / DESCRIPTOR_SET}",
    ]
    mypy, mypy_grpc = _plugin("protoc-gen-mypy"), _plugin("protoc-gen-mypy_grpc")
    if mypy and mypy_grpc:
        args += [
            f"--plugin=protoc-gen-mypy={mypy}",
            f"--plugin=protoc-gen-mypy_grpc={mypy_grpc}",
            f"--mypy_out={out_root}",
            f"--mypy_grpc_out={out_root}",
        ]
    code = protoc.main([*args, *protos])
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    (target / "__init__.py").write_text(INIT_TEXT)
    (out_root / "kafana" / "__init__.py").touch(exist_ok=True)
    return sorted(p for p in target.iterdir() if p.is_file())


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "server", help="output root")
    options = parser.parse_args()
    for path in generate(options.out):
        print(path.relative_to(options.out))


if __name__ == "__main__":
    main()
