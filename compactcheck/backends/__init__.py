"""The machinery that calls a compactor: the protocol, harness and worker processes, calls in
this process."""
