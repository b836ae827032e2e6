//! The one error type every layer returns, sorted into kinds once.
//!
//! A kind is what a caller can act on: the binary chooses the CLI's exit code from it
//! (`program::exit_code`), and nothing else depends on it. The message is always
//! owner-worded; beside it an error keeps its cause as a value (the source chain) and the
//! owner's remedies as hints, and both surfaces show all three the same way
//! ([`Error::explained`]: stderr on the CLI, an `isError` tool result over MCP). Messages
//! never carry the bot token, a raw serde message or a raw SQLite message for input the owner
//! gave.
//!
//! The `sqlite` feature hosts SQLite's conversions here, because Rust's orphan rule puts an
//! impl of a foreign trait with its type: the ids' `ToSql`/`FromSql` and
//! `From<rusqlite::Error>`. Only the store crate turns it on.

use std::fmt;
use std::sync::Arc;

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

/// An owner-worded failure of a given kind, with what caused it and what to do about it.
///
/// Three parts, as jj's command errors have them:
/// - the message says what failed, in the owner's words, and nothing else;
/// - the source chain ([`std::error::Error::source`]) keeps the lower error that caused it as
///   that error's own value, never flattened into the message by `format!`;
/// - the hints say what the owner can do, added where the remedy is known (the store knows
///   that a full disk wants room; the bottom layer only that the write failed).
///
/// Both surfaces show the same [`Error::explained`] text: the message, one `Caused by:` line
/// per source, one `Hint:` line per hint.
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    hints: Vec<String>,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            hints: Vec::new(),
            source: None,
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

    /// The same error, with what the owner can do about it after the hints it has.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// The same error, caused by `source` (kept as it is: its own sources follow it).
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// What failed, without its causes or hints.
    pub fn message(&self) -> &str {
        &self.message
    }
    /// What the owner can do about it, in the order they were added.
    pub fn hints(&self) -> &[String] {
        &self.hints
    }
    /// The causes, outermost first: each source's own words.
    pub fn causes(&self) -> Vec<String> {
        let mut causes = Vec::new();
        let mut next = std::error::Error::source(self);
        while let Some(cause) = next {
            causes.push(cause.to_string());
            next = cause.source();
        }
        causes
    }
    /// The whole error as both surfaces show it: the message, then `Caused by: …` for each
    /// cause, then `Hint: …` for each hint, one to a line.
    pub fn explained(&self) -> Explained<'_> {
        Explained(self)
    }
}

/// Two errors are the same when they say the same: kind, message, causes' words and hints.
impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        self.kind == other.kind
            && self.message == other.message
            && self.hints == other.hints
            && self.causes() == other.causes()
    }
}

impl Eq for Error {}

/// The message alone; with `{:#}` (as logs write it), the message and its causes on one line,
/// each after a colon.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if f.alternate() {
            for cause in self.causes() {
                write!(f, ": {cause}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

/// An error with its causes and hints, one to a line: see [`Error::explained`].
pub struct Explained<'a>(&'a Error);

impl fmt::Display for Explained<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)?;
        for cause in self.0.causes() {
            write!(f, "\nCaused by: {cause}")?;
        }
        for hint in &self.0.hints {
            write!(f, "\nHint: {hint}")?;
        }
        Ok(())
    }
}

#[cfg(feature = "sqlite")]
impl From<rusqlite::Error> for Error {
    /// A store failure is never the caller's fault, so it is reported as internal, with
    /// SQLite's error kept as its cause for the bug report; a full, read-only or failing disk
    /// is a kind of its own, with what to do about it as a hint.
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
                "The store cannot be written: its disk is full",
            )
            .with_hint(
                "Free some space; nothing already stored is lost, and the next `ingest` \
                 backfills what arrived meanwhile",
            ),
            Some(ErrorCode::ReadOnly) => Error::new(
                ErrorKind::StoreUnwritable,
                "The store cannot be written: it is read-only (the file, its folder or its \
                 filesystem)",
            )
            .with_hint("Reading still works; make it writable to record or change anything"),
            Some(ErrorCode::SystemIoFailure) => Error::new(
                ErrorKind::StoreUnwritable,
                "The store cannot be written: the disk failed",
            )
            .with_source(error)
            .with_hint("Check the disk and its free space"),
            _ => Error::internal("The store failed").with_source(error),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn io(words: &str) -> std::io::Error {
        std::io::Error::other(words.to_string())
    }

    #[test]
    fn an_error_keeps_its_cause_as_a_value_and_its_hints_in_order() {
        let cause = Error::internal("The disk failed").with_source(io("EIO on sector 9"));
        let error = Error::config("Cannot write the store")
            .with_source(cause)
            .with_hint("Check the disk")
            .with_hint("Or pass --db");
        assert_eq!(error.message(), "Cannot write the store");
        assert_eq!(error.causes(), ["The disk failed", "EIO on sector 9"]);
        assert_eq!(error.hints(), ["Check the disk", "Or pass --db"]);
        assert_eq!(
            std::error::Error::source(&error).map(ToString::to_string),
            Some("The disk failed".to_string())
        );
        assert_eq!(
            error.explained().to_string(),
            "Cannot write the store\nCaused by: The disk failed\nCaused by: EIO on sector 9\n\
             Hint: Check the disk\nHint: Or pass --db"
        );
    }

    #[test]
    fn display_is_the_message_and_the_alternate_form_adds_the_causes_on_one_line() {
        let error = Error::internal("The store failed")
            .with_source(io("disk I/O error"))
            .with_hint("Check the disk");
        assert_eq!(error.to_string(), "The store failed");
        assert_eq!(format!("{error:#}"), "The store failed: disk I/O error");
        let bare = Error::input("`limit` must be a whole number");
        assert_eq!(
            bare.explained().to_string(),
            "`limit` must be a whole number"
        );
        assert_eq!(format!("{bare:#}"), "`limit` must be a whole number");
    }

    #[test]
    fn errors_are_equal_when_they_say_the_same() {
        let error =
            |cause: &str, hint: &str| Error::denied("No").with_source(io(cause)).with_hint(hint);
        assert_eq!(error("a", "b"), error("a", "b"));
        assert_ne!(error("a", "b"), error("other", "b"));
        assert_ne!(error("a", "b"), error("a", "other"));
        assert_ne!(Error::denied("No"), Error::input("No"));
    }
}
