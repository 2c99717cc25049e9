#!/usr/bin/python3
"""A tiny MCP server over stdio for Herald's tests: newline-delimited JSON-RPC 2.0, standard library only.

Usage: test_server.py STATE_DIR
On start it appends its pid to STATE_DIR/pids (one line per start), so a test can find and kill it and
count restarts. Tools: echo, add, slow (sleeps), fail (isError result), secret_env (says whether
HERALD_TEST_SECRET is set, never its value), and from the second start on also 'reborn'.
"""
import json
import os
import sys
import time

state_dir = sys.argv[1]
os.makedirs(state_dir, exist_ok=True)
with open(os.path.join(state_dir, "pids"), "a") as f:
    f.write(f"{os.getpid()}\n")
with open(os.path.join(state_dir, "pids")) as f:
    starts = len([line for line in f if line.strip()])


def tool(name, description, properties, required):
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": required}}


TOOLS = [
    tool("echo", "Echo the text back", {"text": {"type": "string"}}, ["text"]),
    tool("add", "Add two numbers", {"a": {"type": "number"}, "b": {"type": "number"}}, ["a", "b"]),
    tool("slow", "Sleep for some seconds", {"seconds": {"type": "number"}}, ["seconds"]),
    tool("fail", "Always fails", {}, []),
    tool("secret_env", "Whether the secret is set", {}, []),
]
if starts >= 2:
    TOOLS.append(tool("reborn", "Exists only after a restart", {}, []))


def text(value, error=False):
    return {"content": [{"type": "text", "text": value}], "isError": error}


def call(name, args):
    if name == "echo":
        return text("echo: " + str(args.get("text", "")))
    if name == "add":
        return text(str(args["a"] + args["b"]))
    if name == "slow":
        time.sleep(float(args.get("seconds", 1)))
        return text("slept")
    if name == "fail":
        return text("this tool always fails", error=True)
    if name == "secret_env":
        return text("secret is set" if os.environ.get("HERALD_TEST_SECRET") else "secret is missing")
    if name == "reborn":
        return text(f"start number {starts}")
    return None


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    message = json.loads(line)
    method = message.get("method")
    if "id" not in message:
        continue  # a notification, such as notifications/initialized
    mid = message["id"]
    params = message.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "herald-test-server", "version": "1.0." + str(starts)}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        result = call(params.get("name"), params.get("arguments") or {})
        if result is None:
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32602, "message": "unknown tool " + str(params.get("name"))}})
        else:
            send({"jsonrpc": "2.0", "id": mid, "result": result})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "method not found: " + str(method)}})
