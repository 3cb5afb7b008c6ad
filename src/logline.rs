//! Log records as they reach stderr and the log files: one line each, however the values in them were
//! written. A request's arguments end up in error messages, so a newline in one would forge a record,
//! a NUL would be written raw, and a megabyte-long id would be a megabyte-long line. Each record's
//! control characters are escaped (`\n`, `\u{0}`), its length is capped, and a file takes at most
//! [`MAX_DAY_BYTES`] a day, so the seven days kept stay bounded.
//!
//! A record is at most 4,096 characters and a log file at most 64 MiB a day. Stderr passes at most 50
//! records a second, saying how many it dropped, and at most `DRSG_STDERR_LIMIT` bytes when that is
//! set: `drsg init` sets 8 MiB for `logs/serve.out`, which is set aside as `serve.out.1` at the next
//! start once larger.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use tracing_subscriber::fmt::MakeWriter;

/// Characters a record keeps; the rest is cut, saying how much.
pub const MAX_RECORD_CHARS: usize = 4096;
/// Bytes a log file takes in a day; past them, records are dropped until the next day, with one
/// record saying so.
pub const MAX_DAY_BYTES: u64 = 64 * 1024 * 1024;

/// A [`MakeWriter`] whose writers clean each record before passing it to `inner`.
#[derive(Clone)]
pub struct Clean<M> {
    inner: M,
    budget: Option<Arc<Mutex<Budget>>>,
    rate: Option<Arc<Mutex<Rate>>>,
}

struct Budget {
    cap: u64,
    /// The day the budget is for; `None`: one budget for the process's life.
    day: Option<u64>,
    written: u64,
    told: bool,
}

/// Records written per second, for a stream that has no budget of its own (stderr).
struct Rate {
    second: u64,
    written: u32,
    dropped: u64,
}

/// Records a rate-limited writer passes per second; the rest are counted and said once.
pub const MAX_RECORDS_PER_SECOND: u32 = 50;

impl<M> Clean<M> {
    /// Records cleaned, without a daily budget (stderr).
    pub fn unbounded(inner: M) -> Clean<M> {
        Clean { inner, budget: None, rate: None }
    }

    /// Records cleaned, at most [`MAX_DAY_BYTES`] a day (a log file).
    pub fn daily(inner: M) -> Clean<M> {
        Clean::capped(inner, MAX_DAY_BYTES)
    }

    /// Records cleaned, at most `cap` bytes a day.
    pub fn capped(inner: M, cap: u64) -> Clean<M> {
        let budget = Budget { cap, day: Some(today()), written: 0, told: false };
        Clean { inner, budget: Some(Arc::new(Mutex::new(budget))), rate: None }
    }

    /// Records cleaned, at most `cap` bytes in all (stderr redirected to a file that nothing rotates).
    pub fn capped_total(inner: M, cap: u64) -> Clean<M> {
        let budget = Budget { cap, day: None, written: 0, told: false };
        Clean { inner, budget: Some(Arc::new(Mutex::new(budget))), rate: None }
    }

