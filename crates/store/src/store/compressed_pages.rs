//! Pages compressed in place: the SQLite VFS every store connection opens its file through.
//!
//! SQLite writes a database in fixed-size pages. This shim sits over SQLite's own unix VFS and
//! changes only how the store's main file holds a page (the WAL, its shared memory and every
//! other file pass through untouched):
//!
//! - **Writing** (the [`COMPRESSING`] VFS, a store whose owner asked for it): a page other than
//!   the first is compressed with zstd at level 1. When the compressed bytes, behind a 4-byte
//!   header, end at least one filesystem block before the page's end, they are written at the
//!   page's own offset and the blocks after them are punched out of the file
//!   (`fallocate(PUNCH_HOLE)`): the file keeps its length, so every page stays where SQLite
//!   put it, and the disk holds only the blocks the compressed bytes need. A page that would
//!   not give a block back is written as it is. There is no map of where pages lie, nothing
//!   shared between processes, and nothing a crash could tear that SQLite's WAL does not
//!   already rewrite: a checkpoint that did not finish is run again from the WAL.
//! - **Reading** (both VFSes): a page whose slot begins with the header is decompressed; any
//!   other page is SQLite's own bytes. A store written with compression off, or before it was
//!   turned on, reads unchanged; one written compressed still reads with it off.
//!
//! The header is `0xFF 0x5A` and the compressed length (big-endian u16). No page SQLite writes
//! begins with `0xFF`: a b-tree page begins with its type (2, 5, 10 or 13), and an overflow or
//! free-list page with a page number, which would need a file of 2^32 pages. The first page
//! (the file's header, which other programs read) is never compressed.
//!
//! Compression pays only with pages larger than a filesystem block, so a compressed store uses
//! 16 KiB pages ([`COMPRESSED_PAGE_SIZE`]). What it costs and saves is measured in
//! docs/performance.md, "Store size".
//!
//! SQLite's VFS registry is per process: [`register`] adds both VFSes once, and they live as
//! long as the process (SQLite keeps pointers to them).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::mem::size_of;
use std::ptr;
use std::sync::OnceLock;

use rusqlite::ffi;

/// The VFS that reads compressed pages and writes every page as it is.
pub const READING: &str = "discord-manager";
/// The VFS that also compresses every page it writes (but the first).
pub const COMPRESSING: &str = "discord-manager-compressed";
/// The page size of a compressed store: four 4 KiB blocks, three of which a page usually
/// gives back.
pub const COMPRESSED_PAGE_SIZE: u32 = 16 * 1024;

/// What a compressed slot begins with.
const MAGIC: [u8; 2] = [0xFF, 0x5A];
/// The magic and the compressed length.
const HEADER: usize = 4;
/// zstd's fastest level that still reaches the store's target; see docs/performance.md.
const LEVEL: i32 = 1;

/// Whether the store's pages are compressed as they are written: the owner's
/// `DISCORD_MANAGER_COMPRESS_STORE`. Either way, pages written compressed before read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PageCompression {
    /// Pages are written as SQLite makes them (the default).
    #[default]
    Off,
    /// Pages are written compressed, in 16 KiB pages.
    On,
}

impl PageCompression {
    /// The VFS a writable connection opens the store through.
    pub(super) fn vfs(self) -> &'static str {
        match self {
            PageCompression::Off => READING,
            PageCompression::On => COMPRESSING,
        }
    }
}

/// Gives a store that compresses its pages the page size that lets them give blocks back: a
/// new store is made with it; an existing store with smaller pages is rewritten with it
/// (`VACUUM`, atomic through SQLite's rollback journal) when its open lock shows no other
/// store handle has it open, and is otherwise left as it is until it is opened alone.
///
/// Called on a writable connection before it is switched to WAL.
pub(super) fn give_pages_room(
    connection: &rusqlite::Connection,
    open_lock: &super::open_lock::OpenLock,
) -> rusqlite::Result<()> {
    const PAGE_SIZE: &str = "PRAGMA page_size";
    const PAGE_COUNT: &str = "PRAGMA page_count";
    // The VACUUM that changes the page size writes the file in pieces of the old size, too
    // small to compress; a second one writes every page whole, compressed.
    const REWRITE_TWICE: &str = "VACUUM; VACUUM;";
    let size: u32 = connection.query_row(PAGE_SIZE, [], |row| row.get(0))?;
    if size >= COMPRESSED_PAGE_SIZE {
        return Ok(());
    }
    let pages: i64 = connection.query_row(PAGE_COUNT, [], |row| row.get(0))?;
    if pages == 0 {
        return connection.pragma_update(None, "page_size", COMPRESSED_PAGE_SIZE);
    }
    let rewrite = || {
        // SQLite changes an existing file's page size only outside WAL, in a VACUUM.
        connection.pragma_update(None, "journal_mode", "DELETE")?;
        connection.pragma_update(None, "page_size", COMPRESSED_PAGE_SIZE)?;
        connection.execute_batch(REWRITE_TWICE)
    };
    match open_lock.while_alone(rewrite) {
        Some(done) => done,
        None => {
            tracing::info!(
                "the store keeps its {size}-byte pages, too small to compress, until it is \
                 opened while nothing else has it open"
            );
            Ok(())
        }
    }
}

