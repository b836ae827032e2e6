//! The fake Discord's CDN: attachment bytes at
//! `/attachments/{channel}/{attachment}/{filename}?ex=&is=&hm=` on the fake's own HTTP port,
//! signed as Discord signs them and expiring on the fake's clock.
//!
//! - [`FakeDiscord::attachment`] stores a file and answers its attachment object, as a message
//!   carries it (`MessageAttachmentResponse`: id, filename, size, url, proxy_url,
//!   content_type), with a URL signed for a day; [`FakeDiscord::attachment_signed_for`] with
//!   any validity (a negative one: expired already).
//! - A file is served only while the URL's signature (`hm`) is the one the fake gave for its
//!   `ex`, `ex` has not passed on the fake's clock, and a message of its channel still carries
//!   it: otherwise 404, as Discord answers an expired or unknown URL.
//! - `GET /channels/{c}/messages/{m}` answers the message with every attachment's URL signed
//!   afresh, as Discord does.
//! - Every CDN request is recorded with the API's ([`FakeDiscord::cdn_requests`]), not held to
//!   the API's spec (the CDN is no part of it). [`FakeDiscord::stall_cdn_after`] makes the CDN
//!   send that many bytes of each file, then stall until released, when it drops the
//!   connection: a download cut short.

use super::*;

/// How long a signed URL is good for, as Discord signs them: about a day.
pub const VALID_FOR_SECONDS: i64 = 86_400;

/// A file the CDN serves.
pub(super) struct CdnFile {
    channel: String,
    filename: String,
    content_type: String,
    bytes: Vec<u8>,
}

/// The fake's signature of an attachment's URL valid until `ex`: what `hm` must say.
fn signature(attachment: &str, ex: i64) -> String {
    // FNV-1a: enough to tell a URL the fake signed from one it did not.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in attachment.bytes().chain(ex.to_be_bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The URL of a file, signed now on the fake's clock for `valid_for` seconds.
fn signed_url(
    inner: &Inner,
    state: &State,
    channel: &str,
    attachment: &str,
    filename: &str,
    valid_for: i64,
) -> String {
    let now = discord_now(state).as_micros() / 1_000_000;
    let ex = now + valid_for;
    format!(
        "{}/attachments/{channel}/{attachment}/{filename}?ex={ex:x}&is={now:x}&hm={}",
        inner.http_url,
        signature(attachment, ex)
    )
}

impl FakeDiscord {
    /// Stores `bytes` as a file of `channel` and answers its attachment object, signed for a
    /// day: put it in a message's `attachments`.
    pub fn attachment(
        &self,
        channel: &str,
        filename: &str,
        content_type: &str,
        bytes: &[u8],
    ) -> Value {
        self.attachment_signed_for(channel, filename, content_type, bytes, VALID_FOR_SECONDS)
    }

    /// [`FakeDiscord::attachment`] with a URL signed for `valid_for` seconds from now on the
    /// fake's clock (negative: expired already).
    pub fn attachment_signed_for(
        &self,
        channel: &str,
        filename: &str,
        content_type: &str,
        bytes: &[u8],
        valid_for: i64,
    ) -> Value {
        let mut state = self.inner.lock();
        let id = mint(&mut state).to_string();
        state.files.insert(
            id.clone(),
            CdnFile {
                channel: channel.to_string(),
                filename: filename.to_string(),
                content_type: content_type.to_string(),
                bytes: bytes.to_vec(),
            },
        );
        let url = signed_url(&self.inner, &state, channel, &id, filename, valid_for);
        json!({"id": id, "filename": filename, "size": bytes.len(), "url": url,
               "proxy_url": url, "content_type": content_type})
    }

    /// While `Some(n)`, the CDN sends the first `n` bytes of each file it serves, then stalls;
    /// `None` releases the stalled answers, which end without the rest.
    pub fn stall_cdn_after(&self, bytes: Option<usize>) {
        self.inner.lock().stall_cdn_after = bytes;
    }

    /// Every request the CDN received, in order.
    pub fn cdn_requests(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|request| is_cdn(&request.path))
            .collect()
    }
}

/// Whether a request is the CDN's.
pub(super) fn is_cdn(path: &str) -> bool {
    path.starts_with("/attachments/")
}

