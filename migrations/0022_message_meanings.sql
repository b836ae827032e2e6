-- Search by meaning (issue 26): one current vector per message.
--
-- These tables are derived from the record, not part of it: every vector can be made again
-- from the messages, their edits, extras and kept text files, by the model named. So a
-- message's row is replaced when its text changes (an edit, new embed text, a kept text
-- file) or when another model embeds it, and there is exactly one row per message whatever
-- stops a pass: each batch is one transaction.
--
-- The model's full identity (the encoder's ModelInfo as JSON: weights' and tokenizer's
-- hashes, dimensions, pooling, truncation) is stored once; vectors of another identity are
-- never compared with a question.
CREATE TABLE meaning_models (
    id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    identity TEXT NOT NULL UNIQUE
);
CREATE TRIGGER meaning_models_append_only_update BEFORE UPDATE ON meaning_models BEGIN SELECT RAISE(ABORT, 'meaning_models is append-only'); END;
CREATE TRIGGER meaning_models_append_only_delete BEFORE DELETE ON meaning_models BEGIN SELECT RAISE(ABORT, 'meaning_models is append-only'); END;

-- `seq` grows with every write (AUTOINCREMENT: never reused, even for a replaced last row),
-- so a reader holding vectors in memory reads on after the last it saw, edits included.
-- About 424 bytes a message at 1M: 384 for the vector, four for the fingerprint of the text
-- it was made from (a 32-bit value: an unchanged text is not embedded again), the keys (ten
-- rows to a 4 KiB page), and the unique index.
-- A message with no text has a row with an empty vector, so it is not looked at again.
CREATE TABLE message_meanings (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    -- The message's integer key (`messages.seq`).
    message_key INTEGER NOT NULL UNIQUE,
    -- `meaning_models.id`.
    model INTEGER NOT NULL,
    fingerprint INTEGER NOT NULL,
    -- 384 signed bytes, each coordinate scaled so the largest is ±127; empty for no text.
    vector BLOB NOT NULL
);
