//! The MCP server's stdio transport: one JSON-RPC message per line in, one per line out, and
//! a reply to every request a client sends, however malformed.
//!
//! rmcp's own stdio transport drops a line it cannot parse without a word (the client then
//! waits until its own timeout), buffers a line of up to 16 MiB before judging it, and answers
//! a `tools/call` whose params do not parse as an unknown method (-32601). Here each line is
//! judged first, as JSON-RPC 2.0 says:
//!
//! - not JSON by RFC 8259 (invalid syntax, not UTF-8, a value cut short): `-32700` parse
//!   error, with `id: null`, the only reply whose id is null for want of reading it;
//! - JSON by RFC 8259 that goes past serde_json's limits (nesting deeper than
//!   [`scan::MAX_DEPTH`], a lone surrogate escape such as `"\ud800"`, a number such as `1e400`
//!   that no 64-bit float holds): `-32600` invalid request naming the problem, with the id a
//!   tolerant scan of the top level ([`scan`]) reads;
//! - JSON that is not a JSON-RPC 2.0 message, a batch, or a line over [`MAX_LINE`] (refused as
//!   it streams past, never held whole): `-32600` invalid request, with the id when it can be
//!   read, else `null`;
//! - a request for a method this server knows whose params do not have that method's shape:
//!   `-32602` invalid params, saying what is wrong;
//!
//! and only a well-formed message reaches rmcp. Replies and rmcp's own messages share one
//! writer, a whole line at a time.

mod scan;

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use rmcp::service::TxJsonRpcMessage;
use rmcp::transport::Transport;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, mpsc};

/// The longest line read: a request beyond it is refused as it streams past, so a peer that
/// sends megabytes without a newline costs this much memory at most.
pub const MAX_LINE: usize = 4 * 1024 * 1024;

/// JSON-RPC 2.0's error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// The request methods this server serves with typed params: a request for one of these whose
/// params do not parse is invalid params, not an unknown method.
const SERVED_METHODS: &[&str] = &["initialize", "ping", "tools/list", "tools/call"];

/// What to do with one line.
#[derive(Debug)]
enum Verdict {
    /// A well-formed message: rmcp handles it.
    Forward(Box<ClientJsonRpcMessage>),
    /// Answered here, with this error response.
    Reply(Value),
    /// Nothing to do (a blank line, or a malformed notification, which gets no reply).
    Ignore,
}

fn error_reply(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message.into()},
    })
}

/// Why a line is not JSON, in words (serde's own text names lines and columns of a one-line
/// message, which says nothing to the reader).
fn why_not_json(error: &serde_json::Error) -> &'static str {
    let text = error.to_string();
    if text.contains("recursion limit") {
        "it is nested more than 128 levels deep"
    } else if text.contains("number out of range") {
        "a number in it is out of range"
    } else if text.contains("surrogate") || text.contains("unicode") || text.contains("escape") {
        "it holds an invalid escape (such as a lone UTF-16 surrogate)"
    } else if text.contains("UTF-8") || text.contains("utf-8") {
        "it is not UTF-8 text"
    } else if error.is_eof() {
        "it ends in the middle of a value"
    } else {
        "its syntax is not JSON's"
    }
}

