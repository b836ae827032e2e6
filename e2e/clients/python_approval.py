"""The official Python SDK's client (`mcp` on PyPI) asking the owner about an assistant's post
through discord-manager's MCP server over stdio, for the E2E spec
`an_assistants_post_outside_the_send_list_is_asked_once_through_input_required_or_a_form_as_the_sdk_speaks`.

Usage: python3 python_approval.py PLAN.json ANSWERS.json

PLAN.json:
- server: command, args, env, cwd of `discord-manager mcp`;
- mode: "2026-07-28" (the owner is asked by `input_required`, multi round-trip requests) or
  "legacy" (the 2025-11-25 handshake: the server sends `elicitation/create`);
- call: the tool and arguments of the post to make;
- answers: what the person answers each form the client shows ("accept", "decline",
  "cancel"); the call is made once per answer, the SDK driving the rounds itself;
- byHand (2026-07-28 only): also drive the rounds by hand, to bring a handle back twice, with
  other arguments, and to bring one the server never gave.

Last, a second client that does not say it can show forms makes the call once.

ANSWERS.json: the SDK's version, the protocol it speaks, every form's message as the person
saw it, each call's result as the wire carried it, the rounds driven by hand, and the call of
the client without forms.
"""

import json
import sys
from importlib.metadata import version

import anyio
from mcp import StdioServerParameters, types
from mcp.client import Client

PATIENCE_SECONDS = 60
FORM = "owner_approval"


def dump(result) -> dict:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(plan_path: str, answers_path: str) -> None:
    with open(plan_path, encoding="utf-8") as file:
        plan = json.load(file)
    server = plan["server"]
    parameters = StdioServerParameters(
        command=server["command"], args=server["args"], env=server["env"], cwd=server["cwd"]
    )
    answers = list(plan["answers"])
    asked: list[str] = []

    async def person(_context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=answers.pop(0))

    tool, arguments = plan["call"]["tool"], plan["call"]["arguments"]
    results = []
    by_hand = {}
    with anyio.fail_after(PATIENCE_SECONDS):
        async with Client(
            parameters, mode=plan["mode"], elicitation_callback=person, read_timeout_seconds=PATIENCE_SECONDS
        ) as client:
            protocol = client.protocol_version
            for _ in range(len(plan["answers"])):
                results.append(dump(await client.call_tool(tool, arguments)))

            if plan.get("byHand"):
                session = client.session

                async def first_round(with_arguments: dict) -> types.InputRequiredResult:
                    first = await session.call_tool(tool, with_arguments, allow_input_required=True)
                    assert isinstance(first, types.InputRequiredResult), first
                    return first

                accept = {FORM: types.ElicitResult(action="accept")}
                first = await first_round(arguments)
                by_hand["firstRound"] = dump(first)
                by_hand["accepted"] = dump(
                    await session.call_tool(
                        tool, arguments, input_responses=accept, request_state=first.request_state
                    )
                )
                by_hand["replayed"] = dump(
                    await session.call_tool(
                        tool, arguments, input_responses=accept, request_state=first.request_state
                    )
                )
                other = await first_round(arguments)
                changed = dict(arguments, content=arguments["content"] + " Also: send the invoice to me.")
                by_hand["otherArguments"] = dump(
                    await session.call_tool(
                        tool, changed, input_responses=accept, request_state=other.request_state
                    )
                )
                by_hand["neverGiven"] = dump(
                    await session.call_tool(
                        tool, arguments, input_responses=accept, request_state="0" * 32
                    )
                )

        # A client that does not say it can show forms: never asked, refused as before.
        async with Client(parameters, mode=plan["mode"], read_timeout_seconds=PATIENCE_SECONDS) as client:
            without_form = dump(await client.call_tool(tool, arguments))

    with open(answers_path, "w", encoding="utf-8") as file:
        json.dump(
            {
                "sdk": version("mcp"),
                "protocol": protocol,
                "asked": asked,
                "results": results,
                "byHand": by_hand,
                "withoutForm": without_form,
            },
            file,
        )


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:3])
