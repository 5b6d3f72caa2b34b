"""A small numpy policy, and :func:`policy_bot`: a trained policy written as a submission file (numpy and cabo_kit only).

:class:`MLPPolicy` maps an encoding (:func:`~cabo_kit.rl.encode`) to one logit per action of
the :class:`~cabo_kit.rl.ActionIndex`: ``tanh`` hidden layers, then a linear layer; illegal
actions are masked out. Its weights are plain numpy arrays (``policy.params``).

:func:`policy_bot` writes a bot file that a class tournament runs isolated like any other: it
imports only numpy, the standard library and cabo_kit (``cabo_kit.rl.encoding``: no RL library),
carries the weights inside it, and records the encoding version it was trained with, refusing
to load under another. It plays its policy at the table it was trained for (preset and table
size) and a reference bot's moves elsewhere (``fallback``, GreedyBot by default), so it can
enter a tournament of any presets and table sizes.

>>> import numpy as np, tempfile, pathlib, cabo_kit as ck
>>> policy = MLPPolicy.new(ck.Rules.preset("deluxe"), 2, hidden=(8,), seed=0)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "my_policy.py"
>>> policy_bot(path, policy, name="MyPolicy")
PosixPath('.../my_policy.py')
>>> report = ck.check_bot(path, games=2)            # isolated, as a tournament loads it
>>> report.ok
True
"""

from __future__ import annotations

import base64
import io
import json
import textwrap
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..observation import Observation
from ..rules import Rules
from .encoding import ENCODING_VERSION, action_index, encoder

__all__ = ["MLPPolicy", "policy_bot"]


class MLPPolicy:
    """A policy over an :class:`~cabo_kit.rl.ActionIndex`: ``tanh`` hidden layers and linear logits, in numpy.

    ``params`` is a list of ``(W, b)`` pairs, first layer first (``W`` of shape (inputs, outputs)).
    ``rules`` and ``n_players`` name the table it plays (its encoding and index).

    >>> import cabo_kit as ck
    >>> policy = MLPPolicy.new(ck.Rules.preset("deluxe"), 2, hidden=(16,), seed=1)
    >>> obs = ck.Game(policy.rules, seed=2, n_players=2).observation(0)
    >>> policy.choose(obs)                             # the greedy action among the legal ones
    InitialPeek(positions=(0, 1))
    """

    def __init__(self, rules: Rules, n_players: int, params: Sequence[tuple[Any, Any]]) -> None:
        self.rules = rules
        self.n_players = n_players
        self.index = action_index(rules, n_players)
        self.encoder = encoder(rules, n_players)
        self.params = [(np.asarray(W, dtype=np.float32), np.asarray(b, dtype=np.float32)) for W, b in params]
        sizes = [self.encoder.size] + [b.shape[0] for _, b in self.params]
        if self.params[0][0].shape[0] != self.encoder.size or sizes[-1] != self.index.size:
            raise ValueError(
                f"the layers take {self.params[0][0].shape[0]} inputs and give {sizes[-1]} logits; "
                f"{rules.name} with {n_players} players needs {self.encoder.size} and {self.index.size}")

    @classmethod
    def new(cls, rules: Rules, n_players: int, hidden: Sequence[int] = (64,), seed: int = 0) -> "MLPPolicy":
        """A freshly initialised policy (small random weights, the last layer at zero: every legal action alike)."""
        rng = np.random.default_rng(seed)
        sizes = [encoder(rules, n_players).size, *hidden, action_index(rules, n_players).size]
        params = []
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            last = i == len(sizes) - 2
            W = np.zeros((a, b)) if last else rng.normal(0, 1 / np.sqrt(a), (a, b))
            params.append((W, np.zeros(b)))
        return cls(rules, n_players, params)

    def forward(self, x: Any) -> tuple[Any, list[Any]]:
        """The logits for encodings ``x`` (one row each, or one vector) and each hidden layer's output."""
        hidden = []
        h = x
        for W, b in self.params[:-1]:
            h = np.tanh(h @ W + b)
            hidden.append(h)
        W, b = self.params[-1]
        return h @ W + b, hidden

    def probabilities(self, x: Any, mask: Any) -> Any:
        """The action probabilities for encoding ``x`` under the legal ``mask`` (0 where illegal)."""
        logits = self.forward(x)[0]
        logits = np.where(mask, logits, -np.inf)
        logits = logits - logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=-1, keepdims=True)

    def choose(self, obs: Observation, rng: np.random.Generator | None = None) -> Any:
        """An action for ``obs``: the most likely legal one, or one drawn from the policy with ``rng``."""
        mask = self.index.mask(obs.legal_actions, obs.seat)
        p = self.probabilities(self.encoder.encode(obs), mask)
        i = int(rng.choice(len(p), p=p)) if rng is not None else int(np.argmax(p))
        return self.index.action(i, obs.seat)

    def to_bytes(self, half: bool = False) -> bytes:
        """The weights and the table they play as one compressed ``.npz`` (what :meth:`from_bytes` reads);
        ``half=True`` stores them as float16 (half the size; read back as float32)."""
        arrays: dict[str, Any] = {}
        for i, (W, b) in enumerate(self.params):
            arrays[f"W{i}"], arrays[f"b{i}"] = (W.astype(np.float16), b.astype(np.float16)) if half else (W, b)
        meta = {"encoding_version": ENCODING_VERSION, "rules": self.rules.to_dict(), "n_players": self.n_players}
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> "MLPPolicy":
        """A policy saved by :meth:`to_bytes` (refusing weights made for another encoding version)."""
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            meta = json.loads(arrays["meta"].tobytes().decode())
            _check_version(meta["encoding_version"])
            layers = len([k for k in arrays.files if k.startswith("W")])
            params = [(arrays[f"W{i}"], arrays[f"b{i}"]) for i in range(layers)]
        return cls(Rules.from_dict(meta["rules"]), meta["n_players"], params)

    def save(self, path: str | Path, half: bool = False) -> Path:
        """Write :meth:`to_bytes` to ``path`` (``.npz``)."""
        path = Path(path)
        path.write_bytes(self.to_bytes(half))
        return path

    @classmethod
    def load(cls, path: str | Path) -> "MLPPolicy":
        """The policy saved at ``path`` by :meth:`save`."""
        return cls.from_bytes(Path(path).read_bytes())


