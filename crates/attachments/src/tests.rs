use std::io::{self, Read};

use super::*;

/// SHA-256 of `hello`.
const HELLO: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

fn names(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_file_is_kept_under_the_sha256_of_its_bytes_and_kept_once() {
    let folder = tempfile::tempdir().unwrap();
    let store = folder.path().join("store.sqlite3");
    let cache = Cache::open(&store).unwrap();
    let kept = cache.keep(&b"hello"[..], 1024).unwrap();
    assert_eq!(kept.hash.as_str(), HELLO);
    assert_eq!(kept.bytes, 5);
    assert_eq!(fs::read(cache.path(&kept.hash)).unwrap(), b"hello");
    assert!(cache.contains(&kept.hash));
    let again = cache.keep(&b"hello"[..], 1024).unwrap();
    assert_eq!(again, kept);
    assert_eq!(names(&Cache::folder_of(&store)), [HELLO]);
    assert_eq!(cache.usage().unwrap(), Usage { files: 1, bytes: 5 });
    let mut read = String::new();
    cache
        .open_file(&kept.hash)
        .unwrap()
        .expect("kept")
        .read_to_string(&mut read)
        .unwrap();
    assert_eq!(read, "hello");
    let absent = ContentHash::parse(&"0".repeat(64)).unwrap();
    assert!(cache.open_file(&absent).unwrap().is_none());
}

#[test]
fn a_file_over_its_cap_leaves_nothing_and_one_at_its_cap_is_kept() {
    let folder = tempfile::tempdir().unwrap();
    let store = folder.path().join("store.sqlite3");
    let cache = Cache::open(&store).unwrap();
    assert!(matches!(
        cache.keep(&b"hello"[..], 4),
        Err(NotKept::TooLarge { cap: 4 })
    ));
    assert_eq!(names(&Cache::folder_of(&store)), Vec::<String>::new());
    assert_eq!(cache.keep(&b"hello"[..], 5).unwrap().bytes, 5);
}

/// Yields `first`, then fails: a connection that drops mid-download.
struct Broken(&'static [u8]);

impl Read for Broken {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        if self.0.is_empty() {
            return Err(io::Error::new(io::ErrorKind::ConnectionReset, "reset"));
        }
        let count = self.0.len().min(buffer.len());
        buffer[..count].copy_from_slice(&self.0[..count]);
        self.0 = &self.0[count..];
        Ok(count)
    }
}

#[test]
fn a_download_that_fails_midway_leaves_no_file_and_a_crash_leftover_is_cleared() {
    let folder = tempfile::tempdir().unwrap();
    let store = folder.path().join("store.sqlite3");
    let cache = Cache::open(&store).unwrap();
    assert!(matches!(
        cache.keep(Broken(b"half of a screensh"), 1024),
        Err(NotKept::Io(_))
    ));
    assert_eq!(names(&Cache::folder_of(&store)), Vec::<String>::new());
    // What `kill -9` during a write leaves: a temporary file, never a name. Not counted;
    // opening the cache leaves it (a reader must not delete a write in progress), and the
    // writer clears it as it starts.
    fs::write(Cache::folder_of(&store).join(".partial-a1b2c3"), b"half").unwrap();
    assert_eq!(cache.usage().unwrap(), Usage::default());
    let reopened = Cache::open(&store).unwrap();
    assert_eq!(names(&Cache::folder_of(&store)), [".partial-a1b2c3"]);
    assert_eq!(reopened.clear_interrupted_writes().unwrap(), 1);
    assert_eq!(names(&Cache::folder_of(&store)), Vec::<String>::new());
}

#[cfg(unix)]
#[test]
fn the_cache_is_private_to_the_owner() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let store = folder.path().join("store.sqlite3");
    let cache = Cache::open(&store).unwrap();
    let kept = cache.keep(&b"hello"[..], 1024).unwrap();
    let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&Cache::folder_of(&store)), 0o700);
    assert_eq!(mode(&cache.path(&kept.hash)), 0o600);
}

#[test]
fn a_content_hash_is_64_lowercase_hex_digits() {
    assert!(ContentHash::parse(HELLO).is_some());
    assert!(ContentHash::parse(&HELLO.to_uppercase()).is_none());
    assert!(ContentHash::parse(&HELLO[1..]).is_none());
    assert!(ContentHash::parse(&format!("{}g", &HELLO[1..])).is_none());
    assert!(ContentHash::parse("../../etc/passwd").is_none());
}
