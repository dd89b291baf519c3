"""The provider layer: the ONLY place litellm is imported, lazily, after LITELLM_MODE=PRODUCTION.

base.py            the ModelClient protocol (one streamed assistant turn)
route.py           which path a model's requests take, decided once: the direct path or litellm
clients.py         a model client for a model id, on the path route.py chose
direct_client.py   the direct path: one assistant turn over httpx, never importing litellm
wire_openai.py     OpenAI chat completions on the direct path: the request, each event as a chunk
wire_anthropic.py  Anthropic Messages on the direct path: the request, each event as a chunk
sse.py             server-sent events from an untrusted body, bounded in every direction
transport.py       the direct path's httpx client set-up, warmable in a thread
coalesce.py        the direct path's socket reads gathered once a response streams fast
relay.py           the direct path's HTTP client in a process of its own; relay_main.py that process
fold.py            the one fold of a streamed turn both paths feed
failures.py        a failed request as a ModelError, the same for both paths
litellm_client.py  the litellm implementation
loader.py          the only module that imports litellm: lazily, after setting its environment
chunks.py          where litellm's chunks come from: its provider parsers, under its stream wrapper
assembly.py        streamed tool calls and thinking blocks put back together
caching.py         prompt-cache breakpoints for Anthropic-served models
turn_params.py     an agent turn's output limit and reasoning setting
fallback.py        `--fallback-model`: a turn the main model cannot serve goes to the fallback
errors.py          a provider failure as one readable sentence with its status code
pricing.py         what a turn cost, from the provider's full usage
modelmap.py        litellm's model map read as data, without importing litellm
ollama.py          Ollama without setup: its address, no key, a real num_ctx
catalog.py         which models the configured providers offer (for /model)
discovery.py       the models `/model` offers: a local server's, Ollama's, the keyed providers'
keys.py            is an API key needed, which variable holds it (no litellm import)
keyhelp.py         the one no-API-key paragraph every surface shows
"""