def _check_version(version: int) -> None:
    if version != ENCODING_VERSION:
        raise ValueError(
            f"these weights were trained on cabo-kit's RL encoding version {version}, and this cabo-kit encodes "
            f"version {ENCODING_VERSION}: retrain the policy with this cabo-kit, or use a cabo-kit whose "
            f"cabo_kit.rl.ENCODING_VERSION is {version}")


_TEMPLATE = '''\
"""{name}: a policy trained with cabo_kit.rl, written by cabo_kit.rl.policy_bot.

It plays its policy at {preset} with {n_players} players (cabo-kit RL encoding version {version}) and
{fallback}'s moves at any other table. It imports numpy and cabo_kit only.
"""

import base64
import zlib

import numpy as np

import cabo_kit as ck
from cabo_kit.rl.encoding import ENCODING_VERSION, action_index, encoder

TRAINED_WITH = {trained!r}

if ENCODING_VERSION != TRAINED_WITH["encoding_version"]:
    raise ImportError(
        f"{name} was trained on cabo-kit's RL encoding version {{TRAINED_WITH['encoding_version']}}, and this "
        f"cabo-kit encodes version {{ENCODING_VERSION}}: retrain it with this cabo-kit (cabo_kit.rl.policy_bot), or "
        f"play it with a cabo-kit whose cabo_kit.rl.ENCODING_VERSION is {{TRAINED_WITH['encoding_version']}}")

{body}

class {name}(ck.Bot):
    name = {name!r}

    def __init__(self):
        super().__init__()
        self.fallback = ck.bots.{fallback}()

    def on_game_start(self, seat, n_players, rules):
        self.fallback.random = self.random
        self.fallback.on_game_start(seat, n_players, rules)
        # the very rules it was trained with (a table of the same preset name may change a rule)
        self.ours = (n_players == TRAINED_WITH["n_players"] and rules == ck.Rules.from_dict(TRAINED_WITH["rules"])
                     and encoder(rules, n_players).size == TRAINED_WITH["encoding_size"]
                     and action_index(rules, n_players).size == TRAINED_WITH["index_size"])
        if self.ours:
            self.encoder = encoder(rules, n_players)
            self.index = action_index(rules, n_players)

    def on_round_start(self, observation):
        self.fallback.on_round_start(observation)

    def on_round_end(self, result):
        self.fallback.on_round_end(result)

    def choose(self, observation, legal_actions):
        if not getattr(self, "ours", False):
            return self.fallback.choose(observation, legal_actions)
        mask = self.index.mask(legal_actions, observation.seat)
        if not mask.any():  # every legal action lies outside the index (never seen in play)
            return self.fallback.choose(observation, legal_actions)
        i = policy(self.encoder.encode(observation), mask, observation)
        # checked against the legal actions: a policy that ignores the mask is told so, by action number
        return self.index.action(int(i), observation.seat, legal=legal_actions)
'''

_WEIGHTS_BODY = '''\
# The layers' weights: (shape, float16 values, zlib-compressed, base64), W then b for each layer.
WEIGHTS = [
{chunks}
]
LAYERS = []
for (_w_shape, _w), (_b_shape, _b) in zip(WEIGHTS[::2], WEIGHTS[1::2]):
    _W = np.frombuffer(zlib.decompress(base64.b64decode(_w)), dtype=np.float16).reshape(_w_shape)
    _B = np.frombuffer(zlib.decompress(base64.b64decode(_b)), dtype=np.float16).reshape(_b_shape)
    LAYERS.append((_W.astype(np.float32), _B.astype(np.float32)))


def policy(x, mask, observation):
    """The most likely legal action: tanh hidden layers, linear logits."""
    for W, b in LAYERS[:-1]:
        x = np.tanh(x @ W + b)
    W, b = LAYERS[-1]
    logits = np.where(mask, x @ W + b, -np.inf)
    return int(np.argmax(logits))
'''


