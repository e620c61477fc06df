//! The sort of a search: fields with their order, and the tie-breaker that
//! makes it a total order, so that `search_after` neither repeats nor
//! skips a hit; and how two hits' sort values compare when hits of
//! several clusters are merged.

use std::cmp::Ordering;

use serde_json::{Value, json};

/// The direction of a sort field.
///
/// # Example
///
/// ```
/// use candor::opensearch::{Order, SortField};
/// assert_eq!(SortField::new("date", Order::Desc).order(), Order::Desc);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Smallest first.
    Asc,
    /// Largest first.
    Desc,
}

impl Order {
    fn as_str(self) -> &'static str {
        match self {
            Order::Asc => "asc",
            Order::Desc => "desc",
        }
    }
}

/// One field of a search's sort, with its order.
///
/// Documents that lack the field sort last in both orders (the engines'
/// default, `"missing": "_last"`), and a merge across clusters places them
/// last as well.
///
/// # Example
///
/// ```
/// use candor::opensearch::{Order, SortField};
/// let by_date = SortField::new("@timestamp", Order::Desc);
/// assert_eq!(by_date.field(), "@timestamp");
/// let by_score = SortField::score();
/// assert_eq!((by_score.field(), by_score.order()), ("_score", Order::Desc));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SortField {
    field: String,
    order: Order,
}

impl SortField {
    /// Sorts by `field` in `order`.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Order, SortField};
    /// assert_eq!(SortField::new("price", Order::Asc).field(), "price");
    /// ```
    #[must_use]
    pub fn new(field: impl Into<String>, order: Order) -> SortField {
        SortField {
            field: field.into(),
            order,
        }
    }

    /// Sorts by relevance, best first (`_score`, descending).
    ///
    /// # Example
    ///
    /// ```
    /// assert_eq!(candor::opensearch::SortField::score().field(), "_score");
    /// ```
    #[must_use]
    pub fn score() -> SortField {
        SortField::new("_score", Order::Desc)
    }

    /// The field's name.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Order, SortField};
    /// assert_eq!(SortField::new("id", Order::Asc).field(), "id");
    /// ```
    #[must_use]
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The field's order.
    ///
    /// # Example
    ///
    /// ```
    /// use candor::opensearch::{Order, SortField};
    /// assert_eq!(SortField::new("id", Order::Asc).order(), Order::Asc);
    /// ```
    #[must_use]
    pub fn order(&self) -> Order {
        self.order
    }

    pub(crate) fn to_json(&self) -> Value {
        json!({ self.field.clone(): { "order": self.order.as_str() } })
    }
}

/// The last sort field, which no two documents share, so that the sort is
/// a total order and `search_after` resumes exactly after the last hit.
///
/// - [`ShardDoc`](Self::ShardDoc): `_shard_doc`, the engine's own
///   tie-breaker within a point in time (Elasticsearch 7.12 and later,
///   OpenSearch 3.3 and later; see
///   <https://www.elastic.co/guide/en/elasticsearch/reference/current/paginate-search-results.html>).
///   It needs a point in time.
/// - [`Field`](Self::Field): a field the caller knows is unique per
///   document (an id kept as a keyword with doc values), for searches
///   without a point in time or engines without `_shard_doc`.
///
/// # Example
///
/// ```
/// use candor::opensearch::TieBreaker;
/// let unique = TieBreaker::Field("doc_id".into());
/// assert_ne!(unique, TieBreaker::ShardDoc);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TieBreaker {
    /// The engine's `_shard_doc`, ascending: only with a point in time.
    ShardDoc,
    /// A field unique per document, ascending.
    Field(String),
}

impl TieBreaker {
    pub(crate) fn to_json(&self) -> Value {
        match self {
            TieBreaker::ShardDoc => json!({ "_shard_doc": "asc" }),
            TieBreaker::Field(field) => json!({ field.clone(): { "order": "asc" } }),
        }
    }
}

/// Compares two hits' sort values, field by field, each in its order
/// (`orders` holds one order per value; the tie-breaker's is ascending).
///
/// Numbers compare by value, exactly across integers and floats; strings
/// by their UTF-8 bytes (how the engines sort keyword fields); `null`, a
/// missing value, sorts last in either order. Values of different kinds
/// (which one field's values never are in a consistent mapping) compare
/// by kind, so that the order stays total.
pub(crate) fn compare_sort_values(a: &[Value], b: &[Value], orders: &[Order]) -> Ordering {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let order = orders.get(i).copied().unwrap_or(Order::Asc);
        let ordering = match (x, y) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Greater,
            (_, Value::Null) => Ordering::Less,
            _ => {
                let natural = compare_values(x, y);
                match order {
                    Order::Asc => natural,
                    Order::Desc => natural.reverse(),
                }
            }
        };
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    a.len().cmp(&b.len())
}

