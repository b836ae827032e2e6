//! The vendored model file and what is read from it: the tokenizer's tables (inflated once,
//! at load), the twelve layers (unpacked at load) and the embedding table, inflated a chunk
//! at a time as texts need its rows.
//!
//! The file (`crates/meaning/model/multilingual-e5-small-q4.dme5`, written by the
//! `convert_e5` example) is, in little-endian order:
//!
//! - `DME5`, the version (2), then u32s: hidden size, layers, heads, feed-forward size,
//!   pieces (= rows of the embedding table), positions, quantisation group (32); the
//!   layer-norm epsilon (f32); rows per embedding chunk and the number of chunks;
//! - u64s: the front's inflated and deflated lengths and the layers' length; the chunks'
//!   offsets (one more than chunks, from the start of the chunk area);
//! - the front, deflated: the tokenizer (pieces, the ids of `<s>` `</s>` `<pad>` `<unk>`,
//!   the pieces' byte length in all, their byte offsets, scores (f32) and kinds (1: a control
//!   piece), their bytes, then the normaliser's map: entries, its byte length, and per entry
//!   a character, a count and that many replacement characters), the position table (f32,
//!   positions × hidden, already shifted past XLM-R's two padding positions), token type 0
//!   and the embedding layer norm;
//! - the layers, as they are (4-bit weights barely deflate, and inflating them cost a
//!   process a tenth of a second at load): per layer in order the query, key, value,
//!   attention output, its layer norm, the feed-forward in and out, and the output layer norm
//!   (each matrix as 4-bit groups followed by its f32 bias);
//! - the embedding table's chunks, each deflated alone.
//!
//! Version 1 held the front and the layers deflated together; the values are the same
//! ([`values_digest`] reads them whatever the container).
//!
//! A 4-bit group is 32 weights: an f16 scale `d` and 16 bytes, byte `j` holding weight `j` in
//! its low nibble and weight `j + 16` in its high one; a weight is `(nibble − 8) × d`.

use std::collections::HashMap;
use std::io::Read;
use std::sync::Mutex;

use flate2::read::DeflateDecoder;

use super::kernels::{Matrix, f16_to_f32};
use crate::resident::MappedFile;

/// The model's shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub hidden: usize,
    pub heads: usize,
    pub feed_forward: usize,
    pub positions: usize,
    pub epsilon: f32,
}

/// One encoder layer.
pub(crate) struct Layer {
    pub query: Matrix,
    pub key: Matrix,
    pub value: Matrix,
    pub attention_out: Matrix,
    pub attention_norm: Norm,
    pub feed_in: Matrix,
    pub feed_out: Matrix,
    pub output_norm: Norm,
}

/// A layer norm's weight and bias.
pub(crate) struct Norm {
    pub weight: Vec<f32>,
    pub bias: Vec<f32>,
}

/// The tokenizer's tables, as the file holds them.
pub(crate) struct Vocabulary {
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
    pub offsets: Vec<u32>,
    pub scores: Vec<f32>,
    pub control: Vec<bool>,
    pub bytes: Vec<u8>,
    /// The normaliser: a character, and what it becomes (sorted by character).
    pub normal: Vec<(u32, Vec<char>)>,
}

/// Everything of the model but the embedding table's rows.
pub(crate) struct Weights {
    pub shape: Shape,
    /// Position `i`'s row plus token type 0's, positions × hidden.
    pub positions: Vec<f32>,
    pub embedding_norm: Norm,
    pub layers: Vec<Layer>,
    pub table: Table,
}

/// The embedding table: deflated chunks, inflated on first use and kept.
pub(crate) struct Table {
    file: MappedFile,
    chunk_rows: usize,
    row_bytes: usize,
    /// Where each chunk starts in `file`, and one past the last.
    offsets: Vec<usize>,
    cache: Mutex<Cache>,
}

/// The inflated chunks, at most [`CACHED_CHUNKS`] of them.
#[derive(Default)]
struct Cache {
    chunks: HashMap<usize, (u64, std::sync::Arc<Vec<u8>>)>,
    clock: u64,
}

/// How many inflated chunks are kept (each 13.8 KB: 14 MB at most); the least recently used
/// is dropped first. The vocabulary is ordered by frequency, so the common words' chunks stay.
const CACHED_CHUNKS: usize = 1024;

