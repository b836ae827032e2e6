-- Instants become numbers: every instant column of every table is declared INTEGER and holds
-- the instant's microseconds since 1970-01-01T00:00:00Z (UTC) where it held the 27-byte text
-- `2026-11-29T18:54:18.123456Z`: 8 bytes where the text took 27, in the row and in every index
-- that carries the column, and instants order and compare as numbers. Each text is read by the
-- product's own parser (`instant_micros`, registered by the store for this file), which refuses
-- anything that is not an instant, so no row is changed into another instant or left as text.
-- SQLite cannot change a column's type in place, so each table is rebuilt as 0030 to 0032 did:
-- a new table, the rows copied with their instants converted, the old table dropped, the new
-- one renamed, its indexes made again as they were. Every trigger is dropped first and made
-- again at the end, as it was. The file is one transaction: a process stopped during it leaves
-- the store as it was before it, and the next open goes on from here.

DROP TRIGGER clock_moves_forward;
DROP TRIGGER clock_is_kept;
DROP TRIGGER gateway_events_append_only_update;
DROP TRIGGER gateway_events_append_only_delete;
DROP TRIGGER discord_clock_readings_append_only_update;
DROP TRIGGER discord_clock_readings_append_only_delete;
DROP TRIGGER backups_append_only_update;
DROP TRIGGER backups_append_only_delete;
DROP TRIGGER meaning_models_append_only_update;
DROP TRIGGER meaning_models_append_only_delete;
DROP TRIGGER payload_readings_append_only_update;
DROP TRIGGER payload_readings_append_only_delete;
DROP TRIGGER push_coverage_append_only_update;
DROP TRIGGER push_coverage_append_only_delete;
DROP TRIGGER messages_append_only_update;
DROP TRIGGER messages_append_only_delete;
DROP TRIGGER message_payloads_append_only_update;
DROP TRIGGER message_payloads_append_only_delete;
DROP TRIGGER assistant_reactions_append_only_update;
DROP TRIGGER assistant_reactions_append_only_delete;
DROP TRIGGER assistant_sends_append_only_update;
DROP TRIGGER assistant_sends_append_only_delete;
DROP TRIGGER attachment_outcomes_append_only_update;
DROP TRIGGER attachment_outcomes_append_only_delete;
DROP TRIGGER attachment_text_append_only_update;
DROP TRIGGER attachment_text_append_only_delete;
DROP TRIGGER attachments_append_only_update;
DROP TRIGGER attachments_append_only_delete;
DROP TRIGGER bookmark_due_events_append_only_update;
DROP TRIGGER bookmark_due_events_append_only_delete;
DROP TRIGGER bookmark_events_append_only_update;
DROP TRIGGER bookmark_events_append_only_delete;
DROP TRIGGER channel_anchors_append_only_update;
DROP TRIGGER channel_anchors_append_only_delete;
DROP TRIGGER channel_coverage_append_only_update;
DROP TRIGGER channel_coverage_append_only_delete;
DROP TRIGGER channel_events_append_only_update;
DROP TRIGGER channel_events_append_only_delete;
DROP TRIGGER channel_imports_append_only_update;
DROP TRIGGER channel_imports_append_only_delete;
DROP TRIGGER channel_message_totals_only_grow;
DROP TRIGGER channel_message_totals_are_kept;
DROP TRIGGER channel_message_totals_count;
DROP TRIGGER coverage_gaps_append_only_update;
DROP TRIGGER coverage_gaps_append_only_delete;
DROP TRIGGER guild_events_append_only_update;
DROP TRIGGER guild_events_append_only_delete;
DROP TRIGGER identity_events_append_only_update;
DROP TRIGGER identity_events_append_only_delete;
DROP TRIGGER member_role_events_append_only_update;
DROP TRIGGER member_role_events_append_only_delete;
DROP TRIGGER mention_dismissals_append_only_update;
DROP TRIGGER mention_dismissals_append_only_delete;
DROP TRIGGER message_deletions_append_only_update;
DROP TRIGGER message_deletions_append_only_delete;
DROP TRIGGER message_edits_append_only_update;
DROP TRIGGER message_edits_append_only_delete;
DROP TRIGGER message_extras_append_only_update;
DROP TRIGGER message_extras_append_only_delete;
DROP TRIGGER message_mentions_append_only_update;
DROP TRIGGER message_mentions_append_only_delete;
DROP TRIGGER poll_vote_events_append_only_update;
DROP TRIGGER poll_vote_events_append_only_delete;
DROP TRIGGER push_deliveries_append_only_update;
DROP TRIGGER push_deliveries_append_only_delete;
DROP TRIGGER reaction_events_append_only_update;
DROP TRIGGER reaction_events_append_only_delete;
DROP TRIGGER read_markers_append_only_update;
DROP TRIGGER read_markers_append_only_delete;
DROP TRIGGER schedule_events_append_only_update;
DROP TRIGGER schedule_events_append_only_delete;
DROP TRIGGER schedules_append_only_update;
DROP TRIGGER schedules_append_only_delete;

-- gateway_events: created_at.
CREATE TABLE gateway_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    session_id TEXT,
    detail TEXT
);
INSERT INTO gateway_events_timed (seq, created_at, kind, session_id, detail)
    SELECT seq, instant_micros(created_at), kind, session_id, detail
    FROM gateway_events;
