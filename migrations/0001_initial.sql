-- The first schema of the store. Shipped migrations are never edited: a change is a new file.
--
-- Every history table is append-only (triggers at the end reject UPDATE and DELETE).
-- Every history row carries `created_at`, the store's arrival clock: ISO-8601 UTC text of
-- fixed width with microseconds, strictly increasing across the whole store, assigned inside
-- the writing transaction (see src/store/clock.rs).

-- The arrival clock's high-water mark, in microseconds since the Unix epoch. It is the one
-- row of the store that is updated: it is a counter, not history, and it is only ever
-- written inside the same IMMEDIATE transaction that writes the rows it stamps.
CREATE TABLE clock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_micros INTEGER NOT NULL
);
INSERT INTO clock (id, last_micros) VALUES (1, 0);

-- Who the bot is and who owns it, as learned from Discord (or from the demo seed).
CREATE TABLE identity_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    bot_user_id TEXT,
    bot_name TEXT,
    owner_user_id TEXT,
    origin TEXT NOT NULL
);

-- A guild as last seen: its roles (with permissions) and the bot's roles in it, which
-- together with a channel's overwrites decide whether the bot can read that channel.
CREATE TABLE guild_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    guild_id TEXT NOT NULL,
    name TEXT NOT NULL,
    roles TEXT NOT NULL,          -- JSON: [{"id": "…", "permissions": "…"}]
    bot_role_ids TEXT NOT NULL,   -- JSON: ["…"]
    removed INTEGER NOT NULL      -- 1: the bot left, was removed, or the guild went away
);
CREATE INDEX guild_events_by_guild ON guild_events (guild_id, seq);

-- A member's roles as last seen (the owner's roles decide role mentions).
CREATE TABLE member_role_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    guild_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    role_ids TEXT NOT NULL        -- JSON: ["…"]
);
CREATE INDEX member_role_events_by_member ON member_role_events (guild_id, user_id, seq);

-- A channel or thread as last seen, with whether the bot can read it.
CREATE TABLE channel_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    guild_id TEXT,
    parent_id TEXT,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    overwrites TEXT NOT NULL,     -- JSON: [{"id", "kind", "allow", "deny"}]
    access TEXT NOT NULL,         -- readable | no_view | no_history
    removed INTEGER NOT NULL
);
CREATE INDEX channel_events_by_channel ON channel_events (channel_id, seq);

-- A message as it was created. Later versions live in message_edits.
CREATE TABLE messages (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL UNIQUE,
    channel_id TEXT NOT NULL,
    guild_id TEXT,
    author_id TEXT NOT NULL,
    author_name TEXT NOT NULL,
    content TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    reply_to_message_id TEXT,
    reply_to_author_id TEXT,
    mention_everyone INTEGER NOT NULL,
    origin TEXT NOT NULL          -- gateway | backfill | sent | seed
);
CREATE INDEX messages_by_channel_arrival ON messages (channel_id, created_at);
CREATE INDEX messages_by_author ON messages (author_id, created_at);
CREATE INDEX messages_replying_to ON messages (reply_to_message_id)
    WHERE reply_to_message_id IS NOT NULL;
CREATE INDEX messages_replying_to_author ON messages (reply_to_author_id, created_at)
    WHERE reply_to_author_id IS NOT NULL;
CREATE INDEX messages_mentioning_everyone ON messages (created_at)
    WHERE mention_everyone = 1;

-- Who a message mentions (users and roles), from its creation and from its edits.
-- `created_at` is when the mention arrived, so a message edited to mention someone is
-- a new mention from that moment.
CREATE TABLE message_mentions (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL,
    kind TEXT NOT NULL,           -- user | role
    target_id TEXT NOT NULL,
    UNIQUE (kind, target_id, message_id)
);
CREATE INDEX message_mentions_by_target_arrival ON message_mentions (kind, target_id, created_at);
CREATE INDEX message_mentions_by_message ON message_mentions (message_id);

-- Every edit of a message, keyed by Discord's edit timestamp so a replay is recorded once.
CREATE TABLE message_edits (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    content TEXT NOT NULL,
    edited_at TEXT NOT NULL,
    UNIQUE (message_id, edited_at)
);
CREATE INDEX message_edits_by_channel_arrival ON message_edits (channel_id, created_at);

CREATE TABLE message_deletions (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL UNIQUE,
    channel_id TEXT NOT NULL,
    bulk INTEGER NOT NULL
);
CREATE INDEX message_deletions_by_channel_arrival ON message_deletions (channel_id, created_at);

