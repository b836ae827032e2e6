//! The attachment cache as the owner finds it on disk, beside the store
//! (`<store>.attachments/`): what the daemon kept, read as files, with no product code.

use std::path::PathBuf;

use sha2::{Digest, Sha256};

use super::Store;

/// One file in the cache folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedFile {
    pub name: String,
    pub bytes: Vec<u8>,
    /// Its permission bits (0 where the platform has none).
    pub mode: u32,
}

/// The cache folder of `store`.
pub fn folder(store: &Store) -> PathBuf {
    let mut folder = store.path().as_os_str().to_owned();
    folder.push(".attachments");
    PathBuf::from(folder)
}

/// Every file in the cache folder, by name; none when there is no folder.
pub fn files(store: &Store) -> Vec<CachedFile> {
    let Ok(entries) = std::fs::read_dir(folder(store)) else {
        return Vec::new();
    };
    let mut files: Vec<CachedFile> = entries
        .map(|entry| {
            let entry = entry.unwrap();
            CachedFile {
                name: entry.file_name().to_string_lossy().into_owned(),
                bytes: std::fs::read(entry.path()).unwrap_or_default(),
                mode: mode(&entry.metadata().unwrap()),
            }
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

/// The files at a hash's name (64 hex digits): what the cache says it keeps whole.
pub fn kept(store: &Store) -> Vec<CachedFile> {
    files(store)
        .into_iter()
        .filter(|file| file.name.len() == 64 && file.name.bytes().all(|b| b.is_ascii_hexdigit()))
        .collect()
}

/// `bytes` as the cache keeps them: under their SHA-256, private to the owner.
pub fn as_kept(bytes: &[u8]) -> CachedFile {
    CachedFile {
        name: sha256(bytes),
        bytes: bytes.to_vec(),
        mode: if cfg!(unix) { 0o600 } else { 0 },
    }
}

/// The SHA-256 of `bytes`, in lowercase hex.
pub fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `count` bytes no other spec's file has (a pattern seeded by `seed`).
pub fn file_bytes(seed: u8, count: usize) -> Vec<u8> {
    (0..count)
        .map(|at| (at as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[cfg(unix)]
fn mode(metadata: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o777
}

#[cfg(not(unix))]
fn mode(_: &std::fs::Metadata) -> u32 {
    0
}
