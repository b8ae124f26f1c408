"""Generated protobuf and gRPC code of `proto/kafana/v1` (scripts/gen_proto.py)."""
