-- Discord's ids become numbers: every other table's. Each id column is declared INTEGER and
-- holds the id's 64-bit number where it held its digits as TEXT: 8 bytes where the digits took
-- 19, in the row and in every index that carries the column, and ids order as numbers. SQLite
-- cannot change a column's type in place, so each table is rebuilt: a new table, the rows
-- copied with their ids cast, the old table dropped, the new one renamed, its indexes and
-- triggers made again as they were. Each migration of a store that has history commits on its
-- own: a process stopped during this file leaves the store as it was before it (and after the
-- files before it), and the next open goes on from here.

-- assistant_reactions: channel_id, message_id.
CREATE TABLE assistant_reactions_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL
);
INSERT INTO assistant_reactions_numbered (seq, created_at, channel_id, message_id)
    SELECT seq, created_at, CAST(channel_id AS INTEGER), CAST(message_id AS INTEGER)
    FROM assistant_reactions;
DROP TABLE assistant_reactions;
ALTER TABLE assistant_reactions_numbered RENAME TO assistant_reactions;
CREATE INDEX assistant_reactions_by_arrival ON assistant_reactions (created_at);
CREATE TRIGGER assistant_reactions_append_only_update BEFORE UPDATE ON assistant_reactions BEGIN SELECT RAISE(ABORT, 'assistant_reactions is append-only'); END;
CREATE TRIGGER assistant_reactions_append_only_delete BEFORE DELETE ON assistant_reactions BEGIN SELECT RAISE(ABORT, 'assistant_reactions is append-only'); END;

-- assistant_sends: channel_id.
CREATE TABLE assistant_sends_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id INTEGER NOT NULL
);
INSERT INTO assistant_sends_numbered (seq, created_at, channel_id)
    SELECT seq, created_at, CAST(channel_id AS INTEGER)
    FROM assistant_sends;
DROP TABLE assistant_sends;
ALTER TABLE assistant_sends_numbered RENAME TO assistant_sends;
CREATE INDEX assistant_sends_by_arrival ON assistant_sends (created_at);
CREATE TRIGGER assistant_sends_append_only_update BEFORE UPDATE ON assistant_sends BEGIN SELECT RAISE(ABORT, 'assistant_sends is append-only'); END;
CREATE TRIGGER assistant_sends_append_only_delete BEFORE DELETE ON assistant_sends BEGIN SELECT RAISE(ABORT, 'assistant_sends is append-only'); END;

-- attachment_outcomes: attachment_id.
CREATE TABLE attachment_outcomes_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    attachment_id INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('fetched', 'skipped', 'failed')),
    hash TEXT,
    bytes INTEGER,
    reason TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    retry_at TEXT,
    CHECK ((outcome = 'fetched') = (hash IS NOT NULL AND bytes IS NOT NULL)),
    CHECK ((outcome = 'fetched') = (reason IS NULL))
);
INSERT INTO attachment_outcomes_numbered (seq, created_at, attachment_id, outcome, hash, bytes, reason, attempts, retry_at)
    SELECT seq, created_at, CAST(attachment_id AS INTEGER), outcome, hash, bytes, reason, attempts, retry_at
    FROM attachment_outcomes;
DROP TABLE attachment_outcomes;
ALTER TABLE attachment_outcomes_numbered RENAME TO attachment_outcomes;
CREATE INDEX attachment_outcomes_by_attachment ON attachment_outcomes (attachment_id, seq);
CREATE TRIGGER attachment_outcomes_append_only_update BEFORE UPDATE ON attachment_outcomes BEGIN SELECT RAISE(ABORT, 'attachment_outcomes is append-only'); END;
CREATE TRIGGER attachment_outcomes_append_only_delete BEFORE DELETE ON attachment_outcomes BEGIN SELECT RAISE(ABORT, 'attachment_outcomes is append-only'); END;

