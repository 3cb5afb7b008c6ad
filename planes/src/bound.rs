//! A prepared statement whose text parameters SQLite reads in place.
//!
//! rusqlite binds every string with `SQLITE_TRANSIENT`, so SQLite copies each one into memory of its own
//! before the statement runs, and frees it at the next bind. A bulk write binds a few million strings
//! (Django's plane: keys, names, paths and properties of 74,000 nodes, types and properties of 287,000
//! edges); [`Borrowed::execute`] binds them with `SQLITE_STATIC` instead, which is sound because the
//! strings outlive the call and every parameter is bound again before each step.
//!
//! Whole-plane and streamed writes insert their node and edge rows through it. A test stores and reads
//! back rows, and checks a constraint error and a wrong parameter count.

use std::ffi::c_int;

use rusqlite::{Connection, ffi};

/// One parameter's value.
#[derive(Clone, Copy)]
pub(crate) enum Param<'a> {
    Int(i64),
    Text(&'a str),
    Null,
}

impl<'a> From<Option<&'a str>> for Param<'a> {
    fn from(text: Option<&'a str>) -> Param<'a> {
        text.map_or(Param::Null, Param::Text)
    }
}

impl From<Option<u32>> for Param<'_> {
    fn from(n: Option<u32>) -> Self {
        n.map_or(Param::Null, |n| Param::Int(n.into()))
    }
}

/// A statement prepared on `conn`, finalized when dropped.
pub(crate) struct Borrowed<'c> {
    conn: &'c Connection,
    stmt: *mut ffi::sqlite3_stmt,
    params: usize,
}

impl<'c> Borrowed<'c> {
    #[allow(unsafe_code, reason = "preparing a statement through SQLite's C interface")]
    pub(crate) fn prepare(conn: &'c Connection, sql: &str) -> rusqlite::Result<Borrowed<'c>> {
        let len = c_int::try_from(sql.len()).map_err(|_| rusqlite::Error::InvalidQuery)?;
        let mut stmt = std::ptr::null_mut();
        let mut tail = std::ptr::null();
        // SAFETY: the connection's handle is valid while `conn` is borrowed, `sql` is `len` bytes of UTF-8,
        // `stmt` receives the statement (or null on failure) and `tail` where it ended, inside `sql`.
        let rc = unsafe { ffi::sqlite3_prepare_v2(conn.handle(), sql.as_ptr().cast(), len, &mut stmt, &mut tail) };
        if rc != ffi::SQLITE_OK {
            return Err(last_error(conn, rc));
        }
        if stmt.is_null() {
            return Err(rusqlite::Error::InvalidQuery);
        }
        // The statement is made before any check that can fail, so that `Drop` finalizes it.
        let mut made = Borrowed { conn, stmt, params: 0 };
        let used = (tail as usize).saturating_sub(sql.as_ptr() as usize).min(sql.len());
        if !sql.as_bytes()[used..].iter().all(u8::is_ascii_whitespace) {
            return Err(rusqlite::Error::MultipleStatement);
        }
        // SAFETY: `stmt` is a statement just prepared.
        made.params = unsafe { ffi::sqlite3_bind_parameter_count(stmt) } as usize;
        Ok(made)
    }

    /// Binds `params` (exactly as many as the statement has, in order) and runs the statement once.
    #[allow(unsafe_code, reason = "binding and stepping through SQLite's C interface")]
    pub(crate) fn execute<'p>(&mut self, params: impl IntoIterator<Item = Param<'p>>) -> rusqlite::Result<()> {
        let mut bound = 0;
        for (i, param) in params.into_iter().enumerate() {
            if i >= self.params {
                // The count given is where the values outran the statement, not how many there were.
                return Err(rusqlite::Error::InvalidParameterCount(i + 1, self.params));
            }
            let at = (i + 1) as c_int;
            // SAFETY: `self.stmt` is a live statement and `at` one of its parameters. A text is bound with
            // `SQLITE_STATIC`: SQLite reads it in place until the parameter is bound again or the statement
            // is finalized. The text lives until this call returns; the step below reads it, and no later
            // step runs before every parameter is bound again (the count is checked before stepping).
            let rc = unsafe {
                match param {
                    Param::Int(n) => ffi::sqlite3_bind_int64(self.stmt, at, n),
                    Param::Null => ffi::sqlite3_bind_null(self.stmt, at),
                    Param::Text(text) => ffi::sqlite3_bind_text64(
                        self.stmt,
                        at,
                        // An empty `&str` may point nowhere; SQLite gets a real (empty) string instead.
                        if text.is_empty() { c"".as_ptr() } else { text.as_ptr().cast() },
                        text.len() as ffi::sqlite3_uint64,
                        ffi::SQLITE_STATIC(),
                        ffi::SQLITE_UTF8 as u8,
                    ),
                }
            };
            if rc != ffi::SQLITE_OK {
                return Err(last_error(self.conn, rc));
            }
            bound = i + 1;
        }
        if bound != self.params {
            return Err(rusqlite::Error::InvalidParameterCount(bound, self.params));
        }
        // SAFETY: every parameter of the live statement is bound to a value that outlives this call.
        let rc = unsafe { ffi::sqlite3_step(self.stmt) };
        let error = (rc != ffi::SQLITE_DONE).then(|| last_error(self.conn, rc));
        // SAFETY: as above; a reset makes the statement ready to run again (and repeats a step's error).
        unsafe { ffi::sqlite3_reset(self.stmt) };
        error.map_or(Ok(()), Err)
    }
}

