//! A message's payload kept as Discord sent it: its JSON deflated against a preset dictionary
//! of Discord's message shapes, so a plain message costs about 200 bytes instead of 1 KiB, and
//! read back for a later reading rule to derive from (`migrations/0024_message_payloads.sql`).
//!
//! A dictionary is fixed once shipped: a kept payload names the one it was deflated against,
//! and every dictionary ever used stays here. JSON is written compact with its keys sorted
//! (serde_json's own order), so the same payload always has the same bytes and digest.

use discord_manager_store::{KeptPayload, NewPayload, Store, Writer};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::snowflake::MessageId;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::extras::read_from_payloads;
use crate::payload::MessagePayload;

/// Dictionary 1: made-up messages in Discord's shapes of 2026 (a gateway message with its
/// member, a REST one, a reply, a bot's embed, an attachment, a Components V2 command answer
/// and a forward). Never edited: a better one is dictionary 2, beside it.
const DICTIONARY_1: &[u8] = include_bytes!("payload_dictionary_1.jsonl");

/// The reading rules of this version: raised by each version that reads more from a kept
/// payload, so the daemon reads every kept payload again once after an upgrade past it
/// (`payload_readings`). 1: Components V2, every flag bit, the command a message answers, the
/// message it points at.
pub const READING_RULES: u32 = 1;

/// The dictionary new payloads are deflated against.
const CURRENT_DICTIONARY: u32 = 1;

/// The largest payload read back (Discord's message objects are far smaller: 4,000
/// characters of text, 10 embeds, 40 components); a larger one is refused as corrupt.
const MOST_INFLATED_BYTES: usize = 4 * 1024 * 1024;

fn dictionary(number: u32) -> Option<&'static [u8]> {
    match number {
        1 => Some(DICTIONARY_1),
        _ => None,
    }
}

/// Keeps `payload` (a message object) as one of `message_id`'s payloads; false when it was
/// already kept. The recorders call it for every message and update they are handed with its
/// JSON.
pub fn keep_payload(
    writer: &mut Writer<'_>,
    message_id: &MessageId,
    payload: &Value,
) -> Result<bool> {
    let json = payload.to_string();
    let digest = Sha256::digest(json.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let deflated = deflate(json.as_bytes(), CURRENT_DICTIONARY)?;
    writer.keep_payload(&NewPayload {
        message_id,
        digest: i64::from_le_bytes(first),
        dictionary: CURRENT_DICTIONARY,
        payload: &deflated,
    })
}

/// What [`read_again`] did with a page of kept payloads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadAgain {
    /// Messages whose payloads were read.
    pub read: u64,
    /// Messages that gained something a newer reading rule derives (a new extras row).
    pub changed: u64,
    /// The last message read, where the next page starts; None when there was none left.
    pub last: Option<MessageId>,
}

/// Derives again, with this version's reading rules, what only a message's payloads say (its
/// components, the command it answers, the message it points at, every flag bit), for the
/// first `limit` messages after `after`, in one transaction: a message stored before a rule
/// existed (a Components V2 post stored blank, a command's answer without its command) gains
/// what the rule reads, without asking Discord again. Its payloads are read in arrival order,
/// so the newest that says a thing wins; what they do not say stays as recorded (a pin that
/// came as a partial update). What is already derived writes nothing.
pub fn read_again(store: &Store, after: Option<&MessageId>, limit: usize) -> Result<ReadAgain> {
    store.write(|writer| {
        let firsts = writer.reader().first_payloads_after(after, limit)?;
        let mut done = ReadAgain::default();
        for first in firsts {
            done.read += 1;
            let id = first.message_id;
            done.last = Some(first.message_id);
            let Some(message) = writer.reader().message(&id)? else {
                // A payload of an update whose message never came: nothing to derive onto.
                continue;
            };
            let payloads: Vec<Value> = writer
                .reader()
                .payloads_of(&id)?
                .iter()
                .filter_map(|kept| read_payload(kept).ok())
                .collect();
            let readings: Vec<MessagePayload<'_>> =
                payloads.iter().map(MessagePayload::new).collect();
            let next = read_from_payloads(&message.extras, &readings);
            if writer.record_extras(&id, &message.channel_id, &next)? {
                done.changed += 1;
            }
        }
        Ok(done)
    })
}

