"""Run by Home Assistant's own Python (the tier's venv, which has aiohttp), not
collected: `ws.py URL TOKEN` sends each command of a JSON list on stdin over Home
Assistant's websocket API, as its frontend does, and prints the results as JSON."""

# mypy: ignore-errors
# (run by the venv's Python 3.13, whose Home Assistant and aiohttp mypy here has not)

import asyncio
import json
import sys

import aiohttp


async def main(url: str, token: str, commands: list[dict]) -> list:
    results = []
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        assert (await ws.receive_json())["type"] == "auth_required"
        await ws.send_json({"type": "auth", "access_token": token})
        reply = await ws.receive_json()
        assert reply["type"] == "auth_ok", reply
        for number, command in enumerate(commands, 1):
            await ws.send_json({"id": number, **command})
            while (reply := await ws.receive_json()).get("id") != number:
                pass
            if not reply.get("success"):
                raise SystemExit(f"{command['type']}: {reply.get('error')}")
            results.append(reply["result"])
    return results


if __name__ == "__main__":
    out = asyncio.run(asyncio.wait_for(main(sys.argv[1], sys.argv[2], json.load(sys.stdin)), 20))
    print(json.dumps(out))
