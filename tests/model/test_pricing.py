"""Cost from the full usage, equal to litellm.completion_cost; unknown prices stay unknown."""

from __future__ import annotations

import asyncio
import json

import pytest

from flue_tui.agent.session import Session
from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings
from flue_tui.headless.resultline import result_object
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.model.loader import get_litellm
from flue_tui.model.pricing import Prices, budget_problem
from tests.fakellm import Call, Turn
from tests.model.conftest import SONNET, Lookup


def reference(model: str, usage) -> float:
    from litellm.types.utils import ModelResponse

    litellm = get_litellm()
    return litellm.completion_cost(
        completion_response=ModelResponse(model=model.split("/", 1)[1], usage=usage), model=model
    )


def shapes():
    from litellm.types.utils import CompletionTokensDetailsWrapper, PromptTokensDetailsWrapper, Usage

    return {
        # Anthropic: 50k read from the cache, 1k written to it, 1k fresh.
        SONNET: Usage(
            prompt_tokens=52000,
            completion_tokens=400,
            total_tokens=52400,
            cache_read_input_tokens=50000,
            cache_creation_input_tokens=1000,
            prompt_tokens_details=PromptTokensDetailsWrapper(cached_tokens=50000, cache_creation_tokens=1000),
        ),
        # OpenAI's automatic caching.
        "openai/gpt-4.1": Usage(
            prompt_tokens=52000,
            completion_tokens=400,
            total_tokens=52400,
            prompt_tokens_details=PromptTokensDetailsWrapper(cached_tokens=50000),
        ),
        # Gemini's implicit caching with thinking tokens.
        "gemini/gemini-2.5-pro": Usage(
            prompt_tokens=52000,
            completion_tokens=1400,
            total_tokens=53400,
            prompt_tokens_details=PromptTokensDetailsWrapper(cached_tokens=40000),
            completion_tokens_details=CompletionTokensDetailsWrapper(reasoning_tokens=1000),
        ),
    }


@pytest.mark.parametrize("model", [SONNET, "openai/gpt-4.1", "gemini/gemini-2.5-pro"])
def test_cost_equals_completion_cost_for_each_usage_shape(model):
    usage = shapes()[model]
    ours = LiteLLMClient(model)._usage(get_litellm(), usage)
    expected = reference(model, usage)
    assert expected > 0 and ours.priced
    assert ours.cost == pytest.approx(expected, rel=0.01)
    assert ours.cache_read == usage.prompt_tokens_details.cached_tokens


def test_anthropic_cost_through_the_wire_matches_completion_cost(claude_session, anthropic_env):
    from litellm.types.utils import PromptTokensDetailsWrapper, Usage

    anthropic_env.script(Turn(text="hi", usage=(2000, 400, 50000, 1000)))
    result = asyncio.run(claude_session().prompt("hello"))
    usage = Usage(
        prompt_tokens=53000,
        completion_tokens=400,
        total_tokens=53400,
        cache_read_input_tokens=50000,
        cache_creation_input_tokens=1000,
        prompt_tokens_details=PromptTokensDetailsWrapper(cached_tokens=50000, cache_creation_tokens=1000),
    )
    assert (result.usage.input, result.usage.cache_read, result.usage.cache_write) == (2000, 50000, 1000)
    assert result.usage.cost == pytest.approx(reference(SONNET, usage), rel=0.01)


def test_openai_cached_tokens_through_the_wire(fakellm):
    from litellm.types.utils import PromptTokensDetailsWrapper, Usage

    fakellm.script(Turn(text="hi", usage=(52000, 400, 50000)))
    client = LiteLLMClient("openai/gpt-4.1", api_base=fakellm.base_url, api_key="sk-test")
    result = asyncio.run(Session(model=client, tools=[], system_prompt="s").prompt("hello"))
    usage = Usage(
        prompt_tokens=52000,
        completion_tokens=400,
        total_tokens=52400,
        prompt_tokens_details=PromptTokensDetailsWrapper(cached_tokens=50000),
    )
    assert result.usage.cost == pytest.approx(reference("openai/gpt-4.1", usage), rel=0.01)


def test_an_unpriced_model_has_unknown_cost_in_the_result(fakellm):
    fakellm.script([Turn(calls=[Call("lookup", {"word": "a"})]), Turn(text="done")])
    client = LiteLLMClient("openai/my-local-model", api_base=fakellm.base_url, api_key="sk-test")
    result = asyncio.run(Session(model=client, tools=[Lookup()], system_prompt="s").prompt("hello"))
    assert not result.is_error and result.usage.priced is False and result.usage.output == 10
    obj = result_object(result, session_id="s", model="openai/my-local-model")
    assert obj["total_cost_usd"] is None
    assert json.loads(json.dumps(obj))["usage"]["output_tokens"] == 10


