-- The files of messages and what became of each (issue 25). Two append-only tables:
--
-- `attachments`: every attachment the store has seen, one row per URL it was seen with (the
-- recorders add one whenever a message version carrying it is recorded, a replay adds none).
-- Its newest row is the attachment as last seen: Discord signs its URLs for about a day and
-- hands out fresh ones when the message is fetched again.
--
-- `attachment_outcomes`: what became of each, one row per attempt's end: `fetched` (the
-- SHA-256 the cache keeps it under, and its bytes), `skipped` (why: too large, a type not
-- kept, the total cap reached, a host that is not Discord's CDN) or `failed` (why, the
-- attempts so far, and when to try again; none: never). The newest row is the attachment's
-- state; an attachment without one is pending.
CREATE TABLE attachments (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    attachment_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    filename TEXT NOT NULL,
    content_type TEXT,
    size INTEGER NOT NULL,
    url TEXT NOT NULL,
    UNIQUE (attachment_id, url)
);
CREATE INDEX attachments_by_message ON attachments (message_id);
CREATE TRIGGER attachments_append_only_update BEFORE UPDATE ON attachments BEGIN SELECT RAISE(ABORT, 'attachments is append-only'); END;
CREATE TRIGGER attachments_append_only_delete BEFORE DELETE ON attachments BEGIN SELECT RAISE(ABORT, 'attachments is append-only'); END;

CREATE TABLE attachment_outcomes (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    attachment_id TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('fetched', 'skipped', 'failed')),
    hash TEXT,
    bytes INTEGER,
    reason TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    retry_at TEXT,
    CHECK ((outcome = 'fetched') = (hash IS NOT NULL AND bytes IS NOT NULL)),
    CHECK ((outcome = 'fetched') = (reason IS NULL))
);
CREATE INDEX attachment_outcomes_by_attachment ON attachment_outcomes (attachment_id, seq);
CREATE TRIGGER attachment_outcomes_append_only_update BEFORE UPDATE ON attachment_outcomes BEGIN SELECT RAISE(ABORT, 'attachment_outcomes is append-only'); END;
CREATE TRIGGER attachment_outcomes_append_only_delete BEFORE DELETE ON attachment_outcomes BEGIN SELECT RAISE(ABORT, 'attachment_outcomes is append-only'); END;

-- The files of messages already in the store: every version's attachments, oldest first, each
-- URL once (an entry without an id, a name, a size or a URL is left out).
INSERT OR IGNORE INTO attachments
    (created_at, attachment_id, message_id, channel_id, filename, content_type, size, url)
SELECT x.created_at, json_extract(a.value, '$.id'), x.message_id, x.channel_id,
       json_extract(a.value, '$.filename'), json_extract(a.value, '$.contentType'),
       json_extract(a.value, '$.size'), json_extract(a.value, '$.url')
FROM message_extras AS x, json_each(x.extras, '$.attachments') AS a
ORDER BY x.seq, a.key;