impl Drop for Borrowed<'_> {
    #[allow(unsafe_code, reason = "finalizing a statement through SQLite's C interface")]
    fn drop(&mut self) {
        // SAFETY: the statement was prepared by `prepare` and is finalized once, here.
        unsafe { ffi::sqlite3_finalize(self.stmt) };
    }
}

/// The connection's last error, as rusqlite reports errors (extended code and message).
#[allow(unsafe_code, reason = "reading the connection's error through SQLite's C interface")]
fn last_error(conn: &Connection, rc: c_int) -> rusqlite::Error {
    // SAFETY: the handle is valid while `conn` is borrowed; the message is a C string SQLite owns, copied
    // before any other call on the connection.
    let (code, message) = unsafe {
        let db = conn.handle();
        let code = ffi::sqlite3_extended_errcode(db);
        let message = std::ffi::CStr::from_ptr(ffi::sqlite3_errmsg(db)).to_string_lossy().into_owned();
        // The connection's code, when it is the error just returned (some misuse returns set none).
        (if code & 0xff == rc & 0xff { code } else { rc }, message)
    };
    rusqlite::Error::SqliteFailure(ffi::Error::new(code), Some(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_bound_in_place_are_stored_and_errors_come_back_as_rusqlite_s() {
        let conn = Connection::open_in_memory().expect("memory");
        conn.execute_batch("CREATE TABLE t(a INTEGER, b TEXT UNIQUE, c TEXT)").expect("table");
        let mut insert =
            Borrowed::prepare(&conn, "INSERT INTO t(a, b, c) VALUES (?, ?, ?), (?, ?, ?)").expect("prepare");
        let rows: Vec<(i64, String, Option<String>)> =
            (0..100).map(|i| (i, format!("key-{i}"), (i % 3 != 0).then(|| "é".repeat(i as usize)))).collect();
        for pair in rows.chunks(2) {
            let params = pair.iter().flat_map(|(a, b, c)| [Param::Int(*a), Param::Text(b), c.as_deref().into()]);
            insert.execute(params).expect("insert");
        }
        let stored: Vec<(i64, String, Option<String>)> = conn
            .prepare("SELECT a, b, c FROM t ORDER BY a")
            .expect("select")
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .expect("rows")
            .collect::<rusqlite::Result<_>>()
            .expect("read");
        assert_eq!(stored, rows);

        // A broken constraint, then a run that works: the statement was reset.
        let err = insert
            .execute([Param::Int(1), Param::Text("key-1"), Param::Null, Param::Int(2), Param::Text("new"), Param::Null])
            .expect_err("duplicate");
        assert_eq!(err.sqlite_error().map(|e| e.extended_code), Some(ffi::SQLITE_CONSTRAINT_UNIQUE));
        let fresh = [Param::Int(1), Param::Text("x"), Param::Null, Param::Int(2), Param::Text("y"), Param::Null];
        insert.execute(fresh).expect("after a failure");
        // Too few or too many parameters run nothing.
        assert!(insert.execute([Param::Int(1)]).is_err());
        assert!(insert.execute(fresh.into_iter().chain([Param::Null])).is_err());
        let count: i64 = conn.query_row("SELECT count(*) FROM t", [], |row| row.get(0)).expect("count");
        assert_eq!(count, 102);
        assert!(Borrowed::prepare(&conn, "INSERT INTO nowhere VALUES (?)").is_err());
        assert!(matches!(
            Borrowed::prepare(&conn, "INSERT INTO t(a) VALUES (?); DELETE FROM t").map(|_| ()),
            Err(rusqlite::Error::MultipleStatement)
        ));
        assert!(Borrowed::prepare(&conn, "INSERT INTO t(a) VALUES (?);  ").is_ok());
        let mut empty = Borrowed::prepare(&conn, "INSERT INTO t(a, b, c) VALUES (?, ?, ?)").expect("prepare");
        let owned = String::new();
        empty.execute([Param::Int(1000), Param::Text(""), Param::Text(owned.as_str())]).expect("empty texts");
        let stored: (String, String) =
            conn.query_row("SELECT b, c FROM t WHERE a = 1000", [], |row| Ok((row.get(0)?, row.get(1)?))).expect("row");
        assert_eq!(stored, (String::new(), String::new()));
    }
}