def _weights_text(policy: MLPPolicy) -> str:
    import zlib

    lines = []
    for W, b in policy.params:
        for array in (W, b):
            data = base64.b64encode(zlib.compress(array.astype("<f2").tobytes(), 9)).decode()
            lines.append(f"    ({tuple(array.shape)!r}, (")
            lines.extend(f"        {data[i:i + 100]!r}" for i in range(0, len(data), 100))
            lines.append("    )),")
    return "\n".join(lines)


# The names the file's template binds at module level, with what each is (a source may import the same).
_TEMPLATE_NAMES = {
    "base64": ("base64", None), "zlib": ("zlib", None), "np": ("numpy", None), "ck": ("cabo_kit", None),
    "ENCODING_VERSION": ("cabo_kit.rl.encoding", "ENCODING_VERSION"), "action_index": ("cabo_kit.rl.encoding", "action_index"),
    "encoder": ("cabo_kit.rl.encoding", "encoder"), "TRAINED_WITH": None, "WEIGHTS": None, "LAYERS": None,
}


def _check_source(source: str, filename: str, class_name: str) -> None:
    """Refuse a policy source that does not compile, defines no top-level ``policy`` function, or rebinds a name
    the file's template uses (the class, numpy as ``np``, ``TRAINED_WITH``, ...)."""
    import ast

    tree = ast.parse(source, filename)  # a syntax error shows here, not in the tournament
    compile(tree, filename, "exec")
    defs = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "policy"]
    if not defs:
        raise ValueError("source must define a top-level function policy(x, mask, observation), returning an action's number")
    bound: list[tuple[str, Any]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.append((node.name, None))
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound.extend((n.id, None) for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import):
            bound.extend(((a.asname or a.name.split(".")[0]), (a.name, None) if a.asname or "." not in a.name else None)
                         for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            bound.extend((a.asname or a.name, (node.module, a.name)) for a in node.names)
    for bound_name, what in bound:
        if bound_name == class_name or (bound_name in _TEMPLATE_NAMES and (what is None or what != _TEMPLATE_NAMES[bound_name])):
            raise ValueError(
                f"source binds {bound_name!r}, a name the bot file already uses (its class {class_name}, "
                f"{', '.join(sorted(_TEMPLATE_NAMES))}): rename it in your source")
    if len(defs) > 1:
        raise ValueError("source defines policy(...) more than once: keep one")


def policy_bot(
    path: str | Path,
    policy: MLPPolicy | None = None,
    *,
    source: str | None = None,
    rules: Rules | str | None = None,
    n_players: int | None = None,
    name: str = "PolicyBot",
    fallback: str = "GreedyBot",
) -> Path:
    """Write a submission file at ``path`` that plays ``policy`` (see the module docstring); returns the path.

    Give a trained :class:`MLPPolicy`, or ``source``: Python text defining
    ``policy(x, mask, observation) -> int`` (``x`` the encoding, ``mask`` the legal actions'
    mask, the answer a number of the index), with ``rules`` and ``n_players`` naming its table.
    The weights are stored in the file as float16 (half the size; the greedy choice is the same
    but for near-ties). ``fallback`` is the reference bot (``ck.bots.<fallback>``) that plays
    other tables.

    >>> import tempfile, pathlib, cabo_kit as ck
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "first_legal.py"
    >>> _ = policy_bot(path, source="def policy(x, mask, observation):\\n    return mask.nonzero()[0][0]\\n",
    ...                rules="rush", n_players=3, name="FirstLegal")
    >>> "TRAINED_WITH" in path.read_text()
    True
    """
    import cabo_kit.bots as reference

    if not name.isidentifier():
        raise ValueError(f"name={name!r} must be a Python class name, e.g. 'PolicyBot'")
    if not isinstance(getattr(reference, fallback, None), type):
        raise ValueError(f"fallback={fallback!r} is not a reference bot: choose RandomBot, GreedyBot, CountingBot or SearchBot")
    if (policy is None) == (source is None):
        raise TypeError("give either a policy (an MLPPolicy) or source (text defining policy(x, mask, observation))")
    if policy is not None:
        table_rules, n = policy.rules, policy.n_players
        body = _WEIGHTS_BODY.format(chunks=_weights_text(policy))
    else:
        if rules is None or n_players is None:
            raise TypeError("with source=, say which table it plays: rules= (a preset's name or Rules) and n_players=")
        table_rules = Rules.preset(rules) if isinstance(rules, str) else rules
        n = n_players
        assert source is not None
        body = textwrap.dedent(source).strip() + "\n"
        _check_source(body, str(path), name)
    trained = {
        "encoding_version": ENCODING_VERSION, "preset": table_rules.name, "rules": table_rules.to_dict(), "n_players": n,
        "encoding_size": encoder(table_rules, n).size, "index_size": action_index(table_rules, n).size,
    }
    text = _TEMPLATE.format(name=name, preset=table_rules.name, n_players=n, version=ENCODING_VERSION,
                            fallback=fallback, trained=trained, body=body)
    path = Path(path)
    path.write_text(text)
    return path
