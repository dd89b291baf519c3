"""The direct path's shared SSL context (model/transport.py): warmed once, still verifying; a
plain-http endpoint never loads the certificate bundle, and its context trusts nothing. httpx comes
without its CLI and httpcore's HTTP/2 modules, and both still work when asked for."""

from __future__ import annotations

import ssl
import subprocess
import sys
import threading

from flue_tui.model import transport


def test_clients_share_one_verifying_context() -> None:
    threads = [threading.Thread(target=transport.ssl_context) for _ in range(4)]  # warm races
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    context = transport.ssl_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    url = "https://api.openai.com/v1/chat/completions"
    first, second = transport.new_client(5.0, url), transport.new_client(5.0, url)
    assert first is not second
    assert transport.ssl_context() is context


def test_cert_file_from_the_environment_is_honoured(tmp_path, monkeypatch) -> None:
    # trust_env: SSL_CERT_FILE names the bundle, as for an httpx client built with verify=True.
    monkeypatch.setattr(transport, "_context", None)
    bundle = tmp_path / "empty.pem"
    bundle.write_text("")
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    try:
        transport.ssl_context()
    except ssl.SSLError:
        pass  # an empty bundle is refused by OpenSSL: it was read, not ignored for certifi's
    else:
        raise AssertionError("SSL_CERT_FILE was not read")


def test_a_plain_http_endpoint_loads_no_certificates_and_could_not_make_a_tls_connection(monkeypatch) -> None:
    monkeypatch.setattr(transport, "_context", None)
    transport.warm("http://127.0.0.1:11434/v1/chat/completions")
    client = transport.new_client(5.0, "http://localhost:8080/v1/chat/completions")
    assert transport._context is None  # the bundle was never read
    context = client._transport._pool._ssl_context  # what a TLS connection through it would use
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0 and context is not transport.ssl_context()


def test_httpx_comes_without_its_command_line_client_or_http2() -> None:
    # A fresh interpreter: this one has httpx already. Its CLI (click, rich's progress bars) and
    # httpcore's HTTP/2 modules (h2) are not imported with it; both still work when asked for.
    script = (
        "import sys\n"
        "from flue_tui.model import transport\n"
        "transport.warm('http://127.0.0.1:9/v1/chat/completions')\n"
        "assert 'httpx' in sys.modules and 'httpx._main' not in sys.modules, sorted(sys.modules)\n"
        "assert 'click' not in sys.modules and 'h2' not in sys.modules\n"
        "import httpx._main\n"
        "assert callable(httpx._main.main)\n"
        "from httpcore._async.http2 import AsyncHTTP2Connection\n"
        "assert AsyncHTTP2Connection.__module__ == 'httpcore._async.http2'\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


H2_SERVER_AND_CLIENT = """
import asyncio, socket, sys, threading
from flue_tui.model import transport

http = transport.httpx()  # first: the HTTP/2 modules skipped
assert "h2" not in sys.modules
import h2.config, h2.connection, h2.events  # the server side, a plain h2c endpoint

listener = socket.create_server(("127.0.0.1", 0))

def serve():
    sock, _ = listener.accept()
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    while True:
        data = sock.recv(65536)
        if not data:
            return
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                conn.send_headers(event.stream_id, [(":status", "200"), ("content-type", "text/plain")])
                conn.send_data(event.stream_id, b"over h2", end_stream=True)
        sock.sendall(conn.data_to_send())

threading.Thread(target=serve, daemon=True).start()

async def main():
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
    async with http.AsyncClient(http1=False, http2=True) as client:  # prior knowledge, as litellm's LITELLM_HTTP2 may ask
        response = await client.get(url)
    assert (response.http_version, response.text) == ("HTTP/2", "over h2"), (response.http_version, response.text)

asyncio.run(main())
"""


def test_an_http2_client_still_works_after_the_skipped_import() -> None:
    done = subprocess.run([sys.executable, "-c", H2_SERVER_AND_CLIENT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
