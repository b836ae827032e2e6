-- The roles a user holds in every guild, found from the user: the owner's roles decide role
-- mentions and are read on every call that shapes a message. The index of 0001 leads with the
-- guild, so "every guild's newest roles of this user" scanned every member's row.
CREATE INDEX member_role_events_by_user ON member_role_events (user_id, guild_id, seq);
