-- Each channel's running count of the messages that count as news (every origin but 'import'),
-- kept by a trigger as each message row is inserted. `channels_list` reports a channel never
-- marked read as all unread; counting that walked the channel's whole range of the index
-- (6.1 ms at 1M messages for the default hundred channels), where this is one row a channel.
--
-- Like the clock, these rows are counters, not history: a count only ever grows, inside the
-- same transaction that inserts the message it counts, and is never deleted. A message row is
-- never updated or deleted (append-only), and `INSERT … ON CONFLICT DO NOTHING` fires no
-- trigger for a message already stored, so a replay counts nothing twice.
CREATE TABLE channel_message_totals (
    channel_id TEXT PRIMARY KEY,
    news INTEGER NOT NULL CHECK (news >= 0)
) WITHOUT ROWID;

INSERT INTO channel_message_totals (channel_id, news)
    SELECT channel_id, count(*) FROM messages WHERE origin <> 'import' GROUP BY channel_id;

CREATE TRIGGER channel_message_totals_count AFTER INSERT ON messages
    WHEN NEW.origin <> 'import'
    BEGIN
        INSERT INTO channel_message_totals (channel_id, news) VALUES (NEW.channel_id, 1)
            ON CONFLICT (channel_id) DO UPDATE SET news = news + 1;
    END;
CREATE TRIGGER channel_message_totals_only_grow BEFORE UPDATE ON channel_message_totals
    WHEN NEW.news < OLD.news OR NEW.channel_id <> OLD.channel_id
    BEGIN SELECT RAISE(ABORT, 'a channel''s message count only grows'); END;
CREATE TRIGGER channel_message_totals_are_kept BEFORE DELETE ON channel_message_totals
    BEGIN SELECT RAISE(ABORT, 'a channel''s message count is never deleted'); END;