/// The engines write a double field's missing value, where it stands in
/// for ±infinity, as the string `"Infinity"` or `"-Infinity"`
/// (elastic/elasticsearch#24774): beside a number, it compares as that
/// infinity.
fn infinity(v: &Value) -> Option<f64> {
    match v.as_str()? {
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// A total order on JSON values: by kind (bool, number, string, array,
/// object), then by value; `"Infinity"` and `"-Infinity"` beside a
/// number compare as numbers.
fn compare_values(x: &Value, y: &Value) -> Ordering {
    // Every number serde_json holds is finite, so its float is on the
    // right side of either infinity.
    if let (Value::Number(a), Some(b)) = (x, infinity(y)) {
        return a.as_f64().unwrap_or(0.0).total_cmp(&b);
    }
    if let (Some(a), Value::Number(b)) = (infinity(x), y) {
        return a.total_cmp(&b.as_f64().unwrap_or(0.0));
    }
    fn kind(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Number(_) => 2,
            Value::String(_) => 3,
            Value::Array(_) => 4,
            Value::Object(_) => 5,
        }
    }
    match (x, y) {
        (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
        (Value::Number(a), Value::Number(b)) => compare_numbers(a, b),
        (Value::String(a), Value::String(b)) => a.as_bytes().cmp(b.as_bytes()),
        (Value::Array(a), Value::Array(b)) => {
            for (p, q) in a.iter().zip(b) {
                let o = compare_values(p, q);
                if o != Ordering::Equal {
                    return o;
                }
            }
            a.len().cmp(&b.len())
        }
        (Value::Object(a), Value::Object(b)) => {
            // By their canonical text: any fixed total order will do.
            let text = |m: &serde_json::Map<String, Value>| {
                let mut pairs: Vec<(String, String)> =
                    m.iter().map(|(k, v)| (k.clone(), v.to_string())).collect();
                pairs.sort();
                pairs
            };
            text(a).cmp(&text(b))
        }
        _ => kind(x).cmp(&kind(y)),
    }
}

/// An integer as serde_json holds it, widened.
fn integer(n: &serde_json::Number) -> Option<i128> {
    n.as_u64()
        .map(i128::from)
        .or_else(|| n.as_i64().map(i128::from))
}

/// Numbers by value: integers exactly, floats exactly against integers (a
/// float is split into its integer part, compared as an integer, and its
/// fraction), so that the order is transitive however the kinds mix.
fn compare_numbers(a: &serde_json::Number, b: &serde_json::Number) -> Ordering {
    match (integer(a), integer(b)) {
        (Some(i), Some(j)) => i.cmp(&j),
        (Some(i), None) => compare_int_float(i, b.as_f64().unwrap_or(0.0)),
        (None, Some(j)) => compare_int_float(j, a.as_f64().unwrap_or(0.0)).reverse(),
        (None, None) => a
            .as_f64()
            .unwrap_or(0.0)
            .total_cmp(&b.as_f64().unwrap_or(0.0)),
    }
}

/// `i` against the finite float `f`, exactly.
fn compare_int_float(i: i128, f: f64) -> Ordering {
    // Every integer serde_json holds is below 2^64 in magnitude.
    const LIMIT: f64 = 18_446_744_073_709_551_616.0; // 2^64
    if f >= LIMIT {
        return Ordering::Less;
    }
    if f <= -LIMIT {
        return Ordering::Greater;
    }
    let whole = f.trunc();
    // `whole` is an integer below 2^64 in magnitude: the cast is exact.
    match i.cmp(&(whole as i128)) {
        Ordering::Equal => 0.0f64.total_cmp(&(f - whole)),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_exactly_across_kinds() {
        let big = 9_007_199_254_740_993u64; // 2^53 + 1: not a float
        let cases = [
            (
                json!(big),
                json!(9_007_199_254_740_992.0),
                Ordering::Greater,
            ),
            (json!(-1), json!(-0.5), Ordering::Less),
            (json!(2), json!(2.0), Ordering::Equal),
            (json!(u64::MAX), json!(1e30), Ordering::Less),
            (json!(i64::MIN), json!(-1e30), Ordering::Greater),
            (json!(0.1), json!(0.2), Ordering::Less),
            (json!(3), json!(2.5), Ordering::Greater),
        ];
        for (a, b, expected) in cases {
            assert_eq!(compare_values(&a, &b), expected, "{a} vs {b}");
            assert_eq!(compare_values(&b, &a), expected.reverse(), "{b} vs {a}");
        }
    }

    #[test]
    fn a_double_field_s_missing_value_sorts_as_its_infinity() {
        // Descending, a missing double is "-Infinity": after every number.
        let desc = [Order::Desc];
        let v = |x: Value| [x];
        assert_eq!(
            compare_sort_values(&v(json!(5.0)), &v(json!("-Infinity")), &desc),
            Ordering::Less
        );
        assert_eq!(
            compare_sort_values(&v(json!(-1e300)), &v(json!("-Infinity")), &desc),
            Ordering::Less
        );
        // Ascending, "Infinity": after every number.
        let asc = [Order::Asc];
        assert_eq!(
            compare_sort_values(&v(json!(u64::MAX)), &v(json!("Infinity")), &asc),
            Ordering::Less
        );
        assert_eq!(
            compare_sort_values(&v(json!("Infinity")), &v(json!("Infinity")), &asc),
            Ordering::Equal
        );
        // Among strings (a keyword field), "Infinity" is a word.
        assert_eq!(
            compare_values(&json!("Apple"), &json!("Infinity")),
            Ordering::Less
        );
    }

    #[test]
    fn nulls_sort_last_in_either_order() {
        for order in [Order::Asc, Order::Desc] {
            let o = compare_sort_values(&[json!(null)], &[json!(5)], &[order]);
            assert_eq!(o, Ordering::Greater, "{order:?}");
        }
        let desc = compare_sort_values(&[json!(1)], &[json!(5)], &[Order::Desc]);
        assert_eq!(desc, Ordering::Greater);
        // Later fields decide ties.
        let tie = compare_sort_values(
            &[json!("a"), json!(2)],
            &[json!("a"), json!(1)],
            &[Order::Asc, Order::Asc],
        );
        assert_eq!(tie, Ordering::Greater);
    }
}