/// Judges one line (without its newline).
fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore;
    }
    let object = match json_object(line) {
        Ok(object) => object,
        Err(verdict) => return verdict,
    };
    // The id, when it is one JSON-RPC allows (a string or a whole number); otherwise null.
    let id = match object.get("id") {
        Some(Value::String(_)) => object["id"].clone(),
        Some(Value::Number(number)) if number.is_i64() => object["id"].clone(),
        _ => Value::Null,
    };
    let method = match envelope_problem(&object, &id) {
        Ok(method) => method,
        Err(verdict) => return verdict,
    };
    let has_valid_id = !id.is_null();
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
        Ok(JsonRpcMessage::Request(request))
            if matches!(request.request, ClientRequest::CustomRequest(_))
                && method
                    .as_deref()
                    .is_some_and(|method| SERVED_METHODS.contains(&method)) =>
        {
            // rmcp falls back to a custom request when the params do not parse, and would
            // then answer "method not found" for a method it serves.
            Verdict::Reply(error_reply(
                id,
                INVALID_PARAMS,
                format!(
                    "Invalid params: the params of `{}` do not have the shape it takes",
                    method.unwrap_or_default()
                ),
            ))
        }
        Ok(message) => Verdict::Forward(Box::new(message)),
        // A notification gets no reply, even a malformed one.
        Err(_) if !has_valid_id && method.is_some() => Verdict::Ignore,
        Err(_) => invalid_request(
            id,
            "the message does not have the shape of a JSON-RPC request, notification or response",
        ),
    }
}

/// The line as one JSON object, or the reply a line that is not one gets.
fn json_object(line: &[u8]) -> Result<Map<String, Value>, Verdict> {
    let value: Value = serde_json::from_slice(line).map_err(|error| {
        beyond_limits(line).unwrap_or_else(|| {
            Verdict::Reply(error_reply(
                Value::Null,
                PARSE_ERROR,
                format!(
                    "Parse error: the message is not valid JSON: {}",
                    why_not_json(&error)
                ),
            ))
        })
    })?;
    match value {
        Value::Object(object) => Ok(object),
        Value::Array(_) => Err(Verdict::Reply(error_reply(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: batches are not supported; send one message per line",
        ))),
        _ => Err(Verdict::Reply(error_reply(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: a message must be a JSON object",
        ))),
    }
}

/// The verdict on a line serde_json refused that is JSON by RFC 8259 all the same (a number
/// no 64-bit float holds, a lone surrogate escape, nesting past serde_json's limit): the
/// request is answered by its own id, saying what went past which limit. None when the line
/// is not JSON.
fn beyond_limits(line: &[u8]) -> Option<Verdict> {
    let scan = scan::scan(std::str::from_utf8(line).ok()?)?;
    let id = scan
        .id
        .and_then(|raw| serde_json::from_str::<Value>(&raw).ok())
        .filter(|id| id.is_string() || id.is_i64())
        .unwrap_or(Value::Null);
    // A notification gets no reply, even one this server cannot read.
    if !scan.has_id && scan.has_method {
        return Some(Verdict::Ignore);
    }
    let problem = match scan.beyond {
        Some((beyond, member)) => {
            let member = member
                .filter(|member| ENVELOPE.contains(&member.as_str()))
                .map(|member| format!(" (in `{member}`)"))
                .unwrap_or_default();
            format!("{}{member}", beyond.words())
        }
        None => "it goes past a limit of this server's JSON reader".to_string(),
    };
    Some(invalid_request(
        id,
        &format!("the message is JSON, but this server cannot read it: {problem}"),
    ))
}

/// The members of a JSON-RPC message, the ones a reply may name.
const ENVELOPE: &[&str] = &["jsonrpc", "id", "method", "params", "result", "error"];

fn invalid_request(id: Value, message: &str) -> Verdict {
    Verdict::Reply(error_reply(
        id,
        INVALID_REQUEST,
        format!("Invalid Request: {message}"),
    ))
}