-- attachment_text: attachment_id, message_id.
CREATE TABLE attachment_text_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    attachment_id INTEGER NOT NULL UNIQUE,
    message_id INTEGER NOT NULL,
    filename TEXT NOT NULL,
    -- The `message_text` row holding the text.
    text_rowid INTEGER NOT NULL UNIQUE,
    -- How many of the file's bytes were indexed (at most the bound).
    indexed_bytes INTEGER NOT NULL
);
INSERT INTO attachment_text_numbered (seq, created_at, attachment_id, message_id, filename, text_rowid, indexed_bytes)
    SELECT seq, created_at, CAST(attachment_id AS INTEGER), CAST(message_id AS INTEGER), filename, text_rowid, indexed_bytes
    FROM attachment_text;
DROP TABLE attachment_text;
ALTER TABLE attachment_text_numbered RENAME TO attachment_text;
CREATE INDEX attachment_text_by_time ON attachment_text (created_at, text_rowid);
CREATE TRIGGER attachment_text_append_only_update BEFORE UPDATE ON attachment_text BEGIN SELECT RAISE(ABORT, 'attachment_text is append-only'); END;
CREATE TRIGGER attachment_text_append_only_delete BEFORE DELETE ON attachment_text BEGIN SELECT RAISE(ABORT, 'attachment_text is append-only'); END;

-- attachments: attachment_id, message_id, channel_id.
CREATE TABLE attachments_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    attachment_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    filename TEXT NOT NULL,
    content_type TEXT,
    size INTEGER NOT NULL,
    url TEXT NOT NULL,
    UNIQUE (attachment_id, url)
);
INSERT INTO attachments_numbered (seq, created_at, attachment_id, message_id, channel_id, filename, content_type, size, url)
    SELECT seq, created_at, CAST(attachment_id AS INTEGER), CAST(message_id AS INTEGER), CAST(channel_id AS INTEGER), filename, content_type, size, url
    FROM attachments;
DROP TABLE attachments;
ALTER TABLE attachments_numbered RENAME TO attachments;
CREATE INDEX attachments_by_message ON attachments (message_id);
CREATE TRIGGER attachments_append_only_update BEFORE UPDATE ON attachments BEGIN SELECT RAISE(ABORT, 'attachments is append-only'); END;
CREATE TRIGGER attachments_append_only_delete BEFORE DELETE ON attachments BEGIN SELECT RAISE(ABORT, 'attachments is append-only'); END;

-- bookmark_due_events: message_id.
CREATE TABLE bookmark_due_events_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    due_at TEXT NOT NULL,
    source TEXT NOT NULL          -- cli | mcp
);
INSERT INTO bookmark_due_events_numbered (seq, created_at, message_id, due_at, source)
    SELECT seq, created_at, CAST(message_id AS INTEGER), due_at, source
    FROM bookmark_due_events;
DROP TABLE bookmark_due_events;
ALTER TABLE bookmark_due_events_numbered RENAME TO bookmark_due_events;
CREATE INDEX bookmark_due_events_by_message ON bookmark_due_events (message_id, seq);
CREATE TRIGGER bookmark_due_events_append_only_update BEFORE UPDATE ON bookmark_due_events BEGIN SELECT RAISE(ABORT, 'bookmark_due_events is append-only'); END;
CREATE TRIGGER bookmark_due_events_append_only_delete BEFORE DELETE ON bookmark_due_events BEGIN SELECT RAISE(ABORT, 'bookmark_due_events is append-only'); END;

-- bookmark_events: message_id.
CREATE TABLE bookmark_events_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    kind TEXT NOT NULL,           -- added | resolved
    note TEXT,
    content_when_bookmarked TEXT,
    source TEXT NOT NULL          -- cli | mcp
);
INSERT INTO bookmark_events_numbered (seq, created_at, message_id, kind, note, content_when_bookmarked, source)
    SELECT seq, created_at, CAST(message_id AS INTEGER), kind, note, content_when_bookmarked, source
    FROM bookmark_events;
