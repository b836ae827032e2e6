//! The pages a process holds: those of the binary's model file given back to the kernel once
//! their bytes are read, and the index's columns asked for in huge pages
//! ([`prefer_huge_pages`]).
//!
//! The model's file is `include_bytes!` data: a read-only, private mapping of the executable
//! that nothing ever writes. Reading it makes its pages resident in the process, and they
//! would count against it for as long as it runs: the whole file once the layers are unpacked
//! at load (about 30 MiB), then each embedding chunk a new word needs, with the neighbouring
//! pages the kernel maps at the same fault ([`FAULT_AROUND`]). Once the bytes are unpacked or
//! inflated into the model's own memory, those pages are given back (`MADV_DONTNEED`): a page
//! given back holds the same bytes when it is read again, from the file. Only pages wholly
//! inside the file's bytes are ever given back.

/// How far around a faulting page the kernel maps what the page cache holds of a file
/// (`fault_around_bytes`, 64 KiB by default): a read of a chunk can make that much resident
/// on either side of it.
const FAULT_AROUND: usize = 64 * 1024;

/// Bytes that are a read-only mapping of a file nothing writes: the only memory whose pages
/// may be given back, since reading them again reads the same bytes from the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MappedFile(&'static [u8]);

impl MappedFile {
    /// # Safety
    ///
    /// `bytes` must lie in a read-only mapping of a file that nothing writes, such as
    /// `include_bytes!` data in the executable's read-only segment. Pages of anything else
    /// (the heap, a writable mapping) read back as zeros once given back.
    pub(crate) const unsafe fn new(bytes: &'static [u8]) -> MappedFile {
        MappedFile(bytes)
    }

    pub(crate) fn bytes(self) -> &'static [u8] {
        self.0
    }

    /// Gives back every page wholly inside the bytes.
    pub(crate) fn give_back(self) {
        give_back_pages(self.0, 0..self.0.len());
    }

    /// Gives back the pages that reading `bytes[read]` can have made resident: the range and
    /// the kernel's fault-around window on either side, within the bytes.
    pub(crate) fn give_back_around(self, read: std::ops::Range<usize>) {
        let start = read.start.saturating_sub(FAULT_AROUND);
        let end = read.end.saturating_add(FAULT_AROUND).min(self.0.len());
        give_back_pages(self.0, start..end);
    }
}

/// The whole pages of `range` (offsets into memory that starts at address `base`), as
/// addresses: the first page boundary at or after its start to the last at or before its end;
/// None when no page lies wholly inside.
fn whole_pages(
    base: usize,
    range: std::ops::Range<usize>,
    page: usize,
) -> Option<std::ops::Range<usize>> {
    let first = (base + range.start).next_multiple_of(page);
    let end = (base + range.end) / page * page;
    (first < end).then_some(first..end)
}

#[cfg(target_os = "linux")]
fn give_back_pages(bytes: &'static [u8], range: std::ops::Range<usize>) {
    let Some(pages) = whole_pages(bytes.as_ptr() as usize, range, rustix::param::page_size())
    else {
        return;
    };
    // SAFETY: the range is whole pages within `bytes`, which `MappedFile::new`'s contract makes
    // a read-only mapping of a file that nothing writes; MADV_DONTNEED on such a private, unwritten
    // mapping only drops the resident copies, and a later read maps the file's same bytes in
    // again. No reference into the range is invalidated.
    unsafe { advise(pages, rustix::mm::Advice::LinuxDontNeed) };
}

/// `madvise` over whole `pages` (addresses); advice refused changes nothing the caller relies
/// on (the pages stay resident, or in small pages).
///
/// # Safety
///
/// `pages` must be whole pages of memory that `advice` leaves reading the same bytes through
/// every reference into it.
#[cfg(target_os = "linux")]
unsafe fn advise(pages: std::ops::Range<usize>, advice: rustix::mm::Advice) {
    // SAFETY: the caller's contract above.
    let advised = unsafe {
        rustix::mm::madvise(
            pages.start as *mut std::ffi::c_void,
            pages.end - pages.start,
            advice,
        )
    };
    let _ = advised;
}

#[cfg(not(target_os = "linux"))]
fn give_back_pages(_: &'static [u8], _: std::ops::Range<usize>) {}

/// Asks the kernel to back the whole pages of `memory` with huge pages (2 MiB on x86-64) as
/// they are first written, where transparent huge pages are on (`madvise` or `always`): a
/// column the index fills once, tens of megabytes, then takes one fault per 2 MiB instead of
/// one per 4 KiB. Nothing changes where the kernel declines.
pub(crate) fn prefer_huge_pages<T>(memory: &mut [std::mem::MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        let length = std::mem::size_of_val(memory);
        let Some(pages) = whole_pages(
            memory.as_mut_ptr() as usize,
            0..length,
            rustix::param::page_size(),
        ) else {
            return;
        };
        // SAFETY: the range is whole pages of memory this caller holds exclusively (`&mut`);
        // MADV_HUGEPAGE changes only how its pages are backed, never what they hold.
        unsafe { advise(pages, rustix::mm::Advice::LinuxHugepage) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pages_wholly_inside_the_range_are_given_back() {
        // Memory from address 4,000: offsets 96 to 8,192 are addresses 4,096 to 12,192.
        assert_eq!(whole_pages(4_000, 96..8_192, 4_096), Some(4_096..8_192));
        // One byte later, the first page is not wholly inside.
        assert_eq!(whole_pages(4_000, 97..12_288, 4_096), Some(8_192..12_288));
        assert_eq!(whole_pages(4_096, 0..8_192, 4_096), Some(4_096..12_288));
        assert_eq!(whole_pages(4_096, 0..8_191, 4_096), Some(4_096..8_192));
        // Less than a page, or a range inside one page: nothing.
        assert_eq!(whole_pages(4_096, 0..4_095, 4_096), None);
        assert_eq!(whole_pages(4_097, 0..4_095, 4_096), None);
        assert_eq!(whole_pages(4_096, 10..10, 4_096), None);
    }
}
