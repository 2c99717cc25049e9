#!/usr/bin/python3
"""A tiny MCP server over streamable HTTP for Herald's tests, standard library only.

Usage: test_http_server.py PORT_FILE
Binds a free loopback port, writes it to PORT_FILE, and answers JSON-RPC POSTs on /mcp with plain JSON
(the streamable HTTP transport allows a JSON response instead of an event stream). GET is refused with 405
(no server-initiated stream). Tools: echo, and whoami (says whether the request carried the expected
Authorization header, never its value).
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EXPECTED_AUTH = "Bearer http-test-token"
TOOLS = [
    {"name": "echo", "description": "Echo the text back",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "whoami", "description": "Whether the caller is authorized", "inputSchema": {"type": "object", "properties": {}}},
]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(405)
        self.send_header("Allow", "POST")
        self.end_headers()

    def do_DELETE(self):
        self.send_response(200)
        self.end_headers()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        if "id" not in body:
            self.send_response(202)
            self.end_headers()
            return
        method, params = body.get("method"), body.get("params") or {}
        if method == "initialize":
            result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                      "capabilities": {"tools": {"listChanged": False}},
                      "serverInfo": {"name": "herald-http-test", "version": "1.0"}}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call" and params.get("name") == "echo":
            result = {"content": [{"type": "text", "text": "echo: " + str((params.get("arguments") or {}).get("text"))}]}
        elif method == "tools/call" and params.get("name") == "whoami":
            ok = self.headers.get("Authorization") == EXPECTED_AUTH
            result = {"content": [{"type": "text", "text": "authorized" if ok else "anonymous"}]}
        elif method == "ping":
            result = {}
        else:
            result = None
        reply = {"jsonrpc": "2.0", "id": body["id"]}
        if result is None:
            reply["error"] = {"code": -32601, "message": "unsupported: " + str(method)}
        else:
            reply["result"] = result
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