DROP TABLE bookmark_events;
ALTER TABLE bookmark_events_numbered RENAME TO bookmark_events;
CREATE INDEX bookmark_events_by_message ON bookmark_events (message_id, seq);
CREATE TRIGGER bookmark_events_append_only_update BEFORE UPDATE ON bookmark_events BEGIN SELECT RAISE(ABORT, 'bookmark_events is append-only'); END;
CREATE TRIGGER bookmark_events_append_only_delete BEFORE DELETE ON bookmark_events BEGIN SELECT RAISE(ABORT, 'bookmark_events is append-only'); END;

-- channel_anchors: channel_id.
CREATE TABLE channel_anchors_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id INTEGER NOT NULL UNIQUE,
    after_message_id INTEGER NOT NULL,
    source TEXT NOT NULL                -- last-message-id | channel-id
);
INSERT INTO channel_anchors_numbered (seq, created_at, channel_id, after_message_id, source)
    SELECT seq, created_at, CAST(channel_id AS INTEGER), after_message_id, source
    FROM channel_anchors;
DROP TABLE channel_anchors;
ALTER TABLE channel_anchors_numbered RENAME TO channel_anchors;
CREATE TRIGGER channel_anchors_append_only_update BEFORE UPDATE ON channel_anchors BEGIN SELECT RAISE(ABORT, 'channel_anchors is append-only'); END;
CREATE TRIGGER channel_anchors_append_only_delete BEFORE DELETE ON channel_anchors BEGIN SELECT RAISE(ABORT, 'channel_anchors is append-only'); END;

-- channel_coverage: channel_id.
CREATE TABLE channel_coverage_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id INTEGER NOT NULL,
    started_after INTEGER NOT NULL,     -- the snowflake the backfill started after
    complete_through INTEGER NOT NULL,  -- the snowflake it proved complete up to
    fetched INTEGER NOT NULL,           -- messages Discord returned
    stored INTEGER NOT NULL,            -- of which new to the store
    reason TEXT NOT NULL                -- start | reconnect | repair | joined
);
INSERT INTO channel_coverage_numbered (seq, created_at, channel_id, started_after, complete_through, fetched, stored, reason)
    SELECT seq, created_at, CAST(channel_id AS INTEGER), started_after, complete_through, fetched, stored, reason
    FROM channel_coverage;
DROP TABLE channel_coverage;
ALTER TABLE channel_coverage_numbered RENAME TO channel_coverage;
CREATE INDEX channel_coverage_by_channel ON channel_coverage (channel_id, complete_through);
CREATE TRIGGER channel_coverage_append_only_update BEFORE UPDATE ON channel_coverage BEGIN SELECT RAISE(ABORT, 'channel_coverage is append-only'); END;
CREATE TRIGGER channel_coverage_append_only_delete BEFORE DELETE ON channel_coverage BEGIN SELECT RAISE(ABORT, 'channel_coverage is append-only'); END;

-- channel_events: channel_id, guild_id, parent_id.
CREATE TABLE channel_events_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id INTEGER NOT NULL,
    guild_id INTEGER,
    parent_id INTEGER,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    overwrites TEXT NOT NULL,     -- JSON: [{"id", "kind", "allow", "deny"}]
    access TEXT NOT NULL,         -- readable | no_view | no_history
    removed INTEGER NOT NULL
, tags TEXT NOT NULL DEFAULT '[]');
INSERT INTO channel_events_numbered (seq, created_at, channel_id, guild_id, parent_id, name, kind, overwrites, access, removed, tags)
    SELECT seq, created_at, CAST(channel_id AS INTEGER), CAST(guild_id AS INTEGER), CAST(parent_id AS INTEGER), name, kind, overwrites, access, removed, tags
    FROM channel_events;