    /// At most [`MAX_RECORDS_PER_SECOND`] records a second pass; how many were dropped is said with the
    /// next record that passes.
    pub fn rate_limited(mut self) -> Clean<M> {
        self.rate = Some(Arc::new(Mutex::new(Rate { second: 0, written: 0, dropped: 0 })));
        self
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn today() -> u64 {
    now_secs() / 86_400
}

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Clean<M> {
    type Writer = CleanWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        CleanWriter { inner: self.inner.make_writer(), budget: self.budget.clone(), rate: self.rate.clone() }
    }
}

/// A writer that cleans what it is given, record by record (the formatter writes one record per writer).
pub struct CleanWriter<W> {
    inner: W,
    budget: Option<Arc<Mutex<Budget>>>,
    rate: Option<Arc<Mutex<Rate>>>,
}

impl<W: Write> Write for CleanWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let mut line = clean(&text);
        if let Some(rate) = &self.rate {
            let mut r = rate.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let second = now_secs();
            if r.second != second {
                r.second = second;
                r.written = 0;
            }
            if r.written >= MAX_RECORDS_PER_SECOND {
                r.dropped += 1;
                return Ok(buf.len());
            }
            r.written += 1;
            if r.dropped > 0 {
                line =
                    format!("log: {} records dropped (more than {MAX_RECORDS_PER_SECOND} a second)\n{line}", r.dropped);
                r.dropped = 0;
            }
        }
        if let Some(budget) = &self.budget {
            let mut b = budget.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Some(day) = b.day
                && day != today()
            {
                *b = Budget { cap: b.cap, day: Some(today()), written: 0, told: false };
            }
            if b.written + line.len() as u64 > b.cap {
                if !b.told {
                    b.told = true;
                    let when = if b.day.is_some() { " today" } else { "" };
                    let note = format!("log: {} bytes written{when}; later records are dropped\n", b.cap);
                    self.inner.write_all(note.as_bytes())?;
                }
                return Ok(buf.len());
            }
            b.written += line.len() as u64;
        }
        self.inner.write_all(line.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A record as one line: control characters escaped (a final newline kept), at most
/// [`MAX_RECORD_CHARS`] characters.
pub fn clean(record: &str) -> String {
    let body = record.strip_suffix('\n').unwrap_or(record);
    let mut out = String::with_capacity(body.len().min(MAX_RECORD_CHARS) + 32);
    for (chars, (at, c)) in body.char_indices().enumerate() {
        if chars >= MAX_RECORD_CHARS {
            let rest = body.len() - at;
            out.push_str(&format!("… ({rest} more bytes cut)"));
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push('\t'),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::fmt::MakeWriter as _;

    use super::{Clean, MAX_RECORD_CHARS, clean};

    /// A writer into a shared buffer.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().map_err(|_| std::io::Error::other("poisoned"))?.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_file_takes_its_daily_budget_and_then_says_it_drops_records() {
        let buffer = Shared::default();
        let make = {
            let buffer = buffer.clone();
            Clean::capped(move || buffer.clone(), 40)
        };
        for n in 0..5 {
            make.make_writer().write_all(format!("record {n} padded\n").as_bytes()).expect("written");
        }
        let text = String::from_utf8(buffer.0.lock().expect("buffer").clone()).expect("text");
        assert_eq!(text, "record 0 padded\nrecord 1 padded\nlog: 40 bytes written today; later records are dropped\n");
    }

    #[test]
    fn stderr_passes_a_bounded_number_of_records_a_second_and_says_what_it_dropped() {
        let buffer = Shared::default();
        let make = {
            let buffer = buffer.clone();
            Clean::unbounded(move || buffer.clone()).rate_limited()
        };
        let second = super::now_secs();
        for n in 0..500 {
            make.make_writer().write_all(format!("failing call {n}\n").as_bytes()).expect("written");
        }
        let text = String::from_utf8(buffer.0.lock().expect("buffer").clone()).expect("text");
        if super::now_secs() == second {
            assert_eq!(text.lines().count(), super::MAX_RECORDS_PER_SECOND as usize, "{text}");
        }
        assert!(text.lines().count() < 500, "{text}");
        std::thread::sleep(std::time::Duration::from_millis(1_100));
        make.make_writer().write_all(b"later\n").expect("written");
        let text = String::from_utf8(buffer.0.lock().expect("buffer").clone()).expect("text");
        assert!(text.contains(" records dropped (more than 50 a second)\nlater\n"), "{text}");
    }

    #[test]
    fn a_stream_with_a_total_budget_keeps_to_it() {
        let buffer = Shared::default();
        let make = {
            let buffer = buffer.clone();
            Clean::capped_total(move || buffer.clone(), 40)
        };
        for n in 0..5 {
            make.make_writer().write_all(format!("record {n} padded\n").as_bytes()).expect("written");
        }
        let text = String::from_utf8(buffer.0.lock().expect("buffer").clone()).expect("text");
        assert_eq!(text, "record 0 padded\nrecord 1 padded\nlog: 40 bytes written; later records are dropped\n");
    }

    #[test]
    fn a_record_is_one_line_with_its_control_characters_escaped_and_its_length_capped() {
        let forged = "ERROR no symbol `a\n2026-12-03T00:00:00Z  INFO forged`\0 \r\n";
        assert_eq!(clean(forged), "ERROR no symbol `a\\n2026-12-03T00:00:00Z  INFO forged`\\u{0} \\r\n");
        let long = "x".repeat(1_000_000);
        let cut = clean(&long);
        assert!(cut.lines().count() == 1 && cut.ends_with(" more bytes cut)\n"), "{}", &cut[cut.len() - 40..]);
        assert!(cut.chars().count() < MAX_RECORD_CHARS + 40);
        assert_eq!(clean("plain\n"), "plain\n");
    }
}
