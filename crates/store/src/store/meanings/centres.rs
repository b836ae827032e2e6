//! The centre of each model's vectors (`migrations/0037_meaning_centres.sql`). The store keeps
//! the centre's bytes and what it was taken of; `discord_manager_meaning::centre` reads them,
//! and the embedding pass decides when a centre is taken again.

use rusqlite::{OptionalExtension, named_params};

use crate::store::{Reader, Writer};
use discord_manager_vocabulary::error::Result;

/// A model's centre as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCentre {
    /// The mean's bytes.
    pub centre: Vec<u8>,
    /// How many vectors the mean was taken of.
    pub made_from: u64,
    /// How many messages the model had embedded when it was taken.
    pub reach: u64,
}

impl Writer<'_> {
    /// Makes `centre` the centre of `model`'s vectors, and drops the model's blocks of codes,
    /// whose sign bits were taken less the centre before: how many blocks went.
    pub fn put_meaning_centre(&mut self, model: i64, centre: &StoredCentre) -> Result<usize> {
        const PUT_CENTRE: &str =
            "INSERT OR REPLACE INTO meaning_centres (model, centre, made_from, reach)
             VALUES (:model, :centre, :made_from, :reach)";
        const DROP_BLOCKS: &str = "DELETE FROM meaning_blocks WHERE model = :model";
        self.transaction
            .prepare_cached(PUT_CENTRE)?
            .execute(named_params! {
                ":model": model,
                ":centre": centre.centre,
                ":made_from": i64::try_from(centre.made_from).unwrap_or(i64::MAX),
                ":reach": i64::try_from(centre.reach).unwrap_or(i64::MAX),
            })?;
        Ok(self
            .transaction
            .prepare_cached(DROP_BLOCKS)?
            .execute(named_params! {":model": model})?)
    }
}

impl Reader<'_> {
    /// The centre of `model`'s vectors, once the pass has taken one.
    pub fn meaning_centre(&self, model: i64) -> Result<Option<StoredCentre>> {
        const CENTRE: &str =
            "SELECT centre, made_from, reach FROM meaning_centres WHERE model = :model";
        Ok(self
            .connection
            .prepare_cached(CENTRE)?
            .query_row(named_params! {":model": model}, |row| {
                Ok(StoredCentre {
                    centre: row.get(0)?,
                    made_from: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                    reach: u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0),
                })
            })
            .optional()?)
    }
}
