//! Unit tests of the load's reads ahead: every part read on a reader thread, taken in order,
//! and the first failure in that order stopping the rest.

use super::*;

#[test]
fn parts_are_read_on_threads_of_their_own_and_taken_in_their_order() {
    let parts: Vec<u32> = (0..10).collect();
    let caller = std::thread::current().id();
    let readers = Mutex::new(Vec::new());
    let mut taken = Vec::new();
    read_ahead(
        &parts,
        2,
        |part| {
            readers.lock().unwrap().push(std::thread::current().id());
            Ok(part * 3)
        },
        |value| {
            taken.push(value);
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(taken, [0, 3, 6, 9, 12, 15, 18, 21, 24, 27]);
    let mut readers = readers.into_inner().unwrap();
    assert_eq!(readers.len(), 10);
    assert!(!readers.contains(&caller), "no part is read by the caller");
    readers.sort_by_key(|id| format!("{id:?}"));
    readers.dedup();
    assert_eq!(readers.len(), 2);
}

#[test]
fn more_readers_than_parts_read_each_part_once_and_no_parts_take_nothing() {
    let mut taken = Vec::new();
    read_ahead(
        &[7u32, 8],
        4,
        |part| Ok(*part),
        |value| {
            taken.push(value);
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(taken, [7, 8]);
    let none: [u32; 0] = [];
    read_ahead(
        &none,
        2,
        |part| Ok(*part),
        |_: u32| panic!("nothing to take"),
    )
    .unwrap();
}

#[test]
fn the_first_failure_in_the_parts_order_is_returned_and_nothing_after_it_is_taken() {
    let parts: Vec<u32> = (0..12).collect();
    let mut taken = Vec::new();
    let failure = read_ahead(
        &parts,
        2,
        |part| match part {
            // Reader 1 fails at part 7 and reader 0 at part 10, after it: part 7 is first.
            7 | 10 => Err(Error::internal(format!("part {part} failed"))),
            _ => Ok(*part),
        },
        |value| {
            taken.push(value);
            Ok(())
        },
    )
    .unwrap_err();
    assert_eq!(failure.message(), "part 7 failed");
    assert_eq!(taken, [0, 1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_part_that_cannot_be_taken_stops_the_rest() {
    let parts: Vec<u32> = (0..12).collect();
    let mut taken = Vec::new();
    let failure = read_ahead(
        &parts,
        2,
        |part| Ok(*part),
        |value| {
            if value == 4 {
                return Err(Error::internal("part 4 cannot be taken"));
            }
            taken.push(value);
            Ok(())
        },
    )
    .unwrap_err();
    assert_eq!(failure.message(), "part 4 cannot be taken");
    assert_eq!(taken, [0, 1, 2, 3]);
}
