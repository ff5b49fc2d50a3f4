"""SOLO and SCOUT for agent research: PettingZoo environments and OpenSpiel games (docs/envs.md).

Needs the ``envs`` extra (numpy, gymnasium, pettingzoo, open_spiel).
``envs.pettingzoo_env.solo_env`` / ``scout_env`` build AEC environments (``backend="c"``:
stepped in the C mirror, ``envs.pettingzoo_c``); ``envs.vector.VectorEnv`` steps many in C;
``envs.openspiel_games.register()`` registers ``cardtable_solo`` and ``cardtable_scout`` with
``pyspiel`` (importing the module registers them too).
"""
