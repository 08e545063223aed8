"""The developers' tools beside the product (not installed): the commands that regenerate committed files from
proto/ (`python -m tools.proto_code`, `python -m tools.proto_reference`). They need grpcio-tools, a test
dependency."""
