-- Votes on polls as the gateway delivers them (MESSAGE_POLL_VOTE_ADD / _REMOVE): one row per
-- change of one user's vote for one answer, `voted` 1 for a vote cast, 0 for one taken back. A
-- user's vote for an answer is the newest row's; a replay that changes nothing writes nothing.
CREATE TABLE poll_vote_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    answer_id INTEGER NOT NULL,
    voted INTEGER NOT NULL
);
CREATE INDEX poll_vote_events_by_message ON poll_vote_events (message_id, user_id, answer_id, seq);
CREATE TRIGGER poll_vote_events_append_only_update BEFORE UPDATE ON poll_vote_events BEGIN SELECT RAISE(ABORT, 'poll_vote_events is append-only'); END;
CREATE TRIGGER poll_vote_events_append_only_delete BEFORE DELETE ON poll_vote_events BEGIN SELECT RAISE(ABORT, 'poll_vote_events is append-only'); END;
