//! The gateway tap: a WebSocket relay on loopback between serenity and Discord's gateway that
//! hands the daemon every dispatch exactly as Discord sent it.
//!
//! Why: serenity parses each dispatch into its typed `Event` and drops what it does not model
//! (Components V2's top-level components other than action rows, message flag bits it does not
//! know, …), and it has no hook for the raw frame. The store must keep each message payload as
//! Discord sent it. So serenity's `ws_url` points at the tap ([`GatewayTap::url`]). The tap
//! connects to the real gateway and relays every frame both ways unchanged. Before it passes on
//! a dispatch (op 0) from Discord, it sends the dispatch to the daemon as a [`RawDispatch`], so
//! the raw payload is there no later than serenity's typed event. serenity 0.12 never uses
//! `resume_gateway_url`; it always reconnects to `ws_url`, so every resume goes through the tap
//! too.
//!
//! What the tap reads: only the envelope (`op`, `s`, `t`, with `d` kept as raw text) of each
//! frame from Discord. Text frames are read as they are. Binary frames are decompressed first:
//! serenity identifies with `compress: true`, and each binary message is then one complete zlib
//! stream. Frames from serenity carry the token (IDENTIFY, RESUME), so they are passed on
//! without being read or logged.
//!
//! Nothing changes for serenity or Discord:
//! - The tap connects to Discord before it answers serenity's handshake. When Discord cannot be
//!   reached, serenity's connection fails (HTTP 502, or the status Discord refused with), as it
//!   would without the tap.
//! - Close frames go both ways with their code and reason. A connection that ends without one
//!   ends the other the same way: serenity still sees Discord's close codes, and a dropped
//!   connection leaves the session resumable.
//! - Each leg answers WebSocket pings itself; pings are not relayed.

use std::io::Read;
use std::net::Ipv4Addr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use flate2::read::ZlibDecoder;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::{StatusCode, Uri};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WebSocketError, Message};
use tracing::{debug, warn};

/// One dispatch from Discord as it arrived: its name (`t`), its sequence number (`s`) and its
/// data (`d`) exactly as Discord sent it, as JSON text (whitespace and field order included).
#[derive(Debug)]
pub struct RawDispatch {
    pub name: String,
    pub sequence: u64,
    pub data: Box<RawValue>,
}

/// The relay, listening on `127.0.0.1` at [`url`](Self::url). Each connection serenity opens
/// is relayed to the gateway. Dropping the tap stops the listener and ends every relay at once,
/// without close frames, so stop serenity's client first.
#[derive(Debug)]
pub struct GatewayTap {
    url: String,
    listener: JoinHandle<()>,
}

impl GatewayTap {
    /// Listens on `127.0.0.1` at a free port. Each connection serenity opens there is relayed
    /// to `upstream`, the gateway URL the daemon checked (`wss://gateway.discord.gg`, or a
    /// loopback `ws://127.0.0.1:1234` in tests), with the connection's own path and query
    /// (serenity adds `?v=10`) added to it. Every dispatch from Discord is sent to `dispatches`
    /// before serenity can read it.
    ///
    /// Fails when `upstream` is not a `ws://` or `wss://` URL, or the port cannot be opened.
    pub async fn start(
        upstream: String,
        dispatches: mpsc::UnboundedSender<RawDispatch>,
    ) -> std::io::Result<GatewayTap> {
        let upstream = Upstream::parse(&upstream)?;
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let url = format!("ws://{}", listener.local_addr()?);
        let listener = tokio::spawn(listen(listener, Arc::new(upstream), dispatches));
        Ok(GatewayTap { url, listener })
    }

    /// The URL to give serenity: `ws://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for GatewayTap {
    fn drop(&mut self) {
        // The relays live in the listener's task: aborting it ends them too.
        self.listener.abort();
    }
}

/// How long serenity may take to send its handshake request's first line.
const REQUEST_LINE_WAIT: Duration = Duration::from_secs(10);
/// The longest first line of a handshake request the tap reads.
const REQUEST_LINE_LIMIT: usize = 8 * 1024;
/// After one side closed, how long the other may take to finish closing.
const CLOSING_WAIT: Duration = Duration::from_secs(5);
/// How long to wait before trying to accept a connection again after an error (a process out
/// of file descriptors would otherwise spin).
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// The gateway URL, split so that each connection's path and query can be added to it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Upstream {
    /// The scheme, the host and any path, without a trailing `/`.
    base: String,
    /// The URL's own query, if it has one.
    query: Option<String>,
}

