"""The direct path's shared SSL context (model/transport.py): warmed once, still verifying."""

from __future__ import annotations

import ssl
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
    first, second = transport.new_client(5.0), transport.new_client(5.0)
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
