"""The official Python SDK's client (`mcp` on PyPI) driving discord-manager's MCP server over
stdio, for the E2E spec
`the_official_sdk_clients_get_every_tools_answer_while_the_server_pushes_channel_events`.

Usage: python3 python_client.py PLAN.json ANSWERS.json

PLAN.json and ANSWERS.json are as in typescript_client.mjs beside this file, and so is the
pause after `pauseAfterCalls` calls.

The SDK knows no `notifications/claude/channel` and drops it unread. To tell whether the
server really pushed while the tools answered, this script reads a copy of what the transport
hands the session: every message passes on to the SDK unchanged, and the channel events are
counted on the way.
"""

import json
import sys
from importlib.metadata import version

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types

CHANNEL_EVENT = "notifications/claude/channel"
# A safety net, not a measurement: a silent server fails the run instead of hanging it.
PATIENCE_SECONDS = 60


async def main(plan_path: str, answers_path: str) -> None:
    with open(plan_path, encoding="utf-8") as file:
        plan = json.load(file)
    server = plan["server"]
    parameters = StdioServerParameters(
        command=server["command"], args=server["args"], env=server["env"], cwd=server["cwd"]
    )
    pushed: list[dict] = []
    answered = 0
    push_arrived = anyio.Event()

    async with stdio_client(parameters) as (from_server, to_server):
        to_session, session_reads = anyio.create_memory_object_stream(0)

        async def hand_on() -> None:
            nonlocal push_arrived
            async with to_session:
                async for item in from_server:
                    message = getattr(item, "message", None)
                    if isinstance(message, types.JSONRPCNotification) and message.method == CHANNEL_EVENT:
                        pushed.append({"params": message.params, "callsAnswered": answered})
                        push_arrived.set()
                        push_arrived = anyio.Event()
                    await to_session.send(item)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(hand_on)
            async with ClientSession(session_reads, to_server) as session:
                await session.initialize()
                tools = []
                cursor = None
                while True:
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    page = await session.list_tools(params=params)
                    tools += [{"name": tool.name, "description": tool.description} for tool in page.tools]
                    cursor = page.next_cursor
                    if not cursor:
                        break

                async def pushed_at_least(count: int) -> None:
                    with anyio.fail_after(PATIENCE_SECONDS):
                        while len(pushed) < count:
                            await push_arrived.wait()

                await pushed_at_least(plan["pushesBeforeCalls"])
                results = []
                for call in plan["calls"]:
                    if len(results) == plan["pauseAfterCalls"]:
                        before = len(pushed)
                        print("paused", flush=True)
                        await pushed_at_least(before + 1)
                    result = await session.call_tool(
                        call["tool"], call["arguments"], read_timeout_seconds=PATIENCE_SECONDS
                    )
                    dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
                    results.append(
                        {
                            "tool": call["tool"],
                            "isError": dumped.get("isError", False),
                            "content": dumped["content"],
                            "structuredContent": dumped.get("structuredContent"),
                        }
                    )
                    answered += 1
            tasks.cancel_scope.cancel()

    answers = {"sdk": version("mcp"), "tools": tools, "results": results, "pushed": pushed}
    with open(answers_path, "w", encoding="utf-8") as file:
        json.dump(answers, file)


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:3])
