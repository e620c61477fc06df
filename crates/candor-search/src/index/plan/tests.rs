//! The planner's property: a plan never excludes a file the matcher
//! matches (the in-memory search is the oracle), over generated queries
//! and files; and it narrows where it can.

use std::collections::HashSet;

use proptest::prelude::*;

use super::{Gram, Need, need};
use crate::Limits;
use crate::{Corpus, Documents, Query};

/// Pieces of patterns and of files: case variants, characters with
/// several simple case folds (the Kelvin sign, the long s), multi-byte
/// text, and the characters that stand for invalid UTF-8 under whole
/// words.
const WORDS: &[&str] = &[
    "abc",
    "ABC",
    "aBc",
    "kiss",
    "KISS",
    "\u{212A}iss",
    "\u{17F}t",
    "st",
    "ST",
    "straße",
    "é",
    "É",
    "日本語",
    "語",
    "foo",
    "bar",
    "baz",
    "fo",
    "x",
    "_",
    " ",
    "-",
    "\u{0}",
    "\u{80}",
    "\u{FFFF}",
    "\u{FFFD}",
    "a\u{80}b",
];

/// Bytes spliced into files: line ends, and invalid UTF-8 of each
/// length the matcher replaces.
const BYTES: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b"\r",
    b"\xFF",
    b"\xC3",
    b"\xE2\x82",
    b"\xF0\x9F\x98",
    b"\xBF",
    b"\x80",
];

/// A regex over `WORDS`: literals, classes, anchors and word boundaries,
/// joined by concatenation, alternation, groups and repetitions.
fn regex() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => prop::sample::select(WORDS).prop_map(regex_syntax::escape),
        1 => prop::sample::select(vec![
            "[a-c]", "[kK]", "[sS]", r"\w", r"\d", ".", r"\s", "[^a]", "[é日]", r"(?-u:\xFF)",
            r"(?-u:[\x80-\xBF])", "^", "$", r"\b", r"\B", r"\x00", "[a-z]",
        ])
        .prop_map(str::to_owned),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| v.concat()),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| format!("(?:{})", v.join("|"))),
            inner.clone().prop_map(|s| format!("({s})")),
            (
                inner,
                prop::sample::select(vec!["?", "*", "+", "{2}", "{1,3}", "{0,2}", "??", "+?"])
            )
                .prop_map(|(s, r)| format!("(?:{s}){r}")),
        ]
    })
}

/// Any of the three kinds of query, with or without case and whole words.
fn query() -> impl Strategy<Value = Query> {
    let words = prop::collection::vec(prop::sample::select(WORDS), 1..4);
    (
        prop_oneof![
            regex().prop_map(Query::regex),
            prop::sample::select(WORDS).prop_map(Query::literal),
            words.prop_map(Query::literals),
        ],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(q, case, word)| q.case_insensitive(case).whole_word(word))
}

