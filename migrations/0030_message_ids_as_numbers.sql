-- Discord's ids become numbers: the messages. Each id column is declared INTEGER and
-- holds the id's 64-bit number where it held its digits as TEXT: 8 bytes where the digits took
-- 19, in the row and in every index that carries the column, and ids order as numbers. SQLite
-- cannot change a column's type in place, so each table is rebuilt: a new table, the rows
-- copied with their ids cast, the old table dropped, the new one renamed, its indexes and
-- triggers made again as they were. Each migration of a store that has history commits on its
-- own: a process stopped during this file leaves the store as it was before it (and after the
-- files before it), and the next open goes on from here.

CREATE TABLE messages_numbered (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id INTEGER NOT NULL UNIQUE,
    channel_id INTEGER NOT NULL,
    guild_id INTEGER,
    author_id INTEGER NOT NULL,
    author_name TEXT NOT NULL,
    content TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    reply_to_message_id INTEGER,
    reply_to_author_id INTEGER,
    mention_everyone INTEGER NOT NULL,
    origin TEXT NOT NULL,         -- gateway | backfill | sent | seed | import
    author_bot INTEGER,
    webhook_id INTEGER,
    application_id INTEGER
);
INSERT INTO messages_numbered (seq, created_at, message_id, channel_id, guild_id, author_id,
        author_name, content, sent_at, reply_to_message_id, reply_to_author_id, mention_everyone,
        origin, author_bot, webhook_id, application_id)
    SELECT seq, created_at, CAST(message_id AS INTEGER), CAST(channel_id AS INTEGER),
        CAST(guild_id AS INTEGER), CAST(author_id AS INTEGER), author_name, content, sent_at,
        CAST(reply_to_message_id AS INTEGER), CAST(reply_to_author_id AS INTEGER),
        mention_everyone, origin, author_bot, CAST(webhook_id AS INTEGER),
        CAST(application_id AS INTEGER)
    FROM messages;
DROP TABLE messages;
ALTER TABLE messages_numbered RENAME TO messages;
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
CREATE TRIGGER messages_append_only_update BEFORE UPDATE ON messages BEGIN SELECT RAISE(ABORT, 'messages is append-only'); END;
CREATE TRIGGER messages_append_only_delete BEFORE DELETE ON messages BEGIN SELECT RAISE(ABORT, 'messages is append-only'); END;
CREATE TRIGGER channel_message_totals_count AFTER INSERT ON messages
    WHEN NEW.origin <> 'import'
    BEGIN
        INSERT INTO channel_message_totals (channel_id, news) VALUES (NEW.channel_id, 1)
            ON CONFLICT (channel_id) DO UPDATE SET news = news + 1;
    END;