DROP TABLE channel_events;
ALTER TABLE channel_events_numbered RENAME TO channel_events;
CREATE INDEX channel_events_by_channel ON channel_events (channel_id, seq);
CREATE TRIGGER channel_events_append_only_update BEFORE UPDATE ON channel_events BEGIN SELECT RAISE(ABORT, 'channel_events is append-only'); END;
CREATE TRIGGER channel_events_append_only_delete BEFORE DELETE ON channel_events BEGIN SELECT RAISE(ABORT, 'channel_events is append-only'); END;

-- channel_imports: channel_id.
CREATE TABLE channel_imports_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id INTEGER NOT NULL,
    window_start INTEGER NOT NULL,  -- the lowest message id inside the window (0: all history)
    reached INTEGER NOT NULL,       -- every message with an id from here up to the beginning is stored
    exhausted INTEGER NOT NULL,     -- 1: Discord has nothing older than `reached`
    fetched INTEGER NOT NULL,       -- messages Discord answered on this page
    stored INTEGER NOT NULL         -- of those, messages the store did not have
);
INSERT INTO channel_imports_numbered (seq, created_at, channel_id, window_start, reached, exhausted, fetched, stored)
    SELECT seq, created_at, CAST(channel_id AS INTEGER), window_start, reached, exhausted, fetched, stored
    FROM channel_imports;
DROP TABLE channel_imports;
ALTER TABLE channel_imports_numbered RENAME TO channel_imports;
CREATE INDEX channel_imports_by_channel ON channel_imports (channel_id, seq);
CREATE TRIGGER channel_imports_append_only_update BEFORE UPDATE ON channel_imports BEGIN SELECT RAISE(ABORT, 'channel_imports is append-only'); END;
CREATE TRIGGER channel_imports_append_only_delete BEFORE DELETE ON channel_imports BEGIN SELECT RAISE(ABORT, 'channel_imports is append-only'); END;

-- channel_message_totals: channel_id. The messages' trigger that counts into it names it, and
-- SQLite checks every trigger when a table is renamed: it is dropped first and made again last.
DROP TRIGGER channel_message_totals_count;
CREATE TABLE channel_message_totals_numbered (
    channel_id INTEGER PRIMARY KEY,
    news INTEGER NOT NULL CHECK (news >= 0)
) WITHOUT ROWID;
INSERT INTO channel_message_totals_numbered (channel_id, news)
    SELECT CAST(channel_id AS INTEGER), news
    FROM channel_message_totals;
DROP TABLE channel_message_totals;
ALTER TABLE channel_message_totals_numbered RENAME TO channel_message_totals;
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

-- coverage_gaps: channel_id.
CREATE TABLE coverage_gaps_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    kind TEXT NOT NULL,
    channel_id INTEGER,
    from_at TEXT NOT NULL,
    until_at TEXT NOT NULL,
    after_message_id INTEGER,
    detail TEXT NOT NULL
);
INSERT INTO coverage_gaps_numbered (seq, created_at, kind, channel_id, from_at, until_at, after_message_id, detail)
    SELECT seq, created_at, kind, CAST(channel_id AS INTEGER), from_at, until_at, after_message_id, detail
    FROM coverage_gaps;
DROP TABLE coverage_gaps;
ALTER TABLE coverage_gaps_numbered RENAME TO coverage_gaps;
CREATE INDEX coverage_gaps_by_channel ON coverage_gaps (channel_id, seq);
CREATE TRIGGER coverage_gaps_append_only_update BEFORE UPDATE ON coverage_gaps BEGIN SELECT RAISE(ABORT, 'coverage_gaps is append-only'); END;
CREATE TRIGGER coverage_gaps_append_only_delete BEFORE DELETE ON coverage_gaps BEGIN SELECT RAISE(ABORT, 'coverage_gaps is append-only'); END;

