"""Attacks on the plain-http endpoint's certificate-less SSL context (model/transport.py): no
request from such a client reaches TLS and succeeds unverified (a real TLS server here, trusted by
the environment's SSL_CERT_FILE; the environment's proxies), and no https endpoint gets it."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from flue_tui.model import transport
from flue_tui.model.clients import client_for
from flue_tui.model.route import route

PROXY_VARS = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
)


def _self_signed(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_pem, key_pem = directory / "cert.pem", directory / "key.pem"
    cert_pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_pem, key_pem


class _TLSServer:
    """Answers `200 ok` to whatever arrives over a completed TLS handshake (a server, or a forward
    proxy: both read one request and answer it); counts the requests it answered."""

    def __init__(self, cert: Path, key: Path) -> None:
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(cert, key)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.answered = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                raw, _ = self.sock.accept()
            except OSError:
                return
            try:
                with self.context.wrap_socket(raw, server_side=True) as conn:
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
                    self.answered += 1
            except (OSError, ssl.SSLError):
                pass  # the client refused our certificate: the handshake failed, as it must


@pytest.fixture
def tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[_TLSServer, Path]]:
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    cert, key = _self_signed(tmp_path)
    server = _TLSServer(cert, key)
    yield server, cert
    server.sock.close()


async def _get(client: httpx.AsyncClient, url: str) -> str:
    async with client:
        return (await client.get(url)).text


def test_the_server_here_answers_a_client_that_trusts_it(tls) -> None:
    server, cert = tls  # the control: the failures below are verification, not a broken server
    trusting = httpx.AsyncClient(verify=ssl.create_default_context(cafile=str(cert)), trust_env=False)
    assert asyncio.run(_get(trusting, f"https://127.0.0.1:{server.port}/")) == "ok" and server.answered == 1


def test_a_plain_http_endpoints_client_refuses_tls_even_to_a_server_the_environment_trusts(tls, monkeypatch) -> None:
    server, cert = tls
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trust_env: the verifying context would trust it
    client = transport.new_client(5.0, "http://127.0.0.1:9/v1/chat/completions")
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        asyncio.run(_get(client, f"https://127.0.0.1:{server.port}/"))
    assert server.answered == 0


@pytest.mark.parametrize("var", ["HTTP_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"])
def test_an_https_proxy_from_the_environment_is_verified_for_a_plain_http_endpoint(tls, monkeypatch, var) -> None:
    """HTTP(S)_PROXY / ALL_PROXY (trust_env): a plain-http request through an https proxy is TLS to
    the proxy, with httpcore's own verifying context (never the empty one, never unverified)."""
    server, _cert = tls
    monkeypatch.setenv(var, f"https://127.0.0.1:{server.port}")
    url = "http://127.0.0.1:9/v1/chat/completions"
    client = transport.new_client(5.0, url)
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        asyncio.run(_get(client, url))
    assert server.answered == 0


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com/v1/chat/completions",
        "HTTPS://api.openai.com/v1/chat/completions",
        "Https://api.anthropic.com/v1/messages",
        "HTTP://localhost:8080/v1/chat/completions",  # an http endpoint spelled so: verified all the same
        " http://localhost:8080/v1/chat/completions",
        "\thttp://localhost:8080/v1/chat/completions",
        "http:/localhost:8080/v1",
        "httpx://localhost",
        "",
    ],
)
def test_only_an_exact_plain_http_url_gets_the_context_with_no_certificates(url: str) -> None:
    assert transport._verify(url) is transport.ssl_context()


def test_any_url_httpx_would_send_over_tls_gets_the_verifying_context() -> None:
    shapes = ["https://h/x", "HTTPS://h", "hTtPs://h:443/", "https://h:80/", "wss://h", "http://h", "http://h:443/"]
    for url in shapes:
        scheme = httpx.URL(url).scheme
        if scheme != "http":
            assert transport._verify(url) is transport.ssl_context(), url


@pytest.mark.parametrize(
    ("model", "api_base"),
    [
        ("openai/gpt-4o", None),
        ("openai/local", "http://127.0.0.1:8080/v1/"),
        ("openai/local", "HTTP://127.0.0.1:8080/v1"),
        ("anthropic/claude-sonnet-4-5", None),
        ("anthropic/claude-sonnet-4-5", "http://127.0.0.1:9/v1/messages"),
    ],
)
def test_the_start_up_warm_uses_the_url_the_client_then_sends_to(model, api_base, monkeypatch) -> None:
    """route.warm warms `route(...).url`'s context; the client sends every request to its route's
    url and builds its context from that same url."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    warmed = route(model, api_base, None).url
    client = client_for(model, transport=None, api_base=api_base)
    assert client.route.url == warmed and warmed