DROP TABLE gateway_events;
ALTER TABLE gateway_events_timed RENAME TO gateway_events;
CREATE INDEX gateway_events_by_kind ON gateway_events (kind, seq);

-- discord_clock_readings: created_at, discord_at, host_at.
CREATE TABLE discord_clock_readings_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    discord_at INTEGER NOT NULL,
    host_at INTEGER NOT NULL,
    host_ahead_ms INTEGER NOT NULL      -- host_at minus discord_at
);
INSERT INTO discord_clock_readings_timed (seq, created_at, discord_at, host_at, host_ahead_ms)
    SELECT seq, instant_micros(created_at), instant_micros(discord_at), instant_micros(host_at), host_ahead_ms
    FROM discord_clock_readings;
DROP TABLE discord_clock_readings;
ALTER TABLE discord_clock_readings_timed RENAME TO discord_clock_readings;

-- backups: created_at.
CREATE TABLE backups_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    path TEXT NOT NULL,             -- the copy's absolute path
    messages INTEGER NOT NULL,      -- the messages the copy holds
    bytes INTEGER NOT NULL          -- the copy's size
);
INSERT INTO backups_timed (seq, created_at, path, messages, bytes)
    SELECT seq, instant_micros(created_at), path, messages, bytes
    FROM backups;
DROP TABLE backups;
ALTER TABLE backups_timed RENAME TO backups;

-- meaning_models: created_at.
CREATE TABLE meaning_models_timed (
    id INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    identity TEXT NOT NULL UNIQUE
);
INSERT INTO meaning_models_timed (id, created_at, identity)
    SELECT id, instant_micros(created_at), identity
    FROM meaning_models;
DROP TABLE meaning_models;
ALTER TABLE meaning_models_timed RENAME TO meaning_models;

-- payload_readings: created_at.
CREATE TABLE payload_readings_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    rules INTEGER NOT NULL
);
INSERT INTO payload_readings_timed (seq, created_at, rules)
    SELECT seq, instant_micros(created_at), rules
    FROM payload_readings;
DROP TABLE payload_readings;
ALTER TABLE payload_readings_timed RENAME TO payload_readings;

-- push_coverage: created_at, through.
CREATE TABLE push_coverage_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    session TEXT NOT NULL,
    through INTEGER NOT NULL
);
INSERT INTO push_coverage_timed (seq, created_at, session, through)
    SELECT seq, instant_micros(created_at), session, instant_micros(through)
    FROM push_coverage;
DROP TABLE push_coverage;
ALTER TABLE push_coverage_timed RENAME TO push_coverage;

-- messages: created_at, sent_at.
CREATE TABLE messages_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL UNIQUE,
    channel_id INTEGER NOT NULL,
    guild_id INTEGER,
    author_id INTEGER NOT NULL,
    author_name TEXT NOT NULL,
    content TEXT NOT NULL,
    sent_at INTEGER NOT NULL,
    reply_to_message_id INTEGER,
    reply_to_author_id INTEGER,
    mention_everyone INTEGER NOT NULL,
    origin TEXT NOT NULL,         -- gateway | backfill | sent | seed | import
    author_bot INTEGER,
    webhook_id INTEGER,
    application_id INTEGER
);
INSERT INTO messages_timed (seq, created_at, message_id, channel_id, guild_id, author_id, author_name, content, sent_at, reply_to_message_id, reply_to_author_id, mention_everyone, origin, author_bot, webhook_id, application_id)
    SELECT seq, instant_micros(created_at), message_id, channel_id, guild_id, author_id, author_name, content, instant_micros(sent_at), reply_to_message_id, reply_to_author_id, mention_everyone, origin, author_bot, webhook_id, application_id
    FROM messages;
DROP TABLE messages;
ALTER TABLE messages_timed RENAME TO messages;
CREATE INDEX messages_by_author ON messages (author_id, created_at);
CREATE INDEX messages_replying_to ON messages (reply_to_message_id)
    WHERE reply_to_message_id IS NOT NULL;
CREATE INDEX messages_replying_to_author ON messages (reply_to_author_id, created_at)
    WHERE reply_to_author_id IS NOT NULL;
CREATE INDEX messages_mentioning_everyone ON messages (created_at)
    WHERE mention_everyone = 1;
CREATE INDEX messages_by_channel_sent ON messages (channel_id, sent_at, message_id);
CREATE INDEX messages_by_channel_author_sent ON messages (channel_id, author_id, sent_at);
CREATE INDEX messages_by_arrival ON messages (created_at, channel_id) WHERE origin <> 'import';
CREATE INDEX messages_by_channel_arrival ON messages (channel_id, created_at, origin);

-- assistant_reactions: created_at.
CREATE TABLE assistant_reactions_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL
);
INSERT INTO assistant_reactions_timed (seq, created_at, channel_id, message_id)
    SELECT seq, instant_micros(created_at), channel_id, message_id
    FROM assistant_reactions;
DROP TABLE assistant_reactions;
ALTER TABLE assistant_reactions_timed RENAME TO assistant_reactions;
CREATE INDEX assistant_reactions_by_arrival ON assistant_reactions (created_at);

-- assistant_sends: created_at.
CREATE TABLE assistant_sends_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    channel_id INTEGER NOT NULL
);
INSERT INTO assistant_sends_timed (seq, created_at, channel_id)
    SELECT seq, instant_micros(created_at), channel_id
    FROM assistant_sends;
