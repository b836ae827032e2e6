//! Every SQL statement of the store is a named constant with named parameters
//! (docs/contributing.md, "The store method"), held against the source of
//! `crates/store/src/store/`: its production code (test files and `#[cfg(test)]` items left
//! out) hands `prepare`, `prepare_cached`, `execute`, `execute_batch` and `query_row` a named
//! statement, never one written in place or built by `format!`; never binds with `params!`
//! (positional); and writes no positional placeholder (`?1`, or a bare `?`).

use std::path::{Path, PathBuf};

/// The calls that take a statement's text.
const STATEMENT_TAKERS: &[&str] = &[
    "prepare",
    "prepare_cached",
    "execute",
    "execute_batch",
    "query_row",
];

/// The store's production files: every `.rs` file under `crates/store/src/store/` but the
/// test files (`tests.rs`, `testing.rs` and a module's `tests/` folder).
fn production_files() -> Vec<PathBuf> {
    fn walk(folder: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(folder).expect("src/store can be listed") {
            let path = entry.expect("src/store can be listed").path();
            if path.is_dir() {
                // A module's `tests/` folder holds test files, as `tests.rs` does.
                if path.file_name().is_some_and(|name| name != "tests") {
                    walk(&path, files);
                }
            } else if path.extension().is_some_and(|extension| extension == "rs")
                && !matches!(
                    path.file_name().and_then(|name| name.to_str()),
                    Some("tests.rs" | "testing.rs")
                )
            {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/store/src/store"),
        &mut files,
    );
    files.sort();
    files
}

/// The lines of `source` outside `#[cfg(test)]` items, numbered from 1. An item ends where
/// its braces close, or at its first `;` if it opens none (`mod tests;`).
fn production_lines(source: &str) -> Vec<(usize, &str)> {
    let mut kept = Vec::new();
    let mut skipping = false;
    let mut depth = 0i64;
    let mut opened = false;
    for (index, line) in source.lines().enumerate() {
        if !skipping && line.trim() == "#[cfg(test)]" {
            (skipping, depth, opened) = (true, 0, false);
            continue;
        }
        if skipping {
            for character in line.chars() {
                match character {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if (opened && depth == 0) || (!opened && line.trim_end().ends_with(';')) {
                skipping = false;
            }
            continue;
        }
        kept.push((index + 1, line));
    }
    kept
}

/// What is wrong with the production code of `source`, one finding per offence, each naming
/// its line.
fn offences(source: &str) -> Vec<String> {
    let lines = production_lines(source);
    let mut found = Vec::new();
    for (number, line) in &lines {
        let bytes = line.as_bytes();
        // `?1`, or a bare `?` where an SQL value goes (`= ?`, `(?`, `, ?`): the Rust `?`
        // operator always follows an expression.
        let positional = line.match_indices('?').any(|(at, _)| {
            let before = at.checked_sub(1).map(|before| bytes[before]);
            let after = bytes.get(at + 1).copied();
            after.is_some_and(|after| after.is_ascii_digit())
                || matches!(before, Some(b' ' | b'(' | b',' | b'='))
        });
        if positional && !line.trim_start().starts_with("//") {
            found.push(format!("line {number}: a positional placeholder: {line}"));
        }
        for (at, _) in line.match_indices("params!") {
            if !line[..at].ends_with("named_") {
                found.push(format!("line {number}: positional params!: {line}"));
            }
        }
    }
    // Calls span lines: read them with the whitespace taken out, and name the line a call
    // starts on.
    let mut joined = String::new();
    let mut line_of = Vec::new();
    for (number, line) in &lines {
        for character in line.chars().filter(|character| !character.is_whitespace()) {
            joined.push(character);
            line_of.push(*number);
        }
    }
    for taker in STATEMENT_TAKERS {
        for call in [format!(".{taker}(&format!("), format!(".{taker}(format!(")] {
            for (at, _) in joined.match_indices(&call) {
                found.push(format!(
                    "line {}: a statement built by format! and handed to {taker}",
                    line_of[at]
                ));
            }
        }
        for quote in ["\"", "r\"", "r#\""] {
            for (at, _) in joined.match_indices(&format!(".{taker}({quote}")) {
                found.push(format!(
                    "line {}: a statement written in place in {taker}: name it as a constant",
                    line_of[at]
                ));
            }
        }
    }
    found
}

#[test]
fn every_store_statement_is_a_named_constant_with_named_parameters() {
    let files = production_files();
    assert!(
        files.iter().any(|file| file.ends_with("messages.rs")),
        "the store's files are where this test looks: {files:?}"
    );
    let mut offences_found = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("a store file can be read");
        for offence in offences(&source) {
            offences_found.push(format!("{}: {offence}", file.display()));
        }
    }
    assert!(
        offences_found.is_empty(),
        "statements must be named constants with named parameters \
         (docs/contributing.md, \"The store method\"):\n{}",
        offences_found.join("\n")
    );
}

#[test]
fn the_guard_finds_each_offence_and_passes_what_the_rule_allows() {
    let offending = r#"
fn read(&self) -> Result<()> {
    self.connection
        .prepare_cached(
            &format!("SELECT {COLUMNS} FROM messages WHERE message_id = :id"))?
        .execute(params![id])?;
    self.connection.query_row(
        "SELECT 1 WHERE ?1 = ?", [], |row| row.get(0))?;
    Ok(())
}
"#;
    let found = offences(offending);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].starts_with("line 6: positional params!"));
    assert!(found[1].starts_with("line 8: a positional placeholder"));
    assert_eq!(
        found[2],
        "line 4: a statement built by format! and handed to prepare_cached"
    );
    assert_eq!(
        found[3],
        "line 7: a statement written in place in query_row: name it as a constant"
    );

    let allowed = r#"
const MESSAGE_BY_ID: &str = concat!("SELECT ", columns!(), " FROM messages WHERE id = :id");
fn read(&self) -> Result<Option<String>> {
    let row = self.connection.prepare_cached(MESSAGE_BY_ID)?.query_row(
        named_params! {":id": id},
        |row| row.get(0),
    )?;
    Err(Error::internal(format!("Cannot read {row:?}")))
}

#[cfg(test)]
mod tests {
    fn statement() {
        connection.execute(&format!("INSERT INTO t VALUES (?1)"), params![1]).unwrap();
    }
}
"#;
    assert_eq!(offences(allowed), Vec::<String>::new());
}