/// Why the file could not be read: it is the binary's own, so this is a build fault.
pub(crate) type Fault = String;

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, count: usize) -> Result<&'a [u8], Fault> {
        let end = self
            .at
            .checked_add(count)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| format!("the model file ends early, at byte {}", self.at))?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }
    fn u32(&mut self) -> Result<u32, Fault> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or([0; 4]),
        ))
    }
    fn u64(&mut self) -> Result<u64, Fault> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().unwrap_or([0; 8]),
        ))
    }
    fn usize(&mut self) -> Result<usize, Fault> {
        Ok(self.u32()? as usize)
    }
    fn f32s(&mut self, count: usize) -> Result<Vec<f32>, Fault> {
        Ok(self
            .take(count * 4)?
            .chunks_exact(4)
            .map(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            .collect())
    }
    fn u32s(&mut self, count: usize) -> Result<Vec<u32>, Fault> {
        Ok(self
            .take(count * 4)?
            .chunks_exact(4)
            .map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            .collect())
    }
    fn matrix(&mut self, rows: usize, columns: usize) -> Result<Matrix, Fault> {
        let groups = self.take(rows * columns / 32 * 18)?;
        let bias = self.f32s(rows)?;
        Ok(Matrix::from_groups(groups, rows, columns, bias))
    }
    fn norm(&mut self, size: usize) -> Result<Norm, Fault> {
        Ok(Norm {
            weight: self.f32s(size)?,
            bias: self.f32s(size)?,
        })
    }
}

impl Weights {
    /// Reads the file: the header, the front inflated and parsed (the tokenizer's tables and
    /// the embeddings' parts but the table), the layers, the chunks' offsets.
    pub(crate) fn read(mapped: MappedFile) -> Result<(Weights, Vocabulary), Fault> {
        let file = mapped.bytes();
        let Sections {
            shape:
                Header {
                    hidden,
                    layers,
                    heads,
                    feed_forward,
                    pieces,
                    positions,
                    group,
                    epsilon,
                    ..
                },
            chunk_rows,
            front_length,
            front: front_bytes,
            layers: layer_bytes,
            chunks: offsets,
        } = Sections::of(file)?;
        if group != 32 || hidden % 32 != 0 || feed_forward % 32 != 0 || heads == 0 {
            return Err(format!(
                "the model file's shape is not one this engine runs: hidden {hidden}, \
                 feed-forward {feed_forward}, heads {heads}, group {group}"
            ));
        }
        let front = inflate(front_bytes, front_length)?;
        let mut read = Cursor {
            bytes: &front,
            at: 0,
        };
        let vocabulary = read_vocabulary(&mut read, pieces)?;
        let mut table_positions = read.f32s(positions * hidden)?;
        let token_type = read.f32s(hidden)?;
        for row in table_positions.chunks_exact_mut(hidden) {
            for (value, add) in row.iter_mut().zip(&token_type) {
                *value += add;
            }
        }
        let embedding_norm = read.norm(hidden)?;
        if read.at != front.len() {
            return Err("the model file's front holds more than its tables".into());
        }
        let mut read = Cursor {
            bytes: layer_bytes,
            at: 0,
        };
        let layers = (0..layers)
            .map(|_| {
                Ok(Layer {
                    query: read.matrix(hidden, hidden)?,
                    key: read.matrix(hidden, hidden)?,
                    value: read.matrix(hidden, hidden)?,
                    attention_out: read.matrix(hidden, hidden)?,
                    attention_norm: read.norm(hidden)?,
                    feed_in: read.matrix(feed_forward, hidden)?,
                    feed_out: read.matrix(hidden, feed_forward)?,
                    output_norm: read.norm(hidden)?,
                })
            })
            .collect::<Result<Vec<Layer>, Fault>>()?;
        if read.at != layer_bytes.len() {
            return Err("the model file's layers are longer than its shape says".into());
        }
        let weights = Weights {
            shape: Shape {
                hidden,
                heads,
                feed_forward,
                positions,
                epsilon,
            },
            positions: table_positions,
            embedding_norm,
            layers,
            table: Table {
                file: mapped,
                chunk_rows,
                row_bytes: hidden / 32 * 18,
                offsets,
                cache: Mutex::new(Cache::default()),
            },
        };
        Ok((weights, vocabulary))
    }
}

/// The model file's version: the layout above.
const VERSION: u32 = 2;