DROP TABLE assistant_sends;
ALTER TABLE assistant_sends_timed RENAME TO assistant_sends;
CREATE INDEX assistant_sends_by_arrival ON assistant_sends (created_at);

-- attachment_outcomes: created_at, retry_at.
CREATE TABLE attachment_outcomes_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    attachment_id INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('fetched', 'skipped', 'failed')),
    hash TEXT,
    bytes INTEGER,
    reason TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    retry_at INTEGER,
    CHECK ((outcome = 'fetched') = (hash IS NOT NULL AND bytes IS NOT NULL)),
    CHECK ((outcome = 'fetched') = (reason IS NULL))
);
INSERT INTO attachment_outcomes_timed (seq, created_at, attachment_id, outcome, hash, bytes, reason, attempts, retry_at)
    SELECT seq, instant_micros(created_at), attachment_id, outcome, hash, bytes, reason, attempts, instant_micros(retry_at)
    FROM attachment_outcomes;
DROP TABLE attachment_outcomes;
ALTER TABLE attachment_outcomes_timed RENAME TO attachment_outcomes;
CREATE INDEX attachment_outcomes_by_attachment ON attachment_outcomes (attachment_id, seq);

-- attachment_text: created_at.
CREATE TABLE attachment_text_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    attachment_id INTEGER NOT NULL UNIQUE,
    message_id INTEGER NOT NULL,
    filename TEXT NOT NULL,
    -- The `message_text` row holding the text.
    text_rowid INTEGER NOT NULL UNIQUE,
    -- How many of the file's bytes were indexed (at most the bound).
    indexed_bytes INTEGER NOT NULL
);
INSERT INTO attachment_text_timed (seq, created_at, attachment_id, message_id, filename, text_rowid, indexed_bytes)
    SELECT seq, instant_micros(created_at), attachment_id, message_id, filename, text_rowid, indexed_bytes
    FROM attachment_text;
DROP TABLE attachment_text;
ALTER TABLE attachment_text_timed RENAME TO attachment_text;
CREATE INDEX attachment_text_by_time ON attachment_text (created_at, text_rowid);

-- attachments: created_at.
CREATE TABLE attachments_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    attachment_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    filename TEXT NOT NULL,
    content_type TEXT,
    size INTEGER NOT NULL,
    url TEXT NOT NULL,
    UNIQUE (attachment_id, url)
);
INSERT INTO attachments_timed (seq, created_at, attachment_id, message_id, channel_id, filename, content_type, size, url)
    SELECT seq, instant_micros(created_at), attachment_id, message_id, channel_id, filename, content_type, size, url
    FROM attachments;
DROP TABLE attachments;
ALTER TABLE attachments_timed RENAME TO attachments;
CREATE INDEX attachments_by_message ON attachments (message_id);

-- bookmark_due_events: created_at, due_at.
CREATE TABLE bookmark_due_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    due_at INTEGER NOT NULL,
    source TEXT NOT NULL          -- cli | mcp
);
INSERT INTO bookmark_due_events_timed (seq, created_at, message_id, due_at, source)
    SELECT seq, instant_micros(created_at), message_id, instant_micros(due_at), source
    FROM bookmark_due_events;
DROP TABLE bookmark_due_events;
ALTER TABLE bookmark_due_events_timed RENAME TO bookmark_due_events;
CREATE INDEX bookmark_due_events_by_message ON bookmark_due_events (message_id, seq);

-- bookmark_events: created_at.
CREATE TABLE bookmark_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    kind TEXT NOT NULL,           -- added | resolved
    note TEXT,
    content_when_bookmarked TEXT,
    source TEXT NOT NULL          -- cli | mcp
);
INSERT INTO bookmark_events_timed (seq, created_at, message_id, kind, note, content_when_bookmarked, source)
    SELECT seq, instant_micros(created_at), message_id, kind, note, content_when_bookmarked, source
    FROM bookmark_events;
DROP TABLE bookmark_events;
ALTER TABLE bookmark_events_timed RENAME TO bookmark_events;
CREATE INDEX bookmark_events_by_message ON bookmark_events (message_id, seq);

-- channel_anchors: created_at.
CREATE TABLE channel_anchors_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    channel_id INTEGER NOT NULL UNIQUE,
    after_message_id INTEGER NOT NULL,
    source TEXT NOT NULL                -- last-message-id | channel-id
);
INSERT INTO channel_anchors_timed (seq, created_at, channel_id, after_message_id, source)
    SELECT seq, instant_micros(created_at), channel_id, after_message_id, source
    FROM channel_anchors;
DROP TABLE channel_anchors;
ALTER TABLE channel_anchors_timed RENAME TO channel_anchors;

-- channel_coverage: created_at.
CREATE TABLE channel_coverage_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    started_after INTEGER NOT NULL,     -- the snowflake the backfill started after
    complete_through INTEGER NOT NULL,  -- the snowflake it proved complete up to
    fetched INTEGER NOT NULL,           -- messages Discord returned
    stored INTEGER NOT NULL,            -- of which new to the store
    reason TEXT NOT NULL                -- start | reconnect | repair | joined
);
INSERT INTO channel_coverage_timed (seq, created_at, channel_id, started_after, complete_through, fetched, stored, reason)
    SELECT seq, instant_micros(created_at), channel_id, started_after, complete_through, fetched, stored, reason
    FROM channel_coverage;
