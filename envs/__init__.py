"""SOLO and SCOUT for agent research: PettingZoo environments and OpenSpiel games (docs/envs.md).

Needs the ``envs`` extra (numpy, gymnasium, pettingzoo, open_spiel).
``envs.pettingzoo_env.solo_env`` / ``scout_env`` build AEC environments (``backend="c"``:
stepped in the C mirror, ``envs.pettingzoo_c``); ``envs.vector.VectorEnv`` steps many in C;
``envs.gym_env`` registers the Gymnasium ids (``backend="c"``: ``envs.gym_c``; ``make_vec``:
``envs.gym_vector``); ``envs.sb3_vec.sb3_vec_env`` is a Stable-Baselines3 VecEnv in C;
``envs.openspiel_games.register()`` registers ``cardtable_solo`` and ``cardtable_scout`` with
``pyspiel`` (importing the module registers them too).
"""
