//! The tap between a WebSocket client standing in for serenity and a fake gateway on loopback.

use std::future::Future;
use std::io::Write;

use flate2::Compression;
use flate2::write::ZlibEncoder;
use reqwest::Url;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc::error::TryRecvError;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::{MaybeTlsStream, accept_hdr_async, connect_async};

use super::*;

/// The stand-in for serenity's side.
type Client = WebSocketStream<MaybeTlsStream<TcpStream>>;
/// The fake gateway's side of one connection.
type FakeGateway = WebSocketStream<TcpStream>;

/// A Components V2 message's data, which serenity cannot keep: its spacing and field order are
/// unusual on purpose.
const COMPONENTS_V2: &str = r#"{"flags": 32768,
  "components":[{"type":17,"components":[{"type":10,"content":"deploy ok"}]}] ,"id":"1"}"#;

/// A safety net on every wait: a test that would hang fails instead.
async fn within<F: Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// A tap in front of a fake gateway, a client connected through it, and the fake gateway's side
/// of that connection.
struct Relayed {
    _tap: GatewayTap,
    dispatches: mpsc::UnboundedReceiver<RawDispatch>,
    client: Client,
    gateway: FakeGateway,
    /// The path and query the fake gateway was asked for.
    gateway_target: String,
}

/// Starts a fake gateway and a tap in front of it, and connects to `tap URL + suffix`.
async fn relayed(suffix: &str) -> Relayed {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("the fake gateway listens");
    let upstream = format!("ws://{}", listener.local_addr().expect("its address"));
    let (sender, dispatches) = mpsc::unbounded_channel();
    let tap = GatewayTap::start(upstream, sender)
        .await
        .expect("the tap starts");
    // As serenity connects: its `ws_url` and the suffix, parsed as a URL.
    let url = Url::parse(&format!("{}{suffix}", tap.url())).expect("a URL");
    let (client, (gateway, gateway_target)) = within("the connection through the tap", async {
        tokio::join!(connect_async(url), accept_gateway(&listener))
    })
    .await;
    let (client, _) = client.expect("the client connects through the tap");
    Relayed {
        _tap: tap,
        dispatches,
        client,
        gateway,
        gateway_target,
    }
}

/// The fake gateway accepts one connection and says which path and query it was asked for.
async fn accept_gateway(listener: &TcpListener) -> (FakeGateway, String) {
    let (connection, _) = listener.accept().await.expect("the tap connects");
    let mut target = String::new();
    // tungstenite's handshake callback answers with a whole HTTP response as its error.
    #[allow(clippy::result_large_err)]
    let note_target = |request: &Request, response: Response| {
        target = request.uri().to_string();
        Ok(response)
    };
    let gateway = accept_hdr_async(connection, note_target)
        .await
        .expect("the handshake with the fake gateway");
    (gateway, target)
}

async fn next_at_client(relayed: &mut Relayed) -> Message {
    within("a message at the client", relayed.client.next())
        .await
        .expect("the client's connection is open")
        .expect("a message at the client")
}

async fn next_at_gateway(relayed: &mut Relayed) -> Message {
    within("a message at the gateway", relayed.gateway.next())
        .await
        .expect("the gateway's connection is open")
        .expect("a message at the gateway")
}

async fn send_from_gateway(relayed: &mut Relayed, message: Message) {
    within("a message from the gateway", relayed.gateway.send(message))
        .await
        .expect("the gateway sends");
}

/// Every message left on a connection until it ends; then it is dropped, as a server closes
/// its TCP connection once the closing handshake is done.
async fn rest_of<S>(mut connection: WebSocketStream<S>) -> Vec<Message>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut messages = Vec::new();
    while let Some(Ok(message)) = connection.next().await {
        messages.push(message);
    }
    messages
}

fn zlib(json: &str) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(json.as_bytes()).expect("compressed");
    encoder.finish().expect("compressed")
}

