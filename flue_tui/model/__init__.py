"""The provider layer: the ONLY place litellm is imported, lazily, after LITELLM_MODE=PRODUCTION.

base.py            the ModelClient protocol (one streamed assistant turn)
litellm_client.py  the litellm implementation
catalog.py         which models the configured providers offer (for /model)
keys.py            is an API key needed, which variable holds it (no litellm import)
keyhelp.py         the one no-API-key paragraph every surface shows
"""