-- guild_events: guild_id.
CREATE TABLE guild_events_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    guild_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    roles TEXT NOT NULL,          -- JSON: [{"id": "…", "permissions": "…"}]
    bot_role_ids TEXT NOT NULL,   -- JSON: ["…"]
    removed INTEGER NOT NULL      -- 1: the bot left, was removed, or the guild went away
);
INSERT INTO guild_events_numbered (seq, created_at, guild_id, name, roles, bot_role_ids, removed)
    SELECT seq, created_at, CAST(guild_id AS INTEGER), name, roles, bot_role_ids, removed
    FROM guild_events;
DROP TABLE guild_events;
ALTER TABLE guild_events_numbered RENAME TO guild_events;
CREATE INDEX guild_events_by_guild ON guild_events (guild_id, seq);
CREATE TRIGGER guild_events_append_only_update BEFORE UPDATE ON guild_events BEGIN SELECT RAISE(ABORT, 'guild_events is append-only'); END;
CREATE TRIGGER guild_events_append_only_delete BEFORE DELETE ON guild_events BEGIN SELECT RAISE(ABORT, 'guild_events is append-only'); END;

-- identity_events: bot_user_id, owner_user_id.
CREATE TABLE identity_events_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    bot_user_id INTEGER,
    bot_name TEXT,
    owner_user_id INTEGER,
    origin TEXT NOT NULL
);
INSERT INTO identity_events_numbered (seq, created_at, bot_user_id, bot_name, owner_user_id, origin)
    SELECT seq, created_at, CAST(bot_user_id AS INTEGER), bot_name, CAST(owner_user_id AS INTEGER), origin
    FROM identity_events;
DROP TABLE identity_events;
ALTER TABLE identity_events_numbered RENAME TO identity_events;
CREATE TRIGGER identity_events_append_only_update BEFORE UPDATE ON identity_events BEGIN SELECT RAISE(ABORT, 'identity_events is append-only'); END;
CREATE TRIGGER identity_events_append_only_delete BEFORE DELETE ON identity_events BEGIN SELECT RAISE(ABORT, 'identity_events is append-only'); END;

-- member_role_events: guild_id, user_id.
CREATE TABLE member_role_events_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    guild_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    role_ids TEXT NOT NULL        -- JSON: ["…"]
);
INSERT INTO member_role_events_numbered (seq, created_at, guild_id, user_id, role_ids)
    SELECT seq, created_at, CAST(guild_id AS INTEGER), CAST(user_id AS INTEGER), role_ids
    FROM member_role_events;
DROP TABLE member_role_events;
ALTER TABLE member_role_events_numbered RENAME TO member_role_events;
CREATE INDEX member_role_events_by_member ON member_role_events (guild_id, user_id, seq);
CREATE INDEX member_role_events_by_user ON member_role_events (user_id, guild_id, seq);
CREATE TRIGGER member_role_events_append_only_update BEFORE UPDATE ON member_role_events BEGIN SELECT RAISE(ABORT, 'member_role_events is append-only'); END;
CREATE TRIGGER member_role_events_append_only_delete BEFORE DELETE ON member_role_events BEGIN SELECT RAISE(ABORT, 'member_role_events is append-only'); END;

-- mention_dismissals: message_id.
CREATE TABLE mention_dismissals_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL UNIQUE,
    note TEXT,
    source TEXT NOT NULL          -- cli | mcp
);
INSERT INTO mention_dismissals_numbered (seq, created_at, message_id, note, source)
    SELECT seq, created_at, CAST(message_id AS INTEGER), note, source
    FROM mention_dismissals;
DROP TABLE mention_dismissals;
ALTER TABLE mention_dismissals_numbered RENAME TO mention_dismissals;
CREATE TRIGGER mention_dismissals_append_only_update BEFORE UPDATE ON mention_dismissals BEGIN SELECT RAISE(ABORT, 'mention_dismissals is append-only'); END;
CREATE TRIGGER mention_dismissals_append_only_delete BEFORE DELETE ON mention_dismissals BEGIN SELECT RAISE(ABORT, 'mention_dismissals is append-only'); END;

