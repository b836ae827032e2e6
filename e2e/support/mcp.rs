//! The MCP client harness: the real `discord-manager mcp` spawned over stdio and driven by
//! rmcp's own client, as the owner's assistant drives it. Every tool call is recorded for the
//! tool coverage gate.

use std::collections::VecDeque;
use std::future::Future;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ClientRequest,
    CustomNotification, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, GetPromptRequestParams, Implementation,
    Prompt, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::record;
use super::store::Store;

/// The binary under test, built by cargo for this test target.
pub const BINARY: &str = env!("CARGO_BIN_EXE_discord-manager");

/// A safety net, not a measurement: a server that stops answering fails the spec instead of
/// hanging the run. No assertion depends on how long anything took.
const PATIENCE: Duration = Duration::from_secs(60);

async fn patiently<F: Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(PATIENCE, future)
        .await
        .unwrap_or_else(|_| panic!("{what} got no answer within {PATIENCE:?}"))
}

/// The values of `value` a follow-up call may need: message, channel and user ids, cursors
/// and the instants to pass back.
fn follow_up_values(value: &Value, found: &mut Vec<String>) {
    const KEYS: &[&str] = &[
        "messageId",
        "channelId",
        "authorId",
        "replyToMessageId",
        "nextCursor",
        "olderCursor",
        "newerCursor",
        "watermark",
        "cutoff",
        "scheduleId",
    ];
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                match item {
                    Value::String(text) if KEYS.contains(&key.as_str()) => found.push(text.clone()),
                    Value::Number(number) if KEYS.contains(&key.as_str()) => {
                        found.push(number.to_string())
                    }
                    other => follow_up_values(other, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| follow_up_values(item, found)),
        _ => {}
    }
}

/// The person at the MCP client, as far as the server can reach them: by default nobody (the
/// client declares no elicitation, as `()` does); [`Owner::at_the_form`] declares form-mode
/// elicitation and answers each form with the next of its answers, keeping what it was asked.
#[derive(Clone, Default)]
pub struct Owner {
    answers: Option<Arc<Mutex<VecDeque<ElicitationAction>>>>,
    asked: Arc<Mutex<Vec<ElicitRequestParams>>>,
    /// Every `notifications/claude/channel` the server pushed, its params, in order.
    pushed: Arc<Mutex<Vec<Value>>>,
    /// Told each time one is pushed.
    push_arrived: Arc<tokio::sync::Notify>,
}

impl Owner {
    /// An owner who answers the forms they are shown with `answers`, in order.
    pub fn at_the_form(answers: impl IntoIterator<Item = ElicitationAction>) -> Owner {
        Owner {
            answers: Some(Arc::new(Mutex::new(answers.into_iter().collect()))),
            ..Owner::default()
        }
    }

    /// The form's message of every elicitation the server sent, in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked
            .lock()
            .unwrap()
            .iter()
            .map(|params| match params {
                ElicitRequestParams::FormElicitationParams { message, .. } => message.clone(),
                other => panic!("the server asked for something other than a form: {other:?}"),
            })
            .collect()
    }
}

impl ClientHandler for Owner {
    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == "notifications/claude/channel" {
            self.pushed
                .lock()
                .unwrap()
                .push(notification.params.unwrap_or(Value::Null));
            self.push_arrived.notify_one();
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(request);
        let action = self
            .answers
            .as_ref()
            .and_then(|answers| answers.lock().unwrap().pop_front())
            .expect("the server showed the owner a form the spec did not expect");
        Ok(ElicitResult::new(action))
    }

    fn get_info(&self) -> ClientConfig {
        match self.answers {
            None => ClientConfig::default(),
            Some(_) => {
                let mut capabilities = ClientCapabilities::default();
                capabilities.elicitation = Some(
                    ElicitationCapability::new().with_form(FormElicitationCapability::default()),
                );
                let mut config = ClientConfig::default();
                config.capabilities = capabilities;
                config
            }
        }
    }
}

