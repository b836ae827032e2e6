//! A tolerant reading of a message serde_json refuses: whether the text is JSON by RFC 8259
//! after all, which of serde_json's limits it goes past, and the top-level `id` it carries, so
//! that such a request is answered by its own id.
//!
//! The scan holds no value: it walks the text once, keeps a stack of the open brackets (so it
//! never recurses, however deep the nesting), and reads only the top-level object's `id`,
//! `method` and member names.

/// The deepest nesting serde_json reads: a value inside this many arrays and objects is
/// read, one level more is refused.
pub const MAX_DEPTH: usize = 127;

/// A limit of serde_json's that valid JSON can go past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beyond {
    /// Arrays and objects nested more than [`MAX_DEPTH`] deep.
    Depth,
    /// A number whose magnitude no 64-bit float holds (such as `1e400`).
    Number,
    /// A `\u` escape of one half of a UTF-16 surrogate pair without the other half.
    Surrogate,
}

impl Beyond {
    /// The problem in the owner's words.
    pub fn words(self) -> String {
        match self {
            Beyond::Depth => format!("it is nested more than {MAX_DEPTH} levels deep"),
            Beyond::Number => {
                "it holds a number beyond what a 64-bit float holds (such as 1e400)".to_string()
            }
            Beyond::Surrogate => "it holds a string with an unpaired UTF-16 surrogate escape \
                                  (such as \"\\ud800\"); send the whole character"
                .to_string(),
        }
    }
}

/// What a scan of JSON text found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    /// The top-level object's `id`, as its JSON text, when it is a string or a number (the
    /// last one, when the object has several).
    pub id: Option<String>,
    /// Whether the text is a JSON object with an `id` member, whatever its value.
    pub has_id: bool,
    /// Whether the text is a JSON object with a string `method` (a request or notification).
    pub has_method: bool,
    /// The first limit the text goes past, and the top-level member it is in.
    pub beyond: Option<(Beyond, Option<String>)>,
}

#[derive(Clone, Copy)]
enum Open {
    Object,
    Array,
}

struct Scanner<'a> {
    text: &'a [u8],
    at: usize,
    open: Vec<Open>,
    /// The top-level member being read, once the top level is an object.
    member: Option<String>,
    scan: Scan,
}

/// The scan of `text`, or None when it is not JSON by RFC 8259.
pub fn scan(text: &str) -> Option<Scan> {
    let mut scanner = Scanner {
        text: text.as_bytes(),
        at: 0,
        open: Vec::new(),
        member: None,
        scan: Scan {
            id: None,
            has_id: false,
            has_method: false,
            beyond: None,
        },
    };
    scanner.run()?;
    Some(scanner.scan)
}

