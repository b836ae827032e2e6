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
                        tracing::error!("cannot read the MCP client's input: {error:#}");
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
mod tests;