DROP TABLE channel_coverage;
ALTER TABLE channel_coverage_timed RENAME TO channel_coverage;
CREATE INDEX channel_coverage_by_channel ON channel_coverage (channel_id, complete_through);

-- channel_events: created_at.
CREATE TABLE channel_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    guild_id INTEGER,
    parent_id INTEGER,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    overwrites TEXT NOT NULL,     -- JSON: [{"id", "kind", "allow", "deny"}]
    access TEXT NOT NULL,         -- readable | no_view | no_history
    removed INTEGER NOT NULL
, tags TEXT NOT NULL DEFAULT '[]');
INSERT INTO channel_events_timed (seq, created_at, channel_id, guild_id, parent_id, name, kind, overwrites, access, removed, tags)
    SELECT seq, instant_micros(created_at), channel_id, guild_id, parent_id, name, kind, overwrites, access, removed, tags
    FROM channel_events;
DROP TABLE channel_events;
ALTER TABLE channel_events_timed RENAME TO channel_events;
CREATE INDEX channel_events_by_channel ON channel_events (channel_id, seq);

-- channel_imports: created_at.
CREATE TABLE channel_imports_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    window_start INTEGER NOT NULL,  -- the lowest message id inside the window (0: all history)
    reached INTEGER NOT NULL,       -- every message with an id from here up to the beginning is stored
    exhausted INTEGER NOT NULL,     -- 1: Discord has nothing older than `reached`
    fetched INTEGER NOT NULL,       -- messages Discord answered on this page
    stored INTEGER NOT NULL         -- of those, messages the store did not have
);
INSERT INTO channel_imports_timed (seq, created_at, channel_id, window_start, reached, exhausted, fetched, stored)
    SELECT seq, instant_micros(created_at), channel_id, window_start, reached, exhausted, fetched, stored
    FROM channel_imports;
DROP TABLE channel_imports;
ALTER TABLE channel_imports_timed RENAME TO channel_imports;
CREATE INDEX channel_imports_by_channel ON channel_imports (channel_id, seq);

-- coverage_gaps: created_at, from_at, until_at.
CREATE TABLE coverage_gaps_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    channel_id INTEGER,
    from_at INTEGER NOT NULL,
    until_at INTEGER NOT NULL,
    after_message_id INTEGER,
    detail TEXT NOT NULL
);
INSERT INTO coverage_gaps_timed (seq, created_at, kind, channel_id, from_at, until_at, after_message_id, detail)
    SELECT seq, instant_micros(created_at), kind, channel_id, instant_micros(from_at), instant_micros(until_at), after_message_id, detail
    FROM coverage_gaps;
DROP TABLE coverage_gaps;
ALTER TABLE coverage_gaps_timed RENAME TO coverage_gaps;
CREATE INDEX coverage_gaps_by_channel ON coverage_gaps (channel_id, seq);

-- guild_events: created_at.
CREATE TABLE guild_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    guild_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    roles TEXT NOT NULL,          -- JSON: [{"id": "…", "permissions": "…"}]
    bot_role_ids TEXT NOT NULL,   -- JSON: ["…"]
    removed INTEGER NOT NULL      -- 1: the bot left, was removed, or the guild went away
);
INSERT INTO guild_events_timed (seq, created_at, guild_id, name, roles, bot_role_ids, removed)
    SELECT seq, instant_micros(created_at), guild_id, name, roles, bot_role_ids, removed
    FROM guild_events;
DROP TABLE guild_events;
ALTER TABLE guild_events_timed RENAME TO guild_events;
CREATE INDEX guild_events_by_guild ON guild_events (guild_id, seq);

-- identity_events: created_at.
CREATE TABLE identity_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    bot_user_id INTEGER,
    bot_name TEXT,
    owner_user_id INTEGER,
    origin TEXT NOT NULL
);
INSERT INTO identity_events_timed (seq, created_at, bot_user_id, bot_name, owner_user_id, origin)
    SELECT seq, instant_micros(created_at), bot_user_id, bot_name, owner_user_id, origin
    FROM identity_events;
DROP TABLE identity_events;
ALTER TABLE identity_events_timed RENAME TO identity_events;

-- member_role_events: created_at.
CREATE TABLE member_role_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    guild_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    role_ids TEXT NOT NULL        -- JSON: ["…"]
);
INSERT INTO member_role_events_timed (seq, created_at, guild_id, user_id, role_ids)
    SELECT seq, instant_micros(created_at), guild_id, user_id, role_ids
    FROM member_role_events;
DROP TABLE member_role_events;
ALTER TABLE member_role_events_timed RENAME TO member_role_events;
CREATE INDEX member_role_events_by_member ON member_role_events (guild_id, user_id, seq);
CREATE INDEX member_role_events_by_user ON member_role_events (user_id, guild_id, seq);

-- mention_dismissals: created_at.
CREATE TABLE mention_dismissals_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL UNIQUE,
    note TEXT,
    source TEXT NOT NULL          -- cli | mcp
);
INSERT INTO mention_dismissals_timed (seq, created_at, message_id, note, source)
    SELECT seq, instant_micros(created_at), message_id, note, source
    FROM mention_dismissals;
DROP TABLE mention_dismissals;
ALTER TABLE mention_dismissals_timed RENAME TO mention_dismissals;