-- message_deletions: message_id, channel_id.
CREATE TABLE message_deletions_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL UNIQUE,
    channel_id INTEGER NOT NULL,
    bulk INTEGER NOT NULL
);
INSERT INTO message_deletions_numbered (seq, created_at, message_id, channel_id, bulk)
    SELECT seq, created_at, CAST(message_id AS INTEGER), CAST(channel_id AS INTEGER), bulk
    FROM message_deletions;
DROP TABLE message_deletions;
ALTER TABLE message_deletions_numbered RENAME TO message_deletions;
CREATE INDEX message_deletions_by_channel_arrival ON message_deletions (channel_id, created_at);
CREATE INDEX message_deletions_by_arrival ON message_deletions (created_at, channel_id);
CREATE TRIGGER message_deletions_append_only_update BEFORE UPDATE ON message_deletions BEGIN SELECT RAISE(ABORT, 'message_deletions is append-only'); END;
CREATE TRIGGER message_deletions_append_only_delete BEFORE DELETE ON message_deletions BEGIN SELECT RAISE(ABORT, 'message_deletions is append-only'); END;

-- message_edits: message_id, channel_id.
CREATE TABLE message_edits_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    content TEXT NOT NULL,
    edited_at TEXT NOT NULL, imported INTEGER NOT NULL DEFAULT 0,
    UNIQUE (message_id, edited_at)
);
INSERT INTO message_edits_numbered (seq, created_at, message_id, channel_id, content, edited_at, imported)
    SELECT seq, created_at, CAST(message_id AS INTEGER), CAST(channel_id AS INTEGER), content, edited_at, imported
    FROM message_edits;
DROP TABLE message_edits;
ALTER TABLE message_edits_numbered RENAME TO message_edits;
CREATE INDEX message_edits_by_channel_arrival ON message_edits (channel_id, created_at);
CREATE INDEX message_edits_by_arrival ON message_edits (created_at, channel_id) WHERE imported = 0;
CREATE TRIGGER message_edits_append_only_update BEFORE UPDATE ON message_edits BEGIN SELECT RAISE(ABORT, 'message_edits is append-only'); END;
CREATE TRIGGER message_edits_append_only_delete BEFORE DELETE ON message_edits BEGIN SELECT RAISE(ABORT, 'message_edits is append-only'); END;

-- message_extras: message_id, channel_id.
CREATE TABLE message_extras_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    extras TEXT NOT NULL
);
INSERT INTO message_extras_numbered (seq, created_at, message_id, channel_id, extras)
    SELECT seq, created_at, CAST(message_id AS INTEGER), CAST(channel_id AS INTEGER), extras
    FROM message_extras;
DROP TABLE message_extras;
ALTER TABLE message_extras_numbered RENAME TO message_extras;
CREATE INDEX message_extras_by_message ON message_extras (message_id, seq);
CREATE TRIGGER message_extras_append_only_update BEFORE UPDATE ON message_extras BEGIN SELECT RAISE(ABORT, 'message_extras is append-only'); END;
CREATE TRIGGER message_extras_append_only_delete BEFORE DELETE ON message_extras BEGIN SELECT RAISE(ABORT, 'message_extras is append-only'); END;

-- message_mentions: message_id, target_id.
CREATE TABLE message_mentions_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    kind TEXT NOT NULL,           -- user | role
    target_id INTEGER NOT NULL,
    UNIQUE (kind, target_id, message_id)
);
INSERT INTO message_mentions_numbered (seq, created_at, message_id, kind, target_id)
    SELECT seq, created_at, CAST(message_id AS INTEGER), kind, CAST(target_id AS INTEGER)
    FROM message_mentions;
