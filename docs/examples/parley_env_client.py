#!/usr/bin/env python3
"""Plays Parley episodes through `parley serve-env` with a simple scripted policy.

Standard library only. By default it speaks OpenEnv's HTTP protocol (POST /reset, POST /step);
with --ws, OpenEnv's WebSocket session at /ws (the protocol OpenEnv's own EnvClient speaks), over
the small WebSocket client below. Start the server first:

    npm run parley -- serve-env --port 8765
    python3 docs/examples/parley_env_client.py --url http://127.0.0.1:8765 [--seed 7] [--seat buyer] [--ws]

The policy reads its prompt: it accepts a standing offer within 10% of its own value (or cost) and
otherwise concedes a fixed step each turn, answering with the move tools' calls in OpenAI's shape,
as a served model would. Put a model's chat completion where `policy` is.

Each step prints a line; the last line is `result: {...}` (JSON: episode_id, seed, seat, steps,
reward, terminated, truncated, outcome).
"""

import argparse
import base64
import hashlib
import json
import math
import os
import re
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request


# --- the policy: a pure function of the prompt ------------------------------------------------


def round_cents(price):
    # As Parley's roundCents: Math.round(price * 100) / 100, halves rounded up.
    cents = price * 100
    whole = math.floor(cents)
    return (whole + (1 if cents - whole >= 0.5 else 0)) / 100


def policy(messages):
    """The next move as one tool call: {"name": ..., "arguments": JSON text}."""
    prompt = "\n".join(m["content"] for m in messages)
    role = re.search(r"You are the (buyer|seller)", prompt).group(1)
    own = float(re.search(r"Your private (?:value for it|cost): \$(\d+(?:\.\d+)?)", prompt).group(1))
    own_turn = int(re.search(r"your turn (\d+)", prompt).group(1))
    pending = re.search(r"binding offer of \$(\d+(?:\.\d+)?); you may accept it", prompt)
    pending = None if pending is None else float(pending.group(1))
    said = {"message": f"Hello from the {role}."} if own_turn == 1 else {}
    if role == "buyer":
        if pending is not None and pending <= own * 0.9:
            return {"name": "respond_to_offer", "arguments": json.dumps({"decision": "accept", **said})}
        price = round_cents(own * min(0.9, 0.5 + 0.08 * (own_turn - 1)))
    else:
        if pending is not None and pending >= own * 1.1:
            return {"name": "respond_to_offer", "arguments": json.dumps({"decision": "accept", **said})}
        price = round_cents(own * max(1.1, 2 - 0.15 * (own_turn - 1)))
    return {"name": "make_offer", "arguments": json.dumps({"price": price, **said})}


def action_of(observation, step):
    """OpenEnv's `action` for Parley: the model's tool calls as an OpenAI server returns them."""
    call = policy(observation["messages"])
    return {"tool_calls": [{"id": f"call_{step}", "type": "function", "function": call}]}


# --- OpenEnv over HTTP ------------------------------------------------------------------------


class HttpEnv:
    def __init__(self, url):
        self.url = url.rstrip("/")
        self.episode_id = None

    def _post(self, path, body):
        request = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode("utf-8"), headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.load(response)
        except urllib.error.HTTPError as e:
            # The server answers every refusal with {"error": {"code", "message"}}.
            error = json.load(e).get("error", {})
            raise SystemExit(f"{path}: HTTP {e.code} {error.get('code')}: {error.get('message')}")

    def reset(self, **request):
        result = self._post("/reset", request)
        self.episode_id = result["observation"]["episode_id"]
        return result

    def step(self, action):
        return self._post("/step", {"episode_id": self.episode_id, "action": action})

    def state(self):
        query = urllib.parse.urlencode({"episode_id": self.episode_id})
        with urllib.request.urlopen(f"{self.url}/state?{query}", timeout=60) as response:
            return json.load(response)

    def close(self):
        pass


# --- OpenEnv over a WebSocket (RFC 6455, text frames, the client's side) ----------------------