/// Registers both VFSes with SQLite, once per process. An error names SQLite's code.
pub fn register() -> Result<(), String> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            // SAFETY: the VFSes are leaked, so they outlive every connection, as SQLite
            // requires; sqlite3_vfs_find and sqlite3_vfs_register are thread-safe.
            unsafe {
                register_one(READING, false)?;
                register_one(COMPRESSING, true)
            }
        })
        .clone()
}

/// What a VFS of this shim knows: SQLite's own VFS under it, and whether it compresses.
struct Shim {
    real: *mut ffi::sqlite3_vfs,
    compress: bool,
}

unsafe fn register_one(name: &str, compress: bool) -> Result<(), String> {
    let real = unsafe { ffi::sqlite3_vfs_find(ptr::null()) };
    if real.is_null() {
        return Err("SQLite has no default VFS".to_owned());
    }
    let mut vfs: ffi::sqlite3_vfs = unsafe { *real };
    vfs.iVersion = vfs.iVersion.min(3);
    vfs.szOsFile += c_int::try_from(SHIM_FILE_SIZE).expect("a small struct");
    vfs.pNext = ptr::null_mut();
    vfs.zName = CString::new(name).expect("no NUL").into_raw();
    vfs.pAppData = Box::into_raw(Box::new(Shim { real, compress })).cast::<c_void>();
    // Only xOpen is the shim's own: SQLite's unix VFS reads its `pAppData` there. Its other
    // methods (delete, access, full path, randomness, sleep, time, last error, dynamic
    // libraries, system calls) do not read the VFS they are given, so they are its own.
    vfs.xOpen = Some(open);
    let vfs = Box::into_raw(Box::new(vfs));
    match unsafe { ffi::sqlite3_vfs_register(vfs, 0) } {
        ffi::SQLITE_OK => Ok(()),
        code => Err(format!("SQLite refused the {name} VFS (code {code})")),
    }
}

/// A file opened through the shim: SQLite's own file follows it in the same allocation.
#[repr(C)]
struct ShimFile {
    /// Must come first: SQLite reads `pMethods` through a `sqlite3_file *`.
    base: ffi::sqlite3_file,
    real: *mut ffi::sqlite3_file,
    /// The store's main file (only its pages are ever compressed).
    main: bool,
    /// Pages written to it are compressed.
    compress: bool,
    /// The file's descriptor, to punch holes with; -1 when it could not be found.
    descriptor: c_int,
    /// The filesystem's block: what a compressed page must end before to give space back.
    block: usize,
}

/// The shim's part of a file, rounded so SQLite's own file after it stays aligned.
const SHIM_FILE_SIZE: usize = size_of::<ShimFile>().next_multiple_of(16);

unsafe extern "C" fn open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite gives the VFS it registered (whose pAppData is a Shim) and a file of
    // szOsFile bytes, of which the first SHIM_FILE_SIZE are the shim's.
    unsafe {
        let shim = &*(*vfs).pAppData.cast::<Shim>();
        let this = file.cast::<ShimFile>();
        let real = file
            .cast::<u8>()
            .add(SHIM_FILE_SIZE)
            .cast::<ffi::sqlite3_file>();
        ptr::write(
            this,
            ShimFile {
                base: ffi::sqlite3_file {
                    pMethods: ptr::null(),
                },
                real,
                main: flags & ffi::SQLITE_OPEN_MAIN_DB != 0,
                compress: false,
                descriptor: -1,
                block: 4096,
            },
        );
        let real_open = (*shim.real).xOpen.expect("a VFS opens files");
        let code = real_open(shim.real, name, real, flags, out_flags);
        if code != ffi::SQLITE_OK || (*real).pMethods.is_null() {
            return code;
        }
        let writable = flags & ffi::SQLITE_OPEN_READONLY == 0;
        let wanted = (*this).main && shim.compress && writable && !name.is_null();
        let found = if wanted {
            unix_descriptor(shim.real, real, name)
        } else {
            None
        };
        if let Some((descriptor, block)) = found {
            (*this).descriptor = descriptor;
            (*this).block = block;
            (*this).compress = true;
        }
        (*this).base.pMethods = &METHODS;
        code
    }
}

