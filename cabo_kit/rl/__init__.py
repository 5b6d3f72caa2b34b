"""Reinforcement learning on cabo-kit: PettingZoo and Gymnasium environments, one action index and observation encoding.

``import cabo_kit.rl`` loads nothing heavy: numpy comes with the encoding
(:mod:`cabo_kit.rl.encoding`, all a trained bot file needs at play time), PettingZoo and
Gymnasium only when an environment is asked for. Install them with the ``rl`` extra:
``pip install 'cabo-kit[rl]'``. See docs/rl.md.

- :func:`aec_env`: a PettingZoo ``AECEnv``, one agent per seat, in the engine's order.
- :class:`SeatEnv`: a Gymnasium env for one seat against cabo-kit bots, with ``action_masks()``.
- :class:`ActionIndex`, :func:`encode`, :data:`ENCODING_VERSION`: the fixed action numbering and
  the observation vector (from a seat's :class:`~cabo_kit.Observation` alone).
- :func:`policy_bot`: a submission file from a trained policy (:class:`MLPPolicy`, trained by
  :func:`cabo_kit.rl.train.reinforce`).
- :func:`register_openspiel`: the OpenSpiel game ``python_cabo`` (:mod:`cabo_kit.rl.openspiel`).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "aec_env", "SeatEnv", "ActionIndex", "Encoder", "encode", "action_index", "encoder", "ENCODING_VERSION",
    "MAX_POSITIONS", "MAX_MULTI", "policy_bot", "MLPPolicy", "register_openspiel",
]

_WHERE = {
    "ActionIndex": "encoding", "Encoder": "encoding", "encode": "encoding", "action_index": "encoding",
    "encoder": "encoding", "ENCODING_VERSION": "encoding", "MAX_POSITIONS": "encoding", "MAX_MULTI": "encoding",
    "aec_env": "pettingzoo_env", "CaboAEC": "pettingzoo_env", "SeatEnv": "gymnasium_env",
    "policy_bot": "policy", "MLPPolicy": "policy", "register_openspiel": "openspiel",
}
_NEEDS = {"encoding": ("numpy",), "policy": ("numpy",), "openspiel": ("numpy", "pyspiel"), "pettingzoo_env": ("numpy", "pettingzoo", "gymnasium"),
          "gymnasium_env": ("numpy", "gymnasium")}


#: The id :class:`SeatEnv` is registered under with Gymnasium (see :func:`_register_gymnasium`).
GYMNASIUM_ID = "cabo_kit/SeatEnv-v0"


def _register_gymnasium() -> None:
    """Register :class:`SeatEnv` as ``cabo_kit/SeatEnv-v0`` if Gymnasium is loaded already (importing it here
    would cost a tenth of a second to everyone). ``gymnasium.make("cabo_kit.rl.gymnasium_env:cabo_kit/SeatEnv-v0")``
    works in any order: Gymnasium imports that module, which registers the env."""
    import sys

    gymnasium = sys.modules.get("gymnasium")
    registry = getattr(gymnasium, "registry", None)
    if registry is not None and GYMNASIUM_ID not in registry:
        gymnasium.register(GYMNASIUM_ID, entry_point="cabo_kit.rl.gymnasium_env:SeatEnv",  # type: ignore[union-attr]
                           nondeterministic=False)


_register_gymnasium()


def missing_extra(*modules: str) -> ImportError:
    """The error for a missing RL library: it names the library and the ``rl`` extra that installs it."""
    names = " and ".join(modules)
    return ImportError(f"cabo_kit.rl needs {names}: install the rl extra, pip install 'cabo-kit[rl]' "
                       "(pettingzoo, gymnasium, open-spiel, numpy)")


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'cabo_kit.rl' has no attribute {name!r}")
    import importlib

    try:
        loaded = importlib.import_module(f"{__name__}.{module}")
    except ImportError as exc:
        missing = [m for m in _NEEDS[module] if exc.name == m or (exc.name or "").startswith(m + ".")]
        if missing:
            raise missing_extra(*missing) from exc
        raise
    return getattr(loaded, name)