-- message_deletions: created_at.
CREATE TABLE message_deletions_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL UNIQUE,
    channel_id INTEGER NOT NULL,
    bulk INTEGER NOT NULL
);
INSERT INTO message_deletions_timed (seq, created_at, message_id, channel_id, bulk)
    SELECT seq, instant_micros(created_at), message_id, channel_id, bulk
    FROM message_deletions;
DROP TABLE message_deletions;
ALTER TABLE message_deletions_timed RENAME TO message_deletions;
CREATE INDEX message_deletions_by_channel_arrival ON message_deletions (channel_id, created_at);
CREATE INDEX message_deletions_by_arrival ON message_deletions (created_at, channel_id);

-- message_edits: created_at, edited_at.
CREATE TABLE message_edits_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    content TEXT NOT NULL,
    edited_at INTEGER NOT NULL, imported INTEGER NOT NULL DEFAULT 0,
    UNIQUE (message_id, edited_at)
);
INSERT INTO message_edits_timed (seq, created_at, message_id, channel_id, content, edited_at, imported)
    SELECT seq, instant_micros(created_at), message_id, channel_id, content, instant_micros(edited_at), imported
    FROM message_edits;
DROP TABLE message_edits;
ALTER TABLE message_edits_timed RENAME TO message_edits;
CREATE INDEX message_edits_by_channel_arrival ON message_edits (channel_id, created_at);
CREATE INDEX message_edits_by_arrival ON message_edits (created_at, channel_id) WHERE imported = 0;

-- message_extras: created_at.
CREATE TABLE message_extras_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    extras TEXT NOT NULL
);
INSERT INTO message_extras_timed (seq, created_at, message_id, channel_id, extras)
    SELECT seq, instant_micros(created_at), message_id, channel_id, extras
    FROM message_extras;
DROP TABLE message_extras;
ALTER TABLE message_extras_timed RENAME TO message_extras;
CREATE INDEX message_extras_by_message ON message_extras (message_id, seq);

-- message_mentions: created_at.
CREATE TABLE message_mentions_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    kind TEXT NOT NULL,           -- user | role
    target_id INTEGER NOT NULL,
    UNIQUE (kind, target_id, message_id)
);
INSERT INTO message_mentions_timed (seq, created_at, message_id, kind, target_id)
    SELECT seq, instant_micros(created_at), message_id, kind, target_id
    FROM message_mentions;
DROP TABLE message_mentions;
ALTER TABLE message_mentions_timed RENAME TO message_mentions;
CREATE INDEX message_mentions_by_target_arrival ON message_mentions (kind, target_id, created_at);
CREATE INDEX message_mentions_by_message ON message_mentions (message_id);

-- poll_vote_events: created_at.
CREATE TABLE poll_vote_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    answer_id INTEGER NOT NULL,
    voted INTEGER NOT NULL
);
INSERT INTO poll_vote_events_timed (seq, created_at, message_id, channel_id, user_id, answer_id, voted)
    SELECT seq, instant_micros(created_at), message_id, channel_id, user_id, answer_id, voted
    FROM poll_vote_events;
DROP TABLE poll_vote_events;
ALTER TABLE poll_vote_events_timed RENAME TO poll_vote_events;
CREATE INDEX poll_vote_events_by_message ON poll_vote_events (message_id, user_id, answer_id, seq);

-- push_deliveries: created_at.
CREATE TABLE push_deliveries_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    session TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    kind TEXT NOT NULL
);
INSERT INTO push_deliveries_timed (seq, created_at, session, message_id, kind)
    SELECT seq, instant_micros(created_at), session, message_id, kind
    FROM push_deliveries;
DROP TABLE push_deliveries;
ALTER TABLE push_deliveries_timed RENAME TO push_deliveries;
CREATE INDEX push_deliveries_by_message ON push_deliveries (message_id);

-- reaction_events: created_at.
CREATE TABLE reaction_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    kind TEXT NOT NULL,           -- add | remove | clear | clear_emoji
    user_id INTEGER,                 -- add, remove
    emoji TEXT                    -- add, remove, clear_emoji
);
INSERT INTO reaction_events_timed (seq, created_at, message_id, channel_id, kind, user_id, emoji)
    SELECT seq, instant_micros(created_at), message_id, channel_id, kind, user_id, emoji
    FROM reaction_events;
DROP TABLE reaction_events;
ALTER TABLE reaction_events_timed RENAME TO reaction_events;
CREATE INDEX reaction_events_by_message ON reaction_events (message_id, seq);
CREATE INDEX reaction_events_by_channel_arrival ON reaction_events (channel_id, created_at);
CREATE INDEX reaction_events_by_arrival ON reaction_events (created_at, channel_id);
CREATE INDEX reaction_events_by_message_user ON reaction_events (message_id, user_id)
    WHERE kind = 'add';

-- read_markers: created_at, read_through.
CREATE TABLE read_markers_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    read_through INTEGER NOT NULL,   -- an arrival instant: messages at or before it are read
    source TEXT NOT NULL          -- cli | mcp
);
INSERT INTO read_markers_timed (seq, created_at, channel_id, read_through, source)
    SELECT seq, instant_micros(created_at), channel_id, instant_micros(read_through), source
    FROM read_markers;
DROP TABLE read_markers;
ALTER TABLE read_markers_timed RENAME TO read_markers;
CREATE INDEX read_markers_by_channel ON read_markers (channel_id, seq);

