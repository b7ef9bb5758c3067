"""Writing graph-format-v1 documents.

`dumps` writes one input, node or output per line: compact, diff-friendly,
and every importer diagnostic points at a short line of its own.
"""

import json

_ORDER = ("format", "version", "name", "producer", "inputs", "nodes", "outputs")


def dumps(document):
    """Returns `document` as text with one array element per line."""
    compact = dict(separators=(",", ":"))
    lines = ["{"]
    keys = [k for k in _ORDER if k in document] + \
        [k for k in document if k not in _ORDER]
    for i, key in enumerate(keys):
        tail = "," if i + 1 < len(keys) else ""
        value = document[key]
        if isinstance(value, list) and value:
            lines.append(f"{json.dumps(key)}:[")
            for j, item in enumerate(value):
                sep = "," if j + 1 < len(value) else ""
                lines.append(json.dumps(item, **compact) + sep)
            lines.append("]" + tail)
        else:
            lines.append(f"{json.dumps(key)}:{json.dumps(value, **compact)}{tail}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dump(document, path):
    """Writes `document` to `path` with `dumps`."""
    with open(path, "w") as f:
        f.write(dumps(document))