impl Upstream {
    fn parse(url: &str) -> std::io::Result<Upstream> {
        let invalid = |why: &str| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("The gateway URL {url:?} {why}"),
            )
        };
        let uri: Uri = url.parse().map_err(|_| invalid("is not a URL"))?;
        if !matches!(uri.scheme_str(), Some("ws" | "wss")) {
            return Err(invalid("is not a ws:// or wss:// URL"));
        }
        if uri.host().is_none_or(str::is_empty) {
            return Err(invalid("names no host"));
        }
        if url.contains('#') {
            return Err(invalid("has a fragment"));
        }
        let (base, query) = match url.split_once('?') {
            Some((base, query)) => (base, Some(query.to_owned())),
            None => (url, None),
        };
        Ok(Upstream {
            base: base.trim_end_matches('/').to_owned(),
            query: query.filter(|query| !query.is_empty()),
        })
    }

    /// The gateway URL for a connection that asked the tap for `target` (`/?v=10`).
    fn url_for(&self, target: &str) -> String {
        let (path, query) = match target.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (target, None),
        };
        let mut url = self.base.clone();
        if !path.starts_with('/') {
            url.push('/');
        }
        url.push_str(path);
        let queries: Vec<&str> = [self.query.as_deref(), query]
            .into_iter()
            .flatten()
            .filter(|query| !query.is_empty())
            .collect();
        if !queries.is_empty() {
            url.push('?');
            url.push_str(&queries.join("&"));
        }
        url
    }
}

/// Both legs take messages and frames of any size, as serenity's own connection does.
fn websocket_config() -> WebSocketConfig {
    WebSocketConfig {
        max_message_size: None,
        max_frame_size: None,
        ..WebSocketConfig::default()
    }
}

/// Accepts serenity's connections, one relay each, until the tap is dropped.
async fn listen(
    listener: TcpListener,
    upstream: Arc<Upstream>,
    dispatches: mpsc::UnboundedSender<RawDispatch>,
) {
    let mut relays = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((connection, _)) => {
                    relays.spawn(relay(connection, Arc::clone(&upstream), dispatches.clone()));
                }
                Err(error) => {
                    warn!("the gateway tap could not accept the gateway client's connection: {error:#}");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
            },
            Some(finished) = relays.join_next() => {
                if let Err(error) = finished
                    && error.is_panic()
                {
                    warn!("a gateway tap relay stopped unexpectedly: {error:#}");
                }
            }
        }
    }
}

/// One connection from serenity: reads which path it asked for, connects to the gateway there,
/// then answers serenity's handshake and relays until either side ends.
async fn relay(
    mut connection: TcpStream,
    upstream: Arc<Upstream>,
    dispatches: mpsc::UnboundedSender<RawDispatch>,
) {
    if let Err(error) = connection.set_nodelay(true) {
        debug!("the gateway tap could not disable Nagle's algorithm on loopback: {error}");
    }
    let target =
        match tokio::time::timeout(REQUEST_LINE_WAIT, read_request_line(&mut connection)).await {
            Ok(Ok(target)) => target,
            Ok(Err(why)) => {
                warn!("the gateway tap dropped a connection: {why}");
                return;
            }
            Err(_) => {
                warn!("the gateway tap dropped a connection that sent no handshake request");
                return;
            }
        };
    let (read, write) = connection.into_split();
    // serenity's handshake is answered by tungstenite, which reads the request again from the
    // start: give it back the bytes already read.
    let already_read = std::io::Cursor::new(target.read);
    let serenity = tokio::io::join(AsyncReadExt::chain(already_read, read), write);
    let url = upstream.url_for(&target.target);
    let discord = match tokio_tungstenite::connect_async_with_config(
        url.as_str(),
        Some(websocket_config()),
        false,
    )
    .await
    {
        Ok((discord, _)) => discord,
        Err(error) => {
            warn!(
                "could not connect to Discord's gateway at {url}: {error}; the gateway client's \
                 connection is refused, so it tries again"
            );
            refuse(serenity, refusal_status(&error)).await;
            return;
        }
    };
    let serenity =
        match tokio_tungstenite::accept_async_with_config(serenity, Some(websocket_config())).await
        {
            Ok(serenity) => serenity,
            Err(error) => {
                warn!(
                    "the gateway client's handshake with the gateway tap failed: {error}; its \
                     connection to Discord is dropped"
                );
                return;
            }
        };
    pipe(discord, serenity, &dispatches).await;
}

