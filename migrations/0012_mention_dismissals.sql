-- The owner's "I've seen it, ignore it" on a mention: once dismissed, a mention no longer
-- awaits a reply, and `mentions_list` shows it closed as dismissed. Append-only like every
-- owner action; one dismissal per message (a second is refused before it is written).
CREATE TABLE mention_dismissals (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL UNIQUE,
    note TEXT,
    source TEXT NOT NULL          -- cli | mcp
);

-- Whether someone (the owner, our bot) reacted to a message is read per message and user.
CREATE INDEX reaction_events_by_message_user ON reaction_events (message_id, user_id)
    WHERE kind = 'add';

CREATE TRIGGER mention_dismissals_append_only_update BEFORE UPDATE ON mention_dismissals BEGIN SELECT RAISE(ABORT, 'mention_dismissals is append-only'); END;
CREATE TRIGGER mention_dismissals_append_only_delete BEFORE DELETE ON mention_dismissals BEGIN SELECT RAISE(ABORT, 'mention_dismissals is append-only'); END;