DROP TABLE message_mentions;
ALTER TABLE message_mentions_numbered RENAME TO message_mentions;
CREATE INDEX message_mentions_by_target_arrival ON message_mentions (kind, target_id, created_at);
CREATE INDEX message_mentions_by_message ON message_mentions (message_id);
CREATE TRIGGER message_mentions_append_only_update BEFORE UPDATE ON message_mentions BEGIN SELECT RAISE(ABORT, 'message_mentions is append-only'); END;
CREATE TRIGGER message_mentions_append_only_delete BEFORE DELETE ON message_mentions BEGIN SELECT RAISE(ABORT, 'message_mentions is append-only'); END;

-- poll_vote_events: message_id, channel_id, user_id.
CREATE TABLE poll_vote_events_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    answer_id INTEGER NOT NULL,
    voted INTEGER NOT NULL
);
INSERT INTO poll_vote_events_numbered (seq, created_at, message_id, channel_id, user_id, answer_id, voted)
    SELECT seq, created_at, CAST(message_id AS INTEGER), CAST(channel_id AS INTEGER), CAST(user_id AS INTEGER), answer_id, voted
    FROM poll_vote_events;
DROP TABLE poll_vote_events;
ALTER TABLE poll_vote_events_numbered RENAME TO poll_vote_events;
CREATE INDEX poll_vote_events_by_message ON poll_vote_events (message_id, user_id, answer_id, seq);
CREATE TRIGGER poll_vote_events_append_only_update BEFORE UPDATE ON poll_vote_events BEGIN SELECT RAISE(ABORT, 'poll_vote_events is append-only'); END;
CREATE TRIGGER poll_vote_events_append_only_delete BEFORE DELETE ON poll_vote_events BEGIN SELECT RAISE(ABORT, 'poll_vote_events is append-only'); END;

-- push_deliveries: message_id.
CREATE TABLE push_deliveries_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    session TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    kind TEXT NOT NULL
);
INSERT INTO push_deliveries_numbered (seq, created_at, session, message_id, kind)
    SELECT seq, created_at, session, CAST(message_id AS INTEGER), kind
    FROM push_deliveries;
DROP TABLE push_deliveries;
ALTER TABLE push_deliveries_numbered RENAME TO push_deliveries;
CREATE INDEX push_deliveries_by_message ON push_deliveries (message_id);
CREATE TRIGGER push_deliveries_append_only_update BEFORE UPDATE ON push_deliveries BEGIN SELECT RAISE(ABORT, 'push_deliveries is append-only'); END;
CREATE TRIGGER push_deliveries_append_only_delete BEFORE DELETE ON push_deliveries BEGIN SELECT RAISE(ABORT, 'push_deliveries is append-only'); END;

-- reaction_events: message_id, channel_id, user_id.
CREATE TABLE reaction_events_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    kind TEXT NOT NULL,           -- add | remove | clear | clear_emoji
    user_id INTEGER,                 -- add, remove
    emoji TEXT                    -- add, remove, clear_emoji
);
INSERT INTO reaction_events_numbered (seq, created_at, message_id, channel_id, kind, user_id, emoji)
    SELECT seq, created_at, CAST(message_id AS INTEGER), CAST(channel_id AS INTEGER), kind, CAST(user_id AS INTEGER), emoji
    FROM reaction_events;
DROP TABLE reaction_events;
ALTER TABLE reaction_events_numbered RENAME TO reaction_events;
CREATE INDEX reaction_events_by_message ON reaction_events (message_id, seq);
CREATE INDEX reaction_events_by_channel_arrival ON reaction_events (channel_id, created_at);
CREATE INDEX reaction_events_by_arrival ON reaction_events (created_at, channel_id);
CREATE INDEX reaction_events_by_message_user ON reaction_events (message_id, user_id)
    WHERE kind = 'add';
CREATE TRIGGER reaction_events_append_only_update BEFORE UPDATE ON reaction_events BEGIN SELECT RAISE(ABORT, 'reaction_events is append-only'); END;
CREATE TRIGGER reaction_events_append_only_delete BEFORE DELETE ON reaction_events BEGIN SELECT RAISE(ABORT, 'reaction_events is append-only'); END;

