"""agentgym.multiagent: every market id has a PettingZoo version that passes PettingZoo's test."""

import pytest

from agentgym import multiagent

pettingzoo_test = pytest.importorskip("pettingzoo.test")


@pytest.mark.parametrize("env_id", multiagent.parallel_ids())
def test_each_parallel_env_passes_pettingzoos_api_test(env_id):
    env = multiagent.parallel_env(env_id)
    pettingzoo_test.parallel_api_test(env, num_cycles=30)
    env.close()


def test_the_markets_are_the_ids_with_a_parallel_version():
    import agentgym

    markets = sorted(e.id for e in agentgym.ENVIRONMENTS if e.family == "markets")
    assert multiagent.parallel_ids() == markets


def test_an_id_without_one_is_refused_in_one_line():
    with pytest.raises(ValueError, match="no multi-agent version") as err:
        multiagent.parallel_env("agentgym/Sudoku-v0")
    assert "\n" not in str(err.value)
