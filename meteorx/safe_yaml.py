"""Reading a configuration's YAML without trusting it: a file is read only up to
``MAX_CONFIG_CHARS`` characters, and parsed with a safe loader that refuses duplicate
keys and documents whose aliases expand past ``MAX_YAML_NODES`` nodes. Every problem is
a :class:`~meteorx.errors.ConfigError` naming the source, never quoting the text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from meteorx.error_text import quote
from meteorx.errors import ConfigError, cut

#: Limits on what a configuration may ask of the loader.
MAX_YAML_NODES = 100_000
MAX_CONFIG_CHARS = 1_000_000


class _ConfigLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses duplicate keys and documents that anchors and
    aliases expand past ``MAX_YAML_NODES`` nodes (a few hundred bytes can otherwise
    stand for billions of nodes)."""

    def construct_document(self, node: yaml.Node) -> Any:
        if _expanded_size(node) > MAX_YAML_NODES:
            raise ConfigError(
                f"more than {MAX_YAML_NODES:,} values once its aliases (*name) are expanded"
            )
        return super().construct_document(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[tuple[str, str], int] = {}
            for key, _ in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                line = key.start_mark.line + 1
                if (key.tag, key.value) in seen:
                    first = seen[key.tag, key.value]
                    raise ConfigError(
                        f"duplicate key {quote(key.value)} (line {line}; first on line {first})"
                    )
                seen[key.tag, key.value] = line
        return super().construct_mapping(node, deep=deep)


def _expanded_size(root: yaml.Node) -> int:
    """Nodes of the document with every alias expanded (a node counts at each use);
    a recursive alias counts as too many. Iterative: nesting depth costs no stack."""
    size: dict[int, int] = {}
    open_nodes: set[int] = set()  # entered, not left: the ancestors of the next node
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        children = (
            [n for pair in node.value for n in pair]
            if isinstance(node, yaml.MappingNode)
            else node.value
            if isinstance(node, yaml.SequenceNode)
            else []
        )
        if leaving:
            open_nodes.discard(id(node))
            size[id(node)] = min(1 + sum(size[id(c)] for c in children), MAX_YAML_NODES + 1)
        elif id(node) in open_nodes:
            return MAX_YAML_NODES + 1
        elif id(node) not in size:
            open_nodes.add(id(node))
            stack.append((node, True))
            stack.extend((c, False) for c in children)
    return size[id(root)]


def read_yaml(text: str, source: str) -> dict[str, Any]:
    """The mapping of settings ``text`` holds ({} when empty); ``source`` names it in
    errors."""
    try:
        data = yaml.load(text, Loader=_ConfigLoader)  # a SafeLoader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        # ``problem`` only: str(error) quotes the offending line
        problem = cut(getattr(error, "problem", None) or type(error).__name__)
        raise ConfigError(f"invalid YAML in {source}{where}: {problem}") from None
    except ConfigError as error:
        raise ConfigError(f"invalid YAML in {source}: {error}") from None
    except RecursionError:
        raise ConfigError(f"invalid YAML in {source}: nested too deeply") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source} must hold a mapping of settings, not {type(data).__name__}")
    return data


def read_config_file(path: Path, source: str) -> str:
    """The text of a configuration file, refused past ``MAX_CONFIG_CHARS`` characters."""
    try:
        with path.open(encoding="utf-8") as file:
            text = file.read(MAX_CONFIG_CHARS + 1)
    except FileNotFoundError:
        raise ConfigError(f"configuration file not found: {source}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{source} is not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise ConfigError(f"cannot read {source}: {error.strerror or error}") from None
    if len(text) > MAX_CONFIG_CHARS:
        raise ConfigError(f"{source} is longer than {MAX_CONFIG_CHARS:,} characters")
    return text