/// The descriptor of a file SQLite's unix VFS opened, and its filesystem's block size; None
/// for any other VFS, or when the descriptor is not the named file.
///
/// SQLite has no call that gives a file's descriptor. Its `unixFile` begins, as it has since
/// 2008, with three pointers and then the descriptor; the descriptor read there is used only
/// once `fstat` shows it is the very file SQLite was asked to open.
#[cfg(unix)]
unsafe fn unix_descriptor(
    real_vfs: *mut ffi::sqlite3_vfs,
    real: *mut ffi::sqlite3_file,
    name: ffi::sqlite3_filename,
) -> Option<(c_int, usize)> {
    // SAFETY: the VFS's name is a C string; a unix file is at least three pointers and an int.
    unsafe {
        if CStr::from_ptr((*real_vfs).zName).to_bytes() != b"unix" {
            return None;
        }
        let descriptor = *real
            .cast::<u8>()
            .add(3 * size_of::<*const c_void>())
            .cast::<c_int>();
        let mut opened: libc::stat = std::mem::zeroed();
        let mut named: libc::stat = std::mem::zeroed();
        if libc::fstat(descriptor, &mut opened) != 0
            || libc::stat(name.cast::<c_char>(), &mut named) != 0
            || (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino)
        {
            return None;
        }
        let block = usize::try_from(opened.st_blksize).ok()?.clamp(512, 65536);
        Some((descriptor, block))
    }
}

#[cfg(not(unix))]
unsafe fn unix_descriptor(
    _real_vfs: *mut ffi::sqlite3_vfs,
    _real: *mut ffi::sqlite3_file,
    _name: ffi::sqlite3_filename,
) -> Option<(c_int, usize)> {
    None
}

/// The shim's file methods: version 2, so SQLite never maps the file into memory (it would
/// read compressed slots as pages).
static METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 2,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
    xFetch: None,
    xUnfetch: None,
};

/// The shim's part of `file`, and SQLite's own file's methods.
///
/// SAFETY: `file` must be a file this shim opened (SQLite calls the methods only on those).
unsafe fn parts<'a>(file: *mut ffi::sqlite3_file) -> (&'a ShimFile, &'a ffi::sqlite3_io_methods) {
    unsafe {
        let this = &*file.cast::<ShimFile>();
        (this, &*(*this.real).pMethods)
    }
}

