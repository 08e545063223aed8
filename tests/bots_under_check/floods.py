"""A bot that says Hello and then floods its stream with answers to requests it was never sent (and connects
again whenever the arena closes the stream).

    python -m tests.bots_under_check.floods --target HOST:PORT     (token: $UNO_ARENA_BOT_TOKEN)
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Iterator

import grpc

from arena.protocol import AUTH_METADATA_KEY, AUTH_SCHEME, PROTOCOL_VERSION, bot_pb2
from bots.kit import CONNECT_METHOD, bot_token


def messages() -> Iterator[bot_pb2.BotMessage]:
    yield bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_version=PROTOCOL_VERSION,  # type: ignore[arg-type]
                                                 bot_version="floods", max_concurrent_matches=4))
    for n in itertools.count():
        yield bot_pb2.BotMessage(decision=bot_pb2.Decision(match_id="no-such-match", request_id=f"r{n}",
                                                           action_index=0))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    args = parser.parse_args()
    metadata = ((AUTH_METADATA_KEY, f"{AUTH_SCHEME} {bot_token()}"),)
    while True:
        with grpc.insecure_channel(args.target) as channel:
            connect = channel.stream_stream(CONNECT_METHOD, request_serializer=bot_pb2.BotMessage.SerializeToString,
                                            response_deserializer=bot_pb2.ArenaMessage.FromString)
            try:
                for _message in connect(messages(), metadata=metadata):
                    pass
            except grpc.RpcError as error:
                print(f"floods: stream ended: {error.code().name}", file=sys.stderr, flush=True)
        time.sleep(0.2)


if __name__ == "__main__":
    main()
