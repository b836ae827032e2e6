-- Forum and media channels: a forum's tags (its `available_tags`), and a post's tags (the
-- thread's `applied_tags`, named from its forum's), as JSON [{"id", "name"}]; [] elsewhere.
ALTER TABLE channel_events ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
