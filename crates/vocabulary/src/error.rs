//! The one error type every layer returns, sorted into kinds once.
//!
//! A kind is what a caller can act on: the binary chooses the CLI's exit code from it
//! (`program::exit_code`), and nothing else depends on it. The message is always
//! owner-worded and is shown as it is on both surfaces (stderr on the CLI, an
//! `isError` tool result over MCP). Messages never carry the bot token, a raw
//! serde message or a raw SQLite message for input the owner gave.

use std::fmt;

/// What went wrong, as far as the caller can act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input was not what the capability accepts (a field named, what is wanted said).
    Input,
    /// Something named by the input does not exist in the store.
    NotFound,
    /// The request contradicts the current state ("That bookmark is already resolved").
    Conflict,
    /// The owner's configuration does not allow this call (read-only, no token, out of scope).
    Denied,
    /// The configuration itself is incomplete or invalid.
    Config,
    /// Discord refused or failed the request.
    Discord,
    /// The store or the machine failed; not the caller's fault.
    Internal,
    /// The store cannot be written: its disk is full, or it (or its filesystem) is read-only.
    /// A kind of its own, so a supervisor can tell "make room" from a crash.
    StoreUnwritable,
}

/// An owner-worded failure of a given kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }
    pub fn input(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Input, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::NotFound, message)
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Conflict, message)
    }
    pub fn denied(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Denied, message)
    }
    pub fn config(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Config, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Internal, message)
    }
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(feature = "sqlite")]
impl From<rusqlite::Error> for Error {
    /// A store failure is never the caller's fault, so it is reported as internal,
    /// with SQLite's own words kept for the bug report.
    fn from(error: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        // A stored value the vocabulary refused as it was read (an id that is not one) is
        // already owner-worded: kept as it is.
        if let rusqlite::Error::FromSqlConversionFailure(_, _, cause) = &error
            && let Some(worded) = cause.downcast_ref::<Error>()
        {
            return worded.clone();
        }
        match error.sqlite_error_code() {
            Some(ErrorCode::DiskFull) => Error::new(
                ErrorKind::StoreUnwritable,
                "The store cannot be written: its disk is full. Free some space; nothing \
                 already stored is lost, and the next `ingest` backfills what arrived meanwhile",
            ),
            Some(ErrorCode::ReadOnly) => Error::new(
                ErrorKind::StoreUnwritable,
                "The store cannot be written: it is read-only (the file, its folder or its \
                 filesystem). Reading still works; make it writable to record or change anything",
            ),
            Some(ErrorCode::SystemIoFailure) => Error::new(
                ErrorKind::StoreUnwritable,
                format!(
                    "The store cannot be written: the disk failed ({error}). Check the disk and \
                     its free space"
                ),
            ),
            _ => Error::internal(format!("The store failed: {error}")),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
