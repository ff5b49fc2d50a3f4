"""How the suite shares out over pytest-xdist's workers (``-n 2`` in pyproject.toml).

Each test goes to whichever worker is free, except the groups below: a group's tests run one
after the other on one worker, biggest group first. (xdist's own ``xdist_group`` mark does not
reach its scheduler with pytest 9.2, so the groups are named here by test id.)
"""

from __future__ import annotations

from typing import Any

import pytest

GROUPS = {
    # the sdist and wheels, built once by a module fixture
    "tests/packaging/test_dist.py::": "distributions",
    # real-time matches on virtual LANs: one LAN at a time
    "tests/p2p/test_netns.py::": "lan",
    "tests/p2p/test_netns_attack.py::": "lan",
    "tests/p2p/test_netns_members.py::": "lan",
    # each starts a local Ray cluster and shuts Ray down after: one cluster at a time
    "tests/ai/test_expert.py::test_self_play_on_a_local_ray_cluster": "ray",
    "tests/ai/test_levels.py::test_compare_on_a_local_ray_cluster": "ray",
    "tests/ai/test_value_net.py::test_the_rows_of_a_round_do_not_depend_on_the_others": "ray",
    "tests/cli/test_match_ray.py::test_a_local_ray_cluster": "ray",
}


def group_of(nodeid: str) -> str | None:
    return next((group for prefix, group in GROUPS.items() if nodeid.startswith(prefix)), None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A whole-suite run finds a test for every entry of GROUPS (a renamed test is named here too)."""
    if config.args == [str(config.rootpath / "tests")] or config.args == ["tests"]:
        unused = [p for p in GROUPS if not any(item.nodeid.startswith(p) for item in items)]
        if unused:
            raise pytest.UsageError(f"tests/conftest.py: GROUPS names no test: {', '.join(unused)}")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "load":
        return None  # an explicit --dist ... is xdist's own
    from xdist.scheduler import LoadScopeScheduling

    class Grouped(LoadScopeScheduling):
        """One unit of work per test, or per group (units with more tests go out first)."""

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid) or nodeid

    return Grouped(config, log)
