//! The `cursor` check: `Cursor::parse` and `Scope::resume` never panic, and
//! a parsed token's `as_str` round-trips.

use candor::{Cursor, Fingerprint, Scope};

/// Checks one input: parsed as a token itself, and as the recipe of a
/// cursor (a fingerprint, a generation, a key) whose token it then alters.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    check_token(&text);

    let mut word = [0u8; 8];
    let n = data.len().min(8);
    word[..n].copy_from_slice(&data[..n]);
    let fingerprint = Fingerprint::from_u64(u64::from_le_bytes(word));
    let rest = &data[n..];
    let mut scope = Scope::new(fingerprint);
    if rest.first().is_some_and(|b| b & 1 == 1) {
        scope = scope.generation(u64::from(rest[0]));
    }
    let key = (
        String::from_utf8_lossy(rest).into_owned(),
        rest.len() as u64,
    );
    let cursor = scope.cursor(&key, 0);
    let parsed = Cursor::parse(cursor.as_str()).expect("an issued cursor parses");
    assert_eq!(parsed, cursor, "an issued cursor parses to itself");
    let resumed = scope
        .resume::<(String, u64)>(&parsed)
        .expect("an issued cursor resumes in its scope");
    assert_eq!(resumed, key, "the key comes back");
    assert!(
        Scope::new(Fingerprint::from_u64(fingerprint.as_u64() ^ 1))
            .resume::<(String, u64)>(&parsed)
            .is_err(),
        "another query's scope refuses it"
    );

    // The issued token altered at one place, chosen by the input.
    let token = cursor.as_str();
    if !token.is_empty() && !rest.is_empty() {
        let at = usize::from(rest[rest.len() - 1]) % token.len();
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/.";
        let with = alphabet[usize::from(rest[0]) % alphabet.len()] as char;
        let mut altered: String = token.chars().take(at).collect();
        altered.push(with);
        altered.extend(token.chars().skip(at + 1));
        check_token(&altered);
        let mut cut = token.to_owned();
        cut.truncate(at);
        check_token(&cut);
    }
}

/// Parses `token`; what parses round-trips, and resuming it in any scope
/// returns a value or an error, never a panic.
fn check_token(token: &str) {
    let Ok(cursor) = Cursor::parse(token) else {
        return;
    };
    assert_eq!(cursor.as_str(), token, "as_str gives back the token parsed");
    let again = Cursor::parse(cursor.as_str()).expect("a parsed token parses again");
    assert_eq!(again, cursor, "a parsed token round-trips");
    let own = Scope::new(cursor.fingerprint());
    for scope in [own, own.generation(0), own.generation(u64::MAX)] {
        let _ = scope.resume::<u64>(&cursor);
        let _ = scope.resume::<u32>(&cursor);
        let _ = scope.resume::<i64>(&cursor);
        let _ = scope.resume::<String>(&cursor);
        let _ = scope.resume::<Vec<u8>>(&cursor);
        let _ = scope.resume::<(String, u64)>(&cursor);
        let _ = scope.resume::<(u64, String, u64)>(&cursor);
    }
}
