//! Who the bot is and who owns it, as last learned.

use rusqlite::{OptionalExtension, params};

use super::{Reader, Writer};
use crate::error::Result;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    pub bot_user_id: Option<String>,
    pub bot_name: Option<String>,
    pub owner_user_id: Option<String>,
}

impl Reader<'_> {
    pub fn identity(&self) -> Result<Identity> {
        Ok(self
            .connection
            .query_row(
                "SELECT bot_user_id, bot_name, owner_user_id FROM identity_events
                 ORDER BY seq DESC LIMIT 1",
                [],
                |row| {
                    Ok(Identity {
                        bot_user_id: row.get(0)?,
                        bot_name: row.get(1)?,
                        owner_user_id: row.get(2)?,
                    })
                },
            )
            .optional()?
            .unwrap_or_default())
    }
}

impl Writer<'_> {
    /// Merges what was learned (fields left `None` keep their last value) and records the
    /// result if it differs from what the store already knows. Returns whether it did.
    pub fn record_identity(&mut self, learned: &Identity, origin: &str) -> Result<bool> {
        let known = self.reader().identity()?;
        let merged = Identity {
            bot_user_id: learned.bot_user_id.clone().or(known.bot_user_id.clone()),
            bot_name: learned.bot_name.clone().or(known.bot_name.clone()),
            owner_user_id: learned
                .owner_user_id
                .clone()
                .or(known.owner_user_id.clone()),
        };
        if merged == known {
            return Ok(false);
        }
        let created_at = self.stamp().to_iso();
        self.transaction.execute(
            "INSERT INTO identity_events (created_at, bot_user_id, bot_name, owner_user_id, origin)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                created_at,
                merged.bot_user_id,
                merged.bot_name,
                merged.owner_user_id,
                origin
            ],
        )?;
        Ok(true)
    }
}