impl Scanner<'_> {
    fn run(&mut self) -> Option<()> {
        'value: loop {
            self.skip_whitespace();
            match self.peek()? {
                b'{' => {
                    self.open_one(Open::Object);
                    self.skip_whitespace();
                    if self.peek()? == b'}' {
                        self.at += 1;
                        self.open.pop();
                    } else {
                        self.member_name()?;
                        continue 'value;
                    }
                }
                b'[' => {
                    self.open_one(Open::Array);
                    self.skip_whitespace();
                    if self.peek()? == b']' {
                        self.at += 1;
                        self.open.pop();
                    } else {
                        continue 'value;
                    }
                }
                b'"' => {
                    let start = self.at;
                    self.string()?;
                    self.top_level_scalar(start, true);
                }
                b'-' | b'0'..=b'9' => {
                    let start = self.at;
                    self.number()?;
                    self.top_level_scalar(start, false);
                }
                _ => {
                    let text = self.text;
                    let literal = [&b"true"[..], b"false", b"null"]
                        .into_iter()
                        .find(|literal| text[self.at..].starts_with(literal))?;
                    self.at += literal.len();
                    self.top_level_other();
                }
            }
            // A value ended: close what ends with it, up to the next value.
            loop {
                self.skip_whitespace();
                match self.open.last() {
                    None => return (self.at == self.text.len()).then_some(()),
                    Some(Open::Object) => match self.peek()? {
                        b',' => {
                            self.at += 1;
                            self.skip_whitespace();
                            self.member_name()?;
                            continue 'value;
                        }
                        b'}' => {
                            self.at += 1;
                            self.close_one();
                        }
                        _ => return None,
                    },
                    Some(Open::Array) => match self.peek()? {
                        b',' => {
                            self.at += 1;
                            continue 'value;
                        }
                        b']' => {
                            self.at += 1;
                            self.close_one();
                        }
                        _ => return None,
                    },
                }
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn note(&mut self, beyond: Beyond) {
        if self.scan.beyond.is_none() {
            self.scan.beyond = Some((beyond, self.member.clone()));
        }
    }

    /// Whether the value about to be read is a member of the top-level object.
    fn at_top_level_member(&self) -> bool {
        matches!(self.open.as_slice(), [Open::Object])
    }

    fn open_one(&mut self, open: Open) {
        self.top_level_other();
        self.at += 1;
        self.open.push(open);
        if self.open.len() > MAX_DEPTH {
            self.note(Beyond::Depth);
        }
    }

    fn close_one(&mut self) {
        self.open.pop();
    }

    /// A member's name and its colon; at the top level, the name is kept.
    fn member_name(&mut self) -> Option<()> {
        if self.peek()? != b'"' {
            return None;
        }
        let top_level = self.at_top_level_member();
        if top_level {
            self.member = None;
        }
        let start = self.at;
        self.string()?;
        if top_level {
            let raw = std::str::from_utf8(&self.text[start..self.at]).ok()?;
            self.member = serde_json::from_str::<String>(raw).ok();
            self.scan.has_id |= self.member.as_deref() == Some("id");
        }
        self.skip_whitespace();
        if self.peek()? != b':' {
            return None;
        }
        self.at += 1;
        Some(())
    }

    /// A top-level member's value that is a string or a number, from `start` to here.
    fn top_level_scalar(&mut self, start: usize, is_string: bool) {
        if !self.at_top_level_member() {
            return;
        }
        match self.member.as_deref() {
            Some("id") => {
                let raw = std::str::from_utf8(&self.text[start..self.at]).ok();
                self.scan.id = raw.map(str::to_string);
            }
            Some("method") => self.scan.has_method = is_string,
            _ => {}
        }
    }

    /// A top-level member's value that is neither a string nor a number.
    fn top_level_other(&mut self) {
        if !self.at_top_level_member() {
            return;
        }
        match self.member.as_deref() {
            Some("id") => self.scan.id = None,
            Some("method") => self.scan.has_method = false,
            _ => {}
        }
    }

    /// A string, from its opening quote to past its closing one.
    fn string(&mut self) -> Option<()> {
        self.at += 1;
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                b'\\' => {
                    self.at += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                        b'u' => {
                            let unit = self.hex_escape()?;
                            match unit {
                                0xD800..=0xDBFF => {
                                    // A high half: paired only when a low half follows.
                                    let low = self.text[self.at..].starts_with(b"\\u").then(|| {
                                        let saved = self.at;
                                        self.at += 1;
                                        let low = self.hex_escape();
                                        (saved, low)
                                    });
                                    match low {
                                        Some((_, Some(0xDC00..=0xDFFF))) => {}
                                        Some((saved, _)) => {
                                            self.at = saved;
                                            self.note(Beyond::Surrogate);
                                        }
                                        None => self.note(Beyond::Surrogate),
                                    }
                                }
                                0xDC00..=0xDFFF => self.note(Beyond::Surrogate),
                                _ => {}
                            }
                        }
                        _ => return None,
                    }
                }
                0x00..=0x1F => return None,
                _ => self.at += 1,
            }
        }
    }

    /// Four hex digits after a `u` (at `self.at`), as a UTF-16 code unit.
    fn hex_escape(&mut self) -> Option<u16> {
        let digits = self.text.get(self.at + 1..self.at + 5)?;
        let digits = std::str::from_utf8(digits).ok()?;
        if !digits.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return None;
        }
        self.at += 5;
        u16::from_str_radix(digits, 16).ok()
    }

    /// A number by RFC 8259's grammar; one no 64-bit float holds is noted.
    fn number(&mut self) -> Option<()> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        let text = std::str::from_utf8(&self.text[start..self.at]).ok()?;
        if text.parse::<f64>().is_ok_and(f64::is_infinite) {
            self.note(Beyond::Number);
        }
        Some(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
            self.at += 1;
        }
    }
}