/// The model's shape as the header gives it.
struct Header<'a> {
    /// The seven sizes and the epsilon as the file writes them (what the values' digest
    /// hashes first).
    #[cfg_attr(not(test), allow(dead_code))]
    bytes: &'a [u8],
    hidden: usize,
    layers: usize,
    heads: usize,
    feed_forward: usize,
    pieces: usize,
    positions: usize,
    group: usize,
    epsilon: f32,
}

/// Where the file's parts lie, as its header says.
struct Sections<'a> {
    shape: Header<'a>,
    chunk_rows: usize,
    /// The front's length once inflated, and its deflated bytes.
    front_length: usize,
    front: &'a [u8],
    /// The layers, as they are.
    layers: &'a [u8],
    /// Where each embedding chunk starts in the file, and one past the last (the file's end).
    chunks: Vec<usize>,
}

impl Sections<'_> {
    fn of(file: &[u8]) -> Result<Sections<'_>, Fault> {
        let mut header = Cursor { bytes: file, at: 0 };
        if header.take(4)? != b"DME5" || header.u32()? != VERSION {
            return Err(format!(
                "the model file is not a version {VERSION} DME5 file"
            ));
        }
        let shape_at = header.at;
        let hidden = header.usize()?;
        let layers = header.usize()?;
        let heads = header.usize()?;
        let feed_forward = header.usize()?;
        let pieces = header.usize()?;
        let positions = header.usize()?;
        let group = header.usize()?;
        let epsilon = header.f32s(1)?[0];
        let shape = Header {
            bytes: &file[shape_at..header.at],
            hidden,
            layers,
            heads,
            feed_forward,
            pieces,
            positions,
            group,
            epsilon,
        };
        let chunk_rows = header.usize()?;
        let chunks = header.usize()?;
        let front_length = header.u64()? as usize;
        let front_deflated = header.u64()? as usize;
        let layers_length = header.u64()? as usize;
        let chunk_offsets = (0..=chunks)
            .map(|_| header.u64().map(|offset| offset as usize))
            .collect::<Result<Vec<usize>, Fault>>()?;
        let front = header.take(front_deflated)?;
        let layers = header.take(layers_length)?;
        let area = header.at;
        let chunks: Vec<usize> = chunk_offsets.iter().map(|offset| area + offset).collect();
        if chunks.last().copied() != Some(file.len())
            || chunks.windows(2).any(|pair| pair[0] > pair[1])
        {
            return Err(
                "the model file's embedding chunks are out of order or do not end where it ends"
                    .into(),
            );
        }
        Ok(Sections {
            shape,
            chunk_rows,
            front_length,
            front,
            layers,
            chunks,
        })
    }
}

/// The SHA-256 of the model's values whatever the container: the shape (the header's seven
/// sizes and the epsilon, as the file writes them), the front and the layers as they read
/// once inflated, and every chunk of the embedding table inflated, in order. Version 1 of
/// the file gives the same digest: its core was the front and the layers, deflated together.
#[cfg(test)]
pub(crate) fn values_digest(file: &[u8]) -> Result<[u8; 32], Fault> {
    use sha2::{Digest, Sha256};
    let sections = Sections::of(file)?;
    let mut digest = Sha256::new();
    digest.update(sections.shape.bytes);
    digest.update(inflate(sections.front, sections.front_length)?);
    digest.update(sections.layers);
    for pair in sections.chunks.windows(2) {
        let mut out = Vec::new();
        DeflateDecoder::new(&file[pair[0]..pair[1]])
            .read_to_end(&mut out)
            .map_err(|error| format!("the model file does not inflate: {error}"))?;
        digest.update(&out);
    }
    Ok(digest.finalize().into())
}

