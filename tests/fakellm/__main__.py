"""Standalone fake LLM server for people and benchmarks.

    uv run python -m tests.fakellm --port 0 --script script.json [--loop] [--api anthropic|ollama]

The first stdout line is `FAKELLM_URL=http://127.0.0.1:PORT/v1` (flushed), so a
parent process can read the URL; then it serves until SIGINT/SIGTERM. With `--api anthropic`
the URL is for ANTHROPIC_API_BASE, with `--api ollama` for OLLAMA_HOST.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from .anthropic import FakeAnthropic
from .ollama import FakeOllama
from .script import load_script
from .server import FakeLLM

SERVERS = {"openai": FakeLLM, "anthropic": FakeAnthropic, "ollama": FakeOllama}


def main(argv: list[str] | None = None, stop: threading.Event | None = None) -> int:
    """Serve until SIGINT/SIGTERM, or until `stop` is set (tests run this in a
    thread, where signal handlers cannot be installed)."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.fakellm",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--script", help="JSON list of turn objects (Turn field names)")
    parser.add_argument("--loop", action="store_true", help="replay the script forever")
    parser.add_argument("--api", choices=sorted(SERVERS), default="openai", help="which API to stand in for")
    parser.add_argument("--models", help="comma-separated ids /v1/models (or Ollama's /api/tags) lists")
    parser.add_argument("-v", "--verbose", action="store_true", help="log requests to stderr")
    args = parser.parse_args(argv)

    turns = load_script(args.script) if args.script else []
    if args.loop and not turns:
        parser.error("--loop needs a non-empty --script")

    if stop is None:
        stop = threading.Event()
        # Signal handlers only set the event; the main thread does the shutdown.
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())

    with SERVERS[args.api](turns, host=args.host, port=args.port, loop_script=args.loop, verbose=args.verbose) as llm:
        if args.models and isinstance(llm, FakeOllama):
            llm.models = dict.fromkeys(args.models.split(","), 32768)
        elif args.models:
            llm.served_models = args.models.split(",")
        print(f"FAKELLM_URL={llm.base_url}", flush=True)
        while not stop.wait(0.5):  # wait() with a timeout so signals are handled promptly
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
