//! `JsonSchema` for `Bounded<T>` (feature `schemars`): the wire shape of
//! [`envelope_schema`](crate::envelope_schema), with `T`'s schema for the
//! items.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};

use crate::Bounded;

/// The schema is [`envelope_schema`](crate::envelope_schema) with the
/// item's schema from the generator (a `$ref` into its definitions when
/// the item type has a name).
///
/// # Example
///
/// ```
/// let schema = schemars::schema_for!(candor::Bounded<u32>);
/// let schema = schema.as_value();
/// assert_eq!(schema["required"][0], "complete");
/// assert_eq!(schema["properties"]["items"]["items"]["type"], "integer");
/// ```
impl<T: JsonSchema> JsonSchema for Bounded<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("Bounded_of_{}", T::schema_name()).into()
    }

    fn schema_id() -> Cow<'static, str> {
        format!("candor::Bounded<{}>", T::schema_id()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let item = generator.subschema_for::<T>().to_value();
        let mut envelope = crate::envelope_schema(item);
        // The generator writes `$schema` at the root it builds; a nested
        // one would not be a resource root.
        if let Some(map) = envelope.as_object_mut() {
            map.remove("$schema");
        }
        Schema::try_from(envelope).unwrap_or_default()
    }
}