/// The JSON-RPC envelope checked: `jsonrpc`, `id`, `params`, `method` (returned when there is
/// one), and the params of the methods judged here; the verdict for the first problem.
fn envelope_problem(object: &Map<String, Value>, id: &Value) -> Result<Option<String>, Verdict> {
    let has_valid_id = !id.is_null();
    let invalid = |message: &str| invalid_request(id.clone(), message);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    if object.contains_key("id") && !has_valid_id {
        return Err(invalid("`id` must be a string or a whole number"));
    }
    if let Some(params) = object.get("params")
        && !(params.is_object() || params.is_array())
    {
        return Err(if has_valid_id || !object.contains_key("method") {
            invalid("`params` must be an object")
        } else {
            Verdict::Ignore
        });
    }
    let method = match object.get("method") {
        Some(Value::String(method)) => Some(method.clone()),
        Some(_) => return Err(invalid("`method` must be a string")),
        None => None,
    };
    if method.is_none() && !(object.contains_key("result") || object.contains_key("error")) {
        return Err(invalid(
            "a message needs a `method` (a request or notification), or a `result` or `error` (a response)",
        ));
    }
    if let (Some(method), true) = (&method, has_valid_id)
        && let Some(problem) = params_problem(method, object.get("params"))
    {
        return Err(Verdict::Reply(error_reply(
            id.clone(),
            INVALID_PARAMS,
            format!("Invalid params: {problem}"),
        )));
    }
    Ok(method)
}

/// What is wrong with the params of a request for `method`, in words, for the methods whose
/// params a caller most often gets wrong; None when they are fine (or not judged here).
fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    match method {
        "tools/call" => {
            let Some(Value::Object(params)) = params else {
                return Some(
                    "`tools/call` takes an object with `name` (the tool's name) and `arguments` \
                     (an object of its fields)"
                        .to_string(),
                );
            };
            match params.get("name") {
                Some(Value::String(_)) => {}
                Some(_) => return Some("`name` must be the tool's name, as a string".to_string()),
                None => return Some("`name` is required: the tool's name".to_string()),
            }
            match params.get("arguments") {
                None | Some(Value::Null) | Some(Value::Object(_)) => None,
                Some(_) => Some(
                    "`arguments` must be a JSON object of the tool's fields, such as \
                     {\"limit\": 5}"
                        .to_string(),
                ),
            }
        }
        "initialize" => match params {
            Some(Value::Object(params))
                if params.get("protocolVersion").is_some_and(Value::is_string)
                    && params.get("capabilities").is_some_and(Value::is_object)
                    && params.get("clientInfo").is_some_and(Value::is_object) =>
            {
                None
            }
            _ => Some(
                "`initialize` needs `protocolVersion` (a string), `capabilities` (an object) \
                 and `clientInfo` (an object with `name` and `version`)"
                    .to_string(),
            ),
        },
        _ => None,
    }
}

/// One line read without holding more than [`MAX_LINE`] bytes of it.
enum Line {
    Complete(Vec<u8>),
    Oversized,
    End,
}