/// The first line of serenity's handshake request.
struct RequestLine {
    /// Its request target (`/?v=10`).
    target: String,
    /// Every byte read so far, for tungstenite to read again.
    read: Vec<u8>,
}

/// Reads until the end of the request's first line (`GET /?v=10 HTTP/1.1`).
async fn read_request_line(connection: &mut TcpStream) -> Result<RequestLine, String> {
    let mut read = Vec::with_capacity(512);
    let mut chunk = [0_u8; 512];
    let line_end = loop {
        let count = connection
            .read(&mut chunk)
            .await
            .map_err(|error| format!("could not read its handshake request: {error}"))?;
        if count == 0 {
            return Err("it closed before its handshake request".to_owned());
        }
        read.extend_from_slice(&chunk[..count]);
        if let Some(end) = read.windows(2).position(|pair| pair == b"\r\n") {
            break end;
        }
        if read.len() > REQUEST_LINE_LIMIT {
            return Err("its handshake request's first line is too long".to_owned());
        }
    };
    let line = std::str::from_utf8(&read[..line_end])
        .map_err(|_| "its handshake request is not text".to_owned())?;
    let mut words = line.split(' ');
    let target = match (words.next(), words.next()) {
        (Some("GET"), Some(target)) if target.starts_with('/') => target.to_owned(),
        _ => return Err("its handshake request is not a WebSocket GET".to_owned()),
    };
    Ok(RequestLine { target, read })
}

/// The status serenity's handshake is refused with when Discord could not be reached: the one
/// Discord refused with, or 502.
fn refusal_status(error: &WebSocketError) -> StatusCode {
    match error {
        WebSocketError::Http(response) => response.status(),
        _ => StatusCode::BAD_GATEWAY,
    }
}

/// Answers serenity's handshake with `status`, so that its connection fails as it would have
/// had it tried Discord itself.
async fn refuse<S>(serenity: S, status: StatusCode)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut refusal = ErrorResponse::new(Some(format!(
        "The gateway tap could not connect to Discord's gateway ({status})"
    )));
    *refusal.status_mut() = status;
    // tungstenite's handshake callback answers with a whole HTTP response as its error.
    #[allow(clippy::result_large_err)]
    let answer =
        move |_: &Request, _: Response| -> Result<Response, ErrorResponse> { Err(refusal) };
    // The handshake fails by design: it is how serenity learns of the refusal.
    let _ =
        tokio_tungstenite::accept_hdr_async_with_config(serenity, answer, Some(websocket_config()))
            .await;
}

/// How one direction of a relay ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// A close frame came and was passed on, then the connection ended.
    Closed,
    /// The connection ended without a close frame, or could not be written to.
    Dropped,
}

/// Relays both ways until one side ends. After a close frame the other side may finish its
/// closing handshake; after a connection that just ended, the other is dropped too.
async fn pipe<D, S>(
    discord: WebSocketStream<D>,
    serenity: WebSocketStream<S>,
    dispatches: &mpsc::UnboundedSender<RawDispatch>,
) where
    D: AsyncRead + AsyncWrite + Unpin,
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (mut to_discord, mut from_discord) = discord.split();
    let (mut to_serenity, mut from_serenity) = serenity.split();
    let mut downstream = pin!(relay_from_discord(
        &mut from_discord,
        &mut to_serenity,
        dispatches
    ));
    let mut upstream = pin!(relay_from_serenity(&mut from_serenity, &mut to_discord));
    tokio::select! {
        ending = &mut downstream => {
            if ending == Ending::Closed {
                let _ = tokio::time::timeout(CLOSING_WAIT, upstream).await;
            }
        }
        ending = &mut upstream => {
            if ending == Ending::Closed {
                let _ = tokio::time::timeout(CLOSING_WAIT, downstream).await;
            }
        }
    }
}

