"""The gRPC service: thin RPCs over the table logic, the store, the clock and the server."""