/// One MCP session with one server process.
pub struct Mcp {
    client: RunningService<RoleClient, Owner>,
    stderr: Stderr,
    /// The server's process id.
    pid: u32,
}

/// A tool's answer, as the client received it.
#[derive(Debug, Clone)]
pub struct ToolResult {
    pub tool: String,
    pub is_error: bool,
    /// The text content blocks, in order.
    pub texts: Vec<String>,
    pub structured: Option<Value>,
    /// The image content blocks, in order: their media type and base64 data.
    pub images: Vec<(String, String)>,
    /// Content blocks that are neither text nor images (a tool here never sends any).
    pub other_blocks: usize,
}

impl ToolResult {
    fn from(tool: &str, result: CallToolResult) -> ToolResult {
        let mut texts = Vec::new();
        let mut images = Vec::new();
        let mut other_blocks = 0;
        for block in &result.content {
            if let Some(text) = block.as_text() {
                texts.push(text.text.clone());
            } else if let Some(image) = block.as_image() {
                images.push((image.mime_type.clone(), image.data.clone()));
            } else {
                other_blocks += 1;
            }
        }
        ToolResult {
            tool: tool.to_string(),
            is_error: result.is_error == Some(true),
            texts,
            structured: result.structured_content,
            images,
            other_blocks,
        }
    }

    /// The structured result of a call that succeeded. Fails the spec if the call was
    /// refused, carries no structured content, or its text block is not a rendering for a
    /// model: one text block, not a copy of the JSON, holding every message id and every
    /// cursor a follow-up call needs.
    pub fn structured(&self) -> &Value {
        assert!(
            !self.is_error,
            "{} was refused: {:?}",
            self.tool, self.texts
        );
        let structured = self
            .structured
            .as_ref()
            .unwrap_or_else(|| panic!("{} answered without structuredContent", self.tool));
        assert_eq!(self.other_blocks, 0, "{} sent non-text content", self.tool);
        assert_eq!(
            self.texts.len(),
            1,
            "{} sends exactly one text block",
            self.tool
        );
        let text = &self.texts[0];
        assert!(
            serde_json::from_str::<Value>(text).is_err(),
            "{}'s text block is a copy of the JSON, not a rendering for a model: {text}",
            self.tool
        );
        let mut needed = Vec::new();
        follow_up_values(structured, &mut needed);
        for value in needed {
            assert!(
                text.contains(&value),
                "{}'s text block leaves out {value}, which a follow-up call needs:\n{text}",
                self.tool
            );
        }
        structured
    }

    /// The text block of a call that succeeded.
    pub fn text(&self) -> &str {
        self.structured();
        &self.texts[0]
    }

    /// The owner-worded message of a refused call. Fails the spec if the call succeeded or
    /// the refusal is not exactly one text block without structured content.
    pub fn refusal(&self) -> &str {
        assert!(
            self.is_error,
            "{} was expected to refuse but answered {:?}",
            self.tool, self.structured
        );
        assert_eq!(
            self.structured, None,
            "{}'s refusal carries structuredContent",
            self.tool
        );
        assert_eq!(
            (self.texts.len(), self.other_blocks),
            (1, 0),
            "{}'s refusal is one text block: {:?}",
            self.tool,
            self.texts
        );
        &self.texts[0]
    }
}