fn read_vocabulary(read: &mut Cursor, pieces: usize) -> Result<Vocabulary, Fault> {
    if read.usize()? != pieces {
        return Err("the model file's tokenizer and embedding table disagree".into());
    }
    let bos = read.u32()?;
    let eos = read.u32()?;
    let _pad = read.u32()?;
    let unk = read.u32()?;
    let length = read.usize()?;
    let offsets = read.u32s(pieces + 1)?;
    let scores = read.f32s(pieces)?;
    let control = read.take(pieces)?.iter().map(|kind| *kind == 1).collect();
    let bytes = read.take(length)?.to_vec();
    if offsets.windows(2).any(|pair| pair[0] > pair[1]) || offsets[pieces] as usize != length {
        return Err("the model file's piece offsets are out of order".into());
    }
    let entries = read.usize()?;
    let map_length = read.usize()?;
    let mut map = Cursor {
        bytes: read.take(map_length)?,
        at: 0,
    };
    let mut normal = Vec::with_capacity(entries);
    for _ in 0..entries {
        let from = map.u32()?;
        let count = map.take(1)?[0] as usize;
        let to = map
            .u32s(count)?
            .into_iter()
            .filter_map(char::from_u32)
            .collect();
        normal.push((from, to));
    }
    normal.sort_by_key(|(from, _)| *from);
    for id in [bos, eos, unk] {
        if id as usize >= pieces {
            return Err(format!("the model file names piece {id}, past its pieces"));
        }
    }
    Ok(Vocabulary {
        bos,
        eos,
        unk,
        offsets,
        scores,
        control,
        bytes,
        normal,
    })
}

fn inflate(deflated: &[u8], length: usize) -> Result<Vec<u8>, Fault> {
    let mut out = Vec::with_capacity(length);
    DeflateDecoder::new(deflated)
        .read_to_end(&mut out)
        .map_err(|error| format!("the model file does not inflate: {error}"))?;
    if out.len() != length {
        return Err(format!(
            "the model file inflates to {} bytes where it says {length}",
            out.len()
        ));
    }
    Ok(out)
}

impl Table {
    /// Adds the row of `piece` (dequantised) to `out`.
    pub(crate) fn add_row(&self, piece: u32, out: &mut [f32]) -> Result<(), Fault> {
        let piece = piece as usize;
        let chunk = self.chunk(piece / self.chunk_rows)?;
        let at = (piece % self.chunk_rows) * self.row_bytes;
        let row = chunk
            .get(at..at + self.row_bytes)
            .ok_or_else(|| format!("piece {piece} is past the embedding table"))?;
        for (group, out) in row.chunks_exact(18).zip(out.chunks_exact_mut(32)) {
            let scale = f16_to_f32(u16::from_le_bytes([group[0], group[1]]));
            for (j, byte) in group[2..].iter().enumerate() {
                out[j] += (i32::from(byte & 0x0f) - 8) as f32 * scale;
                out[j + 16] += (i32::from(byte >> 4) - 8) as f32 * scale;
            }
        }
        Ok(())
    }

    fn chunk(&self, index: usize) -> Result<std::sync::Arc<Vec<u8>>, Fault> {
        let mut cache = self
            .cache
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        cache.clock += 1;
        let clock = cache.clock;
        if let Some((used, chunk)) = cache.chunks.get_mut(&index) {
            *used = clock;
            return Ok(chunk.clone());
        }
        let (start, end) = match (self.offsets.get(index), self.offsets.get(index + 1)) {
            (Some(start), Some(end)) if start <= end => (*start, *end),
            _ => return Err(format!("embedding chunk {index} is past the table")),
        };
        let chunk = std::sync::Arc::new(
            inflate(
                &self.file.bytes()[start..end],
                self.chunk_rows * self.row_bytes,
            )
            .or_else(|fault| {
                // The last chunk holds the rows that are left.
                if index + 2 == self.offsets.len() {
                    let mut out = Vec::new();
                    DeflateDecoder::new(&self.file.bytes()[start..end])
                        .read_to_end(&mut out)
                        .map_err(|error| format!("the model file does not inflate: {error}"))?;
                    Ok(out)
                } else {
                    Err(fault)
                }
            })?,
        );
        // The chunk is inflated into the cache: its deflated bytes are not read again.
        self.file.give_back_around(start..end);
        if cache.chunks.len() >= CACHED_CHUNKS
            && let Some(oldest) = cache
                .chunks
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(index, _)| *index)
        {
            cache.chunks.remove(&oldest);
        }
        cache.chunks.insert(index, (clock, chunk.clone()));
        Ok(chunk)
    }

    /// The deflated bytes of the chunk that holds `piece` (for tests).
    #[cfg(test)]
    pub(crate) fn deflated_chunk_of(&self, piece: u32) -> &'static [u8] {
        let index = piece as usize / self.chunk_rows;
        &self.file.bytes()[self.offsets[index]..self.offsets[index + 1]]
    }

    /// How many chunks are inflated now (for tests).
    #[cfg(test)]
    pub(crate) fn inflated(&self) -> usize {
        self.cache
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .chunks
            .len()
    }
}
