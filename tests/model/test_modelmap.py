"""The model map read as data (model/modelmap.py) prices a turn as `litellm.completion_cost` does,
and knows the windows litellm knows, without importing litellm."""

from __future__ import annotations

import pytest

from flue_tui.model import modelmap
from flue_tui.model.fold import counts
from flue_tui.model.loader import get_litellm
from tests.model.test_pricing import reference, shapes

MODELS = ["anthropic/claude-sonnet-4-5", "openai/gpt-4.1", "gemini/gemini-2.5-pro"]


def ours(model: str, usage) -> float | None:
    c = counts(usage)
    return modelmap.cost(model, c.input, c.output, c.cache_read, c.cache_write)


@pytest.mark.parametrize("model", MODELS)
def test_cost_equals_completion_cost_for_each_usage_shape(model: str) -> None:
    usage = shapes()[model]
    assert ours(model, usage) == pytest.approx(reference(model, usage), rel=1e-9)


@pytest.mark.parametrize("model", [*MODELS, "openai/o3-mini", "deepseek/deepseek-chat"])
@pytest.mark.parametrize("prompt", [1, 150_000, 250_000, 900_000])
def test_cost_equals_completion_cost_on_every_price_tier(model: str, prompt: int) -> None:
    from litellm.types.utils import PromptTokensDetailsWrapper, Usage

    cached = prompt // 3
    written = prompt // 5 if model.startswith("anthropic/") else 0
    details = PromptTokensDetailsWrapper(cached_tokens=cached, cache_creation_tokens=written or None)
    usage = Usage(
        prompt_tokens=prompt,
        completion_tokens=700,
        total_tokens=prompt + 700,
        prompt_tokens_details=details,
        **({"cache_creation_input_tokens": written, "cache_read_input_tokens": cached} if written else {}),
    )
    assert ours(model, usage) == pytest.approx(reference(model, usage), rel=1e-9)


@pytest.mark.parametrize("model", [*MODELS, "openai/o3-mini", "openai/gpt-5", "deepseek/deepseek-chat"])
def test_windows_and_reasoning_match_litellm(model: str) -> None:
    litellm = get_litellm()
    theirs = litellm.get_model_info(model)
    entry = modelmap.info(model)
    assert entry is not None
    for key in ("max_input_tokens", "max_output_tokens"):
        assert entry.get(key) == theirs.get(key)
    assert modelmap.supports_reasoning(model) == bool(litellm.supports_reasoning(model=model))


def test_an_unknown_model_has_no_entry_and_no_price() -> None:
    assert modelmap.info("openai/my-local-llama") is None
    assert modelmap.cost("openai/my-local-llama", 10, 10, 0, 0) is None
    assert modelmap.supports_reasoning("openai/my-local-llama")  # a local server decides for itself


def _map_of(tmp_path, text: str):
    path = tmp_path / "map.json"
    path.write_text(text, encoding="utf-8")
    return modelmap.read(str(path))


def test_an_entry_is_found_by_its_key_and_only_at_the_top_level(tmp_path) -> None:
    got = _map_of(
        tmp_path,
        '{"a": {"x": 1, "inner": {"y": 2}},\n "b":{"inner": 3},  "c" : {"s": "\\"c\\": {"}}',
    )
    assert got.get("a") == {"x": 1, "inner": {"y": 2}}
    assert got.get("b") == {"inner": 3} and got.get("c") == {"s": '"c": {'}
    assert got.get("y") is None and got.get("missing") is None
    assert not got.whole  # each was found in the bytes, nothing parsed whole


def test_a_key_the_bytes_cannot_settle_is_read_from_the_whole_map(tmp_path) -> None:
    # "inner" names a nested object and is no top-level entry; two places leave it to the map.
    got = _map_of(tmp_path, '{"a": {"inner": {"y": 2}}, "b": {"inner": {"z": 3}}}')
    assert got.get("inner") is None and got.whole
    long = "x" * 40_000  # an entry longer than the first read of it
    assert _map_of(tmp_path, '{"m": {"note": "' + long + '", "p": 1}}').get("m") == {"note": long, "p": 1}
    assert _map_of(tmp_path, '{"é": {"p": 1}}').get("é") == {"p": 1}


def test_a_broken_or_missing_map_prices_nothing(tmp_path) -> None:
    assert _map_of(tmp_path, '{"a": {"p": 1').get("a") is None
    assert _map_of(tmp_path, "\xff\xfe not json").get("a") is None
    assert modelmap.read(str(tmp_path / "gone.json")).get("a") is None
    assert modelmap.read(None).get("a") is None
