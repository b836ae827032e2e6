//! Unit tests of `wire`, kept beside it so the production file reads on its own.

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

const CANNOT_READ: &str = "Invalid Request: the message is JSON, but this server cannot read it";

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
