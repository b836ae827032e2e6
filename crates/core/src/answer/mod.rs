//! The primitives of a capability's answer in each form a surface shows: the structured result
//! (what MCP returns and `--json` prints), the human [`page`] the CLI lays out, and the
//! [`text`] block an MCP answer carries for a model. Every result type of the business layer
//! has all three; [`Outcome`] is that, behind one object the registry hands both surfaces.
//!
//! Only the primitives live here: `Page`, `Table` and `Render`; `TextBlock` and `ModelText`;
//! and the format helpers every rendering shares (times, excerpts, counts, call arguments). Each
//! capability renders its own result beside its function, in `business::<toolset>::…`, and the
//! message every result shows renders in `business::kernel::presentation`; this module names
//! nothing of the business layer.
//!
//! Nothing here knows a terminal or a protocol: the CLI turns a page's tables into
//! comfy-table's layout, and the MCP adapter puts the JSON and the text into rmcp's result.

pub mod page;
pub mod text;

use serde::Serialize;
use serde_json::Value;

use page::{Page, Render};
use text::{ModelText, TextBlock};

/// A capability's result, ready for either surface.
pub trait Outcome: Send {
    /// The structured result: what MCP returns and what `--json` prints.
    fn to_json(&self) -> Value;
    /// The human page the CLI shows without `--json`.
    fn render(&self) -> Page;
    /// The text block an MCP answer carries for a model to read, beside the structured result.
    fn to_text(&self) -> String;
    /// An image the answer shows a model beside its text (MCP's image content); most have none.
    fn image(&self) -> Option<&Image>;
    /// A file the CLI can write out whole (`--out`); most have none.
    fn file(&self) -> Option<&std::path::Path>;
}

/// An image, encoded, as an answer shows it to a model: the bytes of a PNG or a JPEG and
/// their media type. Its description is in the structured result and the text block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// `image/png` or `image/jpeg`.
    pub media_type: &'static str,
    pub bytes: Vec<u8>,
}

impl<T: Serialize + Render + ModelText + Send> Outcome for T {
    fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
    fn render(&self) -> Page {
        Render::render(self)
    }
    fn to_text(&self) -> String {
        let mut text = TextBlock::new();
        self.write_text(&mut text);
        text.finish()
    }
    fn image(&self) -> Option<&Image> {
        ModelText::image(self)
    }
    fn file(&self) -> Option<&std::path::Path> {
        Render::file(self)
    }
}