/// Defines a method that hands the call to SQLite's own file.
macro_rules! pass_through {
    ($name:ident, $method:ident, ($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        unsafe extern "C" fn $name(file: *mut ffi::sqlite3_file $(, $arg: $ty)*) -> $ret {
            // SAFETY: SQLite calls this only on a file the shim opened.
            unsafe {
                let (this, methods) = parts(file);
                methods.$method.expect("SQLite's unix file has every method")(this.real $(, $arg)*)
            }
        }
    };
}

pass_through!(close, xClose, () -> c_int);
pass_through!(truncate, xTruncate, (size: ffi::sqlite3_int64) -> c_int);
pass_through!(sync, xSync, (flags: c_int) -> c_int);
pass_through!(file_size, xFileSize, (size: *mut ffi::sqlite3_int64) -> c_int);
pass_through!(lock, xLock, (level: c_int) -> c_int);
pass_through!(unlock, xUnlock, (level: c_int) -> c_int);
pass_through!(check_reserved_lock, xCheckReservedLock, (out: *mut c_int) -> c_int);
pass_through!(file_control, xFileControl, (op: c_int, arg: *mut c_void) -> c_int);
pass_through!(sector_size, xSectorSize, () -> c_int);
pass_through!(device_characteristics, xDeviceCharacteristics, () -> c_int);
pass_through!(
    shm_map,
    xShmMap,
    (region: c_int, size: c_int, extend: c_int, out: *mut *mut c_void) -> c_int
);
pass_through!(shm_lock, xShmLock, (offset: c_int, count: c_int, flags: c_int) -> c_int);
pass_through!(shm_unmap, xShmUnmap, (delete: c_int) -> c_int);

unsafe extern "C" fn shm_barrier(file: *mut ffi::sqlite3_file) {
    // SAFETY: SQLite calls this only on a file the shim opened.
    unsafe {
        let (this, methods) = parts(file);
        methods
            .xShmBarrier
            .expect("SQLite's unix file has every method")(this.real);
    }
}

/// Whether a read or write of `amount` bytes at `offset` is one whole page: SQLite's page
/// sizes are the powers of two from 512 to 65536, and a page lies at a multiple of its size.
fn whole_page(amount: usize, offset: u64) -> bool {
    amount.is_power_of_two()
        && (512..=65536).contains(&amount)
        && offset.is_multiple_of(amount as u64)
}

unsafe extern "C" fn read(
    file: *mut ffi::sqlite3_file,
    buffer: *mut c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: SQLite calls this only on a file the shim opened, with a buffer of `amount`
    // bytes.
    unsafe {
        let (this, methods) = parts(file);
        let real_read = methods.xRead.expect("SQLite's unix file reads");
        let code = real_read(this.real, buffer, amount, offset);
        let (Ok(length), Ok(start)) = (usize::try_from(amount), u64::try_from(offset)) else {
            return code;
        };
        // A short read (past the file's end) is zero-filled: a compressed slot there, whose
        // holes the file does not reach, is still a whole page.
        let read = code == ffi::SQLITE_OK || code == ffi::SQLITE_IOERR_SHORT_READ;
        if !this.main || start == 0 || !read || length == 0 {
            return code;
        }
        let bytes = std::slice::from_raw_parts_mut(buffer.cast::<u8>(), length);
        if whole_page(length, start) {
            if !bytes.starts_with(&MAGIC) {
                return code;
            }
            return match unpack(bytes) {
                Ok(()) => ffi::SQLITE_OK,
                Err(()) => ffi::SQLITE_CORRUPT,
            };
        }
        // Part of a page (SQLite reads pages whole, but nothing forbids less): read the whole
        // slot it lies in.
        match read_within_page(this, methods, bytes, start) {
            ffi::SQLITE_OK => code,
            failed => failed,
        }
    }
}

/// Fills `bytes`, the part of a page at `start`, from its slot.
///
/// SAFETY: `this` and `methods` are a file the shim opened and its methods.
unsafe fn read_within_page(
    this: &ShimFile,
    methods: &ffi::sqlite3_io_methods,
    bytes: &mut [u8],
    start: u64,
) -> c_int {
    let real_read = methods.xRead.expect("SQLite's unix file reads");
    let mut size_field = [0u8; 2];
    // SAFETY: the buffers are as long as the amounts given.
    let code = unsafe { real_read(this.real, size_field.as_mut_ptr().cast(), 2, 16) };
    if code != ffi::SQLITE_OK {
        return ffi::SQLITE_OK;
    }
    let page = match u16::from_be_bytes(size_field) {
        1 => 65536,
        size => usize::from(size),
    };
    if !whole_page(page, 0) {
        return ffi::SQLITE_OK;
    }
    let slot_start = start - start % page as u64;
    let within = usize::try_from(start - slot_start).expect("under a page");
    if within + bytes.len() > page {
        return ffi::SQLITE_OK;
    }
    let mut slot = vec![0u8; page];
    let Ok(slot_offset) = i64::try_from(slot_start) else {
        return ffi::SQLITE_OK;
    };
    // SAFETY: as above.
    let code = unsafe {
        real_read(
            this.real,
            slot.as_mut_ptr().cast(),
            c_int::try_from(page).expect("a page is at most 64 KiB"),
            slot_offset,
        )
    };
    let read = code == ffi::SQLITE_OK || code == ffi::SQLITE_IOERR_SHORT_READ;
    if !read || !slot.starts_with(&MAGIC) {
        return ffi::SQLITE_OK;
    }
    if unpack(&mut slot).is_err() {
        return ffi::SQLITE_CORRUPT;
    }
    bytes.copy_from_slice(&slot[within..within + bytes.len()]);
    ffi::SQLITE_OK
}

unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    buffer: *const c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: SQLite calls this only on a file the shim opened, with `amount` bytes.
    unsafe {
        let (this, methods) = parts(file);
        let real_write = methods.xWrite.expect("SQLite's unix file writes");
        let (Ok(length), Ok(start)) = (usize::try_from(amount), u64::try_from(offset)) else {
            return real_write(this.real, buffer, amount, offset);
        };
        if !this.compress || start == 0 || !whole_page(length, start) || length < 2 * this.block {
            return real_write(this.real, buffer, amount, offset);
        }
        let page = std::slice::from_raw_parts(buffer.cast::<u8>(), length);
        let Some(slot) = pack(page, this.block) else {
            return real_write(this.real, buffer, amount, offset);
        };
        let written = c_int::try_from(slot.len()).expect("under a page");
        let code = real_write(this.real, slot.as_ptr().cast(), written, offset);
        if code != ffi::SQLITE_OK {
            return code;
        }
        // The file keeps the length SQLite gave it: a page written past its end makes the
        // file reach the page's end (a hole, taking no blocks).
        let end = offset + ffi::sqlite3_int64::from(amount);
        let mut size: ffi::sqlite3_int64 = 0;
        let code = methods.xFileSize.expect("SQLite's unix file has a size")(this.real, &mut size);
        if code != ffi::SQLITE_OK {
            return code;
        }
        if size < end {
            let code = methods.xTruncate.expect("SQLite's unix file truncates")(this.real, end);
            if code != ffi::SQLITE_OK {
                return code;
            }
        }
        let kept = slot.len().next_multiple_of(this.block);
        give_back(this.descriptor, start + kept as u64, (length - kept) as u64);
        ffi::SQLITE_OK
    }
}