class WsEnv:
    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname, parts.port or 80
        self.sock = socket.create_connection((host, port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode("ascii")
        self.sock.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode("ascii")
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise SystemExit("/ws: the server closed the connection during the handshake")
            head += chunk
        head, self.buffer = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if not lines[0].startswith("HTTP/1.1 101"):
            raise SystemExit(f"/ws: {lines[0]}")
        accept = base64.b64encode(hashlib.sha1((key + self.GUID).encode("ascii")).digest()).decode("ascii")
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
        if headers.get("sec-websocket-accept") != accept:
            raise SystemExit("/ws: the handshake's Sec-WebSocket-Accept does not match")

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise SystemExit("/ws: the server closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + n.to_bytes(2, "big")
        else:
            header += bytes([0x80 | 127]) + n.to_bytes(8, "big")
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _receive(self):
        message = b""
        while True:
            first, second = self._read(2)
            fin, opcode, n = first & 0x80, first & 0x0F, second & 0x7F
            if n == 126:
                n = int.from_bytes(self._read(2), "big")
            elif n == 127:
                n = int.from_bytes(self._read(8), "big")
            payload = self._read(n)  # a server's frames are not masked
            if opcode == 0x8:
                raise SystemExit("/ws: the server closed the session")
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            message += payload
            if fin:
                return json.loads(message.decode("utf-8"))

    def _call(self, message):
        self._send_frame(0x1, json.dumps(message).encode("utf-8"))
        reply = self._receive()
        if reply["type"] == "error":
            error = reply["data"]
            raise SystemExit(f"/ws {message['type']}: {error['code']} {error['error']['code']}: {error['message']}")
        return reply["data"]

    def reset(self, **request):
        return self._call({"type": "reset", "data": request})

    def step(self, action):
        return self._call({"type": "step", "data": action})

    def state(self):
        return self._call({"type": "state"})

    def close(self):
        self._send_frame(0x1, json.dumps({"type": "close"}).encode("utf-8"))
        self.sock.close()


# --- one episode --------------------------------------------------------------------------------


def play(env, request):
    result = env.reset(**request)
    observation = result["observation"]
    print(f"episode {observation['episode_id']}: {observation['game']}, the policy plays the {observation['seat']}, seed {observation['seed']}")
    steps = 0
    while not result["done"]:
        action = action_of(result["observation"], steps)
        call = action["tool_calls"][0]["function"]
        result = env.step(action)
        steps += 1
        print(f"step {steps}: {call['name']}({call['arguments']}) -> reward {result['reward']}, done {result['done']}")
    end = result["observation"]
    state = env.state()
    print(f"ended: {end['outcome']['kind']} ({'terminated' if end['terminated'] else 'truncated'}), reward {result['reward']}, terms {end['terms']}")
    summary = {
        "episode_id": end["episode_id"],
        "seed": end["seed"],
        "seat": end["seat"],
        "steps": steps,
        "step_count": state["step_count"],
        "reward": result["reward"],
        "terminated": end["terminated"],
        "truncated": end["truncated"],
        "outcome": end["outcome"],
    }
    print("result: " + json.dumps(summary))
    return summary


def main():
    parser = argparse.ArgumentParser(description="Plays one Parley episode through serve-env with a scripted policy.")
    parser.add_argument("--url", default="http://127.0.0.1:8765", help="the environment server")
    parser.add_argument("--seed", type=int, help="the scenario's seed (default: drawn by the server, and printed)")
    parser.add_argument("--seat", choices=["buyer", "seller"], help="the policy's seat (default: the server's, buyer)")
    parser.add_argument("--opponent", help="any Parley agent spec (default: the server's, boulware)")
    parser.add_argument("--ws", action="store_true", help="speak OpenEnv's WebSocket protocol at /ws instead of HTTP")
    args = parser.parse_args()
    request = {"interface": "tools"}
    for key in ("seed", "seat", "opponent"):
        if getattr(args, key) is not None:
            request[key] = getattr(args, key)
    env = WsEnv(args.url) if args.ws else HttpEnv(args.url)
    try:
        play(env, request)
    finally:
        env.close()


if __name__ == "__main__":
    sys.exit(main())