-- read_markers: channel_id.
CREATE TABLE read_markers_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id INTEGER NOT NULL,
    read_through TEXT NOT NULL,   -- an arrival instant: messages at or before it are read
    source TEXT NOT NULL          -- cli | mcp
);
INSERT INTO read_markers_numbered (seq, created_at, channel_id, read_through, source)
    SELECT seq, created_at, CAST(channel_id AS INTEGER), read_through, source
    FROM read_markers;
DROP TABLE read_markers;
ALTER TABLE read_markers_numbered RENAME TO read_markers;
CREATE INDEX read_markers_by_channel ON read_markers (channel_id, seq);
CREATE TRIGGER read_markers_append_only_update BEFORE UPDATE ON read_markers BEGIN SELECT RAISE(ABORT, 'read_markers is append-only'); END;
CREATE TRIGGER read_markers_append_only_delete BEFORE DELETE ON read_markers BEGIN SELECT RAISE(ABORT, 'read_markers is append-only'); END;

-- schedule_events: message_id.
CREATE TABLE schedule_events_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    schedule_id INTEGER NOT NULL REFERENCES schedules (schedule_id),
    kind TEXT NOT NULL,               -- attempt | retry | sent | failed | cancelled
    attempt INTEGER,                  -- attempt, retry: which attempt (1 is the first)
    nonce TEXT,                       -- attempt: the nonce the request carried
    message_id INTEGER,                  -- sent: the message Discord created
    reason TEXT,                      -- retry, failed: why, in the owner's words
    source TEXT                       -- cancelled: cli | mcp
);
INSERT INTO schedule_events_numbered (seq, created_at, schedule_id, kind, attempt, nonce, message_id, reason, source)
    SELECT seq, created_at, schedule_id, kind, attempt, nonce, CAST(message_id AS INTEGER), reason, source
    FROM schedule_events;
DROP TABLE schedule_events;
ALTER TABLE schedule_events_numbered RENAME TO schedule_events;
CREATE INDEX schedule_events_by_schedule ON schedule_events (schedule_id, seq);
CREATE TRIGGER schedule_events_append_only_update BEFORE UPDATE ON schedule_events BEGIN SELECT RAISE(ABORT, 'schedule_events is append-only'); END;
CREATE TRIGGER schedule_events_append_only_delete BEFORE DELETE ON schedule_events BEGIN SELECT RAISE(ABORT, 'schedule_events is append-only'); END;

-- schedules: channel_id, reply_to_message_id.
CREATE TABLE schedules_numbered (
    schedule_id INTEGER PRIMARY KEY,  -- never reused: rows are never deleted
    created_at TEXT NOT NULL,
    channel_id INTEGER NOT NULL,
    content TEXT NOT NULL,
    reply_to_message_id INTEGER,
    send_at TEXT NOT NULL,            -- when the owner wants it sent (ISO-8601 UTC)
    nonce TEXT NOT NULL UNIQUE,       -- Discord's nonce, the same on every attempt
    source TEXT NOT NULL              -- cli | mcp | seed
);
INSERT INTO schedules_numbered (schedule_id, created_at, channel_id, content, reply_to_message_id, send_at, nonce, source)
    SELECT schedule_id, created_at, CAST(channel_id AS INTEGER), content, CAST(reply_to_message_id AS INTEGER), send_at, nonce, source
    FROM schedules;
DROP TABLE schedules;
ALTER TABLE schedules_numbered RENAME TO schedules;
CREATE INDEX schedules_by_send_at ON schedules (send_at);
CREATE INDEX schedules_by_source_arrival ON schedules (source, created_at);
CREATE TRIGGER schedules_append_only_update BEFORE UPDATE ON schedules BEGIN SELECT RAISE(ABORT, 'schedules is append-only'); END;
CREATE TRIGGER schedules_append_only_delete BEFORE DELETE ON schedules BEGIN SELECT RAISE(ABORT, 'schedules is append-only'); END;