-- schedule_events: created_at.
CREATE TABLE schedule_events_timed (
    seq INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    schedule_id INTEGER NOT NULL REFERENCES schedules (schedule_id),
    kind TEXT NOT NULL,               -- attempt | retry | sent | failed | cancelled
    attempt INTEGER,                  -- attempt, retry: which attempt (1 is the first)
    nonce TEXT,                       -- attempt: the nonce the request carried
    message_id INTEGER,                  -- sent: the message Discord created
    reason TEXT,                      -- retry, failed: why, in the owner's words
    source TEXT                       -- cancelled: cli | mcp
);
INSERT INTO schedule_events_timed (seq, created_at, schedule_id, kind, attempt, nonce, message_id, reason, source)
    SELECT seq, instant_micros(created_at), schedule_id, kind, attempt, nonce, message_id, reason, source
    FROM schedule_events;
DROP TABLE schedule_events;
ALTER TABLE schedule_events_timed RENAME TO schedule_events;
CREATE INDEX schedule_events_by_schedule ON schedule_events (schedule_id, seq);

-- schedules: created_at, send_at.
CREATE TABLE schedules_timed (
    schedule_id INTEGER PRIMARY KEY,  -- never reused: rows are never deleted
    created_at INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    content TEXT NOT NULL,
    reply_to_message_id INTEGER,
    send_at INTEGER NOT NULL,            -- when the owner wants it sent (microseconds, UTC)
    nonce TEXT NOT NULL UNIQUE,       -- Discord's nonce, the same on every attempt
    source TEXT NOT NULL              -- cli | mcp | seed
);
INSERT INTO schedules_timed (schedule_id, created_at, channel_id, content, reply_to_message_id, send_at, nonce, source)
    SELECT schedule_id, instant_micros(created_at), channel_id, content, reply_to_message_id, instant_micros(send_at), nonce, source
    FROM schedules;
DROP TABLE schedules;
ALTER TABLE schedules_timed RENAME TO schedules;
CREATE INDEX schedules_by_send_at ON schedules (send_at);
CREATE INDEX schedules_by_source_arrival ON schedules (source, created_at);

-- Every trigger, as it was.
CREATE TRIGGER clock_moves_forward BEFORE UPDATE ON clock
    WHEN NEW.last_micros <= OLD.last_micros OR NEW.id != OLD.id
    BEGIN SELECT RAISE(ABORT, 'the arrival clock only moves forward'); END;