/// Discord to serenity: every frame passed on as it came, each dispatch sent to `dispatches`
/// first.
async fn relay_from_discord<D, S>(
    discord: &mut SplitStream<WebSocketStream<D>>,
    serenity: &mut SplitSink<WebSocketStream<S>, Message>,
    dispatches: &mpsc::UnboundedSender<RawDispatch>,
) -> Ending
where
    D: AsyncRead + AsyncWrite + Unpin,
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut closed = false;
    loop {
        let message = match discord.next().await {
            Some(Ok(message)) => message,
            Some(Err(error)) if !closed => {
                warn!(
                    "the connection to Discord's gateway broke: {error}; the gateway client's \
                     connection is dropped too, so it reconnects"
                );
                return Ending::Dropped;
            }
            Some(Err(_)) | None if closed => return Ending::Closed,
            Some(Err(_)) | None => {
                debug!("Discord's gateway ended the connection without a close frame");
                return Ending::Dropped;
            }
        };
        if closed {
            // After its close frame, Discord has nothing more to say; tungstenite answers it.
            continue;
        }
        match &message {
            Message::Text(text) => hand_over(text.as_bytes(), dispatches),
            Message::Binary(compressed) => match decompress(compressed) {
                Ok(json) => hand_over(&json, dispatches),
                Err(error) => warn!(
                    "a compressed message from Discord's gateway could not be decompressed \
                     ({error}, {} bytes); it is passed on to the gateway client unchanged, but \
                     its raw payload is not kept",
                    compressed.len()
                ),
            },
            Message::Close(frame) => {
                debug!("Discord's gateway closed the connection: {frame:?}");
                closed = true;
            }
            // Each leg answers its own pings.
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
        }
        if let Err(error) = serenity.send(message).await
            && !closed
        {
            debug!("the gateway client's connection to the gateway tap ended: {error}");
            return Ending::Dropped;
        }
    }
}

/// serenity to Discord: every frame passed on as it came, never read (IDENTIFY and RESUME carry
/// the token).
async fn relay_from_serenity<S, D>(
    serenity: &mut SplitStream<WebSocketStream<S>>,
    discord: &mut SplitSink<WebSocketStream<D>, Message>,
) -> Ending
where
    S: AsyncRead + AsyncWrite + Unpin,
    D: AsyncRead + AsyncWrite + Unpin,
{
    let mut closed = false;
    loop {
        let message = match serenity.next().await {
            Some(Ok(message)) => message,
            Some(Err(_)) | None if closed => return Ending::Closed,
            Some(Err(_)) | None => {
                debug!("the gateway client ended its connection without a close frame");
                return Ending::Dropped;
            }
        };
        if closed {
            continue;
        }
        match &message {
            Message::Close(_) => closed = true,
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
            Message::Text(_) | Message::Binary(_) => {}
        }
        if let Err(error) = discord.send(message).await
            && !closed
        {
            warn!(
                "could not pass the gateway client's message on to Discord's gateway: {error}; \
                 its connection is dropped, so it reconnects"
            );
            return Ending::Dropped;
        }
    }
}

/// A binary message from Discord: one complete zlib stream of JSON.
fn decompress(compressed: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut json = Vec::with_capacity(compressed.len().saturating_mul(4));
    ZlibDecoder::new(compressed).read_to_end(&mut json)?;
    Ok(json)
}

/// A gateway message's envelope; `d` is kept as its text, not parsed.
#[derive(Deserialize)]
struct Envelope<'a> {
    op: u64,
    s: Option<u64>,
    t: Option<String>,
    #[serde(borrow)]
    d: Option<&'a RawValue>,
}

/// The dispatch opcode.
const DISPATCH: u64 = 0;

/// Sends the message's dispatch, if it is one, to `dispatches`.
fn hand_over(json: &[u8], dispatches: &mpsc::UnboundedSender<RawDispatch>) {
    let envelope: Envelope = match serde_json::from_slice(json) {
        Ok(envelope) => envelope,
        Err(error) => {
            warn!(
                "a message from Discord's gateway is not a gateway message ({error}, {} bytes); \
                 it is passed on to the gateway client unchanged, but its raw payload is not kept",
                json.len()
            );
            return;
        }
    };
    if envelope.op != DISPATCH {
        return;
    }
    let (Some(name), Some(sequence), Some(data)) = (envelope.t, envelope.s, envelope.d) else {
        warn!(
            "a dispatch from Discord's gateway lacks its name, sequence number or data; it is \
             passed on to the gateway client unchanged, but its raw payload is not kept"
        );
        return;
    };
    // The daemon stops listening only when it stops: nothing is left to keep it for.
    let _ = dispatches.send(RawDispatch {
        name,
        sequence,
        data: data.to_owned(),
    });
}

#[cfg(test)]
mod tests;