/// Signs every attachment of `message` afresh, as Discord does when a message is fetched: its
/// own and those of the messages it forwards (each under the channel its file was posted in).
pub(super) fn sign_afresh(inner: &Inner, state: &State, message: &mut Value) {
    let sign = |attachments: &mut Value| {
        for attachment in attachments.as_array_mut().into_iter().flatten() {
            let id = attachment["id"].as_str().unwrap_or_default().to_string();
            let Some(file) = state.files.get(&id) else {
                continue;
            };
            let url = signed_url(
                inner,
                state,
                &file.channel,
                &id,
                &file.filename,
                VALID_FOR_SECONDS,
            );
            attachment["url"] = Value::String(url.clone());
            attachment["proxy_url"] = Value::String(url);
        }
    };
    if let Some(attachments) = message.get_mut("attachments") {
        sign(attachments);
    }
    for snapshot in message
        .get_mut("message_snapshots")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(attachments) = snapshot["message"].get_mut("attachments") {
            sign(attachments);
        }
    }
}

/// Whether a message carries the attachment `id`, itself or in a message it forwards.
fn carries(message: &Value, id: &str) -> bool {
    let has = |attachments: &Value| {
        attachments
            .as_array()
            .is_some_and(|all| all.iter().any(|a| a["id"] == *id))
    };
    has(&message["attachments"])
        || message["message_snapshots"]
            .as_array()
            .is_some_and(|snapshots| snapshots.iter().any(|s| has(&s["message"]["attachments"])))
}

/// What the CDN answers: a status, the media type, the body, and how much of it to send
/// before stalling.
struct Answer {
    status: u16,
    content_type: String,
    body: Vec<u8>,
    stall_after: Option<usize>,
}

fn answer(state: &State, path: &str, query: &[(String, String)]) -> Answer {
    let missing = Answer {
        status: 404,
        content_type: "text/plain".into(),
        body: b"This content is no longer available.".to_vec(),
        stall_after: None,
    };
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let ["attachments", channel, attachment, filename] = segments.as_slice() else {
        return missing;
    };
    let Some(file) = state.files.get(*attachment) else {
        return missing;
    };
    if file.channel != *channel || file.filename != *filename {
        return missing;
    }
    let param = |name: &str| {
        query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let Some(ex) = param("ex").and_then(|ex| i64::from_str_radix(ex, 16).ok()) else {
        return missing;
    };
    if param("hm") != Some(signature(attachment, ex).as_str()) {
        return missing;
    }
    if ex < discord_now(state).as_micros() / 1_000_000 {
        return missing;
    }
    // Discord stops serving a file once no message carries it (its own, or a forward of it).
    let carried = state.history.values().any(|messages| {
        messages
            .values()
            .any(|message| carries(message, attachment))
    });
    if !carried {
        return missing;
    }
    Answer {
        status: 200,
        content_type: file.content_type.clone(),
        body: file.bytes.clone(),
        stall_after: state.stall_cdn_after,
    }
}

/// Answers one CDN request on `stream`, recording it. Err when the connection is to be
/// dropped (after a stalled answer is released).
pub(super) async fn serve(
    inner: &Inner,
    stream: &mut TcpStream,
    method: String,
    path: String,
    query: Vec<(String, String)>,
    authorized: bool,
) -> std::io::Result<()> {
    let answer = {
        let mut state = inner.lock();
        let answer = answer(&state, &path, &query);
        state.requests.push(Request {
            method,
            path,
            query,
            authorized,
            body: None,
            status: answer.status,
        });
        answer
    };
    inner.changed.notify_all();
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: {}\r\ncontent-length: {}\r\n\r\n",
        answer.status,
        reason(answer.status),
        answer.content_type,
        answer.body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    match answer.stall_after {
        Some(sent) if sent < answer.body.len() => {
            stream.write_all(&answer.body[..sent]).await?;
            stream.flush().await?;
            while inner.lock().stall_cdn_after.is_some() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(std::io::Error::other(
                "a stalled answer, released: cut short",
            ))
        }
        _ => {
            stream.write_all(&answer.body).await?;
            stream.flush().await
        }
    }
}
