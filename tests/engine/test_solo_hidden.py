"""SOLO under hidden hands (engine/solo/hidden.py): every machine's view of a round on slots."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardtable.engine.solo import Config
from tests.engine.solo_hidden_table import play_round

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
options = st.fixed_dictionaries({}, optional={
    "gifts": st.booleans(), "protection": st.booleans(), "multiples": st.booleans(),
    "call": st.sampled_from(["with_play", "window"]), "self_jump_in": st.booleans(),
    "mixed_stacking": st.booleans(), "hand_size": st.sampled_from([2, 4, 8])})
configs = st.builds(lambda e, n, o: Config.preset(e, n, **o), st.sampled_from(["classic", "anniversary"]),
                    st.integers(2, 6), options)


@SETTINGS
@given(configs, st.binary(min_size=1, max_size=8))
def test_each_view_follows_the_engine_and_knows_just_what_its_seat_may(config: Config, seed: bytes) -> None:
    table = play_round(config, seed)
    if table.engine.is_over():
        table.finish()