async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, limit: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            // The stream ended; a last line without its newline still counts.
            return Ok(if oversized {
                Line::Oversized
            } else if line.is_empty() {
                Line::End
            } else {
                Line::Complete(line)
            });
        }
        let (chunk, found) = match available.iter().position(|&byte| byte == b'\n') {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        if !oversized {
            if line.len() + chunk.len() > limit {
                // Refused as it streams past: what was kept is let go now.
                oversized = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let consumed = found.unwrap_or(available.len());
        reader.consume(consumed);
        if found.is_some() {
            return Ok(if oversized {
                Line::Oversized
            } else {
                Line::Complete(line)
            });
        }
    }
}

/// The transport rmcp serves over: messages judged by [`judge`] come from a reader task; rmcp's
/// messages and the judge's replies go out through one writer.
pub struct GuardedTransport<W> {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    out: Arc<Mutex<W>>,
}

impl<W: AsyncWrite + Send + Unpin + 'static> GuardedTransport<W> {
    /// Starts reading `input` on the current runtime; lines longer than `limit` are refused.
    pub fn new<R: AsyncRead + Send + Unpin + 'static>(input: R, output: W, limit: usize) -> Self {
        let out = Arc::new(Mutex::new(output));
        let (forward, incoming) = mpsc::channel(64);
        let replies = Arc::clone(&out);
        tokio::spawn(async move {
            let mut reader = BufReader::new(input);
            loop {
                let verdict = match read_line(&mut reader, limit).await {
                    Ok(Line::Complete(line)) => judge(&line),
                    Ok(Line::Oversized) => Verdict::Reply(error_reply(
                        Value::Null,
                        INVALID_REQUEST,
                        format!(
                            "Invalid Request: the message is longer than {} MiB; it was not read",
                            limit / (1024 * 1024)
                        ),
                    )),
                    Ok(Line::End) => break,
                    Err(error) => {
                        tracing::error!("cannot read the MCP client's input: {error}");
                        break;
                    }
                };
                match verdict {
                    Verdict::Forward(message) => {
                        if forward.send(*message).await.is_err() {
                            break;
                        }
                    }
                    Verdict::Reply(reply) => {
                        if write_line(&replies, &reply).await.is_err() {
                            break;
                        }
                    }
                    Verdict::Ignore => {}
                }
            }
        });
        GuardedTransport { incoming, out }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(
    out: &Mutex<W>,
    message: &impl serde::Serialize,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    let mut out = out.lock().await;
    out.write_all(&bytes).await?;
    out.flush().await
}

impl<W: AsyncWrite + Send + Unpin + 'static> Transport<RoleServer> for GuardedTransport<W> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = Arc::clone(&self.out);
        async move { write_line(&out, &item).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        // Cancel-safe: a message is taken from the channel only when this completes.
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        self.out.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> Value {
        match judge(line.as_bytes()) {
            Verdict::Reply(reply) => reply,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn code_and_id(reply: &Value) -> (i64, Value) {
        (
            reply["error"]["code"].as_i64().unwrap(),
            reply["id"].clone(),
        )
    }

    #[test]
    fn a_line_that_is_not_json_is_a_parse_error_with_a_null_id() {
        let unclosed = "[".repeat(1000);
        for (line, why) in [
            (
                "{\"jsonrpc\":\"2.0\",\"id\":1,",
                "it ends in the middle of a value",
            ),
            ("not json", "its syntax is not JSON's"),
            (unclosed.as_str(), "it is nested more than 128 levels deep"),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800\u00zz"}}"#,
                "it holds an invalid escape (such as a lone UTF-16 surrogate)",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":1e400,}}"#,
                "a number in it is out of range",
            ),
        ] {
            let reply = reply(line);
            assert_eq!(code_and_id(&reply), (-32700, Value::Null), "{line}");
            assert_eq!(
                reply["error"]["message"],
                format!("Parse error: the message is not valid JSON: {why}")
            );
            assert_eq!(reply["jsonrpc"], "2.0");
        }
        let invalid_utf8 = judge(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}");
        assert!(
            matches!(&invalid_utf8, Verdict::Reply(reply) if reply["error"]["code"] == -32700),
            "{invalid_utf8:?}"
        );
    }

    /// A `tools/call` carrying `value` in its arguments.
    fn call_carrying(id: &str, value: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"store_status","arguments":{{"x":{value}}}}}}}"#
        )
    }

    /// `value` inside arrays, nested `depth` deep counting the message's own object, its
    /// params and its arguments.
    fn nested(depth: usize) -> String {
        let arrays = depth - 3;
        format!("{}0{}", "[".repeat(arrays), "]".repeat(arrays))
    }

    fn beyond(line: &str) -> (i64, Value, String) {
        let reply = reply(line);
        let (code, id) = code_and_id(&reply);
        (
            code,
            id,
            reply["error"]["message"].as_str().unwrap().to_string(),
        )
    }

    const CANNOT_READ: &str =
        "Invalid Request: the message is JSON, but this server cannot read it";

    #[test]
    fn json_past_the_parsers_limits_is_answered_by_its_own_id_saying_what_is_wrong() {
        for (value, problem) in [
            (
                nested(scan::MAX_DEPTH + 1),
                format!("it is nested more than {} levels deep", scan::MAX_DEPTH),
            ),
            (
                "1e400".to_string(),
                "it holds a number beyond what a 64-bit float holds (such as 1e400)".to_string(),
            ),
            (
                "-1e400".to_string(),
                "it holds a number beyond what a 64-bit float holds (such as 1e400)".to_string(),
            ),
            (
                format!("1{}", "0".repeat(400)),
                "it holds a number beyond what a 64-bit float holds (such as 1e400)".to_string(),
            ),
            (
                r#""\ud800""#.to_string(),
                "it holds a string with an unpaired UTF-16 surrogate escape (such as \"\\ud800\"); send the whole character".to_string(),
            ),
            (
                r#""a\udc00b""#.to_string(),
                "it holds a string with an unpaired UTF-16 surrogate escape (such as \"\\ud800\"); send the whole character".to_string(),
            ),
            (
                r#""\ud83d\u0041""#.to_string(),
                "it holds a string with an unpaired UTF-16 surrogate escape (such as \"\\ud800\"); send the whole character".to_string(),
            ),
        ] {
            for id in ["7", r#""call-7""#] {
                let line = call_carrying(id, &value);
                assert_eq!(
                    beyond(&line),
                    (
                        -32600,
                        serde_json::from_str::<Value>(id).unwrap(),
                        format!("{CANNOT_READ}: {problem} (in `params`)")
                    ),
                    "{line}"
                );
            }
        }
        // The id is read wherever it stands, after what the parser refused too.
        assert_eq!(
            beyond(r#"{"params":{"x":1e400},"method":"tools/call","jsonrpc":"2.0","id":12}"#).1,
            json!(12)
        );
        // A top level that is no object has no id to answer.
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        assert_eq!(
            beyond(&deep),
            (
                -32600,
                Value::Null,
                format!("{CANNOT_READ}: it is nested more than 127 levels deep")
            )
        );
        // An id that is no string or whole number is not echoed.
        assert_eq!(beyond(&call_carrying("1.5", "1e400")).1, Value::Null);
        assert_eq!(beyond(&call_carrying(r#""\ud800""#, "1")).1, Value::Null);
        // A notification gets no reply, even one past the limits.
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"x":1e400}}"#),
            Verdict::Ignore
        ));
    }

    #[test]
    fn json_just_within_the_parsers_limits_goes_on_to_the_server() {
        for value in [
            nested(scan::MAX_DEPTH),
            "1e308".to_string(),
            "-1.7976931348623157e308".to_string(),
            "1e-400".to_string(),
            format!("1{}", "0".repeat(300)),
            r#""\ud83d\ude00""#.to_string(),
            r#""\ud7ff\ue000""#.to_string(),
        ] {
            let line = call_carrying("7", &value);
            assert!(
                matches!(judge(line.as_bytes()), Verdict::Forward(_)),
                "{value}"
            );
        }
    }

    #[test]
    fn the_scan_nests_as_deep_as_serde_json_reads() {
        let at = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(serde_json::from_str::<Value>(&at(scan::MAX_DEPTH)).is_ok());
        assert!(serde_json::from_str::<Value>(&at(scan::MAX_DEPTH + 1)).is_err());
        assert_eq!(scan::scan(&at(scan::MAX_DEPTH)).unwrap().beyond, None);
        assert_eq!(
            scan::scan(&at(scan::MAX_DEPTH + 1)).unwrap().beyond,
            Some((scan::Beyond::Depth, None))
        );
        // A million levels are scanned without recursion.
        assert_eq!(
            scan::scan(&at(1_000_000)).unwrap().beyond,
            Some((scan::Beyond::Depth, None))
        );
    }

    #[test]
    fn the_scan_takes_exactly_rfc_8259_json() {
        for valid in [
            "0",
            "-0.5e+3",
            " { \"a\" : [ true , false , null , \"\\\"\\\\\\/\\b\\f\\n\\r\\t\" ] } ",
            "[]",
            "{}",
            "\"\\u00e9\"",
        ] {
            assert!(scan::scan(valid).is_some(), "{valid}");
            assert!(serde_json::from_str::<Value>(valid).is_ok(), "{valid}");
        }
        for invalid in [
            "",
            "01",
            "1.",
            "1e",
            "+1",
            ".5",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:2}",
            "[1 2]",
            "\"\\x\"",
            "\"\\u12\"",
            "\"a\u{1}b\"",
            "tru",
            "[1]]",
            "[1] x",
            "{\"a\":[}",
            "NaN",
        ] {
            assert_eq!(scan::scan(invalid), None, "{invalid}");
            assert!(serde_json::from_str::<Value>(invalid).is_err(), "{invalid}");
        }
    }

    #[test]
    fn json_that_is_not_a_json_rpc_message_is_an_invalid_request() {
        for (line, id, message) in [
            (
                "[]",
                Value::Null,
                "batches are not supported; send one message per line",
            ),
            ("5", Value::Null, "a message must be a JSON object"),
            (
                r#"{"id":3,"method":"ping"}"#,
                json!(3),
                "`jsonrpc` must be \"2.0\"",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                Value::Null,
                "`id` must be a string or a whole number",
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":7}"#,
                json!("a"),
                "`method` must be a string",
            ),
            (
                r#"{"jsonrpc":"2.0","id":"b","method":"ping","params":"x"}"#,
                json!("b"),
                "`params` must be an object",
            ),
            (
                r#"{"jsonrpc":"2.0","id":4}"#,
                json!(4),
                "a message needs a `method` (a request or notification), or a `result` or `error` (a response)",
            ),
        ] {
            let reply = reply(line);
            assert_eq!(code_and_id(&reply), (-32600, id), "{line}");
            assert_eq!(
                reply["error"]["message"],
                format!("Invalid Request: {message}")
            );
        }
    }

    #[test]
    fn a_served_method_with_params_of_the_wrong_shape_is_invalid_params() {
        for (line, message) in [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"store_status","arguments":"limit=5"}}"#,
                "`arguments` must be a JSON object of the tool's fields, such as {\"limit\": 5}",
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}"#,
                "`name` is required: the tool's name",
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}"#,
                "`name` must be the tool's name, as a string",
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#,
                "`tools/call` takes an object with `name` (the tool's name) and `arguments` (an object of its fields)",
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}"#,
                "`initialize` needs `protocolVersion` (a string), `capabilities` (an object) and `clientInfo` (an object with `name` and `version`)",
            ),
        ] {
            let reply = reply(line);
            assert_eq!(code_and_id(&reply), (-32602, json!(7)), "{line}");
            assert_eq!(
                reply["error"]["message"],
                format!("Invalid params: {message}")
            );
        }
    }

    #[test]
    fn well_formed_messages_go_on_to_the_server_and_malformed_notifications_get_no_reply() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"store_status","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_status"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"no/such/method"}"#,
        ] {
            assert!(
                matches!(judge(line.as_bytes()), Verdict::Forward(_)),
                "{line}"
            );
        }
        assert!(matches!(judge(b"   "), Verdict::Ignore));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#),
            Verdict::Ignore
        ));
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_refused_without_being_kept_and_the_next_is_read() {
        let mut input: &[u8] = b"0123456789abcdef\nshort\n0123456789";
        let mut reader = BufReader::with_capacity(4, &mut input);
        assert!(matches!(
            read_line(&mut reader, 10).await.unwrap(),
            Line::Oversized
        ));
        assert!(
            matches!(read_line(&mut reader, 10).await.unwrap(), Line::Complete(line) if line == b"short")
        );
        // Exactly the limit is read; the stream's end closes the last line.
        assert!(
            matches!(read_line(&mut reader, 10).await.unwrap(), Line::Complete(line) if line == b"0123456789")
        );
        assert!(matches!(
            read_line(&mut reader, 10).await.unwrap(),
            Line::End
        ));
    }
}