def test_config_prices_price_an_unknown_model(fakellm):
    fakellm.script(Turn(text="hi", usage=(1_000_000, 100_000)))
    client = LiteLLMClient(
        "openai/my-local-model", api_base=fakellm.base_url, api_key="sk-test", prices=Prices(input=2.0, output=10.0)
    )
    result = asyncio.run(Session(model=client, tools=[], system_prompt="s").prompt("hello"))
    assert result.usage.priced and result.usage.cost == pytest.approx(2.0 + 1.0)


def test_budget_needs_a_price():
    problem = budget_problem("openai/my-local-model", None)
    assert problem is not None and problem.count(". ") == 0 and "input_price" in problem
    assert budget_problem("openai/my-local-model", Prices(1.0, 2.0)) is None
    assert budget_problem(SONNET, None) is None
    assert budget_problem("ollama_chat/qwen3:8b", None) is None  # local models cost nothing


def test_price_settings_are_checked(tmp_path, _isolated_home):
    from flue_tui.runtime.wiring import Runtime

    user = _isolated_home / "config.toml"
    user.write_text("input_price = 3\noutput_price = 15.0\nprompt_cache = false\n")
    settings = Settings.from_env(cwd=str(tmp_path), model="openai/x")
    assert (settings.input_price, settings.output_price, settings.prompt_cache) == (3.0, 15.0, False)
    user.write_text("input_price = -1\n")
    with pytest.raises(ConfigError, match="input_price must be a number of USD per million input tokens"):
        Settings.from_env(cwd=str(tmp_path))
    user.write_text("input_price = 1\n")
    with pytest.raises(ConfigError, match="Set both input_price and output_price"):
        Runtime(Settings.from_env(cwd=str(tmp_path), model="openai/x"))


def test_a_repository_cannot_price_its_way_past_the_budget(tmp_path, _isolated_home):
    # A cloned repo's .flue/config.toml setting prices to 0 would make --max-budget-usd never trip.
    (tmp_path / ".flue").mkdir()
    (tmp_path / ".flue" / "config.toml").write_text("input_price = 0\noutput_price = 0\n")
    with pytest.raises(
        ConfigError, match=r"input_price is only accepted from your own .*config.toml or FLUE_INPUT_PRICE"
    ):
        Settings.from_env(cwd=str(tmp_path), model="anthropic/claude-sonnet-4-5")


def test_max_budget_with_an_unpriced_model_is_refused_at_start(fakellm, flue_main):
    out = flue_main(
        "-p",
        "spend",
        "--model",
        "openai/my-local-model",
        "--output-format",
        "json",
        "--max-budget-usd",
        "1",
    )
    assert out.code == 2 and len(fakellm.requests) == 0
    assert "--max-budget-usd needs a price for openai/my-local-model" in out.stderr
    assert json.loads(out.stdout)["is_error"] is True


def test_negative_usage_from_a_hostile_stream_buys_no_budget_credit(fakellm):
    # Before: -1,000 completion tokens priced at -$0.008 each, a -$100 turn that hid later spending.
    fakellm.script([Turn(text="x", usage=(-50_000_000, -1000)), Turn(text="y", usage=(1000, 10))])
    client = LiteLLMClient("openai/gpt-4.1", api_base=fakellm.base_url, api_key="sk-test")
    session = Session(model=client, tools=[], system_prompt="s")
    first = asyncio.run(session.prompt("hi"))
    assert (first.usage.input, first.usage.output, first.usage.cost) == (0, 0, 0.0)
    second = asyncio.run(session.prompt("again"))
    assert second.usage.cost > 0 and session.usage.cost == second.usage.cost


def test_cache_cost_uses_the_models_cache_rates_and_says_unknown_when_unpriced():
    from flue_tui.model.pricing import cache_cost

    litellm = get_litellm()
    info = litellm.get_model_info(SONNET)
    expected = 1000 * info["cache_read_input_token_cost"] + 200 * info["cache_creation_input_token_cost"]
    assert cache_cost(SONNET, 1000, 200) == pytest.approx(expected)
    assert info["cache_read_input_token_cost"] < info["input_cost_per_token"]  # a read is cheaper than input
    assert cache_cost("openai/no-such-model-xyz", 1000, 0) is None  # unknown, never $0
    assert cache_cost("ollama/llama3", 1000, 0) == 0.0  # served on this machine
    assert cache_cost(SONNET, -5000, 0) == 0.0  # a stream's negative counts buy nothing