CREATE TRIGGER clock_is_kept BEFORE DELETE ON clock BEGIN SELECT RAISE(ABORT, 'the arrival clock is never deleted'); END;
CREATE TRIGGER gateway_events_append_only_update BEFORE UPDATE ON gateway_events BEGIN SELECT RAISE(ABORT, 'gateway_events is append-only'); END;
CREATE TRIGGER gateway_events_append_only_delete BEFORE DELETE ON gateway_events BEGIN SELECT RAISE(ABORT, 'gateway_events is append-only'); END;
CREATE TRIGGER discord_clock_readings_append_only_update BEFORE UPDATE ON discord_clock_readings BEGIN SELECT RAISE(ABORT, 'discord_clock_readings is append-only'); END;
CREATE TRIGGER discord_clock_readings_append_only_delete BEFORE DELETE ON discord_clock_readings BEGIN SELECT RAISE(ABORT, 'discord_clock_readings is append-only'); END;
CREATE TRIGGER backups_append_only_update BEFORE UPDATE ON backups BEGIN SELECT RAISE(ABORT, 'backups is append-only'); END;
CREATE TRIGGER backups_append_only_delete BEFORE DELETE ON backups BEGIN SELECT RAISE(ABORT, 'backups is append-only'); END;
CREATE TRIGGER meaning_models_append_only_update BEFORE UPDATE ON meaning_models BEGIN SELECT RAISE(ABORT, 'meaning_models is append-only'); END;
CREATE TRIGGER meaning_models_append_only_delete BEFORE DELETE ON meaning_models BEGIN SELECT RAISE(ABORT, 'meaning_models is append-only'); END;
CREATE TRIGGER payload_readings_append_only_update BEFORE UPDATE ON payload_readings BEGIN SELECT RAISE(ABORT, 'payload_readings is append-only'); END;
CREATE TRIGGER payload_readings_append_only_delete BEFORE DELETE ON payload_readings BEGIN SELECT RAISE(ABORT, 'payload_readings is append-only'); END;
CREATE TRIGGER push_coverage_append_only_update BEFORE UPDATE ON push_coverage BEGIN SELECT RAISE(ABORT, 'push_coverage is append-only'); END;
CREATE TRIGGER push_coverage_append_only_delete BEFORE DELETE ON push_coverage BEGIN SELECT RAISE(ABORT, 'push_coverage is append-only'); END;
CREATE TRIGGER messages_append_only_update BEFORE UPDATE ON messages BEGIN SELECT RAISE(ABORT, 'messages is append-only'); END;
CREATE TRIGGER messages_append_only_delete BEFORE DELETE ON messages BEGIN SELECT RAISE(ABORT, 'messages is append-only'); END;
CREATE TRIGGER message_payloads_append_only_update BEFORE UPDATE ON message_payloads BEGIN SELECT RAISE(ABORT, 'message_payloads is append-only'); END;
CREATE TRIGGER message_payloads_append_only_delete BEFORE DELETE ON message_payloads BEGIN SELECT RAISE(ABORT, 'message_payloads is append-only'); END;
CREATE TRIGGER assistant_reactions_append_only_update BEFORE UPDATE ON assistant_reactions BEGIN SELECT RAISE(ABORT, 'assistant_reactions is append-only'); END;
CREATE TRIGGER assistant_reactions_append_only_delete BEFORE DELETE ON assistant_reactions BEGIN SELECT RAISE(ABORT, 'assistant_reactions is append-only'); END;
CREATE TRIGGER assistant_sends_append_only_update BEFORE UPDATE ON assistant_sends BEGIN SELECT RAISE(ABORT, 'assistant_sends is append-only'); END;
CREATE TRIGGER assistant_sends_append_only_delete BEFORE DELETE ON assistant_sends BEGIN SELECT RAISE(ABORT, 'assistant_sends is append-only'); END;
CREATE TRIGGER attachment_outcomes_append_only_update BEFORE UPDATE ON attachment_outcomes BEGIN SELECT RAISE(ABORT, 'attachment_outcomes is append-only'); END;
CREATE TRIGGER attachment_outcomes_append_only_delete BEFORE DELETE ON attachment_outcomes BEGIN SELECT RAISE(ABORT, 'attachment_outcomes is append-only'); END;
CREATE TRIGGER attachment_text_append_only_update BEFORE UPDATE ON attachment_text BEGIN SELECT RAISE(ABORT, 'attachment_text is append-only'); END;
CREATE TRIGGER attachment_text_append_only_delete BEFORE DELETE ON attachment_text BEGIN SELECT RAISE(ABORT, 'attachment_text is append-only'); END;
CREATE TRIGGER attachments_append_only_update BEFORE UPDATE ON attachments BEGIN SELECT RAISE(ABORT, 'attachments is append-only'); END;
CREATE TRIGGER attachments_append_only_delete BEFORE DELETE ON attachments BEGIN SELECT RAISE(ABORT, 'attachments is append-only'); END;
CREATE TRIGGER bookmark_due_events_append_only_update BEFORE UPDATE ON bookmark_due_events BEGIN SELECT RAISE(ABORT, 'bookmark_due_events is append-only'); END;
CREATE TRIGGER bookmark_due_events_append_only_delete BEFORE DELETE ON bookmark_due_events BEGIN SELECT RAISE(ABORT, 'bookmark_due_events is append-only'); END;
CREATE TRIGGER bookmark_events_append_only_update BEFORE UPDATE ON bookmark_events BEGIN SELECT RAISE(ABORT, 'bookmark_events is append-only'); END;
CREATE TRIGGER bookmark_events_append_only_delete BEFORE DELETE ON bookmark_events BEGIN SELECT RAISE(ABORT, 'bookmark_events is append-only'); END;
CREATE TRIGGER channel_anchors_append_only_update BEFORE UPDATE ON channel_anchors BEGIN SELECT RAISE(ABORT, 'channel_anchors is append-only'); END;
CREATE TRIGGER channel_anchors_append_only_delete BEFORE DELETE ON channel_anchors BEGIN SELECT RAISE(ABORT, 'channel_anchors is append-only'); END;
CREATE TRIGGER channel_coverage_append_only_update BEFORE UPDATE ON channel_coverage BEGIN SELECT RAISE(ABORT, 'channel_coverage is append-only'); END;
CREATE TRIGGER channel_coverage_append_only_delete BEFORE DELETE ON channel_coverage BEGIN SELECT RAISE(ABORT, 'channel_coverage is append-only'); END;
CREATE TRIGGER channel_events_append_only_update BEFORE UPDATE ON channel_events BEGIN SELECT RAISE(ABORT, 'channel_events is append-only'); END;
CREATE TRIGGER channel_events_append_only_delete BEFORE DELETE ON channel_events BEGIN SELECT RAISE(ABORT, 'channel_events is append-only'); END;
CREATE TRIGGER channel_imports_append_only_update BEFORE UPDATE ON channel_imports BEGIN SELECT RAISE(ABORT, 'channel_imports is append-only'); END;
CREATE TRIGGER channel_imports_append_only_delete BEFORE DELETE ON channel_imports BEGIN SELECT RAISE(ABORT, 'channel_imports is append-only'); END;
CREATE TRIGGER channel_message_totals_only_grow BEFORE UPDATE ON channel_message_totals
    WHEN NEW.news < OLD.news OR NEW.channel_id <> OLD.channel_id
    BEGIN SELECT RAISE(ABORT, 'a channel''s message count only grows'); END;
CREATE TRIGGER channel_message_totals_are_kept BEFORE DELETE ON channel_message_totals
    BEGIN SELECT RAISE(ABORT, 'a channel''s message count is never deleted'); END;
CREATE TRIGGER channel_message_totals_count AFTER INSERT ON messages
    WHEN NEW.origin <> 'import'
    BEGIN
        INSERT INTO channel_message_totals (channel_id, news) VALUES (NEW.channel_id, 1)
            ON CONFLICT (channel_id) DO UPDATE SET news = news + 1;
    END;
