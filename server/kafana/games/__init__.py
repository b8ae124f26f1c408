"""Pure game rules: no I/O, and nothing of grpc, redis or protobuf."""