-- Reactions as events; the current count per emoji is derived by replaying them.
CREATE TABLE reaction_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    kind TEXT NOT NULL,           -- add | remove | clear | clear_emoji
    user_id TEXT,                 -- add, remove
    emoji TEXT                    -- add, remove, clear_emoji
);
CREATE INDEX reaction_events_by_message ON reaction_events (message_id, seq);
CREATE INDEX reaction_events_by_channel_arrival ON reaction_events (channel_id, created_at);

-- The owner's bookmarks, keyed by message: added, then perhaps resolved.
CREATE TABLE bookmark_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL,
    kind TEXT NOT NULL,           -- added | resolved
    note TEXT,
    content_when_bookmarked TEXT,
    source TEXT NOT NULL          -- cli | mcp
);
CREATE INDEX bookmark_events_by_message ON bookmark_events (message_id, seq);

-- Append-only: history is never rewritten.
CREATE TRIGGER identity_events_append_only_update BEFORE UPDATE ON identity_events BEGIN SELECT RAISE(ABORT, 'identity_events is append-only'); END;
CREATE TRIGGER identity_events_append_only_delete BEFORE DELETE ON identity_events BEGIN SELECT RAISE(ABORT, 'identity_events is append-only'); END;
CREATE TRIGGER guild_events_append_only_update BEFORE UPDATE ON guild_events BEGIN SELECT RAISE(ABORT, 'guild_events is append-only'); END;
CREATE TRIGGER guild_events_append_only_delete BEFORE DELETE ON guild_events BEGIN SELECT RAISE(ABORT, 'guild_events is append-only'); END;
CREATE TRIGGER member_role_events_append_only_update BEFORE UPDATE ON member_role_events BEGIN SELECT RAISE(ABORT, 'member_role_events is append-only'); END;
CREATE TRIGGER member_role_events_append_only_delete BEFORE DELETE ON member_role_events BEGIN SELECT RAISE(ABORT, 'member_role_events is append-only'); END;
CREATE TRIGGER channel_events_append_only_update BEFORE UPDATE ON channel_events BEGIN SELECT RAISE(ABORT, 'channel_events is append-only'); END;
CREATE TRIGGER channel_events_append_only_delete BEFORE DELETE ON channel_events BEGIN SELECT RAISE(ABORT, 'channel_events is append-only'); END;
CREATE TRIGGER messages_append_only_update BEFORE UPDATE ON messages BEGIN SELECT RAISE(ABORT, 'messages is append-only'); END;
CREATE TRIGGER messages_append_only_delete BEFORE DELETE ON messages BEGIN SELECT RAISE(ABORT, 'messages is append-only'); END;
CREATE TRIGGER message_mentions_append_only_update BEFORE UPDATE ON message_mentions BEGIN SELECT RAISE(ABORT, 'message_mentions is append-only'); END;
CREATE TRIGGER message_mentions_append_only_delete BEFORE DELETE ON message_mentions BEGIN SELECT RAISE(ABORT, 'message_mentions is append-only'); END;
CREATE TRIGGER message_edits_append_only_update BEFORE UPDATE ON message_edits BEGIN SELECT RAISE(ABORT, 'message_edits is append-only'); END;
CREATE TRIGGER message_edits_append_only_delete BEFORE DELETE ON message_edits BEGIN SELECT RAISE(ABORT, 'message_edits is append-only'); END;
CREATE TRIGGER message_deletions_append_only_update BEFORE UPDATE ON message_deletions BEGIN SELECT RAISE(ABORT, 'message_deletions is append-only'); END;
CREATE TRIGGER message_deletions_append_only_delete BEFORE DELETE ON message_deletions BEGIN SELECT RAISE(ABORT, 'message_deletions is append-only'); END;
CREATE TRIGGER reaction_events_append_only_update BEFORE UPDATE ON reaction_events BEGIN SELECT RAISE(ABORT, 'reaction_events is append-only'); END;
CREATE TRIGGER reaction_events_append_only_delete BEFORE DELETE ON reaction_events BEGIN SELECT RAISE(ABORT, 'reaction_events is append-only'); END;
CREATE TRIGGER bookmark_events_append_only_update BEFORE UPDATE ON bookmark_events BEGIN SELECT RAISE(ABORT, 'bookmark_events is append-only'); END;
CREATE TRIGGER bookmark_events_append_only_delete BEFORE DELETE ON bookmark_events BEGIN SELECT RAISE(ABORT, 'bookmark_events is append-only'); END;
-- The clock's single row may move forward only.
CREATE TRIGGER clock_moves_forward BEFORE UPDATE ON clock
    WHEN NEW.last_micros <= OLD.last_micros OR NEW.id != OLD.id
    BEGIN SELECT RAISE(ABORT, 'the arrival clock only moves forward'); END;
CREATE TRIGGER clock_is_kept BEFORE DELETE ON clock BEGIN SELECT RAISE(ABORT, 'the arrival clock is never deleted'); END;