CREATE TRIGGER coverage_gaps_append_only_update BEFORE UPDATE ON coverage_gaps BEGIN SELECT RAISE(ABORT, 'coverage_gaps is append-only'); END;
CREATE TRIGGER coverage_gaps_append_only_delete BEFORE DELETE ON coverage_gaps BEGIN SELECT RAISE(ABORT, 'coverage_gaps is append-only'); END;
CREATE TRIGGER guild_events_append_only_update BEFORE UPDATE ON guild_events BEGIN SELECT RAISE(ABORT, 'guild_events is append-only'); END;
CREATE TRIGGER guild_events_append_only_delete BEFORE DELETE ON guild_events BEGIN SELECT RAISE(ABORT, 'guild_events is append-only'); END;
CREATE TRIGGER identity_events_append_only_update BEFORE UPDATE ON identity_events BEGIN SELECT RAISE(ABORT, 'identity_events is append-only'); END;
CREATE TRIGGER identity_events_append_only_delete BEFORE DELETE ON identity_events BEGIN SELECT RAISE(ABORT, 'identity_events is append-only'); END;
CREATE TRIGGER member_role_events_append_only_update BEFORE UPDATE ON member_role_events BEGIN SELECT RAISE(ABORT, 'member_role_events is append-only'); END;
CREATE TRIGGER member_role_events_append_only_delete BEFORE DELETE ON member_role_events BEGIN SELECT RAISE(ABORT, 'member_role_events is append-only'); END;
CREATE TRIGGER mention_dismissals_append_only_update BEFORE UPDATE ON mention_dismissals BEGIN SELECT RAISE(ABORT, 'mention_dismissals is append-only'); END;
CREATE TRIGGER mention_dismissals_append_only_delete BEFORE DELETE ON mention_dismissals BEGIN SELECT RAISE(ABORT, 'mention_dismissals is append-only'); END;
CREATE TRIGGER message_deletions_append_only_update BEFORE UPDATE ON message_deletions BEGIN SELECT RAISE(ABORT, 'message_deletions is append-only'); END;
CREATE TRIGGER message_deletions_append_only_delete BEFORE DELETE ON message_deletions BEGIN SELECT RAISE(ABORT, 'message_deletions is append-only'); END;
CREATE TRIGGER message_edits_append_only_update BEFORE UPDATE ON message_edits BEGIN SELECT RAISE(ABORT, 'message_edits is append-only'); END;
CREATE TRIGGER message_edits_append_only_delete BEFORE DELETE ON message_edits BEGIN SELECT RAISE(ABORT, 'message_edits is append-only'); END;
CREATE TRIGGER message_extras_append_only_update BEFORE UPDATE ON message_extras BEGIN SELECT RAISE(ABORT, 'message_extras is append-only'); END;
CREATE TRIGGER message_extras_append_only_delete BEFORE DELETE ON message_extras BEGIN SELECT RAISE(ABORT, 'message_extras is append-only'); END;
CREATE TRIGGER message_mentions_append_only_update BEFORE UPDATE ON message_mentions BEGIN SELECT RAISE(ABORT, 'message_mentions is append-only'); END;
CREATE TRIGGER message_mentions_append_only_delete BEFORE DELETE ON message_mentions BEGIN SELECT RAISE(ABORT, 'message_mentions is append-only'); END;
CREATE TRIGGER poll_vote_events_append_only_update BEFORE UPDATE ON poll_vote_events BEGIN SELECT RAISE(ABORT, 'poll_vote_events is append-only'); END;
CREATE TRIGGER poll_vote_events_append_only_delete BEFORE DELETE ON poll_vote_events BEGIN SELECT RAISE(ABORT, 'poll_vote_events is append-only'); END;
CREATE TRIGGER push_deliveries_append_only_update BEFORE UPDATE ON push_deliveries BEGIN SELECT RAISE(ABORT, 'push_deliveries is append-only'); END;
CREATE TRIGGER push_deliveries_append_only_delete BEFORE DELETE ON push_deliveries BEGIN SELECT RAISE(ABORT, 'push_deliveries is append-only'); END;
CREATE TRIGGER reaction_events_append_only_update BEFORE UPDATE ON reaction_events BEGIN SELECT RAISE(ABORT, 'reaction_events is append-only'); END;
CREATE TRIGGER reaction_events_append_only_delete BEFORE DELETE ON reaction_events BEGIN SELECT RAISE(ABORT, 'reaction_events is append-only'); END;
CREATE TRIGGER read_markers_append_only_update BEFORE UPDATE ON read_markers BEGIN SELECT RAISE(ABORT, 'read_markers is append-only'); END;
CREATE TRIGGER read_markers_append_only_delete BEFORE DELETE ON read_markers BEGIN SELECT RAISE(ABORT, 'read_markers is append-only'); END;
CREATE TRIGGER schedule_events_append_only_update BEFORE UPDATE ON schedule_events BEGIN SELECT RAISE(ABORT, 'schedule_events is append-only'); END;
CREATE TRIGGER schedule_events_append_only_delete BEFORE DELETE ON schedule_events BEGIN SELECT RAISE(ABORT, 'schedule_events is append-only'); END;
CREATE TRIGGER schedules_append_only_update BEFORE UPDATE ON schedules BEGIN SELECT RAISE(ABORT, 'schedules is append-only'); END;
CREATE TRIGGER schedules_append_only_delete BEFORE DELETE ON schedules BEGIN SELECT RAISE(ABORT, 'schedules is append-only'); END;
