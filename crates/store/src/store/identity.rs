//! Who the bot is and who owns it, as last learned.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake::UserId;
use discord_manager_vocabulary::words::word_enum;
use rusqlite::{OptionalExtension, named_params};

use super::{Reader, Writer};

word_enum! {
    /// Where the store learned who the bot is or who owns it: `identity_events.origin`.
    pub enum IdentitySource {
        /// The gateway's READY: the bot's id and name.
        Gateway = "gateway",
        /// Discord's REST application info: the application's owner.
        Application = "discord",
        /// The demo seed's application.
        Seed = "seed",
        /// The benchmark's generator.
        Synthetic = "synthetic",
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    pub bot_user_id: Option<UserId>,
    pub bot_name: Option<String>,
    pub owner_user_id: Option<UserId>,
}

const LATEST_IDENTITY: &str = "SELECT bot_user_id, bot_name, owner_user_id FROM identity_events
     ORDER BY seq DESC LIMIT 1";

const INSERT_IDENTITY_EVENT: &str = "INSERT INTO identity_events (created_at, bot_user_id,
         bot_name, owner_user_id, origin)
     VALUES (:created_at, :bot_user_id, :bot_name, :owner_user_id, :origin)";

impl Reader<'_> {
    pub fn identity(&self) -> Result<Identity> {
        Ok(self
            .connection
            .query_row(LATEST_IDENTITY, [], |row| {
                Ok(Identity {
                    bot_user_id: row.get(0)?,
                    bot_name: row.get(1)?,
                    owner_user_id: row.get(2)?,
                })
            })
            .optional()?
            .unwrap_or_default())
    }
}

impl Writer<'_> {
    /// Merges what was learned (fields left `None` keep their last value) and records the
    /// result if it differs from what the store already knows. Returns whether it did.
    pub fn record_identity(&mut self, learned: &Identity, source: IdentitySource) -> Result<bool> {
        let known = self.reader().identity()?;
        let merged = Identity {
            bot_user_id: learned.bot_user_id.or(known.bot_user_id),
            bot_name: learned.bot_name.clone().or(known.bot_name.clone()),
            owner_user_id: learned.owner_user_id.or(known.owner_user_id),
        };
        if merged == known {
            return Ok(false);
        }
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_IDENTITY_EVENT,
            named_params! {
                ":created_at": created_at,
                ":bot_user_id": merged.bot_user_id,
                ":bot_name": merged.bot_name,
                ":owner_user_id": merged.owner_user_id,
                ":origin": source.as_str(),
            },
        )?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn each_change_of_identity_is_recorded_once_with_where_it_was_learned() {
        let folder = tempfile::tempdir().unwrap();
        let store = Store::open(&folder.path().join("identity.sqlite3")).unwrap();
        let bot = Identity {
            bot_user_id: Some("1400000000000000001".parse().unwrap()),
            bot_name: Some("helper".into()),
            owner_user_id: None,
        };
        let owner = Identity {
            owner_user_id: Some("1000000000000000009".parse().unwrap()),
            ..Identity::default()
        };
        let record = |learned: &Identity, source| {
            store
                .write(|writer| writer.record_identity(learned, source))
                .unwrap()
        };
        assert!(record(&bot, IdentitySource::Gateway));
        assert!(!record(&bot, IdentitySource::Gateway), "nothing new");
        assert!(record(&owner, IdentitySource::Application));

        let rows: Vec<(Option<String>, Option<UserId>, String)> = store
            .read(|reader| {
                let mut statement = reader.connection.prepare(
                    "SELECT bot_name, owner_user_id, origin FROM identity_events ORDER BY seq",
                )?;
                let rows = statement
                    .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
            })
            .unwrap();
        assert_eq!(
            rows,
            vec![
                (Some("helper".into()), None, "gateway".into()),
                (
                    Some("helper".into()),
                    Some("1000000000000000009".parse().unwrap()),
                    "discord".into()
                ),
            ]
        );
        assert_eq!(
            store.read(|reader| reader.identity()).unwrap(),
            Identity {
                bot_user_id: Some("1400000000000000001".parse().unwrap()),
                bot_name: Some("helper".into()),
                owner_user_id: Some("1000000000000000009".parse().unwrap()),
            }
        );
    }
}
