#!/usr/bin/env python3
"""Writes openapi.json here: the operations of Discord's official OpenAPI spec that the product
calls and the fake Discord serves, with every component they reference, from a full copy of
https://github.com/discord/discord-api-spec (specs/openapi.json).

    python3 tests/support/discord_api/vendor.py PATH/TO/discord-api-spec COMMIT

A new request the product makes is one more path in PATHS, then run this again.
"""

import json
import pathlib
import sys

PATHS = [
    "/gateway",
    "/gateway/bot",
    "/users/@me",
    "/users/@me/guilds",
    "/oauth2/applications/@me",
    "/guilds/{guild_id}/channels",
    "/guilds/{guild_id}/threads/active",
    "/guilds/{guild_id}/roles",
    "/guilds/{guild_id}/members/{user_id}",
    "/channels/{channel_id}",
    "/channels/{channel_id}/threads/archived/public",
    "/channels/{channel_id}/threads/archived/private",
    "/channels/{channel_id}/messages",
    "/channels/{channel_id}/messages/{message_id}",
    "/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me",
]
METHODS = ("parameters", "get", "post", "put", "patch", "delete")


def references(node, found):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                found.add(value)
            else:
                references(value, found)
    elif isinstance(node, list):
        for value in node:
            references(value, found)


def main():
    repository, commit = pathlib.Path(sys.argv[1]), sys.argv[2]
    spec = json.loads((repository / "specs" / "openapi.json").read_text())
    paths = {
        path: {method: item for method, item in spec["paths"][path].items() if method in METHODS}
        for path in PATHS
    }
    wanted, done = set(), set()
    references(paths, wanted)
    components = {}
    while wanted - done:
        reference = sorted(wanted - done)[0]
        done.add(reference)
        section, name = reference.removeprefix("#/components/").split("/")
        node = spec["components"][section][name]
        components.setdefault(section, {})[name] = node
        references(node, wanted)
    vendored = {
        "openapi": spec["openapi"],
        "info": spec["info"],
        "x-vendored-from": {
            "repository": "https://github.com/discord/discord-api-spec",
            "file": "specs/openapi.json",
            "commit": commit,
        },
        "paths": paths,
        "components": {section: dict(sorted(items.items())) for section, items in sorted(components.items())},
    }
    out = pathlib.Path(__file__).with_name("openapi.json")
    out.write_text(json.dumps(vendored, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