/// Gives the blocks of `length` bytes at `start` back to the filesystem, the file's length
/// unchanged. A filesystem that cannot keeps them: the page reads the same either way.
#[cfg(unix)]
fn give_back(descriptor: c_int, start: u64, length: u64) {
    #[cfg(target_os = "linux")]
    {
        let (Ok(start), Ok(length)) = (libc::off_t::try_from(start), libc::off_t::try_from(length))
        else {
            return;
        };
        // SAFETY: fallocate on a descriptor that fstat showed is the store's open file.
        unsafe {
            libc::fallocate(
                descriptor,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                start,
                length,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (descriptor, start, length);
}

#[cfg(not(unix))]
fn give_back(_descriptor: c_int, _start: u64, _length: u64) {}

thread_local! {
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { std::cell::RefCell::new(None) };
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// The slot a page is written as, compressed behind its header, when that ends at least a
/// `block` before the page's end; None when it would not give a block back.
fn pack(page: &[u8], block: usize) -> Option<Vec<u8>> {
    let room = page.len().checked_sub(block)?.checked_sub(HEADER)?;
    let mut slot = vec![0u8; HEADER + room];
    let packed = COMPRESSOR.with_borrow_mut(|compressor| {
        if compressor.is_none() {
            *compressor = Some(zstd::bulk::Compressor::new(LEVEL).ok()?);
        }
        compressor
            .as_mut()?
            .compress_to_buffer(page, &mut slot[HEADER..])
            .ok()
    })?;
    let length = u16::try_from(packed).ok()?;
    slot[..2].copy_from_slice(&MAGIC);
    slot[2..HEADER].copy_from_slice(&length.to_be_bytes());
    slot.truncate(HEADER + packed);
    Some(slot)
}

/// Replaces a compressed slot, read whole into `slot`, with the page it holds. An error when
/// the slot does not decompress to exactly a page.
fn unpack(slot: &mut [u8]) -> Result<(), ()> {
    let length = usize::from(u16::from_be_bytes([slot[2], slot[3]]));
    let packed = slot.get(HEADER..HEADER + length).ok_or(())?.to_vec();
    let unpacked = DECOMPRESSOR.with_borrow_mut(|decompressor| {
        if decompressor.is_none() {
            *decompressor = Some(zstd::bulk::Decompressor::new().map_err(|_| ())?);
        }
        decompressor
            .as_mut()
            .ok_or(())?
            .decompress_to_buffer(&packed, slot)
            .map_err(|_| ())
    })?;
    if unpacked == slot.len() {
        Ok(())
    } else {
        Err(())
    }
}

// The tests read the blocks a file holds, which only Unix reports.
#[cfg(all(test, unix))]
mod tests;