impl Mcp {
    pub(super) async fn start(store: &Store, owner: Owner) -> Mcp {
        let mut command = tokio::process::Command::new(BINARY);
        command
            .arg("--db")
            .arg(store.path())
            .arg("mcp")
            .env_clear()
            .envs(store.env())
            .current_dir(store.folder());
        let (transport, stderr) = TokioChildProcess::builder(command)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("{BINARY} mcp did not start: {error}"));
        let pid = transport.id().expect("the server runs");
        let stderr = Stderr::read(stderr.expect("the server's stderr is piped"));
        match patiently("initialize", owner.serve(transport)).await {
            Ok(client) => Mcp {
                client,
                stderr,
                pid,
            },
            Err(error) => {
                let stderr = stderr.whole().await;
                panic!("the MCP session did not initialize: {error}; the server said: {stderr}")
            }
        }
    }

    /// Waits until the server has written a line containing `needle` to stderr (a line it
    /// logs once it has done something): a deterministic signal, within [`PATIENCE`], or the
    /// spec fails showing what it wrote.
    pub async fn wait_for_log(&self, needle: &str) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let written = self.stderr.written.notified();
            if self.stderr.so_far().contains(needle) {
                return;
            }
            if tokio::time::timeout_at(deadline, written).await.is_err() {
                panic!(
                    "waited for the server to log {needle:?}; it wrote: {}",
                    self.stderr.so_far()
                );
            }
        }
    }

    /// The params of every channel event the server pushed so far, in order.
    pub fn pushed(&self) -> Vec<Value> {
        self.client.service().pushed.lock().unwrap().clone()
    }

    /// Waits until the server has pushed `count` channel events in all, and answers them; a
    /// server that pushes fewer within [`PATIENCE`] fails the spec, naming what it pushed.
    pub async fn wait_for_pushed(&self, count: usize) -> Vec<Value> {
        self.wait_until_pushed(&format!("{count} pushed events"), |pushed| {
            pushed.len() >= count
        })
        .await
    }

    /// Waits until what the server pushed so far satisfies `done` (`what` names it), and
    /// answers it; within [`PATIENCE`], or the spec fails naming what was pushed.
    pub async fn wait_until_pushed(
        &self,
        what: &str,
        done: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let owner = self.client.service();
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let arrived = owner.push_arrived.notified();
            let pushed = self.pushed();
            if done(&pushed) {
                return pushed;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                panic!("waited for {what}; the server pushed {pushed:#?}");
            }
        }
    }

    /// Whether the server declared Claude Code's channel capability.
    pub fn declares_channels(&self) -> bool {
        self.client.peer_info().is_some_and(|info| {
            info.capabilities
                .experimental
                .as_ref()
                .is_some_and(|experimental| experimental.contains_key("claude/channel"))
        })
    }

    /// Sends the server process `signal` (`STOP`, `KILL`…), as `kill -SIGNAL` would.
    pub fn signal(&self, signal: &str) {
        let sent = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid.to_string())
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIG{signal} could not be sent");
    }

    /// Who the server said it is in the initialize handshake.
    pub fn server_info(&self) -> Implementation {
        self.client
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .expect("the server names itself when it initializes")
    }

    /// The instructions the server gave in the initialize handshake.
    pub fn instructions(&self) -> String {
        self.client
            .peer_info()
            .and_then(|info| info.instructions.clone())
            .unwrap_or_default()
    }

    /// `tools/list`, every page.
    pub async fn tools(&self) -> Vec<Tool> {
        patiently("tools/list", self.client.list_all_tools())
            .await
            .unwrap_or_else(|error| panic!("tools/list failed: {error}"))
    }

    /// `prompts/list`, every page.
    pub async fn prompts(&self) -> Vec<Prompt> {
        patiently("prompts/list", self.client.list_all_prompts())
            .await
            .unwrap_or_else(|error| panic!("prompts/list failed: {error}"))
    }

    /// `prompts/get`: the text of the prompt's one message, from the owner (role `user`), or
    /// the error the server refused it with; a rendering is recorded for the coverage gate.
    /// Fails the spec on any other failure.
    pub async fn prompt(&self, name: &str, arguments: Value) -> Result<String, ErrorData> {
        let mut request = GetPromptRequestParams::new(name);
        match arguments {
            Value::Object(arguments) => request = request.with_arguments(arguments),
            Value::Null => {}
            other => panic!("prompt arguments are a JSON object, not {other}"),
        }
        match patiently(name, self.client.get_prompt(request)).await {
            Ok(result) => {
                record::rendered(name);
                assert_eq!(
                    result.messages.len(),
                    1,
                    "{name} is one message: {result:?}"
                );
                let message = &result.messages[0];
                assert_eq!(message.role, rmcp::model::Role::User, "{name}");
                let text = message
                    .content
                    .as_text()
                    .unwrap_or_else(|| panic!("{name}'s message is not text: {message:?}"));
                Ok(text.text.clone())
            }
            Err(rmcp::ServiceError::McpError(error)) => Err(error),
            Err(error) => panic!("prompts/get {name} failed at the protocol level: {error}"),
        }
    }

    /// `ping`, answered with an empty result.
    pub async fn ping(&self) {
        let request = ClientRequest::PingRequest(Default::default());
        patiently("ping", self.client.send_request(request))
            .await
            .unwrap_or_else(|error| panic!("ping failed at the protocol level: {error}"));
    }

    /// `tools/call`; recorded for the coverage gate once the server has answered.
    pub async fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        let result = self.call_tool(tool, arguments).await;
        ToolResult::from(tool, result)
    }

    /// `tools/call`, its result as the wire carries it (`content`, `structuredContent`,
    /// `isError`), for comparing it with another client's; recorded for the coverage gate.
    pub async fn call_as_sent(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call_tool(tool, arguments).await;
        serde_json::to_value(&result).expect("a tool result is JSON")
    }

    async fn call_tool(&self, tool: &str, arguments: Value) -> CallToolResult {
        let mut request = CallToolRequestParams::new(tool.to_string());
        match arguments {
            Value::Object(arguments) => request = request.with_arguments(arguments),
            Value::Null => {}
            other => panic!("tool arguments are a JSON object, not {other}"),
        }
        let result = patiently(tool, self.client.call_tool(request))
            .await
            .unwrap_or_else(|error| panic!("calling {tool} failed at the protocol level: {error}"));
        record::called(tool);
        result
    }

    /// Calls a tool that must succeed and reads its structured result as `T` (a spec's local
    /// response type, which refuses fields it does not know).
    pub async fn call_ok<T: DeserializeOwned>(&self, tool: &str, arguments: Value) -> T {
        let result = self.call(tool, arguments).await;
        decode(tool, result.structured())
    }

    /// Calls a tool that must refuse and returns its owner-worded message.
    pub async fn call_err(&self, tool: &str, arguments: Value) -> String {
        self.call(tool, arguments).await.refusal().to_string()
    }

    /// Ends the session as a client does (closing the server's stdin) and returns what the
    /// server wrote to stderr.
    pub async fn stop(self) -> String {
        patiently("closing the session", self.client.cancel())
            .await
            .unwrap_or_else(|error| panic!("the MCP session did not close: {error}"));
        self.stderr.whole().await
    }
}

