//! End-to-end specs: the real binary driven over stdio by rmcp's client and by assert_cmd.

fn main() {
    let arguments = libtest_mimic::Arguments::from_args();
    libtest_mimic::run(&arguments, Vec::new()).exit();
}
