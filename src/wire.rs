//! The wire layer: the decoder (`decode`) and the schema and guide
//! (`schema`). The serde shape itself is `envelope.rs`, shared with the
//! collector; a stream's wire shape is written by `json_stream.rs`.

mod decode;
mod schema;

pub use schema::{LLM_GUIDE, envelope_schema};