/// The server's stderr, read line by line as it is written.
struct Stderr {
    text: Arc<Mutex<String>>,
    /// Told each time a line arrives.
    written: Arc<Notify>,
    /// Ends when the server closes its stderr.
    reader: JoinHandle<()>,
}

impl Stderr {
    fn read(stderr: tokio::process::ChildStderr) -> Stderr {
        let (text, written) = (Arc::new(Mutex::new(String::new())), Arc::new(Notify::new()));
        let reader = tokio::spawn({
            let (text, written) = (Arc::clone(&text), Arc::clone(&written));
            async move {
                let mut lines = tokio::io::BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let mut text = text.lock().unwrap();
                    text.push_str(&line);
                    text.push('\n');
                    written.notify_waiters();
                }
            }
        });
        Stderr {
            text,
            written,
            reader,
        }
    }

    fn so_far(&self) -> String {
        self.text.lock().unwrap().clone()
    }

    /// Everything the server wrote, once it has closed its stderr.
    async fn whole(self) -> String {
        let Stderr { text, reader, .. } = self;
        let _ = patiently("the server's stderr", reader).await;
        text.lock().unwrap().clone()
    }
}

/// Reads a structured result as `T`, naming the tool and the JSON when it does not fit.
pub fn decode<T: DeserializeOwned>(tool: &str, value: &Value) -> T {
    serde_json::from_value(value.clone()).unwrap_or_else(|error| {
        panic!("{tool}'s result does not read as the spec expects ({error}): {value:#}")
    })
}