/// A file of words (some upper-cased), odd bytes and random characters.
fn file() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => (prop::sample::select(WORDS), any::<bool>()).prop_map(|(w, upper)| {
            if upper { w.to_uppercase().into_bytes() } else { w.as_bytes().to_vec() }
        }),
        2 => prop::sample::select(BYTES).prop_map(<[u8]>::to_vec),
        1 => any::<char>().prop_map(|c| c.to_string().into_bytes()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

/// The trigrams of `bytes`.
fn trigrams(bytes: &[u8]) -> HashSet<Gram> {
    bytes.windows(3).map(|w| [w[0], w[1], w[2]]).collect()
}

/// Returns true when the in-memory search finds a match of `query` in
/// `bytes` (an invalid query finds none).
fn matches(query: &Query, bytes: &[u8]) -> bool {
    let docs = Documents::new().with("f", bytes.to_vec());
    docs.files_with_matches(query, &Limits::new(), None)
        .is_ok_and(|found| !found.items().is_empty())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_plan_never_excludes_a_file_that_matches(query in query(), bytes in file()) {
        let plan = need(&query);
        prop_assert!(plan.size() <= super::MAX_NODES);
        if matches(&query, &bytes) {
            let grams = trigrams(&bytes);
            prop_assert!(
                plan.holds(&|g| grams.contains(g)),
                "{:?} matches in {:?} but the plan {:?} excludes it",
                query, String::from_utf8_lossy(&bytes), plan
            );
        }
    }

    #[test]
    fn a_literal_of_three_bytes_or_more_narrows(
        word in "[a-zA-Z0-9é日ſ_ ]{1,12}",
        case in any::<bool>(),
        whole in any::<bool>(),
    ) {
        // Without case, three bytes; with it, three characters (each of
        // their case variants is at least one byte).
        prop_assume!(if case { word.chars().count() >= 3 } else { word.len() >= 3 });
        let query = Query::literal(word).case_insensitive(case).whole_word(whole);
        prop_assert_ne!(need(&query), Need::Any);
    }
}

#[test]
fn a_literal_needs_each_of_its_trigrams() {
    let plan = need(&Query::literal("abcd"));
    assert_eq!(
        plan,
        Need::All(vec![Need::Gram(*b"abc"), Need::Gram(*b"bcd")])
    );
}

#[test]
fn an_alternation_needs_one_branch() {
    let plan = need(&Query::regex("foo|barx"));
    assert_eq!(
        plan,
        Need::AnyOf(vec![
            Need::Gram(*b"foo"),
            Need::All(vec![Need::Gram(*b"arx"), Need::Gram(*b"bar")]),
        ])
    );
    assert_eq!(need(&Query::literals(["foo", "ba"])), Need::Any);
}

#[test]
fn case_insensitive_needs_a_case_variant_of_each_trigram() {
    let plan = need(&Query::literal("kit").case_insensitive(true));
    // k, K or the Kelvin sign; i or I; t or T: any of 12 spellings.
    let Need::AnyOf(spellings) = &plan else {
        panic!("not an AnyOf: {plan:?}");
    };
    assert_eq!(spellings.len(), 12, "{plan:?}");
    assert!(spellings.contains(&Need::Gram(*b"KiT")));
}

#[test]
fn patterns_without_a_trigram_need_nothing() {
    for pattern in [r"\w+", "a.c", "ab?", "(?:abc)*", "[a-z]{3}", "^", ""] {
        assert_eq!(need(&Query::regex(pattern)), Need::Any, "{pattern}");
    }
    assert_eq!(need(&Query::regex("(")), Need::Any);
    assert_eq!(need(&Query::literal("")), Need::Any);
}

#[test]
fn repetitions_keep_their_body_and_optional_parts_their_strings() {
    assert_eq!(need(&Query::regex("(?:abc)+")), Need::Gram(*b"abc"));
    assert_eq!(
        need(&Query::regex("colou?r")),
        Need::AnyOf(vec![
            Need::All(vec![
                Need::Gram(*b"col"),
                Need::Gram(*b"lor"),
                Need::Gram(*b"olo"),
            ]),
            Need::All(vec![
                Need::Gram(*b"col"),
                Need::Gram(*b"lou"),
                Need::Gram(*b"olo"),
                Need::Gram(*b"our"),
            ]),
        ])
    );
}

#[test]
fn whole_words_do_not_trust_the_stand_ins_for_invalid_bytes() {
    // Under whole words, an invalid byte of the file is read as U+0000,
    // so this literal matches a file holding `ab\xFFcd`.
    let query = Query::literal("ab\u{0}cd").whole_word(true);
    assert!(matches(&query, b"ab\xFFcd"));
    assert_eq!(need(&query), Need::Any);
    let query = Query::literal("abc\u{FFFF}xyz").whole_word(true);
    assert!(matches(&query, b"abc\xF0\x9F\x98xyz"));
    assert_eq!(
        need(&query),
        Need::All(vec![Need::Gram(*b"abc"), Need::Gram(*b"xyz")])
    );
}

#[test]
fn plans_stay_bounded() {
    let many: Vec<String> = (0..500).map(|i| format!("word{i:04}")).collect();
    let plan = need(&Query::literals(many));
    assert!(plan.size() <= super::MAX_NODES);
    let long = "abcdefghij".repeat(200);
    let plan = need(&Query::literal(long).case_insensitive(true));
    assert!(plan.size() <= super::MAX_NODES && plan != Need::Any);
}
