//! Where a walk stands in each cluster: the cursor's resume key. Per
//! cluster, the point in time, the sort values of its last hit shown, how
//! many of its hits came before, and whether it is finished or failed.
//! The key is a JSON value (any JSON is a cursor key), one object per
//! cluster in the order the clusters were given.

use serde_json::{Map, Value};

use crate::error::Error;

/// Where one cluster stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClusterPosition {
    /// The point in time to search, the latest id the cluster returned.
    pub(crate) pit: Option<String>,
    /// The sort values of the cluster's last hit shown: the next request's
    /// `search_after`.
    pub(crate) after: Option<Vec<Value>>,
    /// How many of the cluster's hits came before: its share of the
    /// page's `start`.
    pub(crate) start: u64,
    pub(crate) status: Status,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    /// More hits may follow `after`.
    Open,
    /// Every hit of the cluster has been shown: it is not asked again.
    Done,
    /// The cluster failed on an earlier page (the reason): it is not
    /// asked again, and every later page says so, since the walk goes on
    /// without its hits.
    Failed(String),
}

impl ClusterPosition {
    /// A first page's position: nothing shown yet.
    pub(crate) fn first(pit: Option<String>) -> ClusterPosition {
        ClusterPosition {
            pit,
            after: None,
            start: 0,
            status: Status::Open,
        }
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(pit) = &self.pit {
            m.insert("pit".into(), Value::String(pit.clone()));
        }
        if let Some(after) = &self.after {
            m.insert("after".into(), Value::Array(after.clone()));
        }
        m.insert("start".into(), Value::from(self.start));
        match &self.status {
            Status::Open => {}
            Status::Done => {
                m.insert("done".into(), Value::Bool(true));
            }
            Status::Failed(reason) => {
                m.insert("failed".into(), Value::String(reason.clone()));
            }
        }
        Value::Object(m)
    }

    fn from_json(value: &Value) -> Result<ClusterPosition, Error> {
        let bad = || Error::malformed_cursor("its cluster position is not one this search wrote");
        let m = value.as_object().ok_or_else(bad)?;
        if m.keys()
            .any(|k| !matches!(k.as_str(), "pit" | "after" | "start" | "done" | "failed"))
        {
            return Err(bad());
        }
        let pit = match m.get("pit") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(bad()),
        };
        let after = match m.get("after") {
            None => None,
            Some(Value::Array(a)) => Some(a.clone()),
            Some(_) => return Err(bad()),
        };
        let start = m.get("start").and_then(Value::as_u64).ok_or_else(bad)?;
        let status = match (m.get("done"), m.get("failed")) {
            (None, None) => Status::Open,
            (Some(Value::Bool(true)), None) => Status::Done,
            (None, Some(Value::String(reason))) => Status::Failed(reason.clone()),
            _ => return Err(bad()),
        };
        Ok(ClusterPosition {
            pit,
            after,
            start,
            status,
        })
    }
}

/// The resume key of a walk over `positions` (one per cluster).
pub(crate) fn key_of(positions: &[ClusterPosition]) -> Value {
    Value::Array(positions.iter().map(ClusterPosition::to_json).collect())
}

/// The positions a resume key holds, for a walk over `clusters` clusters.
pub(crate) fn positions_of(key: &Value, clusters: usize) -> Result<Vec<ClusterPosition>, Error> {
    let items = key
        .as_array()
        .ok_or_else(|| Error::malformed_cursor("its resume key is not a list of clusters"))?;
    if items.len() != clusters {
        return Err(Error::malformed_cursor(format!(
            "it holds {} cluster positions, this search has {clusters} clusters",
            items.len()
        )));
    }
    items.iter().map(ClusterPosition::from_json).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn positions_round_trip_and_refuse_other_shapes() {
        let positions = vec![
            ClusterPosition::first(Some("pit-a".into())),
            ClusterPosition {
                pit: None,
                after: Some(vec![json!(1.5), json!("x"), json!(null)]),
                start: 20,
                status: Status::Done,
            },
            ClusterPosition {
                pit: Some("p".into()),
                after: None,
                start: 3,
                status: Status::Failed("no reply".into()),
            },
        ];
        let key = key_of(&positions);
        assert_eq!(positions_of(&key, 3).expect("own key"), positions);
        assert!(positions_of(&key, 2).is_err());
        for bad in [
            json!({}),
            json!([{"start": -1}]),
            json!([{"start": 1, "done": false}]),
            json!([{"start": 1, "extra": 1}]),
            json!([{"start": 1, "done": true, "failed": "x"}]),
            json!([{"start": 1, "after": "x"}]),
        ] {
            let n = bad.as_array().map_or(1, Vec::len);
            assert!(positions_of(&bad, n).is_err(), "{bad}");
        }
    }
}
