//! Whatever a client writes on the MCP server's stdin gets a JSON-RPC 2.0 answer at once:
//! text that is not JSON a parse error (-32700, id null, the one id that cannot be read), a
//! `tools/call` that is JSON but past the parser's limits (nesting 1,000 deep, a lone surrogate
//! escape, the number `1e400`) an invalid request carrying the request's own id and naming the
//! problem, JSON that is no JSON-RPC message an invalid request (-32600), a line too long to
//! read an invalid request without being read whole, and a `tools/call` with malformed params
//! invalid params (-32602) in the owner's words. The session goes on answering afterwards. Driven through a raw stdio pipe,
//! as a misbehaving client would.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::support::Store;
use crate::support::mcp::BINARY;

/// How long a reply may take: an upper bound on a wait, never a measurement.
const ONE_SECOND: Duration = Duration::from_secs(1);

struct Pipe {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Pipe {
    async fn send(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    async fn reply(&mut self, what: &str) -> Value {
        let mut line = String::new();
        tokio::time::timeout(ONE_SECOND, self.stdout.read_line(&mut line))
            .await
            .unwrap_or_else(|_| panic!("no reply within a second to {what}"))
            .unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("{what}: not JSON: {line}"))
    }
}

pub async fn spec() {
    let store = Store::without_owner();
    let mut child = tokio::process::Command::new(BINARY)
        .arg("--db")
        .arg(store.path())
        .arg("mcp")
        .env_clear()
        .envs(store.env())
        .current_dir(store.folder())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut pipe = Pipe {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        _child: child,
    };
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw-pipe", "version": "1"}},
    });
    pipe.send(initialize.to_string().as_bytes()).await;
    assert_eq!(pipe.reply("initialize").await["id"], 0);
    pipe.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;

    let mut oversized = vec![b'x'; 5 * 1024 * 1024];
    oversized.splice(0..0, br#"{"jsonrpc":"2.0","id":99,"method":"ping","params":{"x":""#.iter().copied());
    // A `tools/call` whose arguments carry `value`: JSON by RFC 8259, past serde_json's limits.
    let call_carrying = |id: &str, value: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"store_status","arguments":{{"x":{value}}}}}}}"#
        )
        .into_bytes()
    };
    let deep = format!("{}0{}", "[".repeat(1000), "]".repeat(1000));
    let cases: Vec<(&str, Vec<u8>, i64, Value)> = vec![
        ("invalid JSON", b"{not json".to_vec(), -32700, Value::Null),
        (
            "JSON cut short",
            br#"{"jsonrpc":"2.0","id":1,"method":"ping""#.to_vec(),
            -32700,
            Value::Null,
        ),
        (
            "nesting 1,000 deep in a tools/call",
            call_carrying("10", &deep),
            -32600,
            json!(10),
        ),
        (
            "a lone surrogate in a tools/call",
            call_carrying(r#""call-11""#, r#""\ud800""#),
            -32600,
            json!("call-11"),
        ),
        (
            "the number 1e400 in a tools/call",
            call_carrying("12", "1e400"),
            -32600,
            json!(12),
        ),
        ("a line over 4 MiB", oversized, -32600, Value::Null),
        ("a batch", b"[]".to_vec(), -32600, Value::Null),
        (
            "no jsonrpc version",
            br#"{"id":3,"method":"ping"}"#.to_vec(),
            -32600,
            json!(3),
        ),
        (
            "tools/call with arguments that are not an object",
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"store_status","arguments":"all"}}"#
                .to_vec(),
            -32602,
            json!(4),
        ),
    ];
    for (what, bytes, code, id) in cases {
        pipe.send(&bytes).await;
        let reply = pipe.reply(what).await;
        assert_eq!(reply["jsonrpc"], "2.0", "{what}: {reply}");
        assert_eq!(reply["error"]["code"], code, "{what}: {reply}");
        assert_eq!(reply["id"], id, "{what}: {reply}");
        if let Some(problem) = match what {
            "nesting 1,000 deep in a tools/call" => Some("it is nested more than 127 levels deep"),
            "a lone surrogate in a tools/call" => Some(
                "it holds a string with an unpaired UTF-16 surrogate escape (such as \"\\ud800\"); \
                 send the whole character",
            ),
            "the number 1e400 in a tools/call" => {
                Some("it holds a number beyond what a 64-bit float holds (such as 1e400)")
            }
            _ => None,
        } {
            assert_eq!(
                reply["error"]["message"],
                format!(
                    "Invalid Request: the message is JSON, but this server cannot read it: \
                     {problem} (in `params`)"
                ),
                "{what}"
            );
        }
        if code == -32602 {
            assert_eq!(
                reply["error"]["message"],
                "Invalid params: `arguments` must be a JSON object of the tool's fields, such as \
                 {\"limit\": 5}"
            );
        }
    }

    // The session is still served.
    pipe.send(br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).await;
    let pong = pipe.reply("ping after the malformed messages").await;
    assert_eq!(pong["id"], 5);
    assert_eq!(pong["result"], json!({}));
}
