"""Rewrites a graph-format-v1 document with the member order of every JSON
object shuffled (fixed seed) and different whitespace: the same graph in the
freedom the format allows. (The order of inputs, nodes and outputs is the
step's signature and schedule, so it is kept.)

Usage: shuffle_json.py IN OUT [SEED]
"""

import json
import random
import sys


def shuffle(value, rng):
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: shuffle(v, rng) for k, v in items}
    if isinstance(value, list):
        return [shuffle(v, rng) for v in value]
    return value


def main():
    source, target = sys.argv[1], sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    with open(source) as f:
        document = json.load(f)
    with open(target, "w") as f:
        json.dump(shuffle(document, rng), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
