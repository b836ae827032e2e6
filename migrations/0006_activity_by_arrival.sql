-- The cursor tool (activity_wait) counts what was stamped after an instant in every channel.
-- Per channel, that took four index probes for each of hundreds of channels, however little
-- had arrived. Led by the arrival instant, one range of each table holds exactly what arrived
-- (with its channel, so the count needs no row), whatever the history and the channels.
CREATE INDEX messages_by_arrival ON messages (created_at, channel_id);
CREATE INDEX message_edits_by_arrival ON message_edits (created_at, channel_id);
CREATE INDEX message_deletions_by_arrival ON message_deletions (created_at, channel_id);
CREATE INDEX reaction_events_by_arrival ON reaction_events (created_at, channel_id);
