//! The user's tables of capabilities, held against the registry: README's and
//! `docs/capabilities.md`'s `| MCP tool | CLI | you get |` tables each list every capability
//! exactly once, by its tool name and its command as the registry has them, and nothing else.
//! What each row says the owner gets is written by hand; which rows there are is not a choice.

use std::collections::BTreeMap;
use std::path::Path;

use discord_manager_core::registry::capabilities;

/// The header every capability table opens with.
const HEADER: &str = "| MCP tool | CLI | you get |";

/// One row of a table: the tool, the command and what the owner gets, as written.
#[derive(Debug, PartialEq)]
struct Row {
    tool: String,
    command: String,
    you_get: String,
}

/// The rows of the capability table in `markdown`: the lines after [`HEADER`] and its rule,
/// up to the first line that is not a row. A cell is read without its backquotes.
fn table_rows(markdown: &str) -> Vec<Row> {
    let mut lines = markdown.lines().skip_while(|line| *line != HEADER).skip(2);
    let mut rows = Vec::new();
    for line in lines.by_ref() {
        let Some(inner) = line
            .strip_prefix('|')
            .and_then(|line| line.strip_suffix('|'))
        else {
            break;
        };
        let cells: Vec<&str> = inner.splitn(3, '|').map(str::trim).collect();
        let unquoted = |cell: &str| cell.trim_matches('`').to_string();
        rows.push(Row {
            tool: unquoted(cells[0]),
            command: unquoted(cells.get(1).copied().unwrap_or_default()),
            you_get: cells.get(2).copied().unwrap_or_default().to_string(),
        });
    }
    rows
}

/// What is wrong with `rows` against the registry, each in words that say what to change.
fn differences(document: &str, rows: &[Row]) -> Vec<String> {
    let registered: BTreeMap<&str, String> = capabilities()
        .iter()
        .map(|capability| (capability.name, capability.command.join(" ")))
        .collect();
    let mut problems = Vec::new();
    let mut seen = BTreeMap::new();
    for row in rows {
        *seen.entry(row.tool.as_str()).or_insert(0) += 1;
        match registered.get(row.tool.as_str()) {
            None => problems.push(format!(
                "{document} lists `{}`, which is no capability: take its row out",
                row.tool
            )),
            Some(command) if *command != row.command => problems.push(format!(
                "{document} gives `{}` the command `{}`: the registry's is `{command}`",
                row.tool, row.command
            )),
            Some(_) if row.you_get.is_empty() => problems.push(format!(
                "{document} does not say what `{}` gives the owner",
                row.tool
            )),
            Some(_) => {}
        }
    }
    for (tool, command) in &registered {
        match seen.get(tool) {
            None => problems.push(format!(
                "{document} lacks the row of `{tool}`: | `{tool}` | `{command}` | what the owner \
                 gets |"
            )),
            Some(count) if *count > 1 => {
                problems.push(format!("{document} lists `{tool}` {count} times"))
            }
            Some(_) => {}
        }
    }
    problems
}

#[test]
fn readme_and_the_capabilities_page_list_every_capability_once_by_its_registered_names() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for document in ["README.md", "docs/capabilities.md"] {
        let markdown = std::fs::read_to_string(root.join(document)).unwrap();
        let rows = table_rows(&markdown);
        assert!(!rows.is_empty(), "{document} has no `{HEADER}` table");
        let problems = differences(document, &rows);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}

#[test]
fn the_check_names_a_missing_a_stray_a_doubled_and_a_misnamed_row() {
    let first = &capabilities()[0];
    let command = first.command.join(" ");
    let row = |tool: &str, command: &str| format!("| `{tool}` | `{command}` | something |\n");
    let mut whole = format!("# Capabilities\n\n{HEADER}\n|---|---|---|\n");
    for capability in capabilities() {
        whole += &row(capability.name, &capability.command.join(" "));
    }
    whole += "\nAfter the table.\n| `not_a_tool` | `nothing` | outside the table |\n";
    // The whole table passes, and the row after it is not read as the table's.
    assert_eq!(
        differences("doc", &table_rows(&whole)),
        Vec::<String>::new()
    );

    let without_first = whole.replace(&row(first.name, &command), "");
    assert_eq!(
        differences("doc", &table_rows(&without_first)),
        [format!(
            "doc lacks the row of `{}`: | `{}` | `{command}` | what the owner gets |",
            first.name, first.name
        )]
    );
    let doubled = whole.replace(
        &row(first.name, &command),
        &row(first.name, &command).repeat(2),
    );
    assert_eq!(
        differences("doc", &table_rows(&doubled)),
        [format!("doc lists `{}` 2 times", first.name)]
    );
    let stray = whole.replace("\nAfter", &format!("{}\nAfter", row("gone_tool", "gone")));
    assert_eq!(
        differences("doc", &table_rows(&stray)),
        ["doc lists `gone_tool`, which is no capability: take its row out"]
    );
    let misnamed = whole.replace(&row(first.name, &command), &row(first.name, "other"));
    assert_eq!(
        differences("doc", &table_rows(&misnamed)),
        [format!(
            "doc gives `{}` the command `other`: the registry's is `{command}`",
            first.name
        )]
    );
}