fn assert_no_more_dispatches(relayed: &mut Relayed) {
    match relayed.dispatches.try_recv() {
        Err(TryRecvError::Empty) => {}
        Ok(dispatch) => panic!("an unexpected dispatch: {dispatch:?}"),
        Err(TryRecvError::Disconnected) => panic!("the tap stopped"),
    }
}

#[tokio::test]
async fn a_text_dispatch_is_passed_on_unchanged_and_its_data_kept_exactly_before_the_client_reads_it()
 {
    let mut relayed = relayed("?v=10").await;
    let frame = format!(r#"{{"t":"MESSAGE_CREATE", "s":42,"op":0,"d": {COMPONENTS_V2} }}"#);
    send_from_gateway(&mut relayed, Message::Text(frame.clone())).await;

    assert_eq!(next_at_client(&mut relayed).await, Message::Text(frame));
    // The client has read the frame: its dispatch is already there, without waiting.
    let dispatch = relayed
        .dispatches
        .try_recv()
        .expect("the dispatch was handed over before the frame was passed on");
    assert_eq!(dispatch.name, "MESSAGE_CREATE");
    assert_eq!(dispatch.sequence, 42);
    assert_eq!(dispatch.data.get(), COMPONENTS_V2);
    assert_no_more_dispatches(&mut relayed);
}

#[tokio::test]
async fn a_compressed_dispatch_is_passed_on_as_the_same_bytes_and_its_data_kept() {
    let mut relayed = relayed("?v=10").await;
    let compressed = zlib(&format!(
        r#"{{"op":0,"s":7,"t":"MESSAGE_UPDATE","d":{COMPONENTS_V2}}}"#
    ));
    send_from_gateway(&mut relayed, Message::Binary(compressed.clone())).await;

    assert_eq!(
        next_at_client(&mut relayed).await,
        Message::Binary(compressed)
    );
    let dispatch = relayed.dispatches.try_recv().expect("the dispatch");
    assert_eq!(dispatch.name, "MESSAGE_UPDATE");
    assert_eq!(dispatch.sequence, 7);
    assert_eq!(dispatch.data.get(), COMPONENTS_V2);
    assert_no_more_dispatches(&mut relayed);
}

#[tokio::test]
async fn hello_and_heartbeat_acks_are_passed_on_but_are_no_dispatches() {
    let mut relayed = relayed("?v=10").await;
    let hello = r#"{"t":null,"s":null,"op":10,"d":{"heartbeat_interval":41250}}"#;
    let ack = r#"{"t":null,"s":null,"op":11,"d":null}"#;
    let ready = r#"{"t":"READY","s":1,"op":0,"d":{"v":10}}"#;
    send_from_gateway(&mut relayed, Message::Text(hello.to_owned())).await;
    send_from_gateway(&mut relayed, Message::Binary(zlib(ack))).await;
    send_from_gateway(&mut relayed, Message::Text(ready.to_owned())).await;

    assert_eq!(
        next_at_client(&mut relayed).await,
        Message::Text(hello.to_owned())
    );
    assert_eq!(
        next_at_client(&mut relayed).await,
        Message::Binary(zlib(ack))
    );
    assert_eq!(
        next_at_client(&mut relayed).await,
        Message::Text(ready.to_owned())
    );
    // Dispatches are handed over in order, each before its frame: READY is the only one.
    let dispatch = relayed.dispatches.try_recv().expect("READY");
    assert_eq!((dispatch.name.as_str(), dispatch.sequence), ("READY", 1));
    assert_eq!(dispatch.data.get(), r#"{"v":10}"#);
    assert_no_more_dispatches(&mut relayed);
}

#[tokio::test]
async fn the_clients_messages_reach_the_gateway_unchanged_and_are_never_taken_as_dispatches() {
    let mut relayed = relayed("?v=10").await;
    let identify = r#"{"op":2,"d":{"token":"Bot not-a-real-token","intents":37377,"compress":true,"properties":{"os":"linux","browser":"serenity","device":"serenity"}}}"#;
    // Shaped like a dispatch, but from the client: not Discord's.
    let lookalike = r#"{"op":0,"s":5,"t":"MESSAGE_CREATE","d":{}}"#;
    let binary = vec![0_u8, 159, 146, 150];
    for message in [
        Message::Text(identify.to_owned()),
        Message::Text(lookalike.to_owned()),
        Message::Binary(binary.clone()),
    ] {
        within("the client sends", relayed.client.send(message))
            .await
            .expect("the client sends");
    }

    assert_eq!(
        next_at_gateway(&mut relayed).await,
        Message::Text(identify.to_owned())
    );
    assert_eq!(
        next_at_gateway(&mut relayed).await,
        Message::Text(lookalike.to_owned())
    );
    assert_eq!(next_at_gateway(&mut relayed).await, Message::Binary(binary));
    assert_no_more_dispatches(&mut relayed);
}

#[tokio::test]
async fn discords_close_code_and_reason_reach_the_client() {
    let mut relayed = relayed("?v=10").await;
    let close = CloseFrame {
        code: CloseCode::Library(4000),
        reason: "Unknown error.".into(),
    };
    within("the gateway closes", relayed.gateway.close(Some(close)))
        .await
        .expect("the gateway closes");

    match next_at_client(&mut relayed).await {
        Message::Close(Some(frame)) => {
            assert_eq!(u16::from(frame.code), 4000);
            assert_eq!(frame.reason, "Unknown error.");
        }
        other => panic!("expected Discord's close frame, got {other:?}"),
    }
    // Both sides finish the closing handshake: the client's answer reaches Discord, then
    // both connections end, with nothing more on either.
    let (at_client, at_gateway) = within("both connections to end", async {
        tokio::join!(rest_of(relayed.client), rest_of(relayed.gateway))
    })
    .await;
    assert_eq!(at_client, Vec::<Message>::new());
    assert_eq!(
        at_gateway,
        vec![Message::Close(Some(CloseFrame {
            code: CloseCode::Library(4000),
            reason: "Unknown error.".into(),
        }))]
    );
}

#[tokio::test]
async fn the_clients_close_code_reaches_discord() {
    let mut relayed = relayed("?v=10").await;
    let close = CloseFrame {
        code: CloseCode::Normal,
        reason: "shutting down".into(),
    };
    within("the client closes", relayed.client.close(Some(close)))
        .await
        .expect("the client closes");

    match next_at_gateway(&mut relayed).await {
        Message::Close(Some(frame)) => {
            assert_eq!(u16::from(frame.code), 1000);
            assert_eq!(frame.reason, "shutting down");
        }
        other => panic!("expected the client's close frame, got {other:?}"),
    }
}

#[tokio::test]
async fn a_gateway_connection_that_ends_without_a_close_frame_ends_the_clients_the_same_way() {
    let Relayed {
        _tap,
        mut client,
        gateway,
        ..
    } = relayed("?v=10").await;
    drop(gateway);

    match within("the client's connection to end", client.next()).await {
        Some(Err(WebSocketError::Protocol(_) | WebSocketError::Io(_))) | None => {}
        Some(Err(other)) => panic!("expected the connection to be dropped, got {other}"),
        Some(Ok(message)) => panic!("expected no close frame, got {message:?}"),
    }
}

#[tokio::test]
async fn the_path_and_query_the_client_asked_for_reach_the_gateway() {
    // Exactly as serenity builds it: `{ws_url}?v=10`.
    assert_eq!(relayed("?v=10").await.gateway_target, "/?v=10");
    assert_eq!(
        relayed("/gateway/bot?v=10&encoding=json")
            .await
            .gateway_target,
        "/gateway/bot?v=10&encoding=json"
    );
}

#[tokio::test]
async fn a_message_that_is_not_a_gateway_message_is_passed_on_unchanged_and_is_no_dispatch() {
    let mut relayed = relayed("?v=10").await;
    let truncated = r#"{"op":0,"s":3,"t":"MESSAGE_CREATE","d":{"content":"#;
    let not_zlib = b"not zlib at all".to_vec();
    let nameless = r#"{"op":0,"s":4,"d":{}}"#;
    let after = r#"{"op":0,"s":5,"t":"MESSAGE_DELETE","d":{"id":"9"}}"#;
    send_from_gateway(&mut relayed, Message::Text(truncated.to_owned())).await;
    send_from_gateway(&mut relayed, Message::Binary(not_zlib.clone())).await;
    send_from_gateway(&mut relayed, Message::Text(nameless.to_owned())).await;
    send_from_gateway(&mut relayed, Message::Text(after.to_owned())).await;

    assert_eq!(
        next_at_client(&mut relayed).await,
        Message::Text(truncated.to_owned())
    );
    assert_eq!(
        next_at_client(&mut relayed).await,
        Message::Binary(not_zlib)
    );
    assert_eq!(
        next_at_client(&mut relayed).await,
        Message::Text(nameless.to_owned())
    );
    assert_eq!(
        next_at_client(&mut relayed).await,
        Message::Text(after.to_owned())
    );
    let dispatch = relayed.dispatches.try_recv().expect("the valid dispatch");
    assert_eq!(
        (dispatch.name.as_str(), dispatch.sequence),
        ("MESSAGE_DELETE", 5)
    );
    assert_eq!(dispatch.data.get(), r#"{"id":"9"}"#);
    assert_no_more_dispatches(&mut relayed);
}

#[tokio::test]
async fn a_gateway_that_cannot_be_reached_refuses_the_clients_handshake() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let upstream = format!("ws://{}", listener.local_addr().expect("its address"));
    drop(listener);
    let (sender, _dispatches) = mpsc::unbounded_channel();
    let tap = GatewayTap::start(upstream, sender)
        .await
        .expect("the tap starts");

    let url = Url::parse(&format!("{}?v=10", tap.url())).expect("a URL");
    match within("the handshake", connect_async(url)).await {
        Err(WebSocketError::Http(response)) => {
            assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
        }
        Err(other) => panic!("expected a refused handshake, got {other}"),
        Ok(_) => panic!("expected a refused handshake, got a connection"),
    }
}

#[tokio::test]
async fn dropping_the_tap_ends_its_relays() {
    let relayed = relayed("?v=10").await;
    let Relayed {
        _tap: tap,
        mut client,
        gateway: _gateway,
        ..
    } = relayed;
    drop(tap);

    match within("the client's connection to end", client.next()).await {
        Some(Err(_)) | None => {}
        Some(Ok(message)) => panic!("expected the connection to end, got {message:?}"),
    }
}

#[test]
fn the_tap_starts_only_in_front_of_a_websocket_url() {
    for url in [
        "https://discord.com",
        "gateway.discord.gg",
        "wss://",
        "wss://host/#part",
    ] {
        let error = Upstream::parse(url).expect_err(url);
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "{url}");
    }
}

#[test]
fn each_connections_path_and_query_are_added_to_the_gateway_url() {
    let discord = Upstream::parse("wss://gateway.discord.gg").expect("a gateway URL");
    assert_eq!(discord.url_for("/?v=10"), "wss://gateway.discord.gg/?v=10");
    let slashed = Upstream::parse("wss://gateway.discord.gg/").expect("a gateway URL");
    assert_eq!(slashed.url_for("/?v=10"), "wss://gateway.discord.gg/?v=10");
    let with_path_and_query =
        Upstream::parse("ws://127.0.0.1:1234/gateway?region=test").expect("a gateway URL");
    assert_eq!(
        with_path_and_query.url_for("/?v=10"),
        "ws://127.0.0.1:1234/gateway/?region=test&v=10"
    );
    assert_eq!(
        with_path_and_query.url_for("/"),
        "ws://127.0.0.1:1234/gateway/?region=test"
    );
}