fn corrupt(why: impl std::fmt::Display) -> Error {
    Error::internal(format!("A kept message payload cannot be read: {why}"))
}

fn deflate(json: &[u8], number: u32) -> Result<Vec<u8>> {
    let dictionary = dictionary(number).ok_or_else(|| corrupt("no such dictionary"))?;
    let mut compress = Compress::new(Compression::best(), false);
    compress
        .set_dictionary(dictionary)
        .map_err(|error| Error::internal("Cannot deflate a payload").with_source(error))?;
    let mut out = Vec::with_capacity(json.len() / 3 + 64);
    loop {
        let consumed = usize::try_from(compress.total_in()).unwrap_or(usize::MAX);
        let status = compress
            .compress_vec(
                &json[consumed.min(json.len())..],
                &mut out,
                FlushCompress::Finish,
            )
            .map_err(|error| Error::internal("Cannot deflate a payload").with_source(error))?;
        match status {
            Status::StreamEnd => return Ok(out),
            Status::Ok | Status::BufError => out.reserve(out.capacity().max(256)),
        }
    }
}

/// A kept payload read back as the JSON Discord sent.
pub fn read_payload(kept: &KeptPayload) -> Result<Value> {
    let dictionary = dictionary(kept.dictionary)
        .ok_or_else(|| corrupt(format!("dictionary {} is unknown", kept.dictionary)))?;
    let mut decompress = Decompress::new(false);
    decompress.set_dictionary(dictionary).map_err(corrupt)?;
    let mut out = Vec::with_capacity(kept.payload.len() * 6);
    loop {
        let before = (decompress.total_in(), decompress.total_out());
        let consumed = usize::try_from(before.0).unwrap_or(usize::MAX);
        let input = kept.payload.get(consumed..).unwrap_or_default();
        let status = decompress
            .decompress_vec(input, &mut out, FlushDecompress::Finish)
            .map_err(corrupt)?;
        if status == Status::StreamEnd {
            break;
        }
        if out.len() >= MOST_INFLATED_BYTES {
            return Err(corrupt("it is too large"));
        }
        let moved = (decompress.total_in(), decompress.total_out()) != before;
        if !moved && out.len() < out.capacity() {
            return Err(corrupt("it ends early"));
        }
        out.reserve(out.capacity().max(1024));
    }
    serde_json::from_slice(&out).map_err(corrupt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kept(payload: Vec<u8>, dictionary: u32) -> KeptPayload {
        KeptPayload {
            message_id: "1500000000000000001".parse().unwrap(),
            version: 0,
            dictionary,
            payload,
        }
    }

    #[test]
    fn a_payload_reads_back_exactly_and_a_plain_message_deflates_to_a_fifth() {
        let message: Value = serde_json::from_str(
            DICTIONARY_1
                .split(|byte| *byte == b'\n')
                .nth(5)
                .map(std::str::from_utf8)
                .unwrap()
                .unwrap(),
        )
        .unwrap();
        let mut other = message.clone();
        other["id"] = json!("1599999999999999999");
        other["content"] = json!("A different day, a different deploy: 2.5 is on staging");
        let json = other.to_string();
        let deflated = deflate(json.as_bytes(), 1).unwrap();
        assert!(
            deflated.len() * 5 < json.len(),
            "{} of {}",
            deflated.len(),
            json.len()
        );
        assert_eq!(read_payload(&kept(deflated, 1)).unwrap(), other);
    }

    #[test]
    fn a_corrupt_payload_or_an_unknown_dictionary_is_an_error_not_a_panic() {
        let deflated = deflate(br#"{"id":"1"}"#, 1).unwrap();
        let cut = deflated[..deflated.len() / 2].to_vec();
        for broken in [kept(cut, 1), kept(vec![0xff; 16], 1), kept(deflated, 9)] {
            let error = read_payload(&broken).unwrap_err();
            assert!(
                error
                    .message()
                    .starts_with("A kept message payload cannot be read"),
                "{}",
                error.message()
            );
        }
    }
}
